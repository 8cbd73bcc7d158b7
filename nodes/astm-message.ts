/**
 * astm-message: E1394 / LIS2-A2 messages <-> lab events, in an analyzer's dialect.
 *
 * Inputs (told apart by shape, see the help):
 * - msg.topic "astm:message" with the bytes of a message (from astm-link);
 * - a LIS order after test-mapper (msg.payload with instrumentTests): download it;
 * - a sample number string (lis-get-order's "no order" output): answer "no information".
 * Outputs: 1 queries (one per sample), 2 patient results, 3 messages for the
 * analyzer (wire to astm-link), 4 QC, unassigned results and other messages.
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import type { Request, Response } from 'express';
import { PROFILES, findProfile, type DialectProfile } from '../lib/astm/dialects';
import { buildNoInformation, buildOrderMessage, labEventsOf, type LabOrder } from '../lib/astm/lab';
import { HostConversation, type ConversationAction, type ConversationRules } from '../lib/conversation/host-conversation';
import { LisError, invalidInput, messageOf } from '../lib/errors';
import { fail, refuseMisconfigured } from './shared/lis-request-node';
import { installRoutesOnce } from './shared/admin';
import { journalFor } from './shared/journal';
import { StatusReporter, sharedTexts } from './shared/status';
import { ASTM_MESSAGE_TOPIC, ASTM_SEND_TOPIC, type Done, type Msg, type Send } from './shared/types';

interface Def extends NodeDef {
  dialect?: string;
  timeZone?: string;
}

/** What a received message became: result batches sent on, and the samples it named. */
interface Translated {
  parts: number;
  samples: string[];
}

