/** What both simulators (ASTM and HL7) share: option checks, waiting for the host, the unordered test. */
import { setTimeout as sleep } from 'node:timers/promises';
import { analyteCodes } from './analytes';
import type { Transport } from './transport';

export class SimulatorError extends Error {
  override name = 'SimulatorError';
}

/** A sample that never ran or failed before it started, as runSamples reports it. */
export function failed(sampleNumber: string, error: string): { sampleNumber: string; resultsAcked: false; ok: false; error: string } {
  return { sampleNumber, resultsAcked: false, ok: false, error };
}

export function checkSample(sample: string): void {
  if (typeof sample !== 'string' || sample.trim() === '') throw new SimulatorError('a sample number must be a non-empty string');
  if (/[\x00-\x1f\x7f]/.test(sample)) throw new SimulatorError(`sample number ${JSON.stringify(sample)} holds a control character`);
}

export function nonNegative(name: string, v: number): number {
  if (!Number.isFinite(v) || v < 0) throw new SimulatorError(`${name} must be a number of ms >= 0, got ${String(v)}`);
  return v;
}

/** The test a misbehaving analyzer adds (unorderedResult): the one given, or one of the analyte table nobody ordered. */
export function unorderedTestFor(option: string | true | undefined, ordered: readonly string[]): string | undefined {
  if (option === undefined) return undefined;
  if (option !== true) return ordered.includes(option) ? undefined : option;
  return analyteCodes().find((code) => !ordered.includes(code));
}

interface ConnectEvents {
  once(event: 'connect', fn: () => void): unknown;
  off(event: 'connect', fn: () => void): unknown;
}

/** Resolves at the simulator's next 'connect' (at once when connected); rejects when it is stopped. */
export function waitForConnect(sim: ConnectEvents, state: { connected: boolean; stopped: boolean }, signal: AbortSignal): Promise<void> {
  if (state.connected) return Promise.resolve();
  if (state.stopped) return Promise.reject(new SimulatorError('the simulator is stopped'));
  return new Promise((resolve, reject) => {
    const onConnect = () => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    };
    const onAbort = () => {
      sim.off('connect', onConnect);
      reject(new SimulatorError('the simulator is stopped'));
    };
    sim.once('connect', onConnect);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Wires a transport's events to a simulator's handlers. */
export function listenTo(
  t: Transport,
  on: { data(chunk: Buffer): void; connect(peer: string): void; disconnect(reason: string): void; warning(text: string): void },
): void {
  t.on('data', (chunk) => on.data(chunk));
  t.on('connect', (peer) => on.connect(peer));
  t.on('disconnect', (reason) => on.disconnect(reason));
  t.on('error', (err) => on.warning(`transport: ${err.message}`));
}

export interface SampleRun<O> {
  outcome: Promise<O>;
  /** Resolves when the next sample may start; default intervalMs later. */
  next?: Promise<void>;
}

/**
 * runSamples of both simulators: one sample after the other, intervalMs
 * apart and overlapping (the next tube is scanned while the previous one is
 * measured); samples after a stop are reported as not run. Never rejects.
 */
export async function runEach<O>(
  samples: readonly string[],
  sim: { waitConnected(): Promise<void>; readonly stopped: boolean; readonly signal: AbortSignal; intervalMs: number },
  start: (sample: string) => SampleRun<O>,
  notRun: (sample: string, error: string) => O,
): Promise<O[]> {
  try {
    await sim.waitConnected();
  } catch (err) {
    return samples.map((s) => notRun(s, (err as Error).message));
  }
  const outcomes: Promise<O>[] = [];
  for (let i = 0; i < samples.length; i++) {
    const sample = samples[i]!;
    if (sim.stopped) {
      outcomes.push(Promise.resolve(notRun(sample, 'not run: the simulator was stopped')));
      continue;
    }
    const run = start(sample);
    outcomes.push(run.outcome);
    if (i === samples.length - 1) break;
    try {
      await (run.next ?? sleep(sim.intervalMs, undefined, { signal: sim.signal }));
    } catch {
      // Stopped while waiting: the remaining samples are reported as not run.
    }
  }
  return Promise.all(outcomes);
}

/** A simulator stopped: every query still waiting and every message not yet acknowledged is rejected, timers cleared. */
export function rejectWaiting(waiters: Array<{ timer?: NodeJS.Timeout | undefined; reject(err: Error): void }>, pending: Array<{ reject(err: Error): void }>): void {
  const stopped = new SimulatorError('the simulator was stopped');
  for (const w of waiters) {
    if (w.timer) clearTimeout(w.timer);
    w.reject(stopped);
  }
  for (const p of pending) p.reject(stopped);
}
