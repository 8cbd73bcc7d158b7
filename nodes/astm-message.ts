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
import { decodeMessage, splitMessages } from '../lib/astm/records';
import { PROFILES, findProfile, type DialectProfile } from '../lib/astm/dialects';
import { AnswerOrder, QueryBook, buildNoInformation, buildOrderMessage, toLabEvents, type LabEvent, type LabOrder } from '../lib/astm/lab';
import { LisError, invalidInput } from '../lib/lis/errors';
import { fail } from './shared/lis-request-node';
import { installRoutesOnce } from './shared/admin';
import { journalFor } from './shared/journal';
import { StatusReporter, sharedTexts } from './shared/status';
import { ASTM_MESSAGE_TOPIC, ASTM_SEND_TOPIC, type Done, type Msg, type Send } from './shared/types';

interface Def extends NodeDef {
  dialect?: string;
  timeZone?: string;
}

/** How long the LIS test IDs of a downloaded order are kept, to tell the test-mapper what was ordered. */
const ORDERED_RETAIN_MS = 24 * 60 * 60_000;
const ORDERED_MAX = 10_000;

/** What a received message became: result batches sent on, and the samples it named. */
interface Translated {
  parts: number;
  samples: string[];
}

export = function register(RED: NodeAPI): void {
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
    if (problem || !profile) {
      const err = new LisError(`astm-message: ${problem}`, { code: 'NOT_CONFIGURED' });
      status.failed(err);
      node.error(err, { payload: undefined, error: err.toMsgError() });
      node.on('input', (msg, _send, done) => fail(status, msg as Msg, err, done as Done));
      return;
    }
    const dialect: DialectProfile = profile;
    const book = new QueryBook(dialect);
    // "No information" answers that name no sample wait until their query is the oldest open one on their link.
    const anonymousNoInfo = dialect.noOrder?.form === 'terminator';
    const answerOrder = new AnswerOrder(dialect.queryDeadlineMs);
    const held: Array<{ link: string; sample: string; msg: Msg; text: string }> = [];
    let releaseTimer: NodeJS.Timeout | undefined;
    const ordered = new Map<string, { tests: string[]; at: number }>();
    const counts = { queries: 0, results: 0, orders: 0 };
    const showCounts = () => node.status({ fill: 'green', shape: 'dot', text: t('counts', { q: counts.queries, r: counts.results, o: counts.orders }) });
    node.status({ fill: 'green', shape: 'dot', text: dialect.label });

    node.on('input', (rawMsg, rawSend, rawDone) => {
      const msg = rawMsg as Msg;
      const send = rawSend as Send;
      const done = rawDone as Done;
      try {
        if (msg.topic === ASTM_MESSAGE_TOPIC) fromAnalyzerJournaled(msg, send);
        else if (isLabOrder(msg.payload)) downloadOrder(msg, msg.payload, send);
        else if (typeof msg.payload === 'string') answerNoOrder(msg, msg.payload.trim(), send);
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
    function fromAnalyzerJournaled(msg: Msg, send: Send): void {
      const journalId = (msg.astm as { journalId?: unknown } | undefined)?.journalId;
      if (typeof journalId !== 'string') return void fromAnalyzer(msg, send, undefined);
      let made: Translated;
      try {
        made = fromAnalyzer(msg, send, journalId);
      } catch (err) {
        notePlanned(journalId, { parts: 0, samples: [] }, `not understood: ${err instanceof Error ? err.message : String(err)}`);
        throw err;
      }
      notePlanned(journalId, made);
    }

    let journal: ReturnType<typeof journalFor> | undefined;
    function notePlanned(journalId: string, made: Translated, note?: string): void {
      // Looked up once: the settings and the path do not change while the node runs.
      (journal ??= journalFor(RED))
        .then((j) => j.planned(journalId, made.parts, note, made.samples))
        .catch((err: unknown) => node.warn(`journal: could not note message ${journalId} as translated (${err instanceof Error ? err.message : String(err)}); it may be replayed after a restart, and lis-send-results will not send its results twice`));
    }

    /** Returns the number of result batches sent on (each tagged with its part number when the message is journaled), and the samples named. */
    function fromAnalyzer(msg: Msg, send: Send, journalId: string | undefined): Translated {
      const replay = (msg.astm as { replay?: unknown } | undefined)?.replay === true;
      let parts = 0;
      const samples = new Set<string>();
      if (!Buffer.isBuffer(msg.payload)) throw invalidInput('not decoded', ['an astm:message must carry the message bytes in msg.payload']);
      const text = msg.payload.toString(dialect.charset === 'utf8' ? 'utf8' : 'latin1');
      const events: LabEvent[] = [];
      for (const part of splitMessages(text)) events.push(...toLabEvents(decodeMessage(part), dialect, { timeZone }));
      const now = Date.now();
      for (const event of events) {
        switch (event.type) {
          case 'query':
            for (const q of event.samples) samples.add(q.sampleNumber);
            if (replay) {
              // The analyzer gave up waiting for this answer long ago; an order now would arrive unasked.
              node.warn(`replayed message: the query for ${event.samples.map((q) => q.sampleNumber).join(', ')} is not answered again`);
              break;
            }
            book.onQuery(event, now);
            if (event.cancel) event.samples.forEach((q) => answerOrder.settled(linkOf(msg), q.sampleNumber));
            else answerOrder.queried(linkOf(msg), event.samples.map((q) => q.sampleNumber), now);
            if (event.cancel) {
              node.warn(`the analyzer cancelled its query for ${event.samples.map((s) => s.sampleNumber).join(', ')}: an order arriving now is not sent`);
              break;
            }
            if (!dialect.order) {
              // Asking the LIS would only end in an order this dialect cannot write.
              node.warn(`${dialect.label} has no documented order download: query for ${event.samples.map((s) => s.sampleNumber).join(', ')} passed to output 4`);
              send([null, null, null, Object.assign(RED.util.cloneMessage(msg) as Msg, { topic: 'query', payload: event.samples })]);
              break;
            }
            for (const sample of event.samples) {
              counts.queries++;
              const out = RED.util.cloneMessage(msg) as Msg;
              out.payload = sample.sampleNumber;
              out.topic = 'query';
              out.astm = { ...(msg.astm as object), dialect: dialect.id, query: sample };
              send([out, null, null, null]);
            }
            break;
          case 'results': {
            counts.results += event.results.length;
            for (const r of event.results) samples.add(r.SampleNumber);
            const out = RED.util.cloneMessage(msg) as Msg;
            out.payload = event.results;
            out.topic = 'results';
            out.astm = { ...(msg.astm as object), dialect: dialect.id, problems: event.problems };
            const tests = orderedTestsFor(event.results.map((r) => r.SampleNumber), now);
            if (tests.length > 0) out.orderedTests = tests;
            if (journalId !== undefined) out.journal = { message: journalId, part: parts };
            parts++;
            if (event.problems.length > 0) node.warn(`results: ${event.problems.join('; ')}`);
            send([null, out, null, null]);
            break;
          }
          case 'qc':
          case 'unassigned':
          case 'other': {
            const out = RED.util.cloneMessage(msg) as Msg;
            out.topic = event.type;
            out.payload = event.type === 'other' ? { reason: event.reason, text } : event.type === 'qc' ? event.results : event.items;
            out.astm = { ...(msg.astm as object), dialect: dialect.id };
            if (event.type === 'unassigned') {
              node.warn(`${event.items.length} result(s) belong to no sample and were not sent to the LIS: ${event.items.map((i) => i.reason).join('; ')}`);
            }
            send([null, null, null, out]);
            break;
          }
        }
      }
      return { parts, samples: [...samples] };
    }

    function downloadOrder(msg: Msg, order: LabOrder, send: Send): void {
      const now = Date.now();
      const decision = book.decide(order.SampleNumber, now);
      if (!decision.send) throw new LisError(`order for sample ${order.SampleNumber} not sent: ${decision.reason}`, { code: 'ORDER_REFUSED' });
      if (!decision.queried && decision.note) node.warn(decision.note);
      const text = buildOrderMessage(order, dialect, decision.queried ? { now: new Date(now), timeZone, queried: true, query: decision.query } : { now: new Date(now), timeZone, queried: false });
      book.onAnswered(order.SampleNumber, now);
      remember(order, now);
      counts.orders++;
      toAnalyzer(msg, text, send);
      answerOrder.settled(linkOf(msg), order.SampleNumber);
      releaseHeld();
    }

    function answerNoOrder(msg: Msg, sampleNumber: string, send: Send): void {
      const now = Date.now();
      const decision = book.decide(sampleNumber, now);
      if (!decision.send || !decision.queried) {
        node.warn(`no "no information" answer for sample ${sampleNumber}: ${decision.send ? 'it has no open query' : decision.reason}`);
        return;
      }
      const text = buildNoInformation(sampleNumber, dialect, { now: new Date(now), timeZone, queried: true, query: decision.query });
      book.onAnswered(sampleNumber, now);
      const link = linkOf(msg);
      if (anonymousNoInfo && !answerOrder.isOldest(link, sampleNumber, now)) {
        held.push({ link, sample: sampleNumber, msg, text });
        armRelease();
        return;
      }
      toAnalyzer(msg, text, send);
      answerOrder.settled(link, sampleNumber);
      releaseHeld();
    }

    /** Sends held "no information" answers whose query has become the oldest open one; drops those past their deadline. */
    function releaseHeld(): void {
      for (let progress = true; progress; ) {
        progress = false;
        const now = Date.now();
        for (let i = 0; i < held.length; i++) {
          const h = held[i]!;
          if (!answerOrder.isOpen(h.link, h.sample, now)) {
            held.splice(i, 1);
            node.warn(`"no information" for sample ${h.sample} not sent: an earlier query on the same link was still unanswered when the analyzer's ${dialect.queryDeadlineMs} ms ran out, and the answer names no sample`);
            progress = true;
            break;
          }
          if (answerOrder.isOldest(h.link, h.sample, now)) {
            held.splice(i, 1);
            // Its input message completed long ago: a node-originated send.
            toAnalyzer(h.msg, h.text, (m) => node.send(m as never));
            answerOrder.settled(h.link, h.sample);
            progress = true;
            break;
          }
        }
      }
      armRelease();
    }

    function armRelease(): void {
      if (releaseTimer) clearTimeout(releaseTimer);
      releaseTimer = undefined;
      if (held.length === 0) return;
      const next = answerOrder.nextDeadline(Date.now());
      if (next !== undefined) releaseTimer = setTimeout(releaseHeld, Math.max(0, next - Date.now()) + 1);
    }

    node.on('close', (_removed: boolean, done: () => void) => {
      if (releaseTimer) clearTimeout(releaseTimer);
      held.length = 0;
      done();
    });

    function toAnalyzer(msg: Msg, text: string, send: Send): void {
      msg.payload = Buffer.from(text, dialect.charset === 'utf8' ? 'utf8' : 'latin1');
      msg.topic = ASTM_SEND_TOPIC;
      send([null, null, msg, null]);
    }

    function remember(order: LabOrder, now: number): void {
      if (!order.Tests || order.Tests.length === 0) return;
      ordered.delete(order.SampleNumber);
      ordered.set(order.SampleNumber, { tests: [...order.Tests], at: now });
      for (const [key, v] of ordered) {
        if (ordered.size <= ORDERED_MAX && now - v.at <= ORDERED_RETAIN_MS) break;
        ordered.delete(key);
      }
    }

    function orderedTestsFor(samples: string[], now: number): string[] {
      const out = new Set<string>();
      for (const s of new Set(samples)) {
        const entry = ordered.get(s);
        if (entry && now - entry.at <= ORDERED_RETAIN_MS) entry.tests.forEach((x) => out.add(x));
      }
      return [...out];
    }
  }

  RED.nodes.registerType('astm-message', AstmMessageNode as never);
};

/** The link a message came over: its TCP session, or the one serial line. */
function linkOf(msg: Msg): string {
  const session = msg._session as { id?: unknown } | undefined;
  return session && session.id !== undefined ? String(session.id) : 'line';
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
