/**
 * One simulated analyzer of a chosen dialect: it scans tubes (sends host
 * queries), reads the host's order downloads, "analyses" for a while and
 * reports results for exactly the ordered tests. It is the host's mirror
 * image: the same link state machine in the instrument role, driven by the
 * same LinkDriver as the astm-link node, and messages laid out from the same
 * dialect profile the host reads them with (messages.ts).
 *
 * Faults are injected only between the link and the wire (misbehaviour.ts),
 * so everything else the simulator does is by the standard.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { readable, STX } from '../protocols/astm/control';
import { assertProfile, getProfile, type DialectProfile } from '../protocols/astm/dialects';
import { resolveOptions, type AstmLinkOptions, type LinkAction } from '../protocols/astm/link';
import { LinkDriver } from '../link/driver';
import { formatAstmTimestamp } from '../protocols/astm/records';
import { linkMachine } from '../protocols/astm/link-machine';
import { randomStream } from './analytes';
import { buildControlMessages, buildQuery, buildResults, queryRange, readHostMessage, type DownloadedOrder, type HostAnswer, type Tube } from './messages';
import type { SentControlRun } from './qc';
import { WireShaper, linkOptionsFor, misbehaviourProblems, type Misbehaviour } from './misbehaviour';
import type { WireSplitter } from '../trace/wire-splitter';
import { astmTraceFraming } from '../protocols/astm/trace-framing';
import type {
  Counters,
  MessageEvent,
  OutgoingKind,
  RunOptions,
  RunSummary,
  SampleOutcome,
  ScanResult,
  SentResults,
  SimulatorEvents,
  SimulatorOptions,
} from './types';
import { Wire } from './wire';
import { SimulatorError, checkSample, failed, unorderedTestFor } from './common';
import { SimulatorLifecycle } from './lifecycle';

export { SimulatorError } from './common';

interface Outgoing {
  id: string;
  kind: OutgoingKind;
  sample: string;
  text: string;
  bytes: Buffer;
  handed: boolean;
  resolve: () => void;
  reject: (err: Error) => void;
}

interface Waiter {
  sample: string;
  /** Q-3 components of the query, to check what the host echoes. */
  range: string[];
  acked: boolean;
  timer?: NodeJS.Timeout;
  resolve: (r: ScanResult) => void;
  reject: (err: Error) => void;
}

/** The E1381/E1394 analyzer; start, stop, waiting for the host and pacing are SimulatorLifecycle's. */
export class AnalyzerSimulator extends SimulatorLifecycle<SimulatorEvents, Counters, Waiter> {
  readonly profile: DialectProfile;
  readonly framing: 'astm' | 'records';
  private readonly misbehaviour: Misbehaviour;
  private readonly linkOptions: Partial<AstmLinkOptions>;
  private readonly shaper: WireShaper | undefined;
  private readonly splitter: WireSplitter;
  private driver: LinkDriver | undefined;
  protected readonly stats: Counters = { sent: 0, acked: 0, failed: 0, received: 0, framesOut: 0, framesIn: 0 };
  private readonly outbox: Outgoing[] = [];
  /** Messages in the order they were handed to the link: the head is the one in transfer. */
  private handed: Outgoing[] = [];
  private held: Outgoing | undefined;
  private holdTimer: NodeJS.Timeout | undefined;
  /** Orders that arrived with no scan waiting: used when the tube is scanned (an analyzer's worklist). */
  private readonly worklist = new Map<string, DownloadedOrder>();
  private readonly tubes = new Map<string, Tube>();
  private readonly wire: Wire;
  private messageCount = 0;

