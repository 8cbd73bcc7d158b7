/**
 * Sections 2 (through a real pty) and 3 (serial line use), on one Node-RED
 * process running examples/ASTM/generic-lis2a2-serial.json unchanged but for the
 * push port (see flows.ts), its serial port on one end of a socat pty pair,
 * its LIS URLs pointing at the loopback stand-in. The analyzer is the
 * package's simulator (generic-lis2a2) on the other end, behind a
 * TappedTransport that timestamps (and, for section 3, paces) the line.
 */
import { ACK, STX } from '../lib/protocols/astm/control';
import { AnalyzerSimulator, SerialTransport } from '../lib/sim';
import { ptyPair } from '../demo/pty';
import { serialExampleFlow } from './flows';
import { benchLisEnv, startBenchLis } from './lis';
import { freePort, startNodeRed } from './node-red';
import type { Report } from './report';
import { summarize, waitFor } from './stats';
import { TappedTransport } from './tap';
import { nowUs, type ProfileWindow } from './profile';
import { ProcessWindow, machineLoad } from './proc';

export interface SerialSizes {
  /** Result messages sent unpaced through the pty for section 2 (each 3 frames). */
  ptyMessages: number;
  /** Section 3: results (test values) in the paced batch; sent as samples of 5 tests. */
  batchResults: number;
}

export interface SectionRun {
  /** .cpuprofile files Node-RED wrote (with --profile). */
  profiles: string[];
  /** The measured stretches, to read the profile in. */
  windows: ProfileWindow[];
}

const BAUD = 9600;
const BITS_PER_BYTE = 10; // 8N1: start bit, 8 data bits, stop bit
/** The generic example maps these analyzer tests. */
export const ANALYZER_TESTS = ['GLU', 'CREA', 'UREA', 'ALT', 'CHOL', 'CRP'];
const BATCH_TESTS = ANALYZER_TESTS.slice(0, 5);

