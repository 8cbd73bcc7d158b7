/**
 * The QC store on disk: what a reopen reads back, a torn tail, people's
 * decisions with user and time, archiving, result-time order, and that a
 * range query opens only the segments of its range.
 */
import { describe, it, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createQcEvaluator, openQcStore, parseQcRules, type ControlPoint, type QcStore } from '../../lib/qc';
import { analyzerDir, analyzerOfDir, monthsBetween } from '../../lib/qc/segments';

const DAY = 24 * 60 * 60_000;
const T0 = Date.UTC(2025, 0, 1, 8);
let dir: string;
let clock: number;
const opts = () => ({ now: () => clock });

beforeEach(() => {
  dir = join(mkdtempSync(join(tmpdir(), 'qc-store-unit-')), 'qc');
  clock = T0;
});
afterEach(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

const point = (day: number, value: number, extra: Partial<ControlPoint> = {}): ControlPoint => ({
  id: `p${day}-${extra.material ?? 'L1'}-${extra.lot ?? 'LOT1'}`,
  analyzer: 'AU 480',
  test: 'GLU',
  material: 'L1',
  lot: 'LOT1',
  value,
  at: T0 + day * DAY,
  run: `r${day}`,
  ...extra,
});
const key = { analyzer: 'AU 480', test: 'GLU', material: 'L1', lot: 'LOT1' };

async function reopen(store: QcStore): Promise<QcStore> {
  await store.close();
  return openQcStore(dir, opts());
}

describe('QC store', () => {
  it('has every point on disk when add resolves, and the same window, summary and chart after a reopen', async () => {
    let store = await openQcStore(dir, opts());
    const points = Array.from({ length: 40 }, (_, i) => point(i, 100 + (i % 5)));
    for (const p of points) await store.add(p);
    const file = join(dir, 'points', analyzerDir('AU 480'), '2025-01.jsonl');
    assert.equal(readFileSync(file, 'utf8').split('\n').filter(Boolean).length, 31, 'January holds its 31 days');
    const before = { recent: store.recent('AU 480', 'GLU'), summary: store.summary(key) };
    assert.equal(before.recent.length, 24);
    assert.deepEqual(before.recent.map((p) => p.id), points.slice(16).map((p) => p.id));
    store = await reopen(store);
    assert.deepEqual(store.recent('AU 480', 'GLU'), before.recent);
    assert.deepEqual(store.summary(key), before.summary);
    assert.equal(store.summary(key)!.count, 40);
    assert.equal(store.summary(key)!.mean, 102);
    assert.equal(store.stats.replayed, 0, 'read from the snapshot, no segment line replayed');
    const chart = await store.chart(key, T0, T0 + 90 * DAY);
    assert.deepEqual(chart.points.map((p) => p.value), points.map((p) => p.value));
    await store.close();
  });

  it('reads back what was written after the last snapshot (a crash before close)', async () => {
    const store = await openQcStore(dir, { ...opts(), snapshotEvery: 1_000_000 });
    for (let i = 0; i < 30; i++) await store.add(point(i, 100 + i));
    // No close: the process stops here. The segment holds the lines; state.json is the empty one of the first start.
    const again = await openQcStore(dir, opts());
    assert.equal(again.stats.replayed, 30);
    assert.deepEqual(again.recent('AU 480', 'GLU').map((p) => p.value), Array.from({ length: 24 }, (_, i) => 106 + i));
    await again.close();
    await store.close().catch(() => undefined);
  });

  it('reads back only the lines after the snapshot, counting none twice', async () => {
    const store = await openQcStore(dir, { ...opts(), snapshotEvery: 20 });
    for (let i = 0; i < 30; i++) await store.add(point(i, 100 + i));
    // No close: state.json is the one taken at the 20th line (written in slices meanwhile; the first open wrote none).
    while (!existsSync(join(dir, 'state.json'))) await new Promise((r) => setTimeout(r, 5));
    const again = await openQcStore(dir, opts());
    assert.equal(again.stats.replayed, 10);
    assert.equal(again.summary(key)!.count, 30);
    assert.deepEqual(again.recent('AU 480', 'GLU').map((p) => p.value), Array.from({ length: 24 }, (_, i) => 106 + i));
    await again.close();
    await store.close().catch(() => undefined);
  });

  it('rebuilds from the segments when state.json does not validate, and writes a good one again', async () => {
    let store = await openQcStore(dir, opts());
    for (let i = 0; i < 5; i++) await store.add(point(i, 100 + i));
    await store.close();
    writeFileSync(join(dir, 'state.json'), '{"version":1,"segm');
    store = await openQcStore(dir, opts());
    assert.equal(store.stats.snapshotRefused, 'state.json is not a valid snapshot');
    assert.equal(store.stats.replayed, 5);
    assert.equal(store.summary(key)!.count, 5);
    store = await reopen(store);
    assert.equal(store.stats.snapshotRefused, undefined);
    assert.equal(store.stats.replayed, 0);
    assert.equal(store.summary(key)!.count, 5);
    await store.close();
  });

  it('skips a torn last line and cuts it off, so the next point starts a line of its own', async () => {
    let store = await openQcStore(dir, { ...opts(), snapshotEvery: 1_000_000 });
    await store.add([point(0, 100), point(1, 101)]);
    const file = join(dir, 'points', analyzerDir('AU 480'), '2025-01.jsonl');
    appendFileSync(file, '{"e":"p","a":"AU 480","t":"GLU","m":"L1","l":"LOT1","id":"torn","v":1');
    store = await openQcStore(dir, opts());
    assert.equal(store.stats.torn, 1);
    assert.deepEqual(store.recent('AU 480', 'GLU').map((p) => p.id), ['p0-L1-LOT1', 'p1-L1-LOT1']);
    await store.add(point(2, 102));
    assert.deepEqual(readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { id: string }).id), ['p0-L1-LOT1', 'p1-L1-LOT1', 'p2-L1-LOT1']);
    store = await reopen(store);
    assert.equal(store.recent('AU 480', 'GLU').length, 3);
    await store.close();
  });

  it('refuses a point it cannot store, naming the field, and writes none of its batch', async () => {
    const store = await openQcStore(dir, opts());
    await assert.rejects(store.add([point(0, 100), { ...point(1, NaN), lot: '' }]), (err: Error) => /point 1 value/.test(err.message) && /point 1 lot/.test(err.message));
    assert.deepEqual(store.recent('AU 480', 'GLU'), []);
    await store.close();
  });

  it('does not write again a point whose id is in its recent window (a repeat after a lost acknowledgement)', async () => {
    let store = await openQcStore(dir, opts());
    await store.add(point(0, 100));
    await store.add(point(0, 100));
    store = await reopen(store);
    assert.equal(store.summary(key)!.count, 1);
    await store.close();
  });

  it('returns out-of-order points in result-time order, in the window and in the chart', async () => {
    let store = await openQcStore(dir, opts());
    for (const d of [0, 2, 3, 1, 35, 4]) await store.add(point(d, 100 + d));
    const order = [0, 1, 2, 3, 4, 35].map((d) => `p${d}-L1-LOT1`);
    assert.deepEqual(store.recent('AU 480', 'GLU').map((p) => p.id), order);
    store = await reopen(store);
    assert.deepEqual(store.recent('AU 480', 'GLU').map((p) => p.id), order);
    assert.deepEqual((await store.series(key, T0, T0 + 60 * DAY)).map((p) => p.id), order);
    await store.close();
  });

  it('starts a new lot as its own series: recent() gives the current lot only; the old lot keeps its summary', async () => {
    const store = await openQcStore(dir, opts());
    for (let d = 0; d < 5; d++) await store.add(point(d, 100));
    for (let d = 5; d < 8; d++) await store.add(point(d, 200, { lot: 'LOT2' }));
    assert.deepEqual(store.recent('AU 480', 'GLU').map((p) => p.lot), ['LOT2', 'LOT2', 'LOT2']);
    assert.equal(store.summary(key)!.count, 5);
    assert.equal(store.summary({ ...key, lot: 'LOT2' })!.mean, 200);
    await store.close();
  });

  it('records verdicts, a QC event accepted with reason and corrective action, an exclusion and targets, each with user and time', async () => {
    let store = await openQcStore(dir, opts());
    await store.add([point(0, 100), point(1, 130)]);
    await store.recordRuns([{ analyzer: 'AU 480', test: 'GLU', run: 'r1', at: T0 + DAY, state: 'rejected', violations: [{ rule: '1-3s', scope: 'run', points: ['p1-L1-LOT1'], reportedAtRun: 'r1' }] }]);
    assert.deepEqual(store.openEvents().map((e) => e.run), ['r1']);
    clock = T0 + DAY + 60_000;
    await store.acceptEvent({ analyzer: 'AU 480', test: 'GLU', run: 'r1', reason: 'reagent lot expired', action: 'new-reagent', note: 'lot 7741 opened', by: 'ana' });
    clock += 60_000;
    await store.exclude(point(1, 130), 'bubble in the cup', 'ana');
    clock += 60_000;
    await store.setTarget({ ...key, mean: 100, sd: 2, source: 'entered', by: 'ben' });
    await assert.rejects(store.acceptEvent({ analyzer: 'AU 480', test: 'GLU', run: 'r1', reason: 'again', action: 'accepted-as-is', by: 'ana' }), /no open QC event/);
    await assert.rejects(store.setTarget({ ...key, mean: 100, sd: 0, source: 'entered', by: 'ben' }), /sd/);
    store = await reopen(store);
    assert.deepEqual(store.openEvents(), []);
    assert.deepEqual(store.latestRuns().map((r) => [r.run, r.state]), [['r1', 'rejected']]);
    assert.deepEqual(
      store.decisions('AU 480').map((d) => [d.e, d.by, d.at]),
      [
        ['accept', 'ana', T0 + DAY + 60_000],
        ['exclude', 'ana', T0 + DAY + 120_000],
        ['target', 'ben', T0 + DAY + 180_000],
      ],
    );
    const accept = store.decisions()[0]!;
    assert.ok(accept.e === 'accept' && accept.action === 'new-reagent' && accept.reason === 'reagent lot expired' && accept.note === 'lot 7741 opened');
    assert.deepEqual(store.target(key), { mean: 100, sd: 2, source: 'entered', by: 'ben', at: T0 + DAY + 180_000 });
    assert.deepEqual(store.recent('AU 480', 'GLU').map((p) => p.id), ['p0-L1-LOT1'], 'the excluded point is out of the window');
    assert.equal(store.summary(key)!.count, 1);
    const chart = await store.chart(key, T0, T0 + 2 * DAY);
    assert.equal(chart.points[1]!.excluded, 'bubble in the cup');
    assert.equal(chart.runs[0]!.violations[0]!.rule, '1-3s');
    await store.close();
  });

  it('proposes a target from a new lot’s first 20 points not excluded', async () => {
    const store = await openQcStore(dir, opts());
    const values = Array.from({ length: 25 }, (_, i) => 100 + (i % 2 === 0 ? 1 : -1));
    for (let d = 0; d < 25; d++) await store.add(point(d, values[d]!));
    await store.exclude(point(0, values[0]!), 'first run after maintenance', 'ana');
    const proposed = store.proposedTarget(key)!;
    assert.equal(proposed.n, 20);
    assert.equal(proposed.mean, 100, 'points 1 to 20: ten at 99, ten at 101');
    await store.close();
  });

  it('feeds an evaluator after a reopen the window it needs, so verdicts go on as if it never stopped', async () => {
    let store = await openQcStore(dir, opts());
    const parsed = parseQcRules({ controlsPerRun: 2 }, 'test');
    assert.ok('set' in parsed);
    const rules = parsed.set;
    const target = () => ({ mean: 100, sd: 1 });
    const values = [101.5, 101.5, 101.5];
    for (let d = 0; d < 3; d++) await store.add(point(d, values[d]!));
    store = await reopen(store);
    const evaluator = createQcEvaluator({ rules: () => rules, target });
    for (const p of store.recent('AU 480', 'GLU')) evaluator.add(p);
    const out = evaluator.add(point(3, 101.5));
    assert.ok(out.runs[0]!.violations.some((v) => v.rule === '4-1s'), '4-1s completed by the fourth point, three of them from before the reopen');
    await store.close();
  });

  it('archives whole months before a date: files moved, not loaded at start, and the export still reads them', async () => {
    let store = await openQcStore(dir, opts());
    for (const d of [0, 31, 59, 90]) await store.add(point(d, 100 + d, { lot: d < 59 ? 'OLD' : 'NEW' }));
    const moved = await store.archive(Date.UTC(2025, 2, 1));
    assert.equal(moved, 2, 'January and February');
    const a = analyzerDir('AU 480');
    assert.deepEqual(readdirSync(join(dir, 'points', a)).sort(), ['2025-03.jsonl', '2025-04.jsonl']);
    assert.deepEqual(readdirSync(join(dir, 'archive', 'points', a)).sort(), ['2025-01.jsonl', '2025-02.jsonl']);
    store = await reopen(store);
    assert.equal(store.summary({ ...key, lot: 'OLD' }), undefined, 'a series wholly archived is not loaded');
    assert.equal(store.summary({ ...key, lot: 'NEW' })!.count, 2);
    let csv = '';
    for await (const chunk of store.exportCsv(T0, T0 + 120 * DAY)) csv += chunk;
    const rows = csv.trim().split('\n');
    assert.equal(rows.length, 5);
    assert.deepEqual(rows.slice(1).map((r) => r.split(',')[7]), ['p0-L1-OLD', 'p31-L1-OLD', 'p59-L1-NEW', 'p90-L1-NEW']);
    assert.match(rows[1]!, /^2025-01-01T08:00:00.000Z,AU 480,GLU,L1,OLD,r0,100,p0-L1-OLD,/);
    await store.close();
  });

  it('writes a late point of an archived month to a live segment, reads both, and joins them at the next archive', async () => {
    const store = await openQcStore(dir, { ...opts(), maxOpenSegments: 1 });
    await store.add([point(0, 100), point(40, 140)]);
    await store.archive(Date.UTC(2025, 1, 1));
    await store.add(point(1, 101));
    const jan = await store.series(key, T0, T0 + 31 * DAY);
    assert.deepEqual(jan.map((p) => p.value), [100, 101]);
    assert.equal(await store.archive(Date.UTC(2025, 1, 1)), 1);
    const a = analyzerDir('AU 480');
    assert.deepEqual(readdirSync(join(dir, 'points', a)), ['2025-02.jsonl']);
    assert.equal(readFileSync(join(dir, 'archive', 'points', a, '2025-01.jsonl'), 'utf8').split('\n').filter(Boolean).length, 2);
    assert.deepEqual((await store.series(key, T0, T0 + 60 * DAY)).map((p) => p.value), [100, 101, 140]);
    await store.close();
  });

  it('opens only the segments of a query’s range (chart and export)', async () => {
    const store = await openQcStore(dir, opts());
    for (let d = 0; d < 365; d += 3) await store.add([point(d, 100), point(d, 100, { analyzer: 'XN-1000' })]);
    let reads = store.stats.segmentReads;
    const from = Date.UTC(2025, 5, 10);
    await store.chart(key, from, from + 90 * DAY);
    assert.equal(store.stats.segmentReads - reads, 4, 'June to September of one analyzer: 4 of its 12 months');
    reads = store.stats.segmentReads;
    let rows = 0;
    for await (const chunk of store.exportCsv(Date.UTC(2025, 1, 1), Date.UTC(2025, 2, 1))) rows += chunk.split('\n').length - 1;
    assert.equal(store.stats.segmentReads - reads, 2, 'February, of each of the two analyzers');
    assert.equal(rows, 1 + 2 * 9, 'the header and February’s points of both (days 33 to 57)');
    await store.close();
  });

  it('quotes CSV cells that need it and keeps formula-like texts as text', async () => {
    const store = await openQcStore(dir, opts());
    await store.add(point(0, -1.5, { analyzer: '=HYPERLINK("x")', run: 'a,b' }));
    let csv = '';
    for await (const chunk of store.exportCsv(T0, T0 + DAY)) csv += chunk;
    assert.match(csv.split('\n')[1]!, /^2025-01-01T08:00:00.000Z,"'=HYPERLINK\(""x""\)",GLU,L1,LOT1,"a,b",-1.5,/);
    await store.close();
  });

  it('names analyzer directories reversibly and apart on a file system that folds case', () => {
    for (const name of ['AU 480', 'au 480', 'cobas/8000', 'é', '..']) assert.equal(analyzerOfDir(analyzerDir(name)), name);
    assert.notEqual(analyzerDir('A1').toLowerCase(), analyzerDir('a1').toLowerCase());
    assert.equal(analyzerOfDir('..'), undefined);
    assert.deepEqual(monthsBetween(Date.UTC(2024, 11, 31), Date.UTC(2025, 1, 1)), ['2024-12', '2025-01']);
  });

  it('keeps its files owner-only, as the journal does', async () => {
    const store = await openQcStore(dir, opts());
    await store.add(point(0, 100));
    await store.close();
    assert.ok(existsSync(join(dir, 'state.json')));
    for (const f of ['state.json', 'decisions.jsonl', join('points', analyzerDir('AU 480'), '2025-01.jsonl')]) assert.equal(statSync(join(dir, f)).mode & 0o777, 0o600, f);
    assert.equal(statSync(join(dir, 'points')).mode & 0o777, 0o700);
  });
});
