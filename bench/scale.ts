/**
 * Section 5: N simulated analyzers over TCP at once through one Node-RED.
 *
 * How N analyzers get into one Node-RED: the generic example's TCP variant
 * with its `tcp in` in server mode (flows.ts tcpServerExampleFlow). Every
 * simulator connects as a TCP client (LIS1-A §8's usual roles), Node-RED tags
 * each connection's bytes with msg._session, astm-link keeps one link state
 * machine per session and `tcp out` ("reply to TCP") writes each ACK back on
 * its own connection. The rest of the flow is the example's: astm-message,
 * test-mapper, lis-send-results, and the processed notification per sample.
 *
 * Each simulator uploads result messages (one sample, the example's six
 * tests) back to back: the next one is handed to its link as soon as the
 * previous one was acknowledged, i.e. as fast as its link layer allows.
 * After a warm-up, a window is measured: results (test values) that reached
 * the stand-in per second, Node-RED's CPU seconds (/proc/<pid>/stat) per 1,000
 * results, its VmRSS, and upload-to-LIS latency (sendResults called to the
 * stand-in receiving the results request of that sample). Then the analyzers
 * stop sending, everything in flight is drained, and every message an
 * analyzer saw acknowledged is looked up at the stand-in: missing, failed or
 * never acknowledged messages are losses.
 *
 * Two Node-RED processes run side by side, one per variant, and each N is
 * measured on one then the other (so a busy spell of the shared machine hits
 * both alike): "journal on" is the flow as shipped (astm-link stores every
 * message, fdatasync'ed in groups, before its final ACK, and traces every
 * frame); "journal off" sets astm-link's journal and trace to false. In both,
 * lis-send-results journals every batch (before its request, synced, and its
 * outcome after): a flow cannot switch that off. Each N starts a fresh pair of
 * processes (fresh userDir, empty journal); results.json has the journal's and
 * the traces' size on disk after each run.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { AnalyzerSimulator } from '../lib/sim';
import { tcpServerExampleFlow } from './flows';
import type { LisStub } from '../test/support/lis-stub';
import { benchLisEnv, resultCount, sampleOf, startBenchLis } from './lis';
import { freePort, startNodeRed, type RunningNodeRed } from './node-red';
import { ProcessWindow, RssSampler, cpuSeconds, machineLoad, rssMiB } from './proc';
import type { Report } from './report';
import { ANALYZER_TESTS, type SectionRun } from './serial';
import { sleep, summarize, waitFor } from './stats';
import { nowUs, type ProfileWindow } from './profile';

export interface ScaleSizes {
  /** N values measured with the journal on (the shipped flow). */
  analyzers: number[];
  /** N values measured with astm-link's journal and trace off. */
  journalOffAnalyzers: number[];
  windowMs: number;
  warmUpMs: number;
}

export type JournalVariant = 'on' | 'off';

/** The label suffix that says what each variant has on. */
export const VARIANT_LABEL: Record<JournalVariant, string> = {
  on: 'journal on',
  off: 'journal off*',
};

/** Printed under the table when section 5 ran a "journal off" variant. */
export const JOURNAL_OFF_FOOTNOTE =
  "* 5 journal off: astm-link `journal: false` and `trace: false` (no store-before-ACK, no frame trace); lis-send-results still journals every batch (synced before its request, outcome after): that part cannot be switched off. journal on = the flow as shipped.";

interface Measured {
  resultsPerS: number;
  cpuPer1000: number;
  rssMiB: number;
  p99: number;
  lost: number;
  duplicates: number;
  uploads: number;
  detail: Record<string, unknown>;
}

interface Variant {
  name: JournalVariant;
  red: RunningNodeRed;
  port: number;
}

/**
 * Returns one SectionRun per Node-RED process. Every N gets a fresh pair of
 * processes (journal on, journal off, started together and measured one after
 * the other): what the journal keeps in memory, and the time lis-send-results
 * spends on it, grow with the batches it holds, so a process reused from the
 * previous N would make each figure depend on the ones before it.
 */
