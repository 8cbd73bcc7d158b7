/**
 * The QC store: every control point, run verdict and person's decision, on
 * disk before it is acknowledged (docs/qc.md, "QC store"; docs/architecture.md).
 *
 * Points and verdicts go to segments, one append log per analyzer and month
 * of result time. People's decisions go to decisions.jsonl, read whole at
 * start (they come at a person's pace). What a start needs of the segments
 * (each series' recent window and summary, the latest verdicts, the open
 * events) is kept in state.json, written every so many lines and at close,
 * with the bytes of each segment it was built from: a start reads it and the
 * segments' lines after those bytes, never the history.
 */
import { promises as fs, constants } from 'node:fs';
import { join } from 'node:path';
import { invalidInput } from '../errors';
import { AppendLog, syncDir } from '../journal/append-log';
import { ensurePrivateDir, openPrivate } from '../util/private-files';
import { checkpoints, runInSlices, type Steps } from '../util/slices';
import { QC_WINDOW } from './evaluator';
import { analyzerDir, analyzerOfDir, eachLine, listDirs, listMonths, monthEnd, monthOf, monthsBetween } from './segments';
import {
  ControlPointSchema,
  DecisionSchema,
  SegmentLineSchema,
  SnapshotSchema,
  type AcceptDecision,
  type CorrectiveAction,
  type Decision,
  type ExcludeDecision,
  type PointLine,
  type RunLine,
  type Snapshot,
  type TargetDecision,
  type TargetSource,
} from './store-entries';
import type { ControlPoint, RunResult, RunState, Target, Violation } from './types';

/** What recent() gives per series: the evaluator's start (twice the longest rule, docs/qc.md "Cost"). */
export const RECENT_POINTS = 2 * QC_WINDOW;
// A few more kept, so that points a person excludes do not leave the window short.
const WINDOW_KEPT = RECENT_POINTS + 8;
/** A target is established from a new lot's first 20 points (CLSI C24). */
export const ESTABLISH_POINTS = 20;
const FIRST_KEPT = ESTABLISH_POINTS + 4;

export interface QcStoreOptions {
  now?: () => number;
  /** Segment lines between two snapshots: what a start after a crash reads at most per segment. */
  snapshotEvery?: number;
  /** Segment files kept open for appending; the least recently used beyond it are closed. */
  maxOpenSegments?: number;
}

/** A run's verdict as recorded: the evaluator's RunResult and the run's result time. */
export interface RecordedRun extends RunResult {
  at: number;
}

export interface SeriesKey {
  analyzer: string;
  test: string;
  material: string;
  lot: string;
}

export interface SeriesSummary extends SeriesKey {
  /** Points not excluded, over the whole history the store holds (archived ones included, until their series leaves). */
  count: number;
  mean: number | undefined;
  sd: number | undefined;
  firstAt: number;
  lastAt: number;
}

export interface ProposedTarget extends Target {
  /** The points it comes from: ESTABLISH_POINTS, or fewer while the lot is still establishing. */
  n: number;
}

export interface ChartData {
  points: ControlPoint[];
  /** The verdicts of the analyzer × test's runs in the range: the chart marks the violations. */
  runs: RecordedRun[];
}

export interface StoreStats {
  /** Segment files opened by queries (chart, export): what a range query costs. */
  segmentReads: number;
  /** Lines read back at start beyond the snapshot. */
  replayed: number;
  torn: number;
  invalid: number;
  /** Why the snapshot was not used at the last start, if it was not. */
  snapshotRefused: string | undefined;
  /** The last snapshot written: its size, the capture (the event loop held at once), and its text's build (in slices). */
  snapshot: { bytes: number; captureMs: number; buildMs: number } | undefined;
}

interface SeriesState extends SeriesKey {
  count: number;
  firstAt: number;
  lastAt: number;
  /** Sums of (value − shift): the first value, so the variance does not cancel away. */
  shift: number;
  sum: number;
  sumSq: number;
  window: Kept[];
  first: Kept[];
}

/** [id, value, at, run] */
type Kept = [string, number, number, string];

interface OpenLog {
  log: AppendLog;
}

const SEP = '\u0000';
const seriesKey = (a: string, t: string, m: string, l: string) => a + SEP + t + SEP + m + SEP + l;
const testKey = (a: string, t: string) => a + SEP + t;
const runKey = (a: string, t: string, r: string) => a + SEP + t + SEP + r;

