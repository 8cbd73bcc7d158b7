/**
 * An analyzer-message node, whatever the protocol (astm-message now, the HL7
 * message node next): messages from the link read into host queries (output 1),
 * patient result batches (output 2, each tagged with its journal message and
 * part) and what is kept aside (output 4: QC, unassigned, other); LIS orders and
 * "no order" answers taken through the host conversation to the analyzer
 * (output 3). The protocol supplies a MessageHost; this is the Node-RED side.
 */
import type { Node, NodeAPI } from 'node-red';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { type HostOutput, isLabOrder, type MessageHost, type ReadMessage } from '../../lib/conversation';
import { LisError, invalidInput, messageOf } from '../../lib/errors';
import { tcpSessionKey } from '../../lib/link';
import { sliceEnd } from '../../lib/util';
import { boardFor } from './health';
import { fail, refuseMisconfigured } from './lis-request-node';
import { journalFor } from './journal';
import { contextOf, holdsFor, NOT_UNDERSTOOD, type ResultJournal } from '../../lib/journal';
import type { UnassignedResult } from '../../lib/lab';
import { randomUUID } from 'node:crypto';
import { sharedTexts, type StatusReporter } from './status';
import { replayOf, type ReplayOf } from './replays';
import { registerHoldPlacerFor } from './hold-placement';
import { registerCorrectionSenderFor } from './correction-sending';
import { type SettingFault, unresolvedSetting } from '../../lib/settings';
import { messageQc, type MessageQc } from './message-qc';
import type { InstrumentResult } from '../../lib/lab';
import type { Done, Msg, QcConfigNode, Send } from './types';


export interface MessageTopics {
  /** msg.topic of a message received from the link, and of one to send to it. */
  message: string;
  send: string;
  /** The msg property the link and this node describe a message in (msg.astm). */
  about: string;
  /** A received message told by its shape rather than its topic (a file: Buffer payload and msg.file). */
  isMessage?: (msg: Msg) => boolean;
  /** Which of the four outputs (query, results, send, aside) the node has, when not all: file-message has [1, 3]. */
  outputs?: readonly number[];
  /** Counted on the status in files and results: an instrument that exports files makes no queries and takes no orders. */
  countsFiles?: boolean;
  /**
   * What of a stored message's read goes on, set against what its link handed on before (file-message: a value
   * handed on from an earlier version of the file is not sent twice, a changed one is held as a correction).
   */
  sift?: (journal: ResultJournal, read: ReadMessage<Msg>, msg: Msg, journalId: string) => Promise<ReadMessage<Msg>>;
  /** The analyzer's lis-qc: its QC recorded, its patient results gated (nodes/shared/message-qc.ts). */
  qc?: QcConfigNode;
}

