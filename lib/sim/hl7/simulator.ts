/**
 * One simulated HL7 analyzer over MLLP: it scans tubes (QRY^Q02 or QBP^Q11),
 * reads the host's answer (QCK^Q02 + DSR^Q03, RSP^K11 + OML^O33), "analyses"
 * and reports results (ORU^R01, OUL^R22) for exactly the ordered tests, sends
 * QC and status messages where its dialect has them, and acknowledges the
 * host's messages as the real analyzer does. Messages are laid out from the
 * same dialect profile the host reads them with (messages.ts).
 *
 * Sending follows HL7's original acknowledgement rules (v2.5.1 2.9.2): one
 * message at a time, the next only when the host's ACK (or, for a query, its
 * answer, which carries the MSA) has come; no ACK within ackTimeoutMs sends
 * the same message again, same MSH-10, at most `retries` times.
 *
 * Faults are injected only between the messages and the wire
 * (misbehaviour.ts), so everything else is by the standard.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { findHl7Profile, assertHl7Profile, type Hl7DialectProfile } from '../../protocols/hl7/dialects';
import { encodeText } from '../../protocols/hl7/charset';
import { MllpDeframer, readable, type MllpEvent } from '../../protocols/hl7/mllp';
import { hl7Timestamp } from '../../protocols/hl7/lab/time';
import { randomStream } from '../analytes';
import { Wire } from '../wire';
import { SimulatorError, checkSample, failed, nonNegative, unorderedTestFor } from '../common';
import { SimulatorLifecycle } from '../lifecycle';
import { hl7FlavourOf } from './flavours';
import { buildHl7Ack, buildHl7ControlMessages, buildHl7Query, buildHl7Results, buildHl7Status } from './messages';
import type { SentControlRun } from '../qc';
import { Hl7WireShaper, hl7MisbehaviourProblems, type Hl7Misbehaviour } from './misbehaviour';
import { readHl7HostMessage, type Hl7DownloadedOrder, type ReadHostMessage } from './read-host';
import type {
  Hl7Counters,
  Hl7MessageEvent,
  Hl7OutgoingKind,
  Hl7RunSummary,
  Hl7SampleOutcome,
  Hl7ScanResult,
  Hl7SentResults,
  Hl7SimulatorEvents,
  Hl7SimulatorOptions,
} from './types';
import type { RunOptions } from '../types';

interface Outgoing {
  /** MSH-10. */
  id: string;
  /** 1-based number of this message among the simulator's own (dropAck counts these). */
  seq: number;
  /** 1-based number among its results messages, 0 for any other kind (dropResultsAck counts these). */
  resultsSeq: number;
  kind: Hl7OutgoingKind;
  sample: string;
  text: string;
  bytes: Buffer;
  /** Sends after a time-out so far, and resends after AE/AR. */
  timeouts: number;
  rejects: number;
  ackLost: boolean;
  resolve: () => void;
  reject: (err: Error) => void;
}

interface Waiter {
  sample: string;
  /** MSH-10 of the query and its tag (QPD-2), which the answer names. */
  controlId: string;
  tag: string;
  /** The answer said OK: the order is on its way. */
  found: boolean;
  timer?: NodeJS.Timeout;
  resolve: (r: Hl7ScanResult) => void;
  reject: (err: Error) => void;
}

/** The HL7 v2 analyzer over MLLP; start, stop, waiting for the host and pacing are SimulatorLifecycle's. */
export class Hl7AnalyzerSimulator extends SimulatorLifecycle<Hl7SimulatorEvents, Hl7Counters, Waiter> {
  readonly protocol = 'hl7' as const;
  readonly profile: Hl7DialectProfile;
  private readonly ackTimeoutMs: number;
  private readonly retries: number;
  private readonly misbehaviour: Hl7Misbehaviour;
  private readonly sendStatus: boolean;
  private readonly shaper: Hl7WireShaper;
  private readonly wire: Wire;
  protected readonly stats: Hl7Counters = { sent: 0, acked: 0, failed: 0, received: 0, framesOut: 0, framesIn: 0, aeReceived: 0, arReceived: 0, acksSent: 0 };
  private readonly outbox: Outgoing[] = [];
  private inFlight: Outgoing | undefined;
  private ackTimer: NodeJS.Timeout | undefined;
  private readonly worklist = new Map<string, Hl7DownloadedOrder>();
  private deframer: MllpDeframer | undefined;
  private controlIds = 0;
  private messages = 0;
  private resultsMessages = 0;
  private queries = 0;
  /** Host messages that wanted an acknowledgement (noAck / errorAck count these). */
  private hostMessages = 0;