export async function openQcStore(dir: string, options: QcStoreOptions = {}): Promise<QcStore> {
  const store = new QcStore(dir, options);
  await store.load();
  return store;
}

export class QcStore {
  readonly stats: StoreStats = { segmentReads: 0, replayed: 0, torn: 0, invalid: 0, snapshotRefused: undefined, snapshot: undefined };
  private readonly now: () => number;
  private readonly snapshotEvery: number;
  private readonly maxOpen: number;
  private readonly pointsDir: string;
  private readonly archiveDir: string;
  private readonly seriesMap = new Map<string, SeriesState>();
  /** analyzer × test × material → the lot of its latest point. */
  private readonly current = new Map<string, { lot: string; at: number }>();
  private readonly materials = new Map<string, Set<string>>();
  private readonly latest = new Map<string, RunLine>();
  private readonly rejected = new Map<string, RunLine>();
  /** Bytes of each live segment applied to the state above. */
  private readonly segBytes = new Map<string, number>();
  private readonly logs = new Map<string, OpenLog>();
  private readonly opening = new Map<string, Promise<OpenLog>>();
  /** Writes under way per segment: its log stays open until they are done. */
  private readonly pending = new Map<string, number>();
  private readonly decisionLog: AppendLog;
  private readonly decisionList: Decision[] = [];
  private readonly targets = new Map<string, TargetDecision>();
  private readonly excluded = new Map<string, ExcludeDecision>();
  private readonly excludedBySeries = new Map<string, ExcludeDecision[]>();
  private readonly acceptedAt = new Map<string, number>();
  private sinceSnapshot = 0;
  private snapshotting: Promise<void> | undefined;
  /** The last snapshot's write: the next one is written after it. */
  private snapshotWritten: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(readonly dir: string, options: QcStoreOptions) {
    this.now = options.now ?? Date.now;
    this.snapshotEvery = options.snapshotEvery ?? 50_000;
    this.maxOpen = options.maxOpenSegments ?? 64;
    this.pointsDir = join(dir, 'points');
    this.archiveDir = join(dir, 'archive', 'points');
    this.decisionLog = new AppendLog(join(dir, 'decisions.jsonl'));
  }

  /** @internal: open() calls it once. */
  async load(): Promise<void> {
    await ensurePrivateDir(this.pointsDir);
    const decisions = await this.decisionLog.open();
    this.stats.torn += decisions.torn;
    for (const line of decisions.lines) {
      const d = parseWith(DecisionSchema, line);
      if (d) this.applyDecision(d);
      else this.stats.invalid++;
    }
    const live: Array<{ rel: string; file: string; month: string; size: number }> = [];
    for (const d of await listDirs(this.pointsDir)) {
      if (analyzerOfDir(d) === undefined) continue;
      for (const month of await listMonths(join(this.pointsDir, d))) {
        const file = join(this.pointsDir, d, `${month}.jsonl`);
        live.push({ rel: `${d}/${month}`, file, month, size: (await fs.stat(file)).size });
      }
    }
    const snap = await this.readSnapshot();
    const shorter = snap && live.find((s) => s.size < (snap.segments[s.rel] ?? 0));
    if (shorter) this.stats.snapshotRefused = `segment ${shorter.rel} is shorter than the snapshot says`;
    if (snap && !shorter) this.restore(snap);
    // By month, so a lot change is seen in time order, as it was when the points came.
    live.sort((x, y) => (x.month < y.month ? -1 : x.month > y.month ? 1 : 0));
    for (const s of live) {
      const from = this.segBytes.get(s.rel) ?? 0;
      this.segBytes.set(s.rel, from);
      if (s.size === from) continue;
      const log = new AppendLog(s.file);
      const { lines, torn } = await log.open(from);
      this.stats.torn += torn;
      for (const line of lines) this.applyLine(line);
      this.stats.replayed += lines.length;
      this.segBytes.set(s.rel, log.size);
      await log.close();
    }
    if (this.stats.replayed > 0 || this.stats.snapshotRefused !== undefined) await this.snapshot();
  }

  // --- writing ---