export async function benchScale(report: Report, sizes: ScaleSizes, profile: boolean, log: (s: string) => void): Promise<SectionRun[]> {
  const lis = await startBenchLis();
  const start = async (name: JournalVariant): Promise<Variant> => {
    const port = await freePort();
    const red = await startNodeRed({
      flow: tcpServerExampleFlow(await freePort(), port, name),
      env: benchLisEnv(lis),
      profile,
    });
    return { name, red, port };
  };
  const details: Record<string, unknown>[] = [];
  const runs: SectionRun[] = [];
  try {
    const all = [...new Set([...sizes.analyzers, ...sizes.journalOffAnalyzers])].sort((a, b) => a - b);
    for (const n of all) {
      const wanted = (['on', 'off'] as const).filter((v) => (v === 'on' ? sizes.analyzers : sizes.journalOffAnalyzers).includes(n));
      const started = await Promise.allSettled(wanted.map(start));
      const variants = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      const measured: Partial<Record<JournalVariant, Measured>> = {};
      // One run per process: its profile (written when it stops) belongs to the windows measured in it.
      const own: SectionRun[] = variants.map(() => ({ profiles: [], windows: [] }));
      runs.push(...own);
      try {
        const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
        if (failed) throw failed.reason;
        for (const [k, v] of variants.entries()) {
          log(`5: ${n} analyzer(s) over TCP, ${VARIANT_LABEL[v.name]}, ${sizes.warmUpMs} ms warm-up, ${sizes.windowMs} ms window`);
          const m = await runOne(lis, v, n, sizes, log, own[k]!.windows);
          measured[v.name] = m;
          details.push(m.detail);
          await sleep(500);
        }
      } finally {
        const stopped = await Promise.all(variants.map((v) => v.red.stop()));
        stopped.forEach((files, k) => (own[k]!.profiles = files));
      }
      addFigures(report, n, measured);
      if (measured.off) report.footnote(JOURNAL_OFF_FOOTNOTE);
    }
  } finally {
    await lis.stop();
  }
  report.detail('scale', details);
  return runs;
}

/** The figures of one N, each journal on beside journal off. */
function addFigures(report: Report, n: number, measured: Partial<Record<JournalVariant, Measured>>): void {
  const section = `5 scale, ${n} analyzer${n === 1 ? '' : 's'}`;
  const both = (['on', 'off'] as const).flatMap((v) => (measured[v] ? [[v, measured[v]] as const] : []));
  // journal on keeps the keys the section always had; journal off gets its own.
  const key = (v: JournalVariant, what: string) => (v === 'on' ? `scale.${n}.${what}` : `scale.${n}.journalOff.${what}`);
  for (const [v, m] of both) report.add({ key: key(v, 'resultsPerS'), section, label: `results delivered to the LIS per second, ${VARIANT_LABEL[v]}`, value: m.resultsPerS, unit: '/s', note: `${m.uploads} uploads` });
  for (const [v, m] of both) report.add({ key: key(v, 'cpuPer1000'), section, label: `Node-RED CPU per 1,000 results, ${VARIANT_LABEL[v]}`, value: m.cpuPer1000, unit: 's' });
  for (const [v, m] of both) report.add({ key: key(v, 'rssMiB'), section, label: `Node-RED resident memory (max in window), ${VARIANT_LABEL[v]}`, value: m.rssMiB, unit: 'MiB' });
  for (const [v, m] of both) report.add({ key: key(v, 'latency.p99'), section, label: `upload -> LIS latency, p99, ${VARIANT_LABEL[v]}`, value: m.p99, unit: 'ms' });
  // The journal's cost as this run measured it, both variants side by side (bench/limits.ts judges these).
  const { on, off } = measured;
  if (on !== undefined && off !== undefined) {
    report.add({ key: `scale.${n}.onOff.resultsPerS`, section, label: 'results/s, journal on / off*', value: on.resultsPerS / off.resultsPerS, unit: 'x' });
    report.add({ key: `scale.${n}.onOff.cpuPer1000`, section, label: 'CPU per result, journal on / off*', value: on.cpuPer1000 / off.cpuPer1000, unit: 'x' });
  }
  for (const [v, m] of both) {
    report.add({
      key: key(v, 'lost'),
      section,
      label: `messages lost (acked, not at LIS; failed; stuck), ${VARIANT_LABEL[v]}`,
      value: m.lost,
      unit: '',
      ...(n === 200 ? { goal: { text: '= 0', met: m.lost === 0 && m.duplicates === 0 } } : {}),
    });
  }
}