export function runMessageNode(RED: NodeAPI, node: Node, status: StatusReporter, host: MessageHost<Msg>, topics: MessageTopics): void {
  const r = sharedTexts(RED, 'runtime');
  const t = sharedTexts(RED, 'message');
  const conversation = host.conversation;
  const journal = journalFor(RED);
  const health = boardFor(RED);
  let timer: NodeJS.Timeout | undefined;
  let results = 0;
  let messages = 0;
  // Grey until a message has been read: green at deploy said "working" while its link could still be red.
  node.status({ fill: 'grey', shape: 'dot', text: host.label });

  const shape = (out: Parameters<Send>[0]): Parameters<Send>[0] => (topics.outputs && Array.isArray(out) ? topics.outputs.map((i) => out[i] ?? null) : out);
  // Results held for their sample number, placed by a person under the right one, leave by the results output.
  const resultsOutput = topics.outputs ? topics.outputs.indexOf(1) : 1;
  const emitResults = (msg: Msg) => node.send(shape([null, msg, null, null]) as never);
  registerHoldPlacerFor(RED, node, resultsOutput, emitResults);
  // Corrections held for a person leave by the results output too, once sent.
  if (topics.sift) registerCorrectionSenderFor(RED, node, resultsOutput, emitResults);
  // The link node a message came from (msg.astm.link): what its holds are filed under.
  const linkNodeOf = (m: Msg): string | undefined => {
    const link = (m[topics.about] as { link?: unknown } | undefined)?.link;
    return typeof link === 'string' ? link : undefined;
  };
  const qc: MessageQc | undefined = topics.qc ? messageQc(RED, node, status, topics.qc, resultsOutput, emitResults) : undefined;
  // Refused at deploy, red, while the analyzer's QC settings cannot be used: its patient results must not pass ungated.
  qc?.ready.catch((err: unknown) => status.failed(err));
  // A host that reads in slices reads one message at a time, in the order they came; closing abandons the read.
  let queue: Promise<void> = Promise.resolve();
  const closing = new AbortController();
  node.on('input', (rawMsg, rawSend, rawDone) => {
    const msg = rawMsg as Msg;
    const send: Send = (out) => (rawSend as Send)(shape(out));
    const done = rawDone as Done;
    const finished = () => {
      const text = topics.countsFiles ? t('fileCounts', { count: messages, r: results }) : t('counts', { q: conversation.counts.queries, r: results, o: conversation.counts.orders });
      node.status({ fill: 'green', shape: 'dot', text });
      done();
    };
    // Decoding and building errors name what was wrong; they are the input's fault, not the node's.
    const failed = (err: unknown) => fail(status, msg, err instanceof Error && !(err instanceof LisError) ? new LisError(err.message, { code: 'INVALID_INPUT' }) : err, done);
    const fromLink = msg.topic === topics.message || topics.isMessage?.(msg) === true;
    if (qc !== undefined) {
      // One input at a time once the analyzer's QC is open: a patient result read after a failing control is held.
      // Not taken while the QC cannot open: the journal keeps a message until a deploy reads it.
      queue = queue
        .then(() => qc.ready)
        .then(() => (fromLink && host.readInSlices !== undefined ? fromAnalyzerInSlices(msg, send, Date.now()) : handleNow(msg, send, fromLink)))
        .then(finished, (err: unknown) => (closing.signal.aborted ? done() : failed(err)));
      return;
    }
    if (fromLink && host.readInSlices !== undefined) {
      // Stored, and the node closing: the next start replays it from the journal.
      queue = queue.then(() => fromAnalyzerInSlices(msg, send, Date.now())).then(finished, (err: unknown) => (closing.signal.aborted ? done() : failed(err)));
      return;
    }
    try {
      handleNow(msg, send, fromLink);
      finished();
    } catch (err) {
      failed(err);
    }
  });

  function handleNow(msg: Msg, send: Send, fromLink: boolean): void {
    const now = Date.now();
    if (fromLink) fromAnalyzer(msg, send, now);
    else if (isLabOrder(msg.payload)) perform(conversation.order(linkOf(msg), msg.payload, now, msg), msg, send);
    else if (typeof msg.payload === 'string') perform(conversation.noOrder(linkOf(msg), msg.payload.trim(), now, msg), msg, send);
    else throw invalidInput('not understood', [`msg.payload must be a received message (msg.topic "${topics.message}"), a LIS order with instrumentTests, or a sample number with no order`]);
  }

  /** The QC results a read holds, recorded before its patient results are gated; undefined without a lis-qc. */
  function recordQc(outputs: ReadonlyArray<HostOutput<Msg>>, msg: Msg, journalId: string | undefined): { held: number; written: Promise<void> } | undefined {
    if (!qc) return undefined;
    const results = outputs.flatMap((o) => (o.type === 'aside' && o.topic === 'qc' ? (o.payload as InstrumentResult[]) : []));
    if (results.length === 0) return { held: 0, written: Promise.resolve() };
    return qc.record(results, msg, journalId, linkNodeOf(msg));
  }

  /**
   * A stored message also tells the journal how many result batches it made and
   * which samples it named, so the journal knows when all reached lis-send-results
   * (and a message that could not be read is not replayed only to fail again).
   */
  function fromAnalyzer(msg: Msg, send: Send, now: number): void {
    // Only a host that reads in slices (file-message) sifts: it always comes through fromAnalyzerInSlices.
    const from = arrival(msg, now);
    let read;
    try {
      // Replayed (after a restart, or by an operator): its queries were answered when it came.
      read = host.read(from.bytes, linkOf(msg), now, msg, from.replayed);
    } catch (err) {
      throw from.notRead(err);
    }
    const qcRead = recordQc(read.outputs, msg, from.journalId);
    from.counted(read, qcRead?.held ?? 0);
    const writes: Promise<void>[] = qcRead ? [qcRead.written] : [];
    const batches = perform(read.outputs, msg, send, from.journalId, from.replay, writes);
    from.handedOn(read, batches, undefined, writes);
  }

  /** The same through the host's readInSlices, the outputs handed on in slices. */
  async function fromAnalyzerInSlices(msg: Msg, send: Send, now: number): Promise<void> {
    const from = arrival(msg, now);
    let read;
    try {
      read = await host.readInSlices!(from.bytes, linkOf(msg), now, msg, from.replayed, closing.signal);
    } catch (err) {
      if (closing.signal.aborted) throw err;
      throw from.notRead(err);
    }
    // Sifted only as the flow runs: an operator's replay reports what a message holds, and sends what it is asked to.
    const sift = topics.sift;
    const journalId = from.journalId;
    const sifted = sift === undefined || journalId === undefined || from.replay !== undefined ? read : await journal.then((j) => sift(j, read, msg, journalId));
    const qcRead = recordQc(sifted.outputs, msg, journalId);
    from.counted(sifted, qcRead?.held ?? 0);
    const writes: Promise<void>[] = qcRead ? [qcRead.written] : [];
    const batches = await performInSlices(sifted.outputs, msg, send, journalId, from.replay, writes);
    from.handedOn(sifted, batches, journalId === undefined ? undefined : await samplesByPartInSlices(sifted.outputs, sifted.parts), writes);
  }

  /** What reading a message from the analyzer notes before and after the read, whichever way it is read. */
  function arrival(msg: Msg, now: number) {
    if (!Buffer.isBuffer(msg.payload)) throw invalidInput('not decoded', ['a received message must carry its bytes in msg.payload']);
    messages++;
    const about = (msg[topics.about] ?? {}) as { journalId?: unknown; replay?: unknown; link?: unknown };
    const journalId = typeof about.journalId === 'string' ? about.journalId : undefined;
    // An operator's replay (nodes/shared/replays.ts) is no traffic of the link: its health does not count it.
    const replay = replayOf(msg);
    // The link node it came from, for its health: what was asked and what results came.
    const linkNode = typeof about.link === 'string' && !replay ? about.link : undefined;
    const queriesBefore = conversation.counts.queries;
    const note = (parts: number, samples: string[], why?: string, partSamples?: string[][]) =>
      journal.then((j) => j.planned(journalId!, parts, why, samples, partSamples)).catch((err: unknown) => node.warn(r('notNotedTranslated', { id: journalId!, reason: messageOf(err) })));
    return {
      bytes: msg.payload,
      journalId,
      replay,
      replayed: about.replay === true || replay !== undefined,
      notRead(err: unknown): unknown {
        if (journalId !== undefined) void note(0, [], `${NOT_UNDERSTOOD}: ${messageOf(err)}`);
        if (linkNode !== undefined) health.error(linkNode, tcpSessionKey(msg._session), now);
        return err;
      },
      /** `qcHeld`: QC results held for a person (an unidentified control), not put aside. */
      counted(read: ReadMessage<Msg>, qcHeld = 0): void {
        if (linkNode === undefined) return;
        const n = resultsRead(read.outputs);
        health.read(linkNode, tcpSessionKey(msg._session), { results: n.results, notForLis: n.notForLis - qcHeld, queries: conversation.counts.queries - queriesBefore, dialect: host.id }, now);
      },
      /**
       * `partSamples`, samplesByPart's answer when made already (in slices). `writes`, what must be on disk first
       * (QC points, results held for QC): when one fails the message is not noted, and a restart reads it again.
       */
      handedOn(read: ReadMessage<Msg>, batches: string[], partSamples?: string[][], writes: Promise<void>[] = []): void {
        // A failed write was reported where it failed (red, at Catch); here it only keeps the message unnoted.
        const written = Promise.all(writes);
        if (journalId !== undefined) {
          const parts = partSamples ?? samplesByPart(read.outputs, read.parts);
          void written.then(() => note(read.parts, read.samples, undefined, parts), () => undefined);
        } else void written.catch(() => undefined);
        replay?.run.messageRead(replay.mark.message, batches);
      },
    };
  }

  /**
   * Carries out what the host decided; `msg` is the input being handled (answers held earlier leave on their own).
   * Returns the result batches of a replayed message, each marked with its batch in the replay's mark.
   */
  function perform(outputs: HostOutput<Msg>[], msg: Msg, send: Send, journalId?: string, replay?: ReplayOf, writes?: Promise<void>[]): string[] {
    const step = performer(outputs, msg, send, journalId, replay, writes);
    for (const [i, a] of outputs.entries()) step(i, a);
    return performed(step.batches);
  }

  /** perform, yielding to the event loop between slices: a file of thousands of samples makes as many messages. */
  async function performInSlices(outputs: HostOutput<Msg>[], msg: Msg, send: Send, journalId?: string, replay?: ReplayOf, writes?: Promise<void>[]): Promise<string[]> {
    const step = performer(outputs, msg, send, journalId, replay, writes);
    // What is left of the slice the read ended in, when it ended in this turn.
    let until = sliceEnd();
    for (const [i, a] of outputs.entries()) {
      step(i, a);
      if (performance.now() >= until) {
        await nextTurn();
        until = sliceEnd();
      }
    }
    return performed(step.batches);
  }

  /** One output carried out at a time; `batches`, those of a replayed message. */
  /** `writes` collects what the message's note must wait for (results held for QC). */
  function performer(outputs: HostOutput<Msg>[], msg: Msg, send: Send, journalId?: string, replay?: ReplayOf, writes: Promise<void>[] = []): ((i: number, a: HostOutput<Msg>) => void) & { batches: string[] } {
    const batches: string[] = [];
    // The last output made from the input message is that message (most often the only one: a query for one
    // sample); the others are copies, as Node-RED itself copies a message sent on several wires.
    const last = lastIndex(outputs, (a) => a.type === 'results' || a.type === 'aside' || ((a.type === 'ask' || a.type === 'unanswerable') && a.context === msg));
    const from = (i: number, context: Msg): Msg => (i === last ? context : (RED.util.cloneMessage(context) as Msg));
    const copy = (i: number, extra: Record<string, unknown>): Msg => Object.assign(from(i, msg), { [topics.about]: { ...(msg[topics.about] as object), dialect: host.id, ...extra } });
    const step = (i: number, a: HostOutput<Msg>): void => {
      const sendFor = 'context' in a && a.context !== msg ? (m: Parameters<Send>[0]) => node.send(shape(m) as never) : send;
      switch (a.type) {
        case 'ask':
          sendFor([Object.assign(from(i, a.context), { payload: a.sample.sampleNumber, topic: 'query', [topics.about]: { ...(a.context[topics.about] as object), dialect: host.id, query: a.sample } }), null, null, null]);
          break;
        case 'unanswerable':
          sendFor([null, null, null, Object.assign(from(i, a.context), { topic: 'query', payload: a.samples })]);
          break;
        case 'send': {
          // Several messages (HL7's query acknowledgement, then the order) leave one per msg, in order.
          const parts = host.outgoing ? host.outgoing(a.text) : [{ bytes: host.bytes(a.text) }];
          // The later parts go as copies, made before the first part changes the message they copy.
          const copies = parts.slice(1).map(() => RED.util.cloneMessage(a.context) as Msg);
          const about = a.context[topics.about] as object | undefined;
          parts.forEach((part, i) => {
            const out = i === 0 ? a.context : copies[i - 1]!;
            Object.assign(out, { payload: part.bytes, topic: topics.send });
            if (part.about) out[topics.about] = { ...about, ...part.about };
            sendFor([null, null, out, null]);
          });
          break;
        }
        case 'refused':
          throw new LisError(r('orderRefused', { sample: a.sampleNumber, reason: a.reason }), { code: 'ORDER_REFUSED' });
        case 'warn':
          node.warn(a.text);
          break;
        case 'results': {
          results += a.results.length;
          if (a.problems.length > 0) node.warn(r('resultProblems', { problems: a.problems.join('; ') }));
          const out = Object.assign(copy(i, { problems: a.problems }), { payload: a.results, topic: 'results' });
          if (qc) {
            if (a.orderedTests.length > 0) out.orderedTests = a.orderedTests;
            const gated = qc.gate(a.results, out, journalId === undefined ? undefined : { message: journalId, part: a.part }, linkNodeOf(msg));
            writes.push(gated.written);
            if (gated.pass.length === 0) break;
            out.payload = gated.pass;
          }
          if (a.orderedTests.length > 0) out.orderedTests = a.orderedTests;
          if (journalId !== undefined) out.journal = { message: journalId, part: a.part };
          if (replay) {
            const batch = `${replay.mark.message}#${a.part}`;
            batches.push(batch);
            out[topics.about] = { ...(out[topics.about] as object), replay: { ...replay.mark, batch } };
          }
          send([null, out, null, null]);
          break;
        }
        case 'aside':
          if (a.topic === 'unassigned') {
            node.warn(r('unassigned', { count: a.count, reasons: a.reasons.join('; ') }));
            // An operator's replay reports them; the live flow holds them, before the message is noted translated.
            if (!replay) holdUnassigned(a.payload as UnassignedResult[], msg, journalId);
          }
          replay?.run.aside(replay.mark.message, a.topic, a.payload);
          send([null, null, null, Object.assign(copy(i, {}), { topic: a.topic, payload: a.payload })]);
          break;
      }
    };
    return Object.assign(step, { batches });
  }

  function performed(batches: string[]): string[] {
    // One timer, at the conversation's next deadline (a held "no information" answer may leave then).
    if (timer) clearTimeout(timer);
    const next = conversation.nextDeadline(Date.now());
    timer = next === undefined ? undefined : setTimeout(() => perform(conversation.tick(Date.now()), {} as Msg, () => undefined), Math.max(0, next - Date.now()));
    return batches;
  }

  /**
   * Results with no sample number the bridge can trust (or no test code), held for a person, one hold per code;
   * those the dialect's own rule puts aside (notForLis) are not. Queued on the journal before the message's
   * "translated" note, so no crash leaves the message settled without them; a replay after a restart holds the
   * same ids, which the journal takes once.
   */
  function holdUnassigned(items: UnassignedResult[], msg: Msg, journalId: string | undefined): void {
    const held = items.filter((i) => i.notForLis !== true);
    if (held.length === 0) return;
    const about = (msg[topics.about] ?? {}) as { link?: unknown };
    const base = journalId ?? `${node.id}:${randomUUID()}`;
    void journal
      .then((j) =>
        j.hold({
          node: node.id,
          ...(typeof about.link === 'string' ? { link: about.link } : {}),
          ...(journalId !== undefined ? { message: journalId } : {}),
          msg: contextOf(msg as Record<string, unknown>),
          holds: holdsFor(held.map((i) => ({ result: i, reason: i.reason, kind: 'unassigned' as const, code: i.instrumentCode ?? '' })), base),
        }),
      )
      .catch((err: unknown) => {
        const e = new LisError(r('unassignedNotHeld', { count: held.length, n: held.length, reason: messageOf(err) }), { code: 'JOURNAL' });
        status.failed(e);
        node.error(e, { payload: held, error: e.toMsgError() });
      });
  }

  node.on('close', (_removed: boolean, done: () => void) => {
    if (timer) clearTimeout(timer);
    conversation.close();
    closing.abort();
    void queue.then(done);
  });
}

