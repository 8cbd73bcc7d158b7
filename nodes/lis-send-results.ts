/**
 * lis-send-results: result items to the LIS (spec 4.3), exactly once, through
 * the journal. Failed and uncertain batches are held until an operator resends
 * or discards them: msg.topic "lis:resend" / "lis:discard", or the admin
 * endpoints under /lis-bridge/held.
 */
import { randomUUID } from 'node:crypto';
import type { Node, NodeAPI } from 'node-red';
import { resultsFrom } from '../lib/lis/inputs';
import { LisError, messageOf } from '../lib/errors';
import type { LisClient } from '../lib/lis/client';
import type { AttemptHooks } from '../lib/lis/retry';
import { ResultDelivery } from '../lib/journal/delivery';
import { batchOrigin, contextOf, heldDue, heldSummary } from '../lib/journal/held';
import type { BatchRecord, ResultJournal } from '../lib/journal/journal';
import { readNodeSettings } from '../lib/settings/node-settings';
import { lisInfo, refuseMisconfigured, setupLisRequestNode, type LisNodeDef } from './shared/lis-request-node';
import { installHeldRoutes, registerSender } from './shared/held-routes';
import { journalFor } from './shared/journal';
import { StatusReporter, sharedTexts } from './shared/status';
import { DISCARD_TOPIC, RESEND_TOPIC, type LisConfigNode, type Msg } from './shared/types';

interface Def extends LisNodeDef {
  /** Send again, unasked, the held batches that provably never reached the LIS (connection refused). Off by default. */
  autoResend?: boolean;
  autoResendSeconds?: string | number;
  heldWarnMinutes?: string | number;
}

