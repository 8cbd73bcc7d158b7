/**
 * Section 9: the QC store with two years of a busy lab's QC (docs/qc.md, "QC
 * store"): 20 analyzers × 40 tests × 3 levels × 3 runs a day, about 5.3
 * million points, with a new control lot every 180 days, added through the
 * store's own add() a day of an analyzer at a time (one fsync per batch, so
 * the history is written in about a minute). Then, on that full history:
 *
 * - start-up: openQcStore in a fresh process (bench/qc-store-open.ts), its
 *   time and its RSS and heap after garbage collection;
 * - a point added: add() of one point awaited alone (what an analyzer's
 *   acknowledgement waits for: one fdatasync), and add() in batches of 1,000
 *   (the store's own work per point, the sync shared); and the evaluator's
 *   judgement of a point, fed at start from recent(); and the nodes' path,
 *   QcMonitor (opened on the full history, each run's points recorded as one
 *   message: identified, judged, gated, then written);
 * - a 90-day chart of one series, and a month's CSV export of every analyzer.
 *
 * The same points added to an empty store are measured too: the cost per
 * point must not grow with the history.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QcMonitor, ReviewBook, createQcEvaluator, defaultRuleSet, openQcStore, parseQcSetup, type ControlPoint, type QcInput, type QcStore } from '../lib/qc';
import type { Report } from './report';
import { median } from './stats';

export interface QcStoreSizes {
  analyzers: number;
  tests: number;
  levels: number;
  runsPerDay: number;
  days: number;
}

const DAY = 24 * 60 * 60_000;
const LOT_DAYS = 180;
const SECTION = '9 QC store';
const START = Date.UTC(2024, 0, 1);

/** A small seeded generator (mulberry32), so every run writes the same history. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function normal(rnd: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
}

/** Lots of LOT_DAYS counted back from the last day, so the last 90 days (the chart) are one lot's. */
function lotOf(sizes: QcStoreSizes, day: number): string {
  return `LOT${Math.floor((day + LOT_DAYS - (sizes.days % LOT_DAYS)) / LOT_DAYS) + 1}`;
}

/** One analyzer's points of one day, in result-time order. */
function dayOf(sizes: QcStoreSizes, analyzer: number, day: number, rnd: () => number, idPrefix = ''): ControlPoint[] {
  const out: ControlPoint[] = [];
  const lot = lotOf(sizes, day);
  for (let run = 0; run < sizes.runsPerDay; run++) {
    const at = START + day * DAY + (run * DAY) / sizes.runsPerDay + analyzer * 1000;
    for (let t = 0; t < sizes.tests; t++) {
      for (let level = 1; level <= sizes.levels; level++) {
        out.push({ id: `${idPrefix}${analyzer}-${day}-${run}-${t}-${level}`, analyzer: `AN${analyzer}`, test: `T${t}`, material: `L${level}`, lot, value: 100 * level + 2 * level * normal(rnd), at: at + t * 10, run: `${day}-${run}` });
      }
    }
  }
  return out;
}