/** Every result read counts, so the day's endings add up to it: those put aside included. */
function resultsRead(outputs: ReadonlyArray<HostOutput<Msg>>): { results: number; notForLis: number } {
  let results = 0;
  let notForLis = 0;
  for (const o of outputs) {
    if (o.type === 'results') results += o.results.length;
    else if (o.type !== 'aside') continue;
    // QC, what the dialect's own rule keeps from the LIS, and a file's values handed on before from an earlier
    // version of it: counted, as they end here. Corrections end held for a person (the journal counts that).
    else if (o.topic === 'qc' || o.topic === 'repeated') {
      results += o.count;
      notForLis += o.count;
    } else if (o.topic === 'unassigned') {
      const items = o.payload as UnassignedResult[];
      results += items.length;
      notForLis += items.filter((i) => i.notForLis === true).length;
    } else if (o.topic === 'correction') results += o.count;
  }
  return { results, notForLis };
}

function lastIndex<T>(items: readonly T[], test: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (test(items[i]!)) return i;
  return -1;
}

/** The link a message came over: its TCP session, or the one serial line. */
function linkOf(msg: Msg): string {
  const session = msg._session as { id?: unknown } | undefined;
  return session && session.id !== undefined ? String(session.id) : 'line';
}

/** The lis-qc node a message node chose, deployed; undefined when it chose none. */
export function qcNodeOf(RED: NodeAPI, id: string | undefined): QcConfigNode | undefined {
  if (!id) return undefined;
  const node = RED.nodes.getNode(id) as QcConfigNode | null;
  // A chosen lis-qc that is not deployed gates everything: its monitor never opens, so nothing passes ungated.
  return node ?? { id, type: 'lis-qc', analyzer: id, setupError: () => undefined, monitor: () => Promise.reject(new LisError(`the lis-qc node ${id} chosen for QC is not deployed: deploy it, or choose none`, { code: 'NOT_CONFIGURED' })) } as unknown as QcConfigNode;
}

