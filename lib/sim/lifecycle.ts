/**
 * What every simulated analyzer does whatever its protocol: open its
 * transport, wait for the host, pace a day's samples, count, and stop
 * cleanly. AnalyzerSimulator (ASTM) and Hl7AnalyzerSimulator (HL7) extend it
 * and keep only their protocol: framing, messages, acknowledgement rules.
 *
 * A base class rather than a composed object because the simulators' public
 * API (start, stop, waitConnected, connected, counters, the events) is this
 * lifecycle itself: a composed object would need every one of them forwarded
 * by hand in both simulators, which is the duplication this file removes.
 *
 * The protocol plugs in through four hooks, called on the line's events:
 * attach (a peer connected: fresh per-connection state), resume (after
 * 'connect' is emitted: send what waited), detach (the line dropped) and halt
 * (stop: clear timers, hand back the messages still pending so they are
 * rejected with the scans still waiting).
 */
import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { SimulatorError, nonNegative } from './common';
import { ControlModel, type QcOptions, type SentControlRun } from './qc';
import { createTransport, Transport, type TransportSpec } from './transport';
import type { Counters, RunOptions } from './types';

/** The options both simulators read the same way. */
export interface LifecycleOptions {
  transport: TransportSpec | Transport;
  timeZone?: string;
  seed?: string | number;
  analysisMs?: number;
  intervalMs?: number;
  queryTimeoutMs?: number;
  tests?: string[];
  senderName?: string;
  now?: () => Date;
  /** Control runs: the control, its levels and faults, and when a run goes out by itself. */
  qc?: QcOptions;
}

/** What the lifecycle needs of a protocol before its own constructor runs. */
export interface ProtocolDefaults {
  /** The dialect's deadline for a query's answer (queryTimeoutMs's default). */
  queryDeadlineMs: number;
  /** Writes one timestamp in the zone, so a bad zone fails in the constructor, with its name, not in the middle of a result. */
  checkTimeZone(zone: string): void;
}

/** The events the lifecycle itself emits; each simulator's event map has these and more. */
export interface LifecycleEvents {
  warning: [string];
  connect: [string];
  disconnect: [string];
}

/** A scan waiting for the host's answer: the part the lifecycle rejects on stop. */
export interface QueryWaiter {
  sample: string;
  timer?: NodeJS.Timeout;
  reject: (err: Error) => void;
}

interface Pending {
  reject(err: Error): void;
}

interface SampleRun<O> {
  outcome: Promise<O>;
  /** Resolves when the next sample may start; default intervalMs later. */
  next?: Promise<void>;
}

export abstract class SimulatorLifecycle<E extends LifecycleEvents & Record<keyof E, unknown[]>, C extends Counters, W extends QueryWaiter> extends EventEmitter<E> {
  readonly timeZone: string;
  readonly transport: Transport;
  protected readonly seed: string;
  protected readonly analysisMs: number;
  protected readonly intervalMs: number;
  protected readonly queryTimeoutMs: number;
  protected readonly defaultTests: string[];
  protected readonly senderName: string | undefined;
  protected readonly now: () => Date;
  protected readonly waiters: W[] = [];
  protected readonly abort = new AbortController();
  protected abstract readonly stats: C;
  protected stopped = false;
  private started = false;
  /** The control material and its faults, when the simulator runs QC. */
  readonly controlModel: ControlModel | undefined;
  protected readonly sentControlRuns: SentControlRun[] = [];
  private readonly qcEvery: QcOptions['every'];
  private samplesSinceControl = 0;
  private controlTimer: NodeJS.Timeout | undefined;
  private readonly controlsPending = new Set<Promise<void>>();

