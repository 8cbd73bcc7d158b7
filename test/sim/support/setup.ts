/** A simulator and a test host joined by an in-memory line, torn down after the test. */
import type { TestContext } from 'node:test';
import { getProfile } from '../../../lib/protocols/astm/dialects';
import type { LabOrder } from '../../../lib/protocols/astm/lab';
import { AnalyzerSimulator, MemoryTransport, type FrameEvent, type SimulatorOptions } from '../../../lib/sim';
import { TestHost, type HostOptions } from './host';

/** Every timestamp the two sides write: 09:30:15 in Berlin. */
export const NOW = new Date('2026-11-21T08:30:15.000Z');
export const clock = (): Date => NOW;

export interface Rig {
  sim: AnalyzerSimulator;
  host: TestHost;
  /** Everything the simulator put on or took off the wire, in the readable form. */
  frames: FrameEvent[];
  notes: string[];
  warnings: string[];
  /** The simulator's view of the line, one line per unit, for failure messages. */
  trace(): string;
}

export async function rig(
  t: TestContext,
  dialect: string,
  options: { orders?: LabOrder[]; host?: Partial<HostOptions>; sim?: Partial<SimulatorOptions> } = {},
): Promise<Rig> {
  const [analyzerEnd, hostEnd] = MemoryTransport.pair();
  const host = new TestHost({ profile: getProfile(dialect), transport: hostEnd, now: clock, ...(options.orders ? { orders: options.orders } : {}), ...options.host });
  await host.start();
  // Overlapping samples meet the host's downloads in ENQ contention; a 20 ms
  // pause before the instrument's next ENQ (1 s by default) keeps tests fast.
  const sim = new AnalyzerSimulator({
    dialect,
    transport: analyzerEnd,
    timeZone: 'Europe/Berlin',
    now: clock,
    analysisMs: 0,
    intervalMs: 0,
    ...options.sim,
    link: { contentionRetryMs: 20, ...options.sim?.link },
  });
  const seen = record(sim);
  await sim.start();
  t.after(async () => {
    await sim.stop();
    await host.stop();
  });
  return { sim, host, ...seen };
}

interface Observable {
  on(event: 'frame', fn: (f: FrameEvent) => void): unknown;
  on(event: 'misbehaviour' | 'warning', fn: (text: string) => void): unknown;
}

/** What a simulator (ASTM or HL7) put on the wire, did wrong on purpose and warned about, and its trace for failure messages. */
export function record(sim: Observable): { frames: FrameEvent[]; notes: string[]; warnings: string[]; trace(): string } {
  const frames: FrameEvent[] = [];
  const notes: string[] = [];
  const warnings: string[] = [];
  sim.on('frame', (f) => frames.push(f));
  sim.on('misbehaviour', (n) => notes.push(n));
  sim.on('warning', (w) => warnings.push(w));
  return { frames, notes, warnings, trace: () => frames.map((f) => `${f.direction === 'out' ? '->' : '<-'} ${f.text}`).join('\n') };
}