/** A message node's text settings that still hold an unset ${NAME} (a site's time zone or dialect from the environment). */
export function unresolvedMessageSettings(def: { dialect?: string; timeZone?: string }): SettingFault[] {
  return [unresolvedSetting('dialect', def.dialect, 'a dialect id'), unresolvedSetting('timeZone', def.timeZone, 'an IANA time zone such as Europe/Berlin')].filter((f) => f !== undefined);
}

/**
 * What every message node does before it runs: the settings left unset refused by name, the site's time zone,
 * and the site's dialect from its protocol's `resolve`; undefined (the node refused, red and at Catch) when they
 * make no usable dialect.
 */
export function messageNodeProfile<P>(
  RED: NodeAPI,
  node: Node,
  status: StatusReporter,
  def: { dialect?: string; dialectOverrides?: string; timeZone?: string },
  defaultDialect: string,
  resolve: (settings: { dialect: string; overrides?: unknown; timeZone: string }) => { profile: P; problems: [] } | { profile?: undefined; problems: SettingFault[] },
): { profile: P; timeZone: string } | undefined {
  const unset = unresolvedMessageSettings(def);
  if (unset.length > 0) return void refuseMisconfigured(RED, node, status, unset);
  const timeZone = (def.timeZone ?? '').trim() || Intl.DateTimeFormat().resolvedOptions().timeZone;
  const settings = resolve({ dialect: def.dialect || defaultDialect, overrides: def.dialectOverrides, timeZone });
  if (settings.profile === undefined) return void refuseMisconfigured(RED, node, status, settings.problems);
  return { profile: settings.profile, timeZone };
}

/** Each result batch's samples (index = its part), for the journal: a stuck message then lists only what it still owes. */
function samplesByPart(outputs: ReadonlyArray<HostOutput<Msg>>, parts: number): string[][] {
  const out: string[][] = Array.from({ length: parts }, () => []);
  for (const o of outputs) {
    if (o.type === 'results' && o.part >= 0 && o.part < parts) out[o.part] = [...new Set(o.results.map((x) => x.SampleNumber))];
  }
  return out;
}

/** The same, giving the loop its turns: a file's thousands of batches and half a million results. */
async function samplesByPartInSlices(outputs: ReadonlyArray<HostOutput<Msg>>, parts: number): Promise<string[][]> {
  const out: string[][] = [];
  let until = sliceEnd();
  for (let i = 0; i < parts; i++) out.push([]);
  for (const o of outputs) {
    if (o.type === 'results' && o.part >= 0 && o.part < parts) out[o.part] = [...new Set(o.results.map((x) => x.SampleNumber))];
    if (performance.now() >= until) {
      await nextTurn();
      until = sliceEnd();
    }
  }
  return out;
}