async function runOne(lis: LisStub, variant: Variant, n: number, sizes: ScaleSizes, log: (s: string) => void, windows: ProfileWindow[]): Promise<Measured> {
  const { red, port } = variant;
  const pid = red.pid;
  const prefix = `N${n}${variant.name}-`;
  // Earlier runs' requests are never read again (each run looks up its own prefix): only this run's are kept.
  lis.clear();
  const rssBefore = rssMiB(pid);
  const sims = Array.from(
    { length: n },
    (_, i) => new AnalyzerSimulator({ dialect: 'generic-lis2a2', transport: { kind: 'tcp', host: '127.0.0.1', port, connectTimeoutMs: 30_000 }, seed: `a${i}`, timeZone: 'UTC' }),
  );
  const warnings: string[] = [];
  for (const sim of sims) sim.on('warning', (w) => warnings.length < 20 && warnings.push(w));
  await Promise.all(sims.map((s) => s.start()));

  const started = new Map<string, number>();
  const acked = new Set<string>();
  const failures: string[] = [];
  let inFlight = 0;
  let running = true;
  const loops = sims.map(async (sim, i) => {
    let k = 0;
    while (running) {
      const sample = `${prefix}A${i + 1}-${++k}`;
      started.set(sample, performance.now());
      inFlight++;
      try {
        await sim.sendResults(sample, ANALYZER_TESTS);
        acked.add(sample);
      } catch (err) {
        failures.push(`${sample}: ${(err as Error).message}`);
      } finally {
        inFlight--;
      }
    }
  });

  await sleep(sizes.warmUpMs);
  const cpu0 = cpuSeconds(pid);
  const bench0 = process.cpuUsage();
  const rss = new RssSampler(pid, 100);
  const sched = new ProcessWindow(pid);
  const t0 = performance.now();
  const fromUs = nowUs();
  await sleep(sizes.windowMs);
  const t1 = performance.now();
  windows.push({ label: `section 5, ${n} analyzer(s), ${VARIANT_LABEL[variant.name]}`, fromUs, toUs: nowUs() });
  const cpu1 = cpuSeconds(pid);
  const bench1 = process.cpuUsage(bench0);
  const nodeRedRunQueueWaitMs = sched.end().runQueueWaitMs;
  rss.stop();

  running = false;
  const drained = await waitFor(() => inFlight === 0, 30_000);
  await Promise.race([Promise.all(loops), sleep(1_000)]);
  const atLis = () => new Set(lis.to('/api/results').map(sampleOf).filter((s) => s.startsWith(prefix)));
  await waitFor(() => {
    const got = atLis();
    for (const s of acked) if (!got.has(s)) return false;
    return true;
  }, 15_000);
  const got = atLis();
  const missing = [...acked].filter((s) => !got.has(s));
  const mine = lis.to('/api/results').filter((r) => sampleOf(r).startsWith(prefix));
  const duplicates = mine.length - got.size;
  const lost = missing.length + failures.length + inFlight;
  await Promise.all(sims.map((s) => s.stop()));

  const windowed = mine.filter((r) => r.arrivedAt >= t0 && r.arrivedAt < t1);
  const seconds = (t1 - t0) / 1000;
  const items = windowed.reduce((sum, r) => sum + resultCount(r), 0);
  const latency = summarize(windowed.map((r) => r.arrivedAt - (started.get(sampleOf(r)) ?? Number.NaN)).filter((v) => Number.isFinite(v)));
  const cpu = cpu1 - cpu0;
  const resultsPerS = items / seconds;
  const cpuPer1000 = items > 0 ? (cpu / items) * 1000 : Number.NaN;
  const detail = {
    analyzers: n,
    journal: variant.name,
    windowSeconds: seconds,
    uploadsInWindow: windowed.length,
    resultsInWindow: items,
    resultsPerSecond: resultsPerS,
    uploadsPerSecond: windowed.length / seconds,
    nodeRedCpuSeconds: cpu,
    nodeRedCpuPercentOfOneCore: (cpu / seconds) * 100,
    benchCpuPercentOfOneCore: ((bench1.user + bench1.system) / 1e6 / seconds) * 100,
    nodeRedRunQueueWaitMs,
    ...machineLoad(),
    rssBeforeMiB: rssBefore,
    rssMaxMiB: rss.max,
    latencyMs: latency,
    sent: started.size,
    acked: acked.size,
    failed: failures.length,
    failureExamples: failures.slice(0, 5),
    stuckInFlight: inFlight,
    drained,
    missingAtLis: missing.length,
    duplicatesAtLis: duplicates,
    lost,
    simulatorWarnings: warnings,
    ...diskUse(red.userDir),
  };
  log(`5: ${n} analyzer(s), ${VARIANT_LABEL[variant.name]}: ${resultsPerS.toFixed(0)} results/s, Node-RED ${detail.nodeRedCpuPercentOfOneCore.toFixed(0)}% CPU, bench ${detail.benchCpuPercentOfOneCore.toFixed(0)}% CPU, Node-RED waited ${nodeRedRunQueueWaitMs.toFixed(0)} ms for a CPU, p99 ${latency.p99.toFixed(1)} ms, lost ${lost}, duplicates ${duplicates}`);
  return { resultsPerS, cpuPer1000, rssMiB: rss.max, p99: latency.p99, lost, duplicates, uploads: windowed.length, detail };
}

/** What the run left under <userDir>/lis-bridge: the journal file and the frame traces, in bytes. */
function diskUse(userDir: string): { journalBytes: number; traceBytes: number } {
  const dir = join(userDir, 'lis-bridge');
  const size = (p: string): number => {
    try {
      const st = statSync(p);
      return st.isDirectory() ? readdirSync(p).reduce((n, f) => n + size(join(p, f)), 0) : st.size;
    } catch {
      return 0;
    }
  };
  return { journalBytes: size(join(dir, 'journal.jsonl')), traceBytes: size(join(dir, 'trace')) };
}