  constructor(options: SimulatorOptions) {
    const profile = typeof options.dialect === 'string' ? getProfile(options.dialect) : options.dialect;
    assertProfile(profile);
    super(options, { queryDeadlineMs: profile.queryDeadlineMs, checkTimeZone: (zone) => formatAstmTimestamp(new Date(), zone) });
    this.profile = profile;
    // Refused here, not at the first run: a dialect whose host cannot tell QC apart would file controls as patients.
    if (this.controlModel !== undefined && profile.qc.length === 0) throw new SimulatorError(`dialect ${profile.id} has no QC marker in its profile: the host could not tell its control runs from patient samples`);
    this.framing = options.framing ?? 'astm';
    this.misbehaviour = options.misbehaviour ?? {};
    const problems = misbehaviourProblems(this.misbehaviour, this.framing);
    if (problems.length > 0) throw new SimulatorError(problems.join('; '));
    const base = { ...this.profile.link, ...options.link };
    this.linkOptions = { ...base, ...linkOptionsFor(this.misbehaviour, base) };
    // The link is made on each connection; a bad option must fail here, not inside a socket event.
    resolveOptions({ ...this.linkOptions, role: 'instrument' });
    this.shaper = this.framing === 'astm' ? new WireShaper(this.misbehaviour, randomStream(this.seed, 'misbehaviour'), () => this.handed[0]?.kind === 'results') : undefined;
    this.splitter = astmTraceFraming(this.framing === 'astm').splitter((unit) => this.frameEvent('in', unit));
    this.wire = new Wire(this.transport, this.framing === 'astm', (unit) => this.frameEvent('out', unit));
  }

  override get connected(): boolean {
    return this.driver !== undefined;
  }