  constructor(options: Hl7SimulatorOptions) {
    const profile = typeof options.dialect === 'string' ? findHl7Profile(options.dialect) : options.dialect;
    if (profile === undefined) throw new SimulatorError(`unknown HL7 dialect ${JSON.stringify(options.dialect)}`);
    assertHl7Profile(profile);
    super(options, { queryDeadlineMs: profile.queryDeadlineMs, checkTimeZone: (zone) => hl7Timestamp(new Date(), zone) });
    this.profile = profile;
    // Refused here, not at the first run: a dialect whose host cannot tell QC apart would file controls as patients.
    if (this.controlModel !== undefined && profile.qc.length === 0) throw new SimulatorError(`dialect ${profile.id} has no QC marker in its profile: the host could not tell its control runs from patient samples`);
    this.ackTimeoutMs = nonNegative('ackTimeoutMs', options.ackTimeoutMs ?? 10_000);
    this.retries = options.retries ?? 2;
    if (!Number.isInteger(this.retries) || this.retries < 0) throw new SimulatorError(`retries must be a whole number >= 0, got ${String(options.retries)}`);
    this.misbehaviour = options.misbehaviour ?? {};
    const problems = hl7MisbehaviourProblems(this.misbehaviour);
    if (problems.length > 0) throw new SimulatorError(problems.join('; '));
    this.sendStatus = options.status ?? true;
    this.shaper = new Hl7WireShaper(this.misbehaviour, randomStream(this.seed, 'misbehaviour'));
    // Frames are logged whole by send(); the wire only keeps the pieces of a split frame in order.
    this.wire = new Wire(this.transport, true, () => undefined);
  }

  override get connected(): boolean {
    return this.deframer !== undefined;
  }

