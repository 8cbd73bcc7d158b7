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
 */
import { AnalyzerSimulator } from '../lib/sim';
import { tcpServerExampleFlow } from './flows';
import { LisStandIn, type Served } from './lis-stand-in';
import { freePort, startNodeRed } from './node-red';
import { ProcessWindow, RssSampler, cpuSeconds, machineLoad, rssMiB } from './proc';
import type { Report } from './report';
import { ANALYZER_TESTS, type SectionRun } from './serial';
import { sleep, summarize, waitFor } from './stats';
import { nowUs, type ProfileWindow } from './profile';

export interface ScaleSizes {
  analyzers: number[];
  windowMs: number;
  warmUpMs: number;
}

export async function benchScale(report: Report, sizes: ScaleSizes, profile: boolean, log: (s: string) => void): Promise<SectionRun> {
  const lis = await new LisStandIn().start();
  const port = await freePort();
  const red = await startNodeRed({
    flow: tcpServerExampleFlow(await freePort()),
    env: { ...lis.env(), ANALYZER_HOST: '127.0.0.1', ANALYZER_TCP_PORT: String(port) },
    profile,
  });
  const details: Record<string, unknown>[] = [];
  let profiles: string[] = [];
  const windows: ProfileWindow[] = [];
  try {
    await red.waitForOutput(/Started flows/, 10_000);
    for (const n of sizes.analyzers) {
      log(`5: ${n} analyzer(s) over TCP, ${sizes.warmUpMs} ms warm-up, ${sizes.windowMs} ms window`);
      details.push(await runOne(report, lis, red.pid, port, n, sizes, log, windows));
      await sleep(500);
    }
  } finally {
    profiles = await red.stop();
    await lis.stop();
  }
  report.detail('scale', details);
  return { profiles, windows };
}

async function runOne(report: Report, lis: LisStandIn, pid: number, port: number, n: number, sizes: ScaleSizes, log: (s: string) => void, windows: ProfileWindow[]): Promise<Record<string, unknown>> {
  const prefix = `N${n}-`;
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
  windows.push({ label: `section 5, ${n} analyzer(s)`, fromUs, toUs: nowUs() });
  const cpu1 = cpuSeconds(pid);
  const bench1 = process.cpuUsage(bench0);
  const nodeRedRunQueueWaitMs = sched.end().runQueueWaitMs;
  rss.stop();

  running = false;
  const drained = await waitFor(() => inFlight === 0, 30_000);
  await Promise.race([Promise.all(loops), sleep(1_000)]);
  const atLis = () => new Set(lis.to('/api/results').filter((s) => s.sample.startsWith(prefix)).map((s) => s.sample));
  await waitFor(() => {
    const got = atLis();
    for (const s of acked) if (!got.has(s)) return false;
    return true;
  }, 15_000);
  const got = atLis();
  const missing = [...acked].filter((s) => !got.has(s));
  const mine = lis.to('/api/results').filter((s) => s.sample.startsWith(prefix));
  const duplicates = mine.length - got.size;
  const lost = missing.length + failures.length + inFlight;
  await Promise.all(sims.map((s) => s.stop()));

  const windowed: Served[] = mine.filter((s) => s.arrivedAt >= t0 && s.arrivedAt < t1);
  const seconds = (t1 - t0) / 1000;
  const items = windowed.reduce((sum, s) => sum + s.items, 0);
  const latency = summarize(windowed.map((s) => s.arrivedAt - (started.get(s.sample) ?? Number.NaN)).filter((v) => Number.isFinite(v)));
  const cpu = cpu1 - cpu0;
  const resultsPerS = items / seconds;
  const section = `5 scale, ${n} analyzer${n === 1 ? '' : 's'}`;
  report.add({ key: `scale.${n}.resultsPerS`, section, label: 'results delivered to the LIS per second', value: resultsPerS, unit: '/s', better: 'higher', note: `${windowed.length} uploads` });
  report.add({ key: `scale.${n}.cpuPer1000`, section, label: 'Node-RED CPU per 1,000 results', value: items > 0 ? (cpu / items) * 1000 : Number.NaN, unit: 's', better: 'lower' });
  report.add({ key: `scale.${n}.rssMiB`, section, label: 'Node-RED resident memory (max in window)', value: rss.max, unit: 'MiB' });
  report.add({ key: `scale.${n}.latency.p99`, section, label: 'upload -> LIS latency, p99', value: latency.p99, unit: 'ms', better: 'lower' });
  report.add({
    key: `scale.${n}.lost`,
    section,
    label: 'messages lost (acked, not at LIS; failed; stuck)',
    value: lost,
    unit: '',
    ...(n === 200 ? { goal: { text: '= 0', met: lost === 0 && duplicates === 0 } } : {}),
  });
  const detail = {
    analyzers: n,
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
  };
  log(`5: ${n} analyzer(s): ${resultsPerS.toFixed(0)} results/s, Node-RED ${detail.nodeRedCpuPercentOfOneCore.toFixed(0)}% CPU, bench ${detail.benchCpuPercentOfOneCore.toFixed(0)}% CPU, Node-RED waited ${nodeRedRunQueueWaitMs.toFixed(0)} ms for a CPU, p99 ${latency.p99.toFixed(1)} ms, lost ${lost}, duplicates ${duplicates}`);
  return detail;
}
