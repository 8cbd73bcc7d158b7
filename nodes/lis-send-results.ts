/**
 * lis-send-results: result items to the LIS (spec 4.3), exactly once, through
 * the journal. Failed and uncertain batches are held until an operator resends
 * or discards them: msg.topic "lis:resend" / "lis:discard", or the admin
 * endpoints under /lis-bridge/held. A batch of an operator's replay
 * (msg.astm.replay) is sent only as the replay's mode says (lib/replay).
 */
import { randomUUID } from 'node:crypto';
import type { Node, NodeAPI } from 'node-red';
import { type AttemptHooks, checkResults, type LisClient, resultsFrom } from '../lib/lis';
import { LisError, messageOf } from '../lib/errors';
import { batchOrigin, contextOf, ResultDelivery, resultKey } from '../lib/journal';
import { decideReplay, resentCount } from '../lib/replay';
import { readNodeSettings } from './shared/node-settings';
import { lisInfo, refuseMisconfigured, setupLisRequestNode, type LisNodeDef } from './shared/lis-request-node';
import { installHeldRoutes } from './shared/held-routes';
import { resentMessage, watchHeld } from './shared/held-watch';
import { StatusReporter, sharedTexts } from './shared/status';
import { replayOf, type ReplayOf } from './shared/replays';
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
    const { values, faults: errors } = readNodeSettings('lis-send-results', def as unknown as Record<string, unknown>);
    if (errors.length > 0) return refuseMisconfigured(RED, node, status, errors);
    const config = (def.lis ? RED.nodes.getNode(def.lis) : null) as LisConfigNode | null;
    // Read by a placement of held results (nodes/shared/hold-placement.ts): the LIS their order is asked of.
    Object.assign(node, { lisConfigId: def.lis || undefined });
    const held = watchHeld(RED, node, status, { warnAfterMs: values.heldWarnMinutes * 60_000, checkEveryMs: values.autoResendSeconds * 1000, autoResend: def.autoResend === true, client: () => config?.client });
    const ready = held.ready;

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
        const replay = replayOf(msg);
        if (replay) return replayBatch(d, msg, replay, client, hooks);
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
      { afterEach: () => held.show(), drainOnCloseMs: 10_000, endpoint: 'ResultAPI' },
    );

    async function resendCommand(d: ResultDelivery, msg: Msg, client: LisClient, hooks: AttemptHooks) {
      const started = Date.now();
      const { total, failures } = await d.resendSelected(client, msg.payload, 'message', hooks, ({ answer, batch }) => node.send(resentMessage(batch, answer.body, lisInfo(answer.info)) as never));
      if (failures.length > 0) throw new LisError(r('notResent', { failed: failures.length, count: total, failures: failures.join('; ') }), { code: 'HELD', errors: failures });
      return { send: null, elapsedMs: Date.now() - started };
    }

    /**
     * A result batch of an operator's replay: sent as its mode says
     * (lib/replay/decision), under a key of the replay's own, and reported.
     */
    async function replayBatch(d: ResultDelivery, msg: Msg, { run, mark }: ReplayOf, client: LisClient, hooks: AttemptHooks) {
      const batch = mark.batch ?? `${mark.message}#?`;
      const decision = decideReplay(checkResults(resultsFrom(msg.payload)), (item) => d.resultSeen(resultKey(item)), mark.mode);
      if (decision.send.length === 0) {
        run.decided(batch, decision, false);
        return { send: null, elapsedMs: 0 };
      }
      const replay = { id: mark.id, mode: mark.mode === 'all' ? ('all' as const) : ('new' as const), resent: resentCount(decision) };
      const outcome = await d.send(client, { key: `replay:${mark.id}:${batch}`, items: decision.send, context: contextOf(msg), replay }, hooks);
      run.decided(batch, decision, outcome.kind === 'delivered');
      if (outcome.kind === 'duplicate') return { send: null, elapsedMs: 0 };
      msg.payload = outcome.answer.body;
      msg.lis = { ...lisInfo(outcome.answer.info), batch: outcome.batch.key };
      return { send: msg, elapsedMs: outcome.answer.info.elapsedMs, warning: outcome.answer.warning };
    }

    async function discardCommand(d: ResultDelivery, msg: Msg) {
      await d.discardSelected(msg.payload, 'message', (batch) => node.warn(r('discardedBatch', { key: batch.key, samples: batch.samples.join(', ') })));
      return { send: null, elapsedMs: 0 };
    }

    node.on('close', (_removed: boolean, done: () => void) => {
      held.close();
      done();
    });
  }
  RED.nodes.registerType('lis-send-results', LisSendResults as never);
};