export = function register(RED: NodeAPI): void {
  const r = sharedTexts(RED, 'runtime');
  installRoutesOnce(RED, 'dialects', () => {
    const admin = RED.httpAdmin as unknown as { get: (path: string, ...h: unknown[]) => void };
    admin.get('/lis-bridge/dialects', RED.auth.needsPermission('lis.read'), (_req: Request, res: Response) => {
      res.json(PROFILES.map((p) => ({ id: p.id, label: p.label, vendor: p.vendor, model: p.model, transport: p.transport, queryDeadlineMs: p.queryDeadlineMs, orders: p.order !== undefined })));
    });
  });

  function AstmMessageNode(this: Node, def: Def) {
    RED.nodes.createNode(this, def);
    const node = this;
    const status = new StatusReporter(RED, node);
    const t = sharedTexts(RED, 'message');
    const profile = findProfile(def.dialect || 'generic-lis2a2');
    const timeZone = (def.timeZone ?? '').trim() || Intl.DateTimeFormat().resolvedOptions().timeZone;
    const problem = !profile
      ? `unknown dialect ${JSON.stringify(def.dialect)}`
      : !isTimeZone(timeZone)
        ? `unknown time zone ${JSON.stringify(timeZone)} (expected an IANA name such as Europe/Berlin)`
        : undefined;
    if (problem || !profile) return refuseMisconfigured(RED, node, status, [problem ?? 'no dialect']);
    const dialect: DialectProfile = profile;
    const conversation = new HostConversation<Msg>(conversationRules(dialect), {
      order: (order, at) => buildOrderMessage(order, dialect, { ...at, timeZone }),
      noInformation: (sample, at) => buildNoInformation(sample, dialect, { ...at, timeZone, queried: true }),
    });
    let timer: NodeJS.Timeout | undefined;
    let results = 0;
    const showCounts = () => node.status({ fill: 'green', shape: 'dot', text: t('counts', { q: conversation.counts.queries, r: results, o: conversation.counts.orders }) });
    node.status({ fill: 'green', shape: 'dot', text: dialect.label });

    node.on('input', (rawMsg, rawSend, rawDone) => {
      const msg = rawMsg as Msg;
      const send = rawSend as Send;
      const done = rawDone as Done;
      try {
        const now = Date.now();
        if (msg.topic === ASTM_MESSAGE_TOPIC) fromAnalyzerJournaled(msg, send, now);
        else if (isLabOrder(msg.payload)) perform(conversation.order(linkOf(msg), msg.payload, now, msg), msg, send);
        else if (typeof msg.payload === 'string') perform(conversation.noOrder(linkOf(msg), msg.payload.trim(), now, msg), msg, send);
        else throw invalidInput('not understood', ['msg.payload must be a received message (msg.topic "astm:message"), a LIS order with instrumentTests, or a sample number with no order']);
        showCounts();
        done();
      } catch (err) {
        fail(status, msg, err instanceof Error && !(err instanceof LisError) ? asInvalid(err) : err, done);
      }
    });

    /**
     * Tells the journal how many result batches a stored message made, so it
     * knows when all of them have reached lis-send-results (and a message that
     * could not be read is not replayed after a restart only to fail again).
     */
    function fromAnalyzerJournaled(msg: Msg, send: Send, now: number): void {
      const journalId = (msg.astm as { journalId?: unknown } | undefined)?.journalId;
      if (typeof journalId !== 'string') return void fromAnalyzer(msg, send, undefined, now);
      let made: Translated;
      try {
        made = fromAnalyzer(msg, send, journalId, now);
      } catch (err) {
        notePlanned(journalId, { parts: 0, samples: [] }, `not understood: ${messageOf(err)}`);
        throw err;
      }
      notePlanned(journalId, made);
    }

    let journal: ReturnType<typeof journalFor> | undefined;
    function notePlanned(journalId: string, made: Translated, note?: string): void {
      // Looked up once: the settings and the path do not change while the node runs.
      (journal ??= journalFor(RED))
        .then((j) => j.planned(journalId, made.parts, note, made.samples))
        .catch((err: unknown) => node.warn(r('notNotedTranslated', { id: journalId, reason: messageOf(err) })));
    }

    /** Returns the number of result batches sent on (each tagged with its part number when the message is journaled), and the samples named. */
    function fromAnalyzer(msg: Msg, send: Send, journalId: string | undefined, now: number): Translated {
      if (!Buffer.isBuffer(msg.payload)) throw invalidInput('not decoded', ['an astm:message must carry the message bytes in msg.payload']);
      const replay = (msg.astm as { replay?: unknown } | undefined)?.replay === true;
      const withAstm = (extra: Record<string, unknown>): Msg => Object.assign(RED.util.cloneMessage(msg) as Msg, { astm: { ...(msg.astm as object), dialect: dialect.id, ...extra } });
      let parts = 0;
      const samples = new Set<string>();
      for (const event of labEventsOf(msg.payload, dialect, timeZone)) {
        if (event.type === 'query') {
          event.samples.forEach((q) => samples.add(q.sampleNumber));
          perform(conversation.query(linkOf(msg), event, now, msg, replay), msg, send);
        } else if (event.type === 'results') {
          results += event.results.length;
          event.results.forEach((r) => samples.add(r.SampleNumber));
          const out = Object.assign(withAstm({ problems: event.problems }), { payload: event.results, topic: 'results' });
          const tests = conversation.orderedTests(event.results.map((r) => r.SampleNumber), now);
          if (tests.length > 0) out.orderedTests = tests;
          if (journalId !== undefined) out.journal = { message: journalId, part: parts };
          parts++;
          if (event.problems.length > 0) node.warn(r('resultProblems', { problems: event.problems.join('; ') }));
          send([null, out, null, null]);
        } else {
          if (event.type === 'unassigned') node.warn(r('unassigned', { n: event.items.length, reasons: event.items.map((i) => i.reason).join('; ') }));
          const payload = event.type === 'other' ? { reason: event.reason, text: msg.payload.toString(dialect.charset === 'utf8' ? 'utf8' : 'latin1') } : event.type === 'qc' ? event.results : event.items;
          send([null, null, null, Object.assign(withAstm({}), { topic: event.type, payload })]);
        }
      }
      return { parts, samples: [...samples] };
    }

    /** Carries out what the conversation decided; `msg` is the input being handled (answers held earlier leave on their own). */
    function perform(actions: ConversationAction<Msg>[], msg: Msg, send: Send): void {
      for (const a of actions) {
        const sendFor = a.type !== 'warn' && a.context !== msg ? (m: unknown) => node.send(m as never) : send;
        switch (a.type) {
          case 'ask':
            sendFor([Object.assign(RED.util.cloneMessage(a.context) as Msg, { payload: a.sample.sampleNumber, topic: 'query', astm: { ...(a.context.astm as object), dialect: dialect.id, query: a.sample } }), null, null, null]);
            break;
          case 'unanswerable':
            sendFor([null, null, null, Object.assign(RED.util.cloneMessage(a.context) as Msg, { topic: 'query', payload: a.samples })]);
            break;
          case 'send':
            a.context.payload = Buffer.from(a.text, dialect.charset === 'utf8' ? 'utf8' : 'latin1');
            a.context.topic = ASTM_SEND_TOPIC;
            sendFor([null, null, a.context, null]);
            break;
          case 'refused':
            throw new LisError(r('orderRefused', { sample: a.sampleNumber, reason: a.reason }), { code: 'ORDER_REFUSED' });
          case 'warn':
            node.warn(a.text);
            break;
        }
      }
      arm();
    }

    /** One timer, at the conversation's next deadline. */
    function arm(): void {
      if (timer) clearTimeout(timer);
      timer = undefined;
      const next = conversation.nextDeadline(Date.now());
      if (next !== undefined) timer = setTimeout(() => perform(conversation.tick(Date.now()), {} as Msg, () => undefined), Math.max(0, next - Date.now()));
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

/** What the conversation needs of a dialect. */
function conversationRules(d: DialectProfile): ConversationRules {
  return { id: d.id, label: d.label, queryDeadlineMs: d.queryDeadlineMs, acceptsUnsolicitedOrders: d.acceptsUnsolicitedOrders, canDownload: d.order !== undefined, anonymousNoInformation: d.noOrder?.form === 'terminator' };
}

function isLabOrder(payload: unknown): payload is LabOrder {
  return typeof payload === 'object' && payload !== null && Array.isArray((payload as { instrumentTests?: unknown }).instrumentTests) && typeof (payload as { SampleNumber?: unknown }).SampleNumber === 'string';
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Decoding and building errors name what was wrong; they are the input's fault, not the node's. */
function asInvalid(err: Error): LisError {
  return new LisError(err.message, { code: 'INVALID_INPUT' });
}