  /**
   * Scans a tube: sends the host query for the sample and resolves with the
   * host's answer, an order or the dialect's "no information". Rejects when no
   * answer comes within the query deadline (the analyzer then cancels its
   * query, as the cobas e 411 does), or when the query could not be sent.
   */
  scan(sampleNumber: string): Promise<ScanResult> {
    try {
      return this.startScan(sampleNumber).answer;
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** Reports results for these tests (values from the analyte table); resolves when the host acknowledged them. */
  async sendResults(sampleNumber: string, tests: readonly string[], opts: { order?: DownloadedOrder } = {}): Promise<SentResults> {
    this.assertRunning();
    checkSample(sampleNumber);
    const order = opts.order;
    const unorderedTest = unorderedTestFor(this.misbehaviour.unorderedResult, tests);
    const { text, results } = buildResults(this.profile, {
      sampleNumber,
      tests,
      ...(order === undefined ? {} : { testNames: order.testNames }),
      ...(order?.patient === undefined ? {} : { patient: order.patient }),
      ...(order?.priority === undefined ? {} : { priority: order.priority }),
      ...(unorderedTest === undefined ? {} : { unorderedTest }),
      tube: this.tubeFor(sampleNumber),
      completedAt: this.now(),
      timeZone: this.timeZone,
      seed: this.seed,
      ...this.senderOption(),
    });
    await this.enqueue(text, 'results', sampleNumber, false);
    return { sampleNumber, results, text };
  }

  async sendControlRun(): Promise<SentControlRun> {
    this.assertRunning();
    const run = this.requireControlModel().next();
    const texts = buildControlMessages(this.profile, run, { tube: this.tubeFor(run.control), completedAt: this.now(), timeZone: this.timeZone, seed: this.seed, ...this.senderOption() });
    await Promise.all(texts.map((text) => this.enqueue(text, 'qc', run.control, false)));
    const sent = { ...run, texts };
    this.sentControlRuns.push(sent);
    this.emit('controlRun', sent);
    return sent;
  }

  /**
   * The analyzer's day: for each sample, scan, wait for the download, analyse
   * for analysisMs, report the ordered tests. Samples start intervalMs apart
   * and overlap as on a real analyzer (the next tube is scanned while the
   * previous one is measured). Dialects the package cannot send orders to
   * skip the scan and report the given tests. Never rejects: each sample's
   * fate is in the summary.
   */
  async runSamples(samples: readonly string[], opts: RunOptions = {}): Promise<RunSummary> {
    const outcomes = await this.runEach<SampleOutcome>(samples, opts, (sample) => {
      const run = this.processSample(sample, opts);
      // With contention to provoke, the next tube is scanned as soon as this
      // query is through, so its query can meet the host's download ENQ.
      const next = this.shaper?.wantsContention === true && run.scanning ? run.queried.catch(() => undefined) : undefined;
      return { outcome: run.outcome, ...(next === undefined ? {} : { next }) };
    }, failed);
    return this.summary(outcomes);
  }

  // ----- samples -----

  private processSample(sample: string, opts: RunOptions): { scanning: boolean; queried: Promise<void>; outcome: Promise<SampleOutcome> } {
    const analysisMs = opts.analysisMs ?? this.analysisMs;
    const outcome: SampleOutcome = { sampleNumber: sample, resultsAcked: false, ok: false };
    const finish = (p: Promise<void>) => this.outcomeOf(outcome, p);
    if (this.profile.query === undefined || this.profile.order === undefined) {
      // No download layout (or no query): nothing to ask the host; report the caller's tests.
      const tests = opts.tests ?? this.defaultTests;
      const work = async () => {
        await sleep(analysisMs, undefined, { signal: this.abort.signal });
        const sent = await this.sendResults(sample, tests);
        outcome.results = sent.results;
        outcome.resultsAcked = true;
        outcome.ok = true;
      };
      return { scanning: false, queried: Promise.resolve(), outcome: finish(work()) };
    }
    let scan: { queried: Promise<void>; answer: Promise<ScanResult> };
    try {
      scan = this.startScan(sample);
    } catch (err) {
      return { scanning: false, queried: Promise.resolve(), outcome: finish(Promise.reject(err as Error)) };
    }
    const work = async () => {
      const answer = await scan.answer;
      if (answer.noInformation) {
        outcome.noInformation = true;
        throw new SimulatorError('the host has no order for this sample');
      }
      const order = answer.order;
      if (order === undefined) throw new SimulatorError('no order in the answer');
      outcome.order = order;
      // A download that does not match the query is refused, as the analyzer would.
      if (order.problems.length > 0) throw new SimulatorError(`download refused: ${order.problems.join('; ')}`);
      await sleep(analysisMs, undefined, { signal: this.abort.signal });
      const sent = await this.sendResults(sample, order.tests, { order });
      outcome.results = sent.results;
      outcome.resultsAcked = true;
      outcome.ok = true;
    };
    return { scanning: true, queried: scan.queried, outcome: finish(work()) };
  }

  private startScan(sample: string): { queried: Promise<void>; answer: Promise<ScanResult> } {
    this.assertRunning();
    checkSample(sample);
    if (this.profile.query === undefined) throw new SimulatorError(`dialect ${this.profile.id} has no host query layout: this analyzer does not query`);
    const known = this.worklist.get(sample);
    if (known !== undefined) {
      this.worklist.delete(sample);
      return { queried: Promise.resolve(), answer: Promise.resolve({ sampleNumber: sample, order: known }) };
    }
    const tube = this.tubeFor(sample);
    const text = buildQuery(this.profile, sample, tube, { now: this.now(), timeZone: this.timeZone, ...this.senderOption() });
    let waiter: Waiter | undefined;
    const answer = new Promise<ScanResult>((resolve, reject) => {
      waiter = { sample, range: queryRange(this.profile, sample, tube), acked: false, resolve, reject };
    });
    const w = waiter!;
    // Contention needs our ENQ ready when the host's ENQ comes, i.e. while an
    // earlier query waits for its download: this query is held for that moment
    // (two scans at once, or runSamples scanning the next tube early).
    const hold = this.shaper?.wantsContention === true && this.held === undefined && this.waiters.length > 0;
    this.waiters.push(w);
    const queried = this.enqueue(text, 'query', sample, hold);
    queried.then(
      () => {
        w.acked = true;
        if (this.waiters.includes(w)) w.timer = setTimeout(() => this.queryExpired(w), this.queryTimeoutMs);
      },
      (err: Error) => {
        this.dropWaiter(w);
        w.reject(err);
      },
    );
    return { queried, answer };
  }

  private queryExpired(w: Waiter): void {
    if (!this.dropWaiter(w)) return;
    const cancel = this.profile.query?.cancelStatus;
    if (cancel !== undefined && !this.stopped) {
      const text = buildQuery(this.profile, w.sample, this.tubeFor(w.sample), { now: this.now(), timeZone: this.timeZone, cancel: true, ...this.senderOption() });
      this.enqueue(text, 'cancel', w.sample, false).catch((err: Error) => this.emit('warning', `cancel of the query for ${w.sample} not sent: ${err.message}`));
    }
    w.reject(new SimulatorError(`no answer to the query for ${w.sample} within ${this.queryTimeoutMs} ms${cancel === undefined ? '' : '; the query was cancelled'}`));
  }

  private takeWaiter(match: (w: Waiter) => boolean): Waiter | undefined {
    const w = this.waiters.find(match);
    if (w !== undefined) this.dropWaiter(w);
    return w;
  }

  private tubeFor(sample: string): Tube {
    let tube = this.tubes.get(sample);
    if (tube === undefined) {
      const n = this.tubes.size + 1;
      // Five positions per rack, as on the cobas e 411 sample carriers.
      tube = { sequence: n, rack: Math.floor((n - 1) / 5) + 1, position: ((n - 1) % 5) + 1 };
      this.tubes.set(sample, tube);
    }
    return tube;
  }

  private senderOption(): { senderName?: string } {
    return this.senderName === undefined ? {} : { senderName: this.senderName };
  }

  // ----- what the host sent -----

  private onMessage(id: string, bytes: Buffer): void {
    this.stats.received++;
    const text = bytes.toString(this.profile.charset === 'utf8' ? 'utf8' : 'latin1');
    const answers = readHostMessage(text, this.profile);
    this.emit('received', { id, text, answers, at: new Date() });
    for (const a of answers) this.route(a);
  }

  private route(a: HostAnswer): void {
    if (a.kind === 'other') {
      this.emit('warning', `message from the host not understood: ${a.reason}`);
      return;
    }
    if (a.kind === 'noInformation') {
      // Mindray's answer (`L|1|I`) names no sample: it answers the oldest open query.
      const sample = a.sampleNumber;
      const w = sample === undefined ? (this.takeWaiter((x) => x.acked) ?? this.takeWaiter(() => true)) : this.takeWaiter((x) => x.sample === sample);
      if (w === undefined) {
        this.emit('warning', `"no information" for ${sample ?? 'an unnamed sample'} with no query waiting for it`);
        return;
      }
      for (const p of a.problems) this.emit('warning', `"no information" for ${w.sample}: ${p}`);
      w.resolve({ sampleNumber: w.sample, noInformation: true });
      return;
    }
    const order = a.order;
    this.emit('order', order);
    const w = this.takeWaiter((x) => x.sample === order.sampleNumber);
    if (w === undefined) {
      this.worklist.set(order.sampleNumber, order);
      this.emit('warning', `order for ${order.sampleNumber} arrived with no query waiting for it (an unsolicited download, or an answer after the deadline): kept for when the tube is scanned`);
      return;
    }
    order.problems.push(...this.echoProblems(order, w.range));
    w.resolve({ sampleNumber: w.sample, order });
  }

  /** The cobas e 411 wants its tube description back exactly (O-4 from Q-3); a different one is a download for another tube. */
  private echoProblems(order: DownloadedOrder, range: string[]): string[] {
    const out: string[] = [];
    for (const e of this.profile.order?.order.echo ?? []) {
      // The host copies components from..to, an empty one for each the query did
      // not have (Sysmex XN: Q-3 `^^S100` comes back as O-3 `^^S100^`).
      const expected = Array.from({ length: e.to - e.from + 1 }, (_, i) => range[e.from - 1 + i] ?? '');
      const got = order.echo.find((x) => x.field === e.field)?.components ?? [];
      const same = got.length <= expected.length && expected.every((c, i) => c === (got[i] ?? ''));
      if (!same) out.push(`${e.field} is ${JSON.stringify(got.join('^'))} where the query gave ${JSON.stringify(expected.join('^'))}`);
    }
    return out;
  }

  // ----- sending -----

  private enqueue(text: string, kind: OutgoingKind, sample: string, hold: boolean): Promise<void> {
    if (this.stopped) return Promise.reject(new SimulatorError('the simulator is stopped'));
    const id = `sim-${++this.messageCount}`;
    const bytes = Buffer.from(text, this.profile.charset === 'utf8' ? 'utf8' : 'latin1');
    return new Promise<void>((resolve, reject) => {
      const o: Outgoing = { id, kind, sample, text, bytes, handed: false, resolve, reject };
      this.outbox.push(o);
      this.stats.sent++;
      this.emit('sending', this.describe(o));
      if (hold) {
        this.held = o;
        // A host that never sends its download must not keep this query back for ever.
        this.holdTimer = setTimeout(() => this.releaseHeld(), this.queryTimeoutMs);
        return;
      }
      this.hand(o);
    });
  }

  private hand(o: Outgoing): void {
    if (this.driver === undefined || o.handed) return; // goes out when the line (re)connects
    o.handed = true;
    this.handed.push(o);
    this.driver.send(o.bytes, o.id);
  }

  private releaseHeld(): void {
    if (this.holdTimer) clearTimeout(this.holdTimer);
    this.holdTimer = undefined;
    const o = this.held;
    this.held = undefined;
    if (o !== undefined) this.hand(o);
  }

  private settle(id: string, reason?: string): void {
    const i = this.outbox.findIndex((o) => o.id === id);
    if (i < 0) return;
    const [o] = this.outbox.splice(i, 1);
    if (o === undefined) return;
    this.handed = this.handed.filter((x) => x !== o);
    if (reason === undefined) {
      this.stats.acked++;
      this.emit('sent', this.describe(o));
      o.resolve();
    } else {
      this.stats.failed++;
      this.emit('failed', { ...this.describe(o), reason });
      o.reject(new SimulatorError(`${o.kind} for ${o.sample} not delivered: ${reason}`));
    }
  }

  private describe(o: Outgoing): MessageEvent {
    return { id: o.id, kind: o.kind, sampleNumber: o.sample, text: o.text, at: new Date() };
  }

  // ----- the line -----

  protected override attach(): void {
    this.driver?.close();
    // A fresh link per connection: nothing of an earlier session carries over.
    const link = linkMachine(this.framing !== 'records', { ...this.linkOptions, role: 'instrument', messageIdPrefix: 'host' });
    this.driver = new LinkDriver(link, (a) => this.onAction(a));
  }

  protected override resume(): void {
    for (const o of this.outbox) if (o !== this.held) this.hand(o);
  }

  protected override detach(): void {
    this.driver?.close();
    this.driver = undefined;
    this.wire.clear();
    // Messages in transfer are sent again, whole, on the next connection (§6.5.2.3).
    for (const o of this.handed) o.handed = false;
    this.handed = [];
    this.splitter.flush();
  }

  protected override halt(): Outgoing[] {
    if (this.holdTimer) clearTimeout(this.holdTimer);
    this.wire.clear();
    const pending = this.outbox.splice(0);
    this.handed = [];
    this.held = undefined;
    this.driver?.close();
    this.driver = undefined;
    this.splitter.flush();
    return pending;
  }

  protected override onData(chunk: Buffer): void {
    this.splitter.push(chunk);
    const driver = this.driver;
    if (driver === undefined) return;
    if (this.shaper === undefined) {
      driver.receive(chunk);
      return;
    }
    const r = this.shaper.incoming(chunk, driver.state, this.held !== undefined);
    for (const note of r.notes) this.emit('misbehaviour', note);
    if (r.contendAt === undefined) {
      driver.receive(r.bytes);
      return;
    }
    // Our ENQ goes out first, so the link meets the host's ENQ while establishing:
    // on the wire the two ENQs crossed.
    if (r.contendAt > 0) driver.receive(r.bytes.subarray(0, r.contendAt));
    this.releaseHeld();
    this.driver?.receive(r.bytes.subarray(r.contendAt));
  }

  private onAction(a: LinkAction): void {
    switch (a.type) {
      case 'write': {
        const shaped = this.shaper?.outgoing(a.bytes) ?? { bytes: a.bytes, delayMs: 0, notes: [] };
        for (const note of shaped.notes) this.emit('misbehaviour', note);
        this.wire.write(shaped.bytes, shaped.delayMs);
        break;
      }
      case 'message':
        this.onMessage(a.id, a.bytes);
        break;
      case 'sent':
        this.settle(a.id);
        break;
      case 'sendFailed':
        this.settle(a.id, a.reason);
        break;
      case 'discarded':
        this.emit('discarded', { reason: a.reason, text: a.bytes.toString('latin1') });
        break;
      case 'warning':
        this.emit('warning', a.text);
        break;
      case 'state':
        break;
    }
  }

  private frameEvent(direction: 'in' | 'out', bytes: Buffer): void {
    if (bytes[0] === STX || this.framing === 'records') {
      if (direction === 'in') this.stats.framesIn++;
      else this.stats.framesOut++;
    }
    this.emit('frame', { direction, bytes: Buffer.from(bytes), text: readable(bytes), at: new Date() });
  }
}