  constructor(options: LifecycleOptions, protocol: ProtocolDefaults) {
    super();
    this.timeZone = options.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone ?? 'UTC';
    protocol.checkTimeZone(this.timeZone);
    this.seed = String(options.seed ?? 1);
    this.analysisMs = nonNegative('analysisMs', options.analysisMs ?? 1000);
    this.intervalMs = nonNegative('intervalMs', options.intervalMs ?? 2000);
    this.queryTimeoutMs = nonNegative('queryTimeoutMs', options.queryTimeoutMs ?? protocol.queryDeadlineMs);
    this.defaultTests = options.tests ?? ['GLU', 'CREA'];
    this.senderName = options.senderName;
    this.now = options.now ?? (() => new Date());
    this.controlModel = options.qc === undefined ? undefined : new ControlModel(options.qc, this.seed, this.defaultTests);
    this.qcEvery = options.qc?.every;
    // Making a transport opens nothing: a protocol option its constructor refuses after this leaks no socket.
    this.transport = options.transport instanceof Transport ? options.transport : createTransport(options.transport);
  }

  /** A peer is connected and the protocol's per-connection state exists. */
  abstract get connected(): boolean;

  get counters(): C {
    return { ...this.stats };
  }

  /** Opens the transport. For a TCP server, resolves once listening; waitConnected() waits for the host. */
  async start(): Promise<void> {
    if (this.started) throw new SimulatorError('the simulator was already started');
    this.started = true;
    const t = this.transport;
    t.on('data', (chunk) => this.onData(chunk));
    t.on('connect', (peer) => this.onConnect(peer));
    t.on('disconnect', (reason) => this.onDisconnect(reason));
    t.on('error', (err) => this.tell('warning', `transport: ${err.message}`));
    await t.open();
    const every = this.qcEvery;
    if (every !== undefined && 'ms' in every) {
      // A run only while a host is there: an analyzer with no line keeps its controls.
      this.controlTimer = setInterval(() => {
        if (this.connected && !this.stopped) this.scheduleControlRun();
      }, every.ms);
      this.controlTimer.unref();
    }
  }

  /**
   * Sends the next control run (every level, every test of the control) and
   * resolves, once the host acknowledged all of it, with the values sent and
   * their z-scores against the model's targets.
   */
  abstract sendControlRun(): Promise<SentControlRun>;

  /** Every control run sent and acknowledged so far, in order. */
  get controlRuns(): SentControlRun[] {
    return [...this.sentControlRuns];
  }

  /** The control model, or an error naming the option when the simulator was made without one. */
  protected requireControlModel(): ControlModel {
    if (this.controlModel === undefined) throw new SimulatorError('no control to run: give the qc option ({ control, levels, ... })');
    return this.controlModel;
  }

  /** Resolves when a peer is connected (at once on serial and TCP client lines); rejects when the simulator stops first. */
  waitConnected(): Promise<void> {
    if (this.connected) return Promise.resolve();
    if (this.stopped) return Promise.reject(new SimulatorError('the simulator is stopped'));
    const signal = this.abort.signal;
    const events = this as unknown as EventEmitter<LifecycleEvents>;
    return new Promise((resolve, reject) => {
      const onConnect = () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        events.off('connect', onConnect);
        reject(new SimulatorError('the simulator is stopped'));
      };
      events.once('connect', onConnect);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Stops everything: pending scans and sends are rejected, timers cleared, the transport closed. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.controlTimer) clearInterval(this.controlTimer);
    this.abort.abort();
    const pending = this.halt();
    const stopped = new SimulatorError('the simulator was stopped');
    for (const w of this.waiters.splice(0)) {
      if (w.timer) clearTimeout(w.timer);
      w.reject(stopped);
    }
    for (const p of pending) p.reject(stopped);
    await this.transport.close();
  }

  // ----- the protocol's part -----

  protected abstract onData(chunk: Buffer): void;
  /** A peer connected: make what lives for one connection (nothing of an earlier session carries over). */
  protected abstract attach(): void;
  /** After 'connect': send what waited for the line. */
  protected abstract resume(): void;
  /** The line dropped: forget the connection's state; what was in transfer goes out again on the next one. */
  protected abstract detach(): void;
  /** stop(): clear the protocol's timers and return the messages not yet acknowledged (each is rejected). */
  protected abstract halt(): Pending[];