export = function register(RED: NodeAPI): void {
  const r = sharedTexts(RED, 'runtime');
  installHeldRoutes(RED);

  function LisSendResults(this: Node, def: Def) {
    RED.nodes.createNode(this, def);
    const node = this;
    const status = new StatusReporter(RED, node);
    const { values, errors } = readNodeSettings('lis-send-results', def as unknown as Record<string, unknown>);
    if (errors.length > 0) return refuseMisconfigured(RED, node, status, errors);
    const config = (def.lis ? RED.nodes.getNode(def.lis) : null) as LisConfigNode | null;
    let delivery: ResultDelivery | undefined;
    let stopWatching: (() => void) | undefined;
    let unregister: (() => void) | undefined;
    let timer: NodeJS.Timeout | undefined;
    let closed = false;

    const ready: Promise<ResultDelivery> = journalFor(RED).then((journal) => {
      delivery = new ResultDelivery(journal, node.id);
      if (closed) return delivery;
      stopWatching = journal.onChange(showHeld);
      unregister = registerSender(node.id, { resend: (key, by) => resendOne(key, by) });
      showHeld();
      void checkHeld(journal);
      timer = setInterval(() => void checkHeld(journal), values.autoResendSeconds * 1000);
      timer.unref();
      return delivery;
    });
    ready.catch((err: unknown) => {
      const e = new LisError(r('journalUnavailableAtStart', { reason: messageOf(err) }), { code: 'JOURNAL' });
      status.failed(e);
      node.error(e, { payload: undefined, error: e.toMsgError() });
    });

    setupLisRequestNode(
      RED,
      node,
      def,
      async (msg, { client, hooks }) => {
        const d = await ready.catch((err: unknown) => {
          throw new LisError(r('journalUnavailable', { reason: messageOf(err) }), { code: 'JOURNAL' });
        });
        if (msg.topic === RESEND_TOPIC) return resendCommand(d, msg, client, hooks);
        if (msg.topic === DISCARD_TOPIC) return discardCommand(d, msg);
        const outcome = await d.send(
          client,
          { ...batchOrigin(msg.journal, node.id, randomUUID), items: resultsFrom(msg.payload), context: contextOf(msg) },
          hooks,
        );
        if (outcome.kind === 'duplicate') {
          // A replayed message whose batch was handed over before the restart.
          node.warn(r('duplicateBatch', { key: outcome.batch.key, samples: outcome.batch.samples.join(', '), state: outcome.batch.state }));
          return { send: null, elapsedMs: 0 };
        }
        msg.payload = outcome.answer.body;
        msg.lis = { ...lisInfo(outcome.answer.info), batch: outcome.batch.key };
        return { send: msg, elapsedMs: outcome.answer.info.elapsedMs, warning: outcome.answer.warning };
      },
      // A redeploy or stop lets the batches at the LIS get their answer (Node-RED waits 15 s for a node to close).
      { afterEach: () => showHeld(), drainOnCloseMs: 10_000 },
    );

    async function resendCommand(d: ResultDelivery, msg: Msg, client: LisClient, hooks: AttemptHooks) {
      const started = Date.now();
      const { total, failures } = await d.resendSelected(client, msg.payload, 'message', hooks, ({ answer, batch }) => node.send(resentMessage(batch, answer.body, lisInfo(answer.info)) as never));
      if (failures.length > 0) throw new LisError(r('notResent', { failed: failures.length, total, failures: failures.join('; ') }), { code: 'HELD', errors: failures });
      return { send: null, elapsedMs: Date.now() - started };
    }

    async function discardCommand(d: ResultDelivery, msg: Msg) {
      await d.discardSelected(msg.payload, 'message', (batch) => node.warn(r('discardedBatch', { key: batch.key, samples: batch.samples.join(', ') })));
      return { send: null, elapsedMs: 0 };
    }

    /** For the admin endpoint and auto-resend: a node-originated send. */
    async function resendOne(key: string, by: string): Promise<void> {
      const d = await ready;
      if (!config?.client) throw new LisError(r('noClient'), { code: 'NOT_CONFIGURED' });
      try {
        const { answer, batch } = await d.resend(config.client, key, by, {});
        node.send(resentMessage(batch, answer.body, lisInfo(answer.info)) as never);
      } finally {
        showHeld();
      }
    }

    let showingHeld = false;
    function showHeld(): void {
      if (!delivery || closed) return;
      const held = delivery.held();
      if (held.length === 0) {
        // The last held batch was resent or discarded: say so instead of leaving "1 held" up.
        if (showingHeld) status.noneHeld();
        showingHeld = false;
        return;
      }
      status.held(held.length, heldDue(held, Date.now(), values.heldWarnMinutes * 60_000, false).overdue);
      showingHeld = true;
    }

    /** Raises the age warning (once per batch) and, when asked to, resends what never reached the LIS. */
    async function checkHeld(journal: ResultJournal): Promise<void> {
      if (!delivery || closed) return;
      const due = heldDue(delivery.held(), Date.now(), values.heldWarnMinutes * 60_000, def.autoResend === true && config?.client !== undefined);
      for (const b of due.warn) {
        const minutes = Math.round((Date.now() - b.at) / 60_000);
        const err = new LisError(r('heldTooLong', { samples: b.samples.join(', '), minutes, state: b.state, error: b.error?.message ?? 'no answer', key: b.key }), { code: 'HELD' });
        node.error(err, { topic: 'lis:held', payload: heldSummary(b), error: err.toMsgError() });
        await journal.warned(b.key).catch(() => undefined);
      }
      if (due.resend.length === 0) return;
      for (const b of due.resend) if (!closed) await resendOne(b.key, 'auto-resend').catch(() => undefined);
      showHeld();
    }

    node.on('close', (_removed: boolean, done: () => void) => {
      closed = true;
      if (timer) clearInterval(timer);
      stopWatching?.();
      unregister?.();
      done();
    });
  }
  RED.nodes.registerType('lis-send-results', LisSendResults as never);
};

/** The flow's message rebuilt for a resend, as the original send would have passed it on. */
function resentMessage(batch: BatchRecord, body: unknown, info: ReturnType<typeof lisInfo>): Msg {
  return { ...batch.msg, payload: body, lis: { ...info, batch: batch.key, resent: true } } as Msg;
}
