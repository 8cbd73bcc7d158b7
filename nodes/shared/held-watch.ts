/**
 * A lis-send-results node's watch over its held batches: the journal opened
 * and its deliveries, the `n held` status kept current, one HELD error per
 * batch past the warning age, the opt-in resend of what provably never
 * reached the LIS (both a periodic check: nodes/shared/periodic.ts), and the
 * resends the admin routes ask for.
 */
import type { Node, NodeAPI } from 'node-red';
import type { LisClient } from '../../lib/lis';
import { type BatchRecord, heldDue, heldSummary, ResultDelivery } from '../../lib/journal';
import { LisError, messageOf } from '../../lib/errors';
import { registerSender } from './held-routes';
import { checkEveryMs, journalFor } from './journal';
import { lisInfo } from './lis-request-node';
import { periodic } from './periodic';
import { sharedTexts, type StatusReporter } from './status';
import type { Msg } from './types';

export interface HeldWatch {
  /** The node's deliveries once the journal is open (rejected when it cannot be). */
  ready: Promise<ResultDelivery>;
  /** Call after anything that may change what is held. */
  show(): void;
  close(): void;
}

export interface HeldWatchOptions {
  warnAfterMs: number;
  /** The check's interval (settings.js's lisBridge.checkEveryMs replaces it). */
  checkEveryMs: number;
  /** Resend, unasked, the batches that provably never left (off by default). */
  autoResend: boolean;
  /** The node's LIS client, when its lis-config is usable. */
  client: () => LisClient | undefined;
}

export function watchHeld(RED: NodeAPI, node: Node, status: StatusReporter, options: HeldWatchOptions): HeldWatch {
  const r = sharedTexts(RED, 'runtime');
  let delivery: ResultDelivery | undefined;
  let stopWatching: (() => void) | undefined;
  let unregister: (() => void) | undefined;
  let closed = false;
  let showing = false;

  const show = (now = Date.now()): void => {
    if (!delivery || closed) return;
    const held = delivery.held();
    if (held.length === 0) {
      // The last held batch was resent or discarded: say so instead of leaving "1 held" up.
      if (showing) status.noneHeld();
      showing = false;
      return;
    }
    status.held(held.length, heldDue(held, now, options.warnAfterMs, false).overdue);
    showing = true;
  };

  /** For the admin route and auto-resend: a node-originated send. */
  const resendOne = async (key: string, by: string): Promise<void> => {
    const d = await ready;
    const client = options.client();
    if (!client) throw new LisError(r('noClient'), { code: 'NOT_CONFIGURED' });
    try {
      const { answer, batch } = await d.resend(client, key, by, {});
      node.send(resentMessage(batch, answer.body, lisInfo(answer.info)) as never);
    } finally {
      show();
    }
  };

  /** Raises the age warning (once per batch) and, when asked to, resends what never reached the LIS; at `now`. */
  const check = async (now: number): Promise<void> => {
    // A round asked for before the journal is open waits for it (runChecksNow sees every deployed node).
    await ready.catch(() => undefined);
    if (!delivery || closed) return;
    const due = heldDue(delivery.held(), now, options.warnAfterMs, options.autoResend && options.client() !== undefined);
    for (const b of due.warn) {
      const minutes = Math.round((now - b.at) / 60_000);
      const err = new LisError(r('heldTooLong', { count: b.samples.length, samples: b.samples.join(', '), minutes, state: b.state, error: b.error?.message ?? 'no answer', key: b.key }), { code: 'HELD' });
      node.error(err, { topic: 'lis:held', payload: heldSummary(b), error: err.toMsgError() });
      await delivery.warned(b.key).catch(() => undefined);
    }
    if (due.resend.length === 0) return;
    for (const b of due.resend) if (!closed) await resendOne(b.key, 'auto-resend').catch(() => undefined);
    show(now);
  };
  const rounds = periodic(check, { everyMs: checkEveryMs(RED, options.checkEveryMs), onError: (err) => node.error(err) });

  const ready: Promise<ResultDelivery> = journalFor(RED).then((journal) => {
    delivery = new ResultDelivery(journal, node.id);
    if (closed) return delivery;
    stopWatching = journal.onChange(show);
    unregister = registerSender(node.id, { resend: resendOne });
    show();
    void rounds.run().catch((err: unknown) => node.error(err));
    return delivery;
  });
  ready.catch((err: unknown) => {
    const e = new LisError(r('journalUnavailableAtStart', { reason: messageOf(err) }), { code: 'JOURNAL' });
    status.failed(e);
    node.error(e, { payload: undefined, error: e.toMsgError() });
  });

  return {
    ready,
    show,
    close() {
      closed = true;
      rounds.stop();
      stopWatching?.();
      unregister?.();
    },
  };
}

/** The flow's message rebuilt for a resend, as the original send would have passed it on. */
export function resentMessage(batch: BatchRecord, body: unknown, info: ReturnType<typeof lisInfo>): Msg {
  return { ...batch.msg, payload: body, lis: { ...info, batch: batch.key, resent: true } } as Msg;
}