  /**
   * Resolves once every point is on disk (written and fdatasync'ed): only then may the analyzer be acknowledged.
   * Points are checked first, all or none. A point whose id is already in its series' recent window (a repeat of
   * a message whose acknowledgement was lost) is not written again.
   */
  async add(points: ControlPoint | readonly ControlPoint[]): Promise<void> {
    const list: readonly ControlPoint[] = Array.isArray(points) ? points : [points as ControlPoint];
    const problems: string[] = [];
    list.forEach((p, i) => {
      const r = ControlPointSchema.safeParse(p);
      if (!r.success) for (const issue of r.error.issues) problems.push(`point ${i} ${issue.path.join('.')}: ${issue.message}`);
    });
    if (problems.length > 0) throw invalidInput('QC points not stored', problems);
    const seen = new Set<string>();
    const writes: Promise<void>[] = [];
    for (const p of list) {
      const k = seriesKey(p.analyzer, p.test, p.material, p.lot) + SEP + p.id;
      if (seen.has(k) || this.inWindow(p)) continue;
      seen.add(k);
      const line: PointLine = { e: 'p', a: p.analyzer, t: p.test, m: p.material, l: p.lot, id: p.id, v: p.value, at: p.at, r: p.run };
      writes.push(this.write(`${analyzerDir(p.analyzer)}/${monthOf(p.at)}`, line));
    }
    await Promise.all(writes);
  }

  /** Records run verdicts as the evaluator gave them, each with its run's result time; a later one for a run replaces it. */
  async recordRuns(runs: readonly RecordedRun[]): Promise<void> {
    const w = this.now();
    const lines = runs.map((r): RunLine => ({ e: 'run', a: r.analyzer, t: r.test, r: r.run, at: r.at, w, s: r.state, v: r.violations.map((v) => ({ ...v, points: [...v.points] })) }));
    // All checked before any is written, as add() does.
    const problems = lines.flatMap((l, i) => {
      const checked = SegmentLineSchema.safeParse(l);
      return checked.success ? [] : checked.error.issues.map((issue) => `run ${i} ${issue.path.join('.')}: ${issue.message}`);
    });
    if (problems.length > 0) throw invalidInput('QC run verdicts not stored', problems);
    await Promise.all(lines.map((l) => this.write(`${analyzerDir(l.a)}/${monthOf(l.at)}`, l)));
  }

  /** A person accepts a rejected run (a QC event) with a reason and a corrective action. */
  async acceptEvent(a: { analyzer: string; test: string; run: string; reason: string; action: CorrectiveAction; note?: string; by: string }): Promise<AcceptDecision> {
    const open = this.rejected.get(runKey(a.analyzer, a.test, a.run));
    if (!open || (this.acceptedAt.get(runKey(a.analyzer, a.test, a.run)) ?? -Infinity) >= open.w) {
      throw invalidInput(`no open QC event for run ${a.run} of ${a.analyzer} ${a.test}`, ['run: must be a rejected run not yet accepted (openEvents())']);
    }
    return this.decide({ e: 'accept', a: a.analyzer, t: a.test, r: a.run, reason: a.reason, action: a.action, ...(a.note ? { note: a.note } : {}), by: a.by, at: this.now() });
  }

  /** A person excludes a point from the statistics, with a reason. The point as shown (series, time, value) is recorded. */
  async exclude(point: ControlPoint, reason: string, by: string): Promise<ExcludeDecision> {
    return this.decide({ e: 'exclude', id: point.id, a: point.analyzer, t: point.test, m: point.material, l: point.lot, pointAt: point.at, v: point.value, reason, by, at: this.now() });
  }

  /** A target entered (an insert's range), sent by the analyzer, or established and accepted by a person. */
  async setTarget(t: SeriesKey & Target & { source: TargetSource; n?: number; by: string }): Promise<TargetDecision> {
    return this.decide({ e: 'target', a: t.analyzer, t: t.test, m: t.material, l: t.lot, mean: t.mean, sd: t.sd, source: t.source, ...(t.n !== undefined ? { n: t.n } : {}), by: t.by, at: this.now() });
  }

  // --- reading what is in memory ---

  /** The last RECENT_POINTS points (not excluded) of each material's current lot, in result-time order: the evaluator's start. */
  recent(analyzer: string, test: string): ControlPoint[] {
    const out: ControlPoint[] = [];
    for (const m of this.materials.get(testKey(analyzer, test)) ?? []) {
      const cur = this.current.get(seriesKey(analyzer, test, m, ''));
      const s = cur && this.seriesMap.get(seriesKey(analyzer, test, m, cur.lot));
      if (!s) continue;
      const kept = s.window.filter((k) => !this.excluded.has(k[0]));
      for (const k of kept.slice(Math.max(0, kept.length - RECENT_POINTS))) out.push(pointOf(s, k));
    }
    // A few dozen points: the sort is of a window, not of the history.
    return out.sort((x, y) => x.at - y.at);
  }