  // ----- for the protocols -----

  /**
   * runSamples of both simulators: one sample after the other, intervalMs
   * apart and overlapping (the next tube is scanned while the previous one is
   * measured); samples after a stop are reported as not run. Never rejects.
   */
  protected async runEach<O>(samples: readonly string[], opts: RunOptions, start: (sample: string) => SampleRun<O>, notRun: (sample: string, error: string) => O): Promise<O[]> {
    const intervalMs = opts.intervalMs ?? this.intervalMs;
    try {
      await this.waitConnected();
    } catch (err) {
      return samples.map((s) => notRun(s, (err as Error).message));
    }
    const outcomes: Promise<O>[] = [];
    for (let i = 0; i < samples.length; i++) {
      const sample = samples[i]!;
      if (this.stopped) {
        outcomes.push(Promise.resolve(notRun(sample, 'not run: the simulator was stopped')));
        continue;
      }
      const run = start(sample);
      outcomes.push(run.outcome.finally(() => this.sampleDone()));
      if (i === samples.length - 1) break;
      try {
        await (run.next ?? sleep(intervalMs, undefined, { signal: this.abort.signal }));
      } catch {
        // Stopped while waiting: the remaining samples are reported as not run.
      }
    }
    const done = await Promise.all(outcomes);
    // The summary counts the control runs the samples set off.
    while (this.controlsPending.size > 0) await Promise.all([...this.controlsPending]);
    return done;
  }

  private sampleDone(): void {
    const every = this.qcEvery;
    if (every === undefined || !('samples' in every) || this.stopped) return;
    if (++this.samplesSinceControl < every.samples) return;
    this.samplesSinceControl = 0;
    this.scheduleControlRun();
  }

  /** A control run the schedule sets off: never rejects, a failure is a warning. */
  private scheduleControlRun(): void {
    const p = this.sendControlRun().then(
      () => undefined,
      (err: Error) => {
        if (!this.stopped) this.tell('warning', `control run not delivered: ${err.message}`);
      },
    );
    this.controlsPending.add(p);
    void p.finally(() => this.controlsPending.delete(p));
  }

  /** One sample's outcome once its work is done or failed, announced as 'outcome'. */
  protected outcomeOf<O extends { ok: boolean; error?: string }>(outcome: O, work: Promise<void>): Promise<O> {
    return work
      .then(
        (): O => outcome,
        (err: Error): O => ({ ...outcome, ok: false, error: err.message }),
      )
      .then((done) => {
        (this as unknown as EventEmitter<{ outcome: [O] }>).emit('outcome', done);
        return done;
      });
  }

  protected summary<S extends { ok: boolean }>(samples: S[]): { ok: boolean; samples: S[]; counters: C; controlRuns: SentControlRun[] } {
    return { ok: samples.length > 0 && samples.every((s) => s.ok), samples, counters: this.counters, controlRuns: this.controlRuns };
  }

  /** Takes a waiter off the list and clears its deadline; false when it was already gone (answered, expired or stopped). */
  protected dropWaiter(w: W): boolean {
    const i = this.waiters.indexOf(w);
    if (i < 0) return false;
    this.waiters.splice(i, 1);
    if (w.timer) clearTimeout(w.timer);
    return true;
  }

  protected assertRunning(): void {
    if (!this.started) throw new SimulatorError('start() the simulator first');
    if (this.stopped) throw new SimulatorError('the simulator is stopped');
  }

  /** emit() for the lifecycle's own events: the event map is a type parameter, so TypeScript cannot check these against it. */
  protected tell(event: keyof LifecycleEvents, text: string): void {
    (this as unknown as EventEmitter<LifecycleEvents>).emit(event, text);
  }

  private onConnect(peer: string): void {
    if (this.stopped) return;
    this.attach();
    this.tell('connect', peer);
    this.resume();
  }

  private onDisconnect(reason: string): void {
    this.detach();
    if (!this.stopped) this.tell('disconnect', reason);
  }
}
