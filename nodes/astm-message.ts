/**
 * astm-message: E1394 / LIS2-A2 messages <-> lab events, in an analyzer's dialect
 * (lib/astm/host.ts, with the host conversation of lib/conversation).
 *
 * Inputs (told apart by shape, see the help):
 * - msg.topic "astm:message" with the bytes of a message (from astm-link);
 * - a LIS order after test-mapper (msg.payload with instrumentTests): download it;
 * - a sample number string (lis-get-order's "no order" output): answer "no information".
 * Outputs: 1 queries (one per sample), 2 patient results, 3 messages for the
 * analyzer (wire to astm-link), 4 QC, unassigned results and other messages.
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { findProfile } from '../lib/astm/dialects';
import { AstmHost, hostSettingsProblem, isLabOrder, type HostOutput } from '../lib/astm/host';
import { LisError, invalidInput, messageOf } from '../lib/errors';
import { fail, refuseMisconfigured } from './shared/lis-request-node';
import { installDialectRoutes } from './shared/dialect-routes';
import { journalFor } from './shared/journal';
import { StatusReporter, sharedTexts } from './shared/status';
import { ASTM_MESSAGE_TOPIC, ASTM_SEND_TOPIC, type Done, type Msg, type Send } from './shared/types';

interface Def extends NodeDef {
  dialect?: string;
  timeZone?: string;
}

export = function register(RED: NodeAPI): void {
  const r = sharedTexts(RED, 'runtime');
  installDialectRoutes(RED);

  function AstmMessageNode(this: Node, def: Def) {
    RED.nodes.createNode(this, def);
    const node = this;
    const status = new StatusReporter(RED, node);
    const t = sharedTexts(RED, 'message');
    const dialectId = def.dialect || 'generic-lis2a2';
    const timeZone = (def.timeZone ?? '').trim() || Intl.DateTimeFormat().resolvedOptions().timeZone;
    const problem = hostSettingsProblem(dialectId, timeZone);
    if (problem) return refuseMisconfigured(RED, node, status, [problem]);
    const host = new AstmHost<Msg>(findProfile(dialectId)!, timeZone);
    const conversation = host.conversation;
    const journal = journalFor(RED);
    let timer: NodeJS.Timeout | undefined;
    let results = 0;
    node.status({ fill: 'green', shape: 'dot', text: host.dialect.label });

    node.on('input', (rawMsg, rawSend, rawDone) => {
      const msg = rawMsg as Msg;
      const send = rawSend as Send;
      const done = rawDone as Done;
      try {
        const now = Date.now();
        if (msg.topic === ASTM_MESSAGE_TOPIC) fromAnalyzer(msg, send, now);
        else if (isLabOrder(msg.payload)) perform(conversation.order(linkOf(msg), msg.payload, now, msg), msg, send);
        else if (typeof msg.payload === 'string') perform(conversation.noOrder(linkOf(msg), msg.payload.trim(), now, msg), msg, send);
        else throw invalidInput('not understood', ['msg.payload must be a received message (msg.topic "astm:message"), a LIS order with instrumentTests, or a sample number with no order']);
        node.status({ fill: 'green', shape: 'dot', text: t('counts', { q: conversation.counts.queries, r: results, o: conversation.counts.orders }) });
        done();
      } catch (err) {
        // Decoding and building errors name what was wrong; they are the input's fault, not the node's.
        fail(status, msg, err instanceof Error && !(err instanceof LisError) ? new LisError(err.message, { code: 'INVALID_INPUT' }) : err, done);
      }
    });

    /**
     * A stored message also tells the journal how many result batches it made and
     * which samples it named, so the journal knows when all reached lis-send-results
     * (and a message that could not be read is not replayed only to fail again).
     */
    function fromAnalyzer(msg: Msg, send: Send, now: number): void {
      if (!Buffer.isBuffer(msg.payload)) throw invalidInput('not decoded', ['an astm:message must carry the message bytes in msg.payload']);
      const astm = (msg.astm ?? {}) as { journalId?: unknown; replay?: unknown };
      const journalId = typeof astm.journalId === 'string' ? astm.journalId : undefined;
      const note = (parts: number, samples: string[], why?: string) =>
        journal.then((j) => j.planned(journalId!, parts, why, samples)).catch((err: unknown) => node.warn(r('notNotedTranslated', { id: journalId!, reason: messageOf(err) })));
      let read;
      try {
        read = host.read(msg.payload, linkOf(msg), now, msg, astm.replay === true);
      } catch (err) {
        if (journalId !== undefined) void note(0, [], `not understood: ${messageOf(err)}`);
        throw err;
      }
      perform(read.outputs, msg, send, journalId);
      if (journalId !== undefined) void note(read.parts, read.samples);
    }

    /** Carries out what the host decided; `msg` is the input being handled (answers held earlier leave on their own). */
    function perform(outputs: HostOutput<Msg>[], msg: Msg, send: Send, journalId?: string): void {
      const copy = (extra: Record<string, unknown>): Msg => Object.assign(RED.util.cloneMessage(msg) as Msg, { astm: { ...(msg.astm as object), dialect: host.dialect.id, ...extra } });
      for (const a of outputs) {
        const sendFor = 'context' in a && a.context !== msg ? (m: unknown) => node.send(m as never) : send;
        switch (a.type) {
          case 'ask':
            sendFor([Object.assign(RED.util.cloneMessage(a.context) as Msg, { payload: a.sample.sampleNumber, topic: 'query', astm: { ...(a.context.astm as object), dialect: host.dialect.id, query: a.sample } }), null, null, null]);
            break;
          case 'unanswerable':
            sendFor([null, null, null, Object.assign(RED.util.cloneMessage(a.context) as Msg, { topic: 'query', payload: a.samples })]);
            break;
          case 'send':
            Object.assign(a.context, { payload: host.bytes(a.text), topic: ASTM_SEND_TOPIC });
            sendFor([null, null, a.context, null]);
            break;
          case 'refused':
            throw new LisError(r('orderRefused', { sample: a.sampleNumber, reason: a.reason }), { code: 'ORDER_REFUSED' });
          case 'warn':
            node.warn(a.text);
            break;
          case 'results': {
            results += a.results.length;
            if (a.problems.length > 0) node.warn(r('resultProblems', { problems: a.problems.join('; ') }));
            const out = Object.assign(copy({ problems: a.problems }), { payload: a.results, topic: 'results' });
            if (a.orderedTests.length > 0) out.orderedTests = a.orderedTests;
            if (journalId !== undefined) out.journal = { message: journalId, part: a.part };
            send([null, out, null, null]);
            break;
          }
          case 'aside':
            if (a.topic === 'unassigned') node.warn(r('unassigned', { n: a.count, reasons: a.reasons.join('; ') }));
            send([null, null, null, Object.assign(copy({}), { topic: a.topic, payload: a.payload })]);
            break;
        }
      }
      // One timer, at the conversation's next deadline (a held "no information" answer may leave then).
      if (timer) clearTimeout(timer);
      const next = conversation.nextDeadline(Date.now());
      timer = next === undefined ? undefined : setTimeout(() => perform(conversation.tick(Date.now()), {} as Msg, () => undefined), Math.max(0, next - Date.now()));
    }

    node.on('close', (_removed: boolean, done: () => void) => {
      if (timer) clearTimeout(timer);
      conversation.close();
      done();
    });
  }

  RED.nodes.registerType('astm-message', AstmMessageNode as never);
};

/** The link a message came over: its TCP session, or the one serial line. */
function linkOf(msg: Msg): string {
  const session = msg._session as { id?: unknown } | undefined;
  return session && session.id !== undefined ? String(session.id) : 'line';
}