  summary(key: SeriesKey): SeriesSummary | undefined {
    const s = this.seriesMap.get(seriesKey(key.analyzer, key.test, key.material, key.lot));
    if (!s) return undefined;
    let { count, sum, sumSq } = s;
    for (const x of this.excludedBySeries.get(seriesKey(s.analyzer, s.test, s.material, s.lot)) ?? []) {
      count--;
      sum -= x.v - s.shift;
      sumSq -= (x.v - s.shift) ** 2;
    }
    const mean = count > 0 ? s.shift + sum / count : undefined;
    const sd = count > 1 ? Math.sqrt(Math.max(0, (sumSq - (sum * sum) / count) / (count - 1))) : undefined;
    return { analyzer: s.analyzer, test: s.test, material: s.material, lot: s.lot, count, mean, sd, firstAt: s.firstAt, lastAt: s.lastAt };
  }

  /** Every series the store holds in memory (its current lots, and older lots not yet archived). */
  summaries(): SeriesSummary[] {
    return [...this.seriesMap.values()].map((s) => this.summary(s)!);
  }

  /** The mean and SD of the current lot's first ESTABLISH_POINTS points not excluded, for a person to accept. */
  proposedTarget(key: SeriesKey): ProposedTarget | undefined {
    const s = this.seriesMap.get(seriesKey(key.analyzer, key.test, key.material, key.lot));
    const values = (s?.first ?? []).filter((k) => !this.excluded.has(k[0])).slice(0, ESTABLISH_POINTS).map((k) => k[1]);
    if (values.length < 2) return undefined;
    const mean = values.reduce((a, v) => a + v, 0) / values.length;
    const sd = Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / (values.length - 1));
    return { mean, sd, n: values.length };
  }

  /** The latest target recorded for the series. */
  target(key: SeriesKey): (Target & { source: TargetSource; by: string; at: number }) | undefined {
    const t = this.targets.get(seriesKey(key.analyzer, key.test, key.material, key.lot));
    return t && { mean: t.mean, sd: t.sd, source: t.source, by: t.by, at: t.at };
  }

  /** The latest verdict (by result time) of each analyzer × test: its QC state at a glance. */
  latestRuns(): RecordedRun[] {
    return [...this.latest.values()].map(runOf);
  }

  /** Rejected runs no person has accepted yet, oldest first. */
  openEvents(): RecordedRun[] {
    return [...this.rejected.entries()]
      .filter(([k, r]) => (this.acceptedAt.get(k) ?? -Infinity) < r.w)
      .map(([, r]) => runOf(r))
      .sort((x, y) => x.at - y.at);
  }

  /** People's decisions, in the order they were made; with an analyzer (and test), only theirs. */
  decisions(analyzer?: string, test?: string): Decision[] {
    return this.decisionList.filter((d) => (analyzer === undefined || d.a === analyzer) && (test === undefined || d.t === test));
  }

  // --- reading the segments ---

  /** A series' points with result times in [from, to), in result-time order, and its analyzer × test's verdicts there. */
  async chart(key: SeriesKey, from: number, to: number): Promise<ChartData> {
    const d = analyzerDir(key.analyzer);
    const pointPrefix = `{"e":"p","a":${JSON.stringify(key.analyzer)},"t":${JSON.stringify(key.test)},"m":${JSON.stringify(key.material)},"l":${JSON.stringify(key.lot)},`;
    const runPrefix = `{"e":"run","a":${JSON.stringify(key.analyzer)},"t":${JSON.stringify(key.test)},`;
    const points: PointLine[] = [];
    const runs = new Map<string, RunLine>();
    for (const month of monthsBetween(from, to)) {
      await this.readMonth(d, month, (text) => {
        // Only this series' lines are parsed: the others are told apart by their opening text.
        if (!text.startsWith(pointPrefix) && !text.startsWith(runPrefix)) return;
        const e = parseWith(SegmentLineSchema, text);
        if (!e || e.at < from || e.at >= to) return;
        if (e.e === 'p') points.push(e);
        else keepLater(runs, e);
      });
    }
    return { points: byTime(points).map((p) => this.controlPoint(p)), runs: byTime([...runs.values()]).map(runOf) };
  }

  /** The points of one series in [from, to), in result-time order: chart() without the verdicts. */
  async series(key: SeriesKey, from: number, to: number): Promise<ControlPoint[]> {
    return (await this.chart(key, from, to)).points;
  }

  /**
   * QC history with result times in [from, to) as CSV, a chunk of rows per segment: memory stays at one segment.
   * Rows go by analyzer (by name), then result time. Archived segments are read as well.
   */
  async *exportCsv(from: number, to: number): AsyncGenerator<string> {
    yield 'result_time,analyzer,test,material,lot,run,value,point_id,target_mean,target_sd,z,run_state,violations,excluded\n';
    const dirs = new Set([...(await listDirs(this.pointsDir)), ...(await listDirs(this.archiveDir))]);
    const analyzers = [...dirs].map((d) => ({ d, name: analyzerOfDir(d) })).filter((x): x is { d: string; name: string } => x.name !== undefined);
    analyzers.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
    for (const { d } of analyzers) {
      for (const month of monthsBetween(from, to)) {
        const points: PointLine[] = [];
        const runs = new Map<string, RunLine>();
        await this.readMonth(d, month, (text) => {
          const e = parseWith(SegmentLineSchema, text);
          if (!e) return;
          if (e.e === 'run') keepLater(runs, e);
          else if (e.at >= from && e.at < to) points.push(e);
        });
        if (points.length === 0) continue;
        yield byTime(points)
          .map((p) => this.csvRow(p, runs.get(runKey(p.a, p.t, p.r))))
          .join('');
      }
    }
  }

  /**
   * Moves every segment of a month that ended at or before `before` to archive/points/, where the export still reads
   * it and a start does not. Series with no point since then leave memory. Returns the segments moved.
   */
  async archive(before: number): Promise<number> {
    let moved = 0;
    for (const d of await listDirs(this.pointsDir)) {
      for (const month of await listMonths(join(this.pointsDir, d))) {
        if (monthEnd(month) > before) continue;
        const rel = `${d}/${month}`;
        await this.closeLog(rel);
        const src = join(this.pointsDir, d, `${month}.jsonl`);
        const dst = join(this.archiveDir, d, `${month}.jsonl`);
        await ensurePrivateDir(join(this.archiveDir, d));
        if (await exists(dst)) {
          // A late point wrote the month again after it was archived: its lines join the archived file.
          const out = await openPrivate(dst, constants.O_WRONLY | constants.O_APPEND);
          try {
            await out.writeFile(await fs.readFile(src));
            await out.sync();
          } finally {
            await out.close();
          }
          await fs.unlink(src);
        } else await fs.rename(src, dst);
        await syncDir(join(this.archiveDir, d));
        await syncDir(join(this.pointsDir, d));
        this.segBytes.delete(rel);
        moved++;
      }
    }
    for (const [k, s] of this.seriesMap) if (s.lastAt < before) this.seriesMap.delete(k);
    await this.snapshot();
    return moved;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.snapshotting;
    await Promise.all([...this.opening.values()]);
    await Promise.all([...this.logs.values()].map((o) => o.log.close()));
    this.logs.clear();
    await this.snapshot();
    this.closed = true;
    await this.decisionLog.close();
  }

  // --- inside ---

  private async write(rel: string, line: PointLine | RunLine): Promise<void> {
    if (this.closed) throw new Error(`QC store ${this.dir} is closed`);
    const text = JSON.stringify(line);
    // Counted from now, so that no log this write is about to use is closed to make room for another.
    this.pending.set(rel, (this.pending.get(rel) ?? 0) + 1);
    try {
      let open = this.logs.get(rel);
      if (open) {
        // Most recently used last: the first entries are the ones to close.
        this.logs.delete(rel);
        this.logs.set(rel, open);
      }
      while (!open) {
        const opened = await this.openLog(rel);
        // archive() may have closed it during the await; no await between this check and the append.
        open = this.logs.get(rel) === opened ? opened : undefined;
      }
      await open.log.append(text);
    } finally {
      const left = this.pending.get(rel)! - 1;
      if (left > 0) this.pending.set(rel, left);
      else this.pending.delete(rel);
    }
    this.segBytes.set(rel, (this.segBytes.get(rel) ?? 0) + Buffer.byteLength(text) + 1);
    this.applySegment(line);
    // Only here, where the bytes and the state have just moved together: a snapshot taken while a segment is read
    // back at start would record fewer bytes than it applied, and the next start would count those lines twice.
    if (++this.sinceSnapshot >= this.snapshotEvery && !this.snapshotting) {
      this.snapshotting = this.snapshot()
        .catch(() => undefined)
        .finally(() => (this.snapshotting = undefined));
    }
  }

  private openLog(rel: string): Promise<OpenLog> {
    let p = this.opening.get(rel);
    if (!p) {
      p = (async () => {
        const log = new AppendLog(join(this.pointsDir, `${rel}.jsonl`));
        const { lines } = await log.open(this.segBytes.get(rel) ?? 0);
        // Nothing should be there beyond what was applied; if something is (another writer), it is not lost.
        for (const line of lines) this.applyLine(line);
        this.segBytes.set(rel, log.size);
        const open = { log };
        this.logs.set(rel, open);
        this.opening.delete(rel);
        this.evict();
        return open;
      })();
      this.opening.set(rel, p);
    }
    return p;
  }

  private evict(): void {
    if (this.logs.size <= this.maxOpen) return;
    for (const [rel, open] of this.logs) {
      if (this.logs.size <= this.maxOpen) return;
      if (this.pending.has(rel)) continue;
      this.logs.delete(rel);
      // Nothing waits on it: its lines are all on disk (no append pending), so a failing close loses nothing.
      void open.log.close().catch(() => undefined);
    }
  }

  private async closeLog(rel: string): Promise<void> {
    const open = this.logs.get(rel);
    if (!open) return;
    this.logs.delete(rel);
    await open.log.close();
  }

  private async decide<D extends Decision>(d: D): Promise<D> {
    const r = DecisionSchema.safeParse(d);
    if (!r.success) throw invalidInput(`QC decision (${d.e}) not recorded`, r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
    await this.decisionLog.append(JSON.stringify(d));
    this.applyDecision(d);
    return d;
  }

  private applyDecision(d: Decision): void {
    this.decisionList.push(d);
    if (d.e === 'accept') {
      const k = runKey(d.a, d.t, d.r);
      this.acceptedAt.set(k, Math.max(d.at, this.acceptedAt.get(k) ?? -Infinity));
    } else if (d.e === 'exclude') {
      if (this.excluded.has(d.id)) return;
      this.excluded.set(d.id, d);
      const k = seriesKey(d.a, d.t, d.m, d.l);
      const list = this.excludedBySeries.get(k);
      if (list) list.push(d);
      else this.excludedBySeries.set(k, [d]);
    } else this.targets.set(seriesKey(d.a, d.t, d.m, d.l), d);
  }

  private applyLine(text: string): void {
    const e = parseWith(SegmentLineSchema, text);
    if (e) this.applySegment(e);
    else this.stats.invalid++;
  }

  private applySegment(e: PointLine | RunLine): void {
    if (e.e === 'p') this.applyPoint(e);
    else this.applyRun(e);
  }

  private applyPoint(p: PointLine): void {
    const k = seriesKey(p.a, p.t, p.m, p.l);
    let s = this.seriesMap.get(k);
    if (!s) {
      s = { analyzer: p.a, test: p.t, material: p.m, lot: p.l, count: 0, firstAt: p.at, lastAt: p.at, shift: p.v, sum: 0, sumSq: 0, window: [], first: [] };
      this.seriesMap.set(k, s);
    }
    s.count++;
    s.firstAt = Math.min(s.firstAt, p.at);
    s.lastAt = Math.max(s.lastAt, p.at);
    s.sum += p.v - s.shift;
    s.sumSq += (p.v - s.shift) ** 2;
    const tk = testKey(p.a, p.t);
    const mats = this.materials.get(tk);
    if (mats) mats.add(p.m);
    else this.materials.set(tk, new Set([p.m]));
    // The material's key with an empty lot: lots are never empty (the schema), so it names the material alone.
    const mk = seriesKey(p.a, p.t, p.m, '');
    const cur = this.current.get(mk);
    if (!cur || p.at >= cur.at) {
      if (cur && cur.lot !== p.l) {
        // A new lot starts its own series: the old lot's window leaves memory, as it leaves the evaluator's.
        const old = this.seriesMap.get(seriesKey(p.a, p.t, p.m, cur.lot));
        if (old) old.window = old.first = [];
      }
      this.current.set(mk, { lot: p.l, at: p.at });
    }
    if (this.current.get(mk)!.lot !== p.l) return;
    const kept: Kept = [p.id, p.v, p.at, p.r];
    insertByTime(s.window, kept, WINDOW_KEPT, 'latest');
    insertByTime(s.first, kept, FIRST_KEPT, 'earliest');
  }

  private applyRun(r: RunLine): void {
    const tk = testKey(r.a, r.t);
    const last = this.latest.get(tk);
    if (!last || r.at > last.at || (r.at === last.at && r.w >= last.w) || last.r === r.r) this.latest.set(tk, r);
    const k = runKey(r.a, r.t, r.r);
    if (r.s === 'rejected') this.rejected.set(k, r);
    else this.rejected.delete(k);
  }

  private inWindow(p: ControlPoint): boolean {
    const s = this.seriesMap.get(seriesKey(p.analyzer, p.test, p.material, p.lot));
    return s !== undefined && s.window.some((k) => k[0] === p.id);
  }

  private async readMonth(d: string, month: string, line: (text: string) => void): Promise<void> {
    for (const root of [this.pointsDir, this.archiveDir]) {
      if (await eachLine(join(root, d, `${month}.jsonl`), line)) this.stats.segmentReads++;
    }
  }

  private controlPoint(p: PointLine): ControlPoint {
    const excluded = this.excluded.get(p.id)?.reason;
    return { id: p.id, analyzer: p.a, test: p.t, material: p.m, lot: p.l, value: p.v, at: p.at, run: p.r, ...(excluded !== undefined ? { excluded } : {}) };
  }

  private csvRow(p: PointLine, run: RunLine | undefined): string {
    const t = this.targets.get(seriesKey(p.a, p.t, p.m, p.l));
    const z = t ? (p.v - t.mean) / t.sd : undefined;
    const violations = (run?.v ?? []).filter((v) => v.points.includes(p.id)).map((v) => `${v.rule} ${v.scope}`);
    const cells = [new Date(p.at).toISOString(), csvText(p.a), csvText(p.t), csvText(p.m), csvText(p.l), csvText(p.r), String(p.v), csvText(p.id), t ? String(t.mean) : '', t ? String(t.sd) : '', z === undefined ? '' : z.toFixed(3), run?.s ?? '', csvText(violations.join('; ')), csvText(this.excluded.get(p.id)?.reason ?? '')];
    return cells.join(',') + '\n';
  }

  private async readSnapshot(): Promise<Snapshot | undefined> {
    let text: string;
    try {
      text = await fs.readFile(join(this.dir, 'state.json'), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    const snap = parseWith(SnapshotSchema, text);
    if (!snap) this.stats.snapshotRefused = 'state.json is not a valid snapshot';
    return snap;
  }

  private restore(snap: Snapshot): void {
    for (const [rel, bytes] of Object.entries(snap.segments)) this.segBytes.set(rel, bytes);
    for (const s of snap.series) {
      this.seriesMap.set(seriesKey(s.a, s.t, s.m, s.l), { analyzer: s.a, test: s.t, material: s.m, lot: s.l, count: s.count, firstAt: s.firstAt, lastAt: s.lastAt, shift: s.shift, sum: s.sum, sumSq: s.sumSq, window: s.window, first: s.first });
      const tk = testKey(s.a, s.t);
      const mats = this.materials.get(tk);
      if (mats) mats.add(s.m);
      else this.materials.set(tk, new Set([s.m]));
    }
    for (const c of snap.current) this.current.set(seriesKey(c.a, c.t, c.m, ''), { lot: c.l, at: c.at });
    for (const r of snap.latest) this.latest.set(testKey(r.a, r.t), r);
    for (const r of snap.rejected) this.rejected.set(runKey(r.a, r.t, r.r), r);
  }

  /**
   * Captured in one synchronous step, so it holds exactly the lines applied so far: copies of the lists, whose
   * points are never changed once made. Its text is then built in slices (the event loop gets its turns) and
   * written atomically (temporary file, fsync, rename, fsync of the directory), after any snapshot still being
   * written: a crash leaves the old one or the new.
   */
  private snapshot(): Promise<void> {
    this.sinceSnapshot = 0;
    const capturing = performance.now();
    const snap: Snapshot = {
      version: 1,
      segments: Object.fromEntries(this.segBytes),
      series: [...this.seriesMap.values()].map((s) => ({ a: s.analyzer, t: s.test, m: s.material, l: s.lot, count: s.count, firstAt: s.firstAt, lastAt: s.lastAt, shift: s.shift, sum: s.sum, sumSq: s.sumSq, window: s.window.slice(), first: s.first.slice() })),
      current: [...this.current.entries()].map(([k, c]) => {
        const [a, t, m] = k.split(SEP) as [string, string, string];
        return { a, t, m, l: c.lot, at: c.at };
      }),
      latest: [...this.latest.values()],
      // Accepted ones are left out: the acceptance is in decisions.jsonl before the snapshot can leave them out.
      rejected: [...this.rejected.entries()].filter(([k, r]) => (this.acceptedAt.get(k) ?? -Infinity) < r.w).map(([, r]) => r),
    };
    const captureMs = performance.now() - capturing;
    const written = this.snapshotWritten.then(async () => {
      const building = performance.now();
      const text = await runInSlices(snapshotText(snap));
      this.stats.snapshot = { bytes: Buffer.byteLength(text), captureMs, buildMs: performance.now() - building };
      const tmp = join(this.dir, `.state.json.${process.pid}.tmp`);
      const out = await openPrivate(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC);
      try {
        await out.writeFile(text);
        await out.sync();
      } finally {
        await out.close();
      }
      await fs.rename(tmp, join(this.dir, 'state.json'));
      await syncDir(this.dir);
    });
    this.snapshotWritten = written.catch(() => undefined);
    return written;
  }
}

/** The snapshot's JSON, a series at a time between checkpoints (the same text JSON.stringify gives). */
function* snapshotText(snap: Snapshot): Steps<string> {
  const parts = [`{"version":1,"segments":${JSON.stringify(snap.segments)},"series":[`];
  const tick = checkpoints(64);
  for (let i = 0; i < snap.series.length; i++) {
    parts.push((i > 0 ? ',' : '') + JSON.stringify(snap.series[i]));
    if (tick()) yield;
  }
  parts.push(`],"current":${JSON.stringify(snap.current)},"latest":${JSON.stringify(snap.latest)},"rejected":${JSON.stringify(snap.rejected)}}`);
  return parts.join('');
}

/** Inserts by result time into a list kept in that order and capped, keeping the latest or the earliest. Linear in the cap. */
function insertByTime(list: Kept[], k: Kept, cap: number, keep: 'latest' | 'earliest'): void {
  let i = list.length;
  while (i > 0 && list[i - 1]![2] > k[2]) i--;
  if (list.length >= cap && ((keep === 'latest' && i === 0) || (keep === 'earliest' && i === list.length))) return;
  list.splice(i, 0, k);
  if (list.length > cap) {
    if (keep === 'latest') list.shift();
    else list.pop();
  }
}

/** The later-written verdict of a run wins. */
function keepLater(runs: Map<string, RunLine>, r: RunLine): void {
  const k = runKey(r.a, r.t, r.r);
  const had = runs.get(k);
  if (!had || r.w >= had.w) runs.set(k, r);
}

/**
 * In result-time order, ties in file order. Array.prototype.sort is stable and, being a merge of runs (TimSort),
 * linear on input already in order: a segment is, but for its late points.
 */
function byTime<T extends { at: number }>(list: T[]): T[] {
  return list.sort((x, y) => x.at - y.at);
}

function pointOf(s: SeriesState, k: Kept): ControlPoint {
  return { id: k[0], analyzer: s.analyzer, test: s.test, material: s.material, lot: s.lot, value: k[1], at: k[2], run: k[3] };
}

function runOf(r: RunLine): RecordedRun {
  return { analyzer: r.a, test: r.t, run: r.r, at: r.at, state: r.s as RunState, violations: r.v.map((v) => ({ ...v })) as Violation[] };
}

/** A CSV cell: quoted when it must be; a text starting like a formula is prefixed with ' so a spreadsheet shows it as text. */
function csvText(s: string): string {
  const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

function parseWith<T>(schema: { safeParse(v: unknown): { success: true; data: T } | { success: false } }, text: string): T | undefined {
  try {
    const r = schema.safeParse(JSON.parse(text));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}