export async function benchSerial(report: Report, sizes: SerialSizes, want: { pty: boolean; line: boolean }, profile: boolean, log: (s: string) => void): Promise<SectionRun> {
  const lis = await startBenchLis();
  const pty = await ptyPair();
  const red = await startNodeRed({
    flow: serialExampleFlow(await freePort(), pty.host, BAUD),
    env: benchLisEnv(lis),
    profile,
  });
  const tap = new TappedTransport(new SerialTransport(pty.analyzer, { baudRate: BAUD }));
  const sim = new AnalyzerSimulator({ dialect: 'generic-lis2a2', transport: tap, seed: 'bench', timeZone: 'UTC' });
  let profiles: string[];
  const windows: ProfileWindow[] = [];
  try {
    await red.waitForLog(/serial port \S+ opened/, 20_000);
    await sim.start();
    let sample = 0;
    const send = (tests: string[]) => sim.sendResults(`SER-${++sample}`, tests);
    const delivered = () => lis.to('/api/results').length;

    // Warm-up: a few messages through the whole flow, not timed.
    await Promise.all(Array.from({ length: 5 }, () => send(ANALYZER_TESTS)));

    if (want.pty) {
      log(`2: ${sizes.ptyMessages} result messages through the pty, unpaced`);
      let frameAt: number | undefined;
      const latencies: number[] = [];
      tap.onWrite = (bytes, at) => {
        if (bytes[0] === STX) frameAt = at;
      };
      tap.onRead = (bytes, at) => {
        if (frameAt !== undefined && bytes.includes(ACK)) {
          latencies.push(at - frameAt);
          frameAt = undefined;
        }
      };
      const before = delivered();
      const fromUs = nowUs();
      const sched = new ProcessWindow(red.pid);
      await Promise.all(Array.from({ length: sizes.ptyMessages }, () => send(ANALYZER_TESTS)));
      windows.push({ label: 'section 2, pty', fromUs, toUs: nowUs() });
      const nodeRed = sched.end();
      tap.onWrite = undefined;
      tap.onRead = undefined;
      const all = await waitFor(() => delivered() >= before + sizes.ptyMessages, 10_000);
      const s = summarize(latencies);
      const section = '2 link layer';
      report.add({ key: 'link.pty.p50', section, label: 'frame -> ACK, pty + Node-RED serial nodes, p50', value: s.p50, unit: 'ms', note: `${s.n} frames` });
      report.add({ key: 'link.pty.p99', section, label: 'frame -> ACK, pty + Node-RED, p99', value: s.p99, unit: 'ms' });
      report.add({ key: 'link.pty.max', section, label: 'frame -> ACK, pty + Node-RED, max', value: s.max, unit: 'ms' });
      report.detail('linkPty', { ...s, messages: sizes.ptyMessages, allDeliveredToLis: all, nodeRed, ...machineLoad() });
    }

    if (want.line) {
      const samples = Math.ceil(sizes.batchResults / BATCH_TESTS.length);
      log(`3: ${samples * BATCH_TESTS.length} results (${samples} samples x ${BATCH_TESTS.length} tests) paced at ${BAUD} baud 8N1`);
      await waitFor(() => tap.idle, 5_000);
      tap.pace(BAUD, BITS_PER_BYTE);
      tap.bursts.length = 0;
      const before = delivered();
      const written0 = tap.bytesWritten;
      const read0 = tap.bytesRead;
      const fromUs = nowUs();
      const sched = new ProcessWindow(red.pid);
      await Promise.all(Array.from({ length: samples }, () => send(BATCH_TESTS)));
      await waitFor(() => tap.idle, 10_000, 1);
      windows.push({ label: 'section 3, paced serial line', fromUs, toUs: nowUs() });
      const nodeRed = sched.end();
      tap.pace(0);
      const all = await waitFor(() => delivered() >= before + samples, 10_000);
      const bursts = tap.bursts.slice();
      const bytes = tap.bytesWritten - written0;
      const byteMs = (1000 * BITS_PER_BYTE) / BAUD;
      const lineMs = bytes * byteMs;
      const wallMs = bursts[bursts.length - 1]!.end - bursts[0]!.start;
      const gaps = bursts.slice(1).map((b, i) => b.start - bursts[i]!.end);
      const late = bursts.map((b) => b.end - b.ideal);
      const g = summarize(gaps);
      const section = '3 serial line use';
      report.add({ key: 'serial.lineMs', section, label: `line time of the ${bytes} bytes at ${BAUD} 8N1 (theory)`, value: lineMs / 1000, unit: 's' });
      report.add({ key: 'serial.wallMs', section, label: 'wall time, first byte to last byte', value: wallMs / 1000, unit: 's' });
      const ratio = lineMs / wallMs;
      report.add({ key: 'serial.lineUse', section, label: 'line use (line time / wall time)', value: ratio, unit: '', goal: { text: '> 0.95', met: ratio > 0.95 } });
      report.add({ key: 'serial.gap.p50', section, label: 'idle line between writes (ACK turnaround), p50', value: g.p50, unit: 'ms', note: `${g.n} gaps` });
      report.add({ key: 'serial.gap.p99', section, label: 'idle line between writes, p99', value: g.p99, unit: 'ms' });
      report.detail('serialLine', {
        baud: BAUD,
        bitsPerByte: BITS_PER_BYTE,
        samples,
        results: samples * BATCH_TESTS.length,
        analyzerBytes: bytes,
        hostBytes: tap.bytesRead - read0,
        bursts: bursts.length,
        lineSeconds: lineMs / 1000,
        wallSeconds: wallMs / 1000,
        ratio,
        idleGapsMs: g,
        idleTotalMs: gaps.reduce((a, b) => a + b, 0),
        pacerLateMs: summarize(late),
        allDeliveredToLis: all,
        nodeRed,
        ...machineLoad(),
      });
    }
  } finally {
    await sim.stop();
    profiles = await red.stop();
    await pty.stop();
    await lis.stop();
  }
  return { profiles, windows };
}