export async function benchQcStore(report: Report, sizes: QcStoreSizes, log: (s: string) => void): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'lis-bench-qc-store-'));
  try {
    const total = sizes.analyzers * sizes.tests * sizes.levels * sizes.runsPerDay * sizes.days;
    log(`9: writing ${total.toLocaleString('en')} QC points (${sizes.analyzers} analyzers × ${sizes.tests} tests × ${sizes.levels} levels × ${sizes.runsPerDay} runs × ${sizes.days} days)`);
    const full = join(root, 'full');
    const rnd = random(36);
    let store = await openQcStore(full);
    const writing = performance.now();
    for (let day = 0; day < sizes.days; day++) {
      await Promise.all(Array.from({ length: sizes.analyzers }, (_, a) => store.add(dayOf(sizes, a, day, rnd))));
      if (day % 100 === 99) log(`9: ${day + 1} days written`);
    }
    const writeS = (performance.now() - writing) / 1000;
    await store.close();
    const snap = store.stats.snapshot!;
    const bytes = dirSize(join(full, 'points'));
    report.add({ key: 'qcStore.history.points', section: SECTION, label: 'history written through add() (a day of an analyzer per call)', value: total, unit: 'points', note: `${writeS.toFixed(1)} s, ${(total / writeS).toFixed(0)} points/s, ${(bytes / 2 ** 20).toFixed(0)} MiB of segments` });

    report.add({ key: 'qcStore.snapshot.ms', section: SECTION, label: 'snapshot (state.json): the event loop held at once (its capture)', value: snap.captureMs, unit: 'ms', note: `${(snap.bytes / 2 ** 20).toFixed(1)} MiB, its text built in slices in ${snap.buildMs.toFixed(0)} ms; every 50,000 lines and at close` });
    const probe = join(__dirname, 'qc-store-open.js');
    const opens = [0, 1, 2].map(() => JSON.parse(execFileSync(process.execPath, ['--expose-gc', probe, full], { encoding: 'utf8' })) as { openMs: number; rss: number; heapUsed: number; series: number; replayed: number });
    const open = opens.sort((x, y) => x.openMs - y.openMs)[1]!;
    report.add({ key: 'qcStore.open.ms', section: SECTION, label: 'start-up with the full history: openQcStore, median of 3 processes', value: open.openMs, unit: 'ms', note: `${open.series} series, ${open.replayed} lines replayed` });
    report.add({ key: 'qcStore.open.rss', section: SECTION, label: 'start-up: RSS of the process after open (gc)', value: open.rss / 2 ** 20, unit: 'MiB' });
    report.add({ key: 'qcStore.open.heap', section: SECTION, label: 'start-up: heap used after open (gc)', value: open.heapUsed / 2 ** 20, unit: 'MiB' });

    store = await openQcStore(full);
    const empty = await openQcStore(join(root, 'empty'));
    const durableFull = await durableCost(store, sizes, 'full');
    const durableEmpty = await durableCost(empty, sizes, 'empty');
    // Rounds taking turns, so a busy spell of the shared machine falls on both stores alike.
    const batchedFull: number[] = [];
    const batchedEmpty: number[] = [];
    for (let round = 0; round < 7; round++) {
      batchedFull.push(await batchedCost(store, sizes, `full-${round}`, round));
      batchedEmpty.push(await batchedCost(empty, sizes, `empty-${round}`, round));
    }
    const evalUs = evaluationCost(store, sizes);
    const monitor = await monitorCost(store, sizes, join(root, 'review'));
    await empty.close();
    const full1 = median(batchedFull);
    const empty1 = median(batchedEmpty);
    report.add({ key: 'qcStore.add.durable.p50', section: SECTION, label: 'one point added and on disk (add awaited alone: one fdatasync), p50, full history', value: durableFull, unit: 'µs', note: `empty store: ${durableEmpty.toFixed(0)} µs` });
    report.add({ key: 'qcStore.add.batched', section: SECTION, label: 'the store’s work per point (add in batches of 1,000), full history', value: full1, unit: 'µs', note: `empty store: ${empty1.toFixed(2)} µs; median of 7 rounds each, taking turns` });
    report.add({ key: 'qcStore.add.fullOverEmpty', section: SECTION, label: 'work per point, full history over an empty store', value: full1 / empty1, unit: 'x' });
    report.add({ key: 'qcStore.monitor.open.ms', section: SECTION, label: 'the nodes’ path: QcMonitor.open for one analyzer on the full history', value: monitor.openMs, unit: 'ms', note: `${sizes.tests} tests fed from recent()` });
    report.add({ key: 'qcStore.monitor.record', section: SECTION, label: 'the nodes’ path: record() per point, the event loop held (identify, judge, gate), full history', value: monitor.syncUs, unit: 'µs', note: `${monitor.points} points in runs of ${sizes.tests * sizes.levels}, one record() a run` });
    report.add({ key: 'qcStore.monitor.written.p50', section: SECTION, label: 'the nodes’ path: a run’s writes awaited (points, verdicts, review), p50', value: monitor.writtenMs, unit: 'ms', note: 'what the message’s journal note waits for' });
    report.add({ key: 'qcStore.evaluate', section: SECTION, label: 'evaluator per point (N of 3 set, started from recent()), full history', value: evalUs, unit: 'µs' });

    const chartMs: number[] = [];
    let chartPoints = 0;
    let reads = 0;
    for (let i = 0; i < 5; i++) {
      const to = START + sizes.days * DAY;
      const before = store.stats.segmentReads;
      const started = performance.now();
      const chart = await store.chart({ analyzer: `AN${i % sizes.analyzers}`, test: `T${(i * 7) % sizes.tests}`, material: 'L2', lot: lotOf(sizes, sizes.days - 1) }, to - 90 * DAY, to);
      chartMs.push(performance.now() - started);
      chartPoints = chart.points.length;
      reads = store.stats.segmentReads - before;
    }
    report.add({ key: 'qcStore.chart90.ms', section: SECTION, label: '90-day chart of one series (median of 5 series)', value: median(chartMs), unit: 'ms', note: `${chartPoints} points, ${reads} segment files read` });

    const month = START + (sizes.days - 30) * DAY;
    const exporting = performance.now();
    let rows = -1;
    for await (const chunk of store.exportCsv(month, month + 30 * DAY)) rows += chunk.split('\n').length - 1;
    report.add({ key: 'qcStore.export30.ms', section: SECTION, label: 'CSV export of 30 days, every analyzer', value: performance.now() - exporting, unit: 'ms', note: `${rows.toLocaleString('en')} rows` });
    await store.close();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** µs per point awaited one at a time: each add waits for its own fdatasync (p50 of 500). */
async function durableCost(store: QcStore, sizes: QcStoreSizes, tag: string): Promise<number> {
  const points = dayOf(sizes, 0, sizes.days, random(7), `${tag}-`).slice(0, 500);
  const each: number[] = [];
  for (const p of points) {
    const t = performance.now();
    await store.add(p);
    each.push((performance.now() - t) * 1000);
  }
  return median(each);
}

/** CPU µs per point of 3 days of an analyzer added in batches of 1,000 (one fdatasync per batch). */
async function batchedCost(store: QcStore, sizes: QcStoreSizes, tag: string, round: number): Promise<number> {
  const rnd = random(11 + round);
  const batch = [0, 1, 2].flatMap((d) => dayOf(sizes, 1, sizes.days + 3 * round + d, rnd, `${tag}-`));
  const n = Math.floor(batch.length / 1000) * 1000;
  const cpu = process.cpuUsage();
  for (let i = 0; i < n; i += 1000) await store.add(batch.slice(i, i + 1000));
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / n;
}

/** QcMonitor on the full history: its start for one analyzer, then 20 days of that analyzer's runs, a record() a run. */
async function monitorCost(store: QcStore, sizes: QcStoreSizes, dir: string): Promise<{ openMs: number; syncUs: number; writtenMs: number; points: number }> {
  const parsed = parseQcSetup({ analyzer: 'AN4', rules: { controlsPerRun: sizes.levels } }, 'bench lis-qc');
  if ('error' in parsed) throw parsed.error;
  const review = new ReviewBook(dir);
  await review.open();
  const opening = performance.now();
  const { monitor, written } = QcMonitor.open(store, review, parsed.setup);
  await written;
  const openMs = performance.now() - opening;
  const rnd = random(13);
  const runs = new Map<string, QcInput[]>();
  for (let d = 0; d < 20; d++) {
    for (const p of dayOf(sizes, 4, sizes.days + 40 + d, rnd, 'monitor-')) {
      const level = Number(p.material.slice(1));
      const input: QcInput = {
        id: p.id,
        receivedAt: p.at,
        // The control's level, lot and target in the message, as the Mindray CL sends them.
        result: { SampleNumber: `QC-${p.material}`, instrumentCode: p.test, Result: p.value.toFixed(2), completedAt: new Date(p.at).toISOString(), control: { level: p.material, lot: p.lot, mean: String(100 * level), sd: String(2 * level) }, sequence: { patient: 1, order: 1, result: 1 }, record: 1 },
      };
      const key = `${d}-${p.run}`;
      const run = runs.get(key);
      if (run) run.push(input);
      else runs.set(key, [input]);
    }
  }
  const all = [...runs.values()];
  // The first half warms up (JIT, the targets sent with the first run written); the second is timed.
  const half = Math.floor(all.length / 2);
  for (const inputs of all.slice(0, half)) await monitor.record(inputs).written;
  let syncMs = 0;
  let points = 0;
  const writes: number[] = [];
  for (const inputs of all.slice(half)) {
    const t = performance.now();
    const out = monitor.record(inputs);
    const t1 = performance.now();
    await out.written;
    syncMs += t1 - t;
    writes.push(performance.now() - t1);
    points += inputs.length;
  }
  await review.close();
  return { openMs, syncUs: (syncMs * 1000) / points, writtenMs: median(writes), points };
}

function evaluationCost(store: QcStore, sizes: QcStoreSizes): number {
  const rules = defaultRuleSet(3);
  const evaluator = createQcEvaluator({ rules: () => rules, target: (p) => ({ mean: 100 * Number(p.material.slice(1)), sd: 2 * Number(p.material.slice(1)) }) });
  for (let t = 0; t < sizes.tests; t++) for (const p of store.recent('AN2', `T${t}`)) evaluator.add(p);
  const rnd = random(9);
  const points = Array.from({ length: 20 }, (_, d) => dayOf(sizes, 2, sizes.days + 20 + d, rnd, 'eval-')).flat();
  // The first half warms the evaluator up (JIT); the second is timed.
  const half = Math.floor(points.length / 2);
  for (const p of points.slice(0, half)) evaluator.add(p);
  const started = performance.now();
  for (const p of points.slice(half)) evaluator.add(p);
  return ((performance.now() - started) * 1000) / (points.length - half);
}

function dirSize(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) total += e.isDirectory() ? dirSize(join(dir, e.name)) : statSync(join(dir, e.name)).size;
  return total;
}