  /**
   * Scans a tube: sends the dialect's query and resolves with the host's
   * answer, an order or "not found". Rejects when no answer comes within the
   * query deadline (the analyzer gives up: no HL7 source has a query cancel).
   */
  scan(sampleNumber: string): Promise<Hl7ScanResult> {
    try {
      return this.startScan(sampleNumber);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** Reports results for these tests; resolves when the host acknowledged them. */
  async sendResults(sampleNumber: string, tests: readonly string[], opts: { order?: Hl7DownloadedOrder } = {}): Promise<Hl7SentResults> {
    this.assertRunning();
    checkSample(sampleNumber);
    const order = opts.order;
    const unorderedTest = unorderedTestFor(this.misbehaviour.unorderedResult, tests);
    const id = this.nextControlId();
    const { text, results } = buildHl7Results(
      this.profile,
      {
        sampleNumber,
        tests,
        completedAt: this.now(),
        seed: this.seed,
        ...(unorderedTest === undefined ? {} : { unorderedTest }),
        ...(order?.patient === undefined ? {} : { patient: order.patient }),
        ...(order?.priority === undefined ? {} : { priority: order.priority }),
      },
      this.writeOptions(id),
    );
    await this.enqueue(id, text, 'results', sampleNumber);
    return { sampleNumber, results, text };
  }

  /** Reports a QC run of this control (its name where the host files QC) for these tests. */
  async sendQc(control: string, tests: readonly string[]): Promise<Hl7SentResults> {
    this.assertRunning();
    checkSample(control);
    const id = this.nextControlId();
    const { text, results } = buildHl7Results(this.profile, { sampleNumber: control, tests, completedAt: this.now(), seed: this.seed, qc: true }, this.writeOptions(id));
    await this.enqueue(id, text, 'qc', control);
    return { sampleNumber: control, results, text };
  }

  async sendControlRun(): Promise<SentControlRun> {
    this.assertRunning();
    const run = this.requireControlModel().next();
    const messages = buildHl7ControlMessages(this.profile, run, this.now(), this.writeBase(), () => this.nextControlId());
    await Promise.all(messages.map((m) => this.enqueue(m.id, m.text, 'qc', run.control)));
    const sent = { ...run, texts: messages.map((m) => m.text) };
    this.sentControlRuns.push(sent);
    this.emit('controlRun', sent);
    return sent;
  }

  /** Sends the dialect's ESU^U01 (cobas pro); resolves when the host acknowledged it. */
  async status(): Promise<void> {
    this.assertRunning();
    const id = this.nextControlId();
    await this.enqueue(id, buildHl7Status(this.profile, this.writeOptions(id)), 'status', '');
  }

  /** As AnalyzerSimulator.runSamples: scan, download, analyse, report, per sample, overlapping; never rejects. */
  async runSamples(samples: readonly string[], opts: RunOptions = {}): Promise<Hl7RunSummary> {
    return this.summary(await this.runEach<Hl7SampleOutcome>(samples, opts, (sample) => ({ outcome: this.processSample(sample, opts) }), failed));
  }

  // ----- samples -----

  private processSample(sample: string, opts: RunOptions): Promise<Hl7SampleOutcome> {
    const analysisMs = opts.analysisMs ?? this.analysisMs;
    const outcome: Hl7SampleOutcome = { sampleNumber: sample, resultsAcked: false, ok: false };
    const work = async () => {
      let tests: readonly string[] = opts.tests ?? this.defaultTests;
      let order: Hl7DownloadedOrder | undefined;
      if (this.profile.query !== undefined && this.profile.answer !== undefined) {
        const answer = await this.startScan(sample);
        if (answer.noInformation) {
          outcome.noInformation = true;
          throw new SimulatorError('the host has no order for this sample');
        }
        order = answer.order!;
        outcome.order = order;
        if (order.problems.length > 0) throw new SimulatorError(`order refused: ${order.problems.join('; ')}`);
        tests = order.tests;
      }
      await sleep(analysisMs, undefined, { signal: this.abort.signal });
      const sent = await this.sendResults(sample, tests, order === undefined ? {} : { order });
      outcome.results = sent.results;
      outcome.resultsAcked = true;
      outcome.ok = true;
    };
    return this.outcomeOf(outcome, work());
  }

  private startScan(sample: string): Promise<Hl7ScanResult> {
    this.assertRunning();
    checkSample(sample);
    if (this.profile.query === undefined) throw new SimulatorError(`dialect ${this.profile.id} has no host query: this analyzer does not query`);
    const known = this.worklist.get(sample);
    if (known !== undefined) {
      this.worklist.delete(sample);
      return Promise.resolve({ sampleNumber: sample, order: known });
    }
    const id = this.nextControlId();
    const tag = `Q${id}`;
    const text = buildHl7Query(this.profile, sample, { ...this.writeOptions(id), queryId: String(++this.queries), tag });
    return new Promise<Hl7ScanResult>((resolve, reject) => {
      const w: Waiter = { sample, controlId: id, tag, found: false, resolve, reject };
      this.waiters.push(w);
      // The deadline runs from the scan: resends of the query count against it.
      w.timer = setTimeout(() => this.queryExpired(w), this.queryTimeoutMs);
      this.enqueue(id, text, 'query', sample).catch((err: Error) => {
        if (this.dropWaiter(w)) reject(err);
      });
    });
  }

  private queryExpired(w: Waiter): void {
    if (!this.dropWaiter(w)) return;
    const what = w.found ? 'the host answered OK but sent no order' : 'no answer to the query';
    w.reject(new SimulatorError(`${what} for ${w.sample} within ${this.queryTimeoutMs} ms; the analyzer gives up (the dialect has no query cancel)`));
  }

  private nextControlId(): string {
    return String(++this.controlIds);
  }

  private writeOptions(controlId: string) {
    return { ...this.writeBase(), controlId };
  }

  private writeBase() {
    return { now: this.now(), timeZone: this.timeZone, ...(this.senderName === undefined ? {} : { senderName: this.senderName }) };
  }

  // ----- sending -----

  private enqueue(id: string, text: string, kind: Hl7OutgoingKind, sample: string): Promise<void> {
    if (this.stopped) return Promise.reject(new SimulatorError('the simulator is stopped'));
    return new Promise<void>((resolve, reject) => {
      const o: Outgoing = { id, seq: ++this.messages, resultsSeq: kind === 'results' ? ++this.resultsMessages : 0, kind, sample, text, bytes: encodeText(text, this.profile.charset), timeouts: 0, rejects: 0, ackLost: false, resolve, reject };
      this.outbox.push(o);
      this.stats.sent++;
      this.emit('sending', describe(o));
      this.pump();
    });
  }

  /** Sends the next message when none is waiting for its ACK and a host is there. */
  private pump(): void {
    if (this.inFlight !== undefined || this.deframer === undefined) return;
    const next = this.outbox.shift();
    if (next === undefined) return;
    this.inFlight = next;
    this.transmit(next);
  }

  private transmit(o: Outgoing): void {
    this.write(o.bytes);
    this.clearAckTimer();
    this.ackTimer = setTimeout(() => this.ackTimedOut(o), this.ackTimeoutMs);
  }

  private ackTimedOut(o: Outgoing): void {
    this.ackTimer = undefined;
    if (this.inFlight !== o) return;
    if (o.timeouts >= this.retries) {
      this.settle(o, `no acknowledgement within ${this.ackTimeoutMs} ms, sent ${o.timeouts + 1} time(s)`);
      return;
    }
    o.timeouts++;
    this.emit('warning', `no acknowledgement of ${o.kind} ${o.id} within ${this.ackTimeoutMs} ms: sending it again (${o.timeouts} of ${this.retries})`);
    this.transmit(o);
  }

  private settle(o: Outgoing, reason?: string): void {
    if (this.inFlight !== o) return;
    this.clearAckTimer();
    this.inFlight = undefined;
    if (reason === undefined) {
      this.stats.acked++;
      this.emit('sent', describe(o));
      o.resolve();
    } else {
      this.stats.failed++;
      this.emit('failed', { ...describe(o), reason });
      o.reject(new SimulatorError(`${o.kind} ${o.id}${o.sample === '' ? '' : ` for ${o.sample}`} not delivered: ${reason}`));
    }
    this.pump();
  }

  /** The host acknowledged message `id` (an ACK, or a query answer with its MSA). */
  private acknowledged(id: string, code: string, text: string): void {
    const o = this.inFlight;
    if (o === undefined || o.id !== id) {
      this.emit('warning', `acknowledgement ${code} of control ID ${JSON.stringify(id)}, which is not the message waiting for one${o === undefined ? '' : ` (${o.id})`}`);
      return;
    }
    const dropResults = o.resultsSeq > 0 && this.misbehaviour.dropResultsAck === o.resultsSeq;
    if ((this.misbehaviour.dropAck === o.seq || dropResults) && !o.ackLost) {
      o.ackLost = true;
      const which = dropResults ? `results message ${o.resultsSeq}` : `message ${o.seq}`;
      this.emit('misbehaviour', `${dropResults ? 'dropResultsAck' : 'dropAck'}: the host's ACK of ${which} (MSH-10 ${o.id}) is lost; the same message goes out again`);
      this.transmit(o);
      return;
    }
    if (code === 'AA' || code === 'CA') {
      this.settle(o);
      return;
    }
    if (code === 'AE' || code === 'CE') this.stats.aeReceived++;
    else this.stats.arReceived++;
    const why = `the host answered ${code}${text === '' ? '' : `: ${text}`}`;
    if (o.rejects < hl7FlavourOf(this.profile).rejectResends) {
      o.rejects++;
      this.emit('warning', `${why}; sending ${o.kind} ${o.id} again (${o.rejects} of ${hl7FlavourOf(this.profile).rejectResends}, as the analyzer does)`);
      this.transmit(o);
      return;
    }
    this.settle(o, why);
  }

  private write(message: Buffer): void {
    const shaped = this.shaper.frame(message);
    for (const note of shaped.notes) this.emit('misbehaviour', note);
    // A moment between the pieces of a split frame, so each is its own TCP segment.
    shaped.writes.forEach((w, i) => this.wire.write(w, i === 0 ? 0 : 2));
    this.stats.framesOut++;
    this.emit('frame', { direction: 'out', bytes: shaped.bytes, text: readable(shaped.bytes, Infinity), at: new Date() });
  }

  // ----- what the host sent -----

  protected override onData(chunk: Buffer): void {
    const deframer = this.deframer;
    if (deframer === undefined) return;
    for (const e of deframer.push(chunk)) this.onMllp(e);
  }

  private onMllp(e: MllpEvent): void {
    if (e.kind === 'oversize') return;
    if (e.kind === 'discarded') {
      this.emit('discarded', { reason: e.reason, text: e.excerpt });
      return;
    }
    this.stats.framesIn++;
    const framed = Buffer.concat([Buffer.from(e.missingStart ? [] : [0x0b]), e.message, Buffer.from([0x1c, 0x0d])]);
    this.emit('frame', { direction: 'in', bytes: framed, text: readable(framed, Infinity), at: new Date() });
    this.onMessage(e.message);
  }

  private onMessage(bytes: Buffer): void {
    this.stats.received++;
    const read = readHl7HostMessage(bytes, this.profile);
    const m = read.meaning;
    this.emit('received', { type: read.type, id: read.controlId, text: read.message?.text ?? bytes.toString('latin1'), meaning: m, at: new Date() });
    if (m.kind === 'ack') {
      this.acknowledged(m.acknowledges, m.code, m.text);
      return;
    }
    if (m.kind === 'queryAnswer') {
      // The answer carries the query's MSA: it is the query's acknowledgement.
      if (this.inFlight?.id === m.acknowledges) this.acknowledged(m.acknowledges, 'AA', '');
      this.onQueryAnswer(m.acknowledges, m.tag, m.status);
      if (!this.profile.notAcknowledged.includes(read.type)) this.ack(read, 'AA');
      return;
    }
    if (read.message === undefined) {
      this.emit('warning', `message from the host not understood: ${m.kind === 'other' ? m.reason : ''}`);
      return;
    }
    const n = ++this.hostMessages;
    if (this.misbehaviour.errorAck === n) {
      const text = `simulated error: ${read.type} ${read.controlId} refused (misbehaviour errorAck)`;
      this.emit('misbehaviour', `errorAck: ${read.type} ${read.controlId} answered AE and not taken`);
      this.ack(read, 'AE', text);
      return;
    }
    if (m.kind === 'other') {
      this.emit('warning', m.reason);
      this.ack(read, 'AR', m.reason);
      return;
    }
    if (m.kind === 'order') this.onOrder(m.order);
    if (m.kind === 'noWork') this.onNoWork(m.sampleNumber);
    if (this.misbehaviour.noAck === n) {
      this.emit('misbehaviour', `noAck: ${read.type} ${read.controlId} taken but not acknowledged`);
      return;
    }
    this.ack(read, 'AA');
  }

  private onQueryAnswer(queryId: string, tag: string, status: string): void {
    const w = this.waiters.find((x) => x.controlId === queryId || (tag !== '' && x.tag === tag));
    if (w === undefined) {
      this.emit('warning', `answer ${status} to query ${queryId}, which no scan is waiting for`);
      return;
    }
    if (status === 'OK') {
      w.found = true;
      return;
    }
    this.dropWaiter(w);
    if (status === 'NF') w.resolve({ sampleNumber: w.sample, noInformation: true });
    else w.reject(new SimulatorError(`the host answered the query for ${w.sample} with QAK-2 ${JSON.stringify(status)}`));
  }

  private onNoWork(sample: string): void {
    const w = this.waiters.find((x) => x.sample === sample);
    if (w === undefined) {
      this.emit('warning', `"no work" (ORC-1 DC) for ${sample || 'an unnamed specimen'} with no query waiting for it`);
      return;
    }
    this.dropWaiter(w);
    w.resolve({ sampleNumber: w.sample, noInformation: true });
  }

  private onOrder(order: Hl7DownloadedOrder): void {
    const w = this.waiters.find((x) => x.sample === order.sampleNumber);
    if (w === undefined) order.unsolicited = true;
    this.emit('order', order);
    if (w === undefined) {
      this.worklist.set(order.sampleNumber, order);
      this.emit('warning', `order for ${order.sampleNumber} arrived with no query waiting for it (an unsolicited download, or an answer after the deadline): kept for when the tube is scanned`);
      return;
    }
    this.dropWaiter(w);
    w.resolve({ sampleNumber: w.sample, order });
  }

  private ack(read: ReadHostMessage, code: 'AA' | 'AE' | 'AR', text?: string): void {
    if (this.deframer === undefined) return;
    // Original mode (Mindray) repeats the acknowledged ID in MSH-10; enhanced mode numbers the ACK as our own message.
    const id = this.profile.ackMode === 'original' ? read.controlId : this.nextControlId();
    const ack = buildHl7Ack(this.profile, { type: read.type, controlId: read.controlId, sender: read.sender, code, ...(text === undefined ? {} : { text }) }, this.writeOptions(id));
    this.stats.acksSent++;
    this.write(encodeText(ack, this.profile.charset));
  }

  // ----- the line -----

  protected override attach(): void {
    // A fresh deframer per connection: half a frame of an earlier session does not carry over.
    this.deframer = new MllpDeframer();
  }

  protected override resume(): void {
    // A message whose ACK was outstanding goes out again, whole, on the new connection.
    const unacknowledged = this.inFlight;
    if (unacknowledged !== undefined) this.transmit(unacknowledged);
    if (this.sendStatus && this.profile.statusMessages.includes('ESU^U01')) {
      this.status().catch((err: Error) => this.emit('warning', `status message not delivered: ${err.message}`));
    }
    this.pump();
  }

  protected override detach(): void {
    this.deframer = undefined;
    this.clearAckTimer();
    this.wire.clear();
  }

  protected override halt(): Outgoing[] {
    this.clearAckTimer();
    this.wire.clear();
    const pending = [...(this.inFlight ? [this.inFlight] : []), ...this.outbox.splice(0)];
    this.inFlight = undefined;
    this.deframer = undefined;
    return pending;
  }

  private clearAckTimer(): void {
    if (this.ackTimer) clearTimeout(this.ackTimer);
    this.ackTimer = undefined;
  }
}

function describe(o: Outgoing): Hl7MessageEvent {
  return { id: o.id, kind: o.kind, sampleNumber: o.sample, text: o.text, at: new Date() };
}
