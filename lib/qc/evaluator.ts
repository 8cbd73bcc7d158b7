/**
 * The incremental evaluator: per analyzer × test, the recent points of each
 * material's current lot, in result-time order. A new point is judged by the
 * windows that end at it (its run, its material, all materials), so its cost
 * depends on the rules' lengths, never on the history. A point earlier than
 * the latest one is placed in time order among the kept points, and the
 * points after it are judged again.
 */
import { invalidInput } from '../errors';
import { LONGEST_SPAN, RULES, ruleNamed, zScore, type RuleDefinition } from './rules';
import type { AddOutcome, ControlPoint, R4sReading, RunResult, RunState, RuleSet, Scope, Target, Violation } from './types';

/** The longest rule's window: a late point is placed only among the last this many points. */
export const QC_WINDOW = LONGEST_SPAN;
// Twice the window, so every point after a placed late one still has a full window behind it.
const KEEP = 2 * QC_WINDOW;

export interface EvaluatorOptions {
  /** The rules in force for a test on an analyzer (see parseQcRules). */
  rules(analyzer: string, test: string): RuleSet;
  /** The target of the point's analyzer × test × lot × material; undefined while none is accepted. */
  target(point: ControlPoint): Target | undefined;
}

export interface QcEvaluator {
  /** Judges one control point; what it says is the point's run and every later run it changed. */
  add(point: ControlPoint): AddOutcome;
}

interface Held {
  point: ControlPoint;
  z: number;
  /** Arrival order: breaks ties between equal result times. */
  seq: number;
  /** The patterns this point completes. */
  found: Found[];
}

interface Found {
  rule: RuleDefinition;
  scope: Scope;
  points: Held[];
}

interface Series {
  lot: string;
  points: Held[];
}

interface RunRecord {
  run: string;
  /** How many of the run's points are still kept in a series. */
  kept: number;
  establishing: boolean;
  /** What points judged outside the window found (they are in no series). */
  outside: Found[];
  /** The verdict last reported, to tell which later runs a late point changed. */
  last?: string;
}

interface Stream {
  analyzer: string;
  test: string;
  series: Map<string, Series>;
  runs: Map<string, RunRecord>;
  latest: number;
  seq: number;
}

const SCOPES: readonly Scope[] = ['run', 'material', 'across'];

const earlier = (a: Held, b: Held): boolean => a.point.at < b.point.at || (a.point.at === b.point.at && a.seq < b.seq);
const notAfter = (a: Held, b: Held): boolean => a === b || earlier(a, b);
const firstAt = (points: Set<Held>): number => Math.min(...[...points].map((h) => h.point.at));

/** Time-ordered lists merged into one, time-ordered. */
function merge(lists: readonly (readonly Held[])[]): Held[] {
  const at = lists.map(() => 0);
  const out: Held[] = [];
  for (;;) {
    let pick = -1;
    lists.forEach((list, i) => {
      const h = list[at[i]!];
      if (h !== undefined && (pick < 0 || earlier(h, lists[pick]![at[pick]!]!))) pick = i;
    });
    if (pick < 0) return out;
    out.push(lists[pick]![at[pick]!++]!);
  }
}

/** The last `n` points of a time-ordered list that are not after `q`. */
function upTo(list: readonly Held[], q: Held, n: number): Held[] {
  let end = list.length;
  while (end > 0 && !notAfter(list[end - 1]!, q)) end--;
  return list.slice(Math.max(0, end - n), end);
}

function scopeOf(points: readonly Held[]): Scope {
  const first = points[0]!.point;
  if (points.every((h) => h.point.run === first.run)) return 'run';
  if (points.every((h) => h.point.material === first.material)) return 'material';
  return 'across';
}

function checkPoint(p: ControlPoint): void {
  const problems: string[] = [];
  for (const key of ['id', 'analyzer', 'test', 'material', 'lot', 'run'] as const) {
    if (typeof p[key] !== 'string' || p[key] === '') problems.push(`${key}: must be a non-empty string`);
  }
  if (!Number.isFinite(p.value)) problems.push('value: must be a finite number');
  if (!Number.isFinite(p.at)) problems.push('at: must be the result time in ms');
  if (problems.length > 0) throw invalidInput('control point not evaluated', problems);
}

function checkTarget(t: Target, p: ControlPoint): void {
  const problems: string[] = [];
  if (!Number.isFinite(t.mean)) problems.push('mean: must be a finite number');
  if (!Number.isFinite(t.sd) || t.sd <= 0) problems.push('sd: must be a number above 0');
  if (problems.length > 0) throw invalidInput(`target of ${p.analyzer} ${p.test} lot ${p.lot} ${p.material} is unusable`, problems);
}

export function createQcEvaluator(options: EvaluatorOptions): QcEvaluator {
  const streams = new Map<string, Stream>();

  function streamOf(p: ControlPoint): Stream {
    const key = JSON.stringify([p.analyzer, p.test]);
    let s = streams.get(key);
    if (s === undefined) {
      s = { analyzer: p.analyzer, test: p.test, series: new Map(), runs: new Map(), latest: -Infinity, seq: 0 };
      streams.set(key, s);
    }
    return s;
  }

  function recordOf(stream: Stream, run: string): RunRecord {
    let r = stream.runs.get(run);
    if (r === undefined) {
      r = { run, kept: 0, establishing: false, outside: [] };
      stream.runs.set(run, r);
    }
    return r;
  }

  function allKept(stream: Stream): Held[] {
    return merge([...stream.series.values()].map((s) => s.points));
  }

  /** Inserts the point into its material's series at its time; false when it cannot be placed. */
  function place(stream: Stream, held: Held, late: boolean): boolean {
    const { material, lot } = held.point;
    let series = stream.series.get(material);
    if (late) {
      // An old lot's series is gone, and a point behind the last window has no full window after it.
      if (series !== undefined && series.lot !== lot) return false;
      const laterAcross = allKept(stream).filter((h) => earlier(held, h)).length;
      if (laterAcross >= QC_WINDOW) return false;
    } else if (series !== undefined && series.lot !== lot) {
      for (const h of series.points) recordOf(stream, h.point.run).kept--;
      series = undefined;
    }
    if (series === undefined) {
      series = { lot, points: [] };
      stream.series.set(material, series);
    }
    let i = series.points.length;
    while (i > 0 && earlier(held, series.points[i - 1]!)) i--;
    series.points.splice(i, 0, held);
    recordOf(stream, held.point.run).kept++;
    while (series.points.length > KEEP) recordOf(stream, series.points.shift()!.point.run).kept--;
    return true;
  }

  function sequences(stream: Stream, q: Held): Record<Scope, Held[]> {
    const lists = [...stream.series.values()].map((s) => upTo(s.points, q, QC_WINDOW));
    const across = merge(lists);
    const mine = stream.series.get(q.point.material)!.points;
    const runLists = [...stream.series.values()].map((s) => upTo(s.points, q, KEEP).filter((h) => h.point.run === q.point.run));
    return {
      run: merge(runLists),
      material: upTo(mine, q, QC_WINDOW),
      across: across.slice(Math.max(0, across.length - QC_WINDOW)),
    };
  }

  function judge(rules: readonly RuleDefinition[], r4s: R4sReading, seqs: Partial<Record<Scope, Held[]>>): Found[] {
    const found: Found[] = [];
    for (const rule of rules) {
      for (const scope of rule.scopes) {
        const seq = seqs[scope];
        if (seq === undefined) continue;
        const window = seq.slice(Math.max(0, seq.length - rule.span));
        if (window.length < rule.least) continue;
        const hit = rule.match(window.map((h) => h.z), r4s);
        if (hit !== undefined) {
          const points = hit.map((i) => window[i]!);
          found.push({ rule, scope: scopeOf(points), points });
        }
      }
    }
    return found;
  }

  function resultOf(stream: Stream, rec: RunRecord): RunResult {
    const members = allKept(stream).filter((h) => h.point.run === rec.run);
    // Patterns of one rule and scope that share points (the same shift seen at each point of the run) are
    // one violation over their union; patterns apart (one per material) stay apart.
    const merged: { rule: RuleDefinition; scope: Scope; points: Set<Held> }[] = [];
    for (const f of [...members.flatMap((h) => h.found), ...rec.outside]) {
      const entry = { rule: f.rule, scope: f.scope, points: new Set(f.points) };
      for (let i = merged.length - 1; i >= 0; i--) {
        const other = merged[i]!;
        if (other.rule !== f.rule || other.scope !== f.scope || !f.points.some((h) => other.points.has(h))) continue;
        other.points.forEach((h) => entry.points.add(h));
        merged.splice(i, 1);
      }
      merged.push(entry);
    }
    merged.sort((a, b) => RULES.indexOf(a.rule) - RULES.indexOf(b.rule) || SCOPES.indexOf(a.scope) - SCOPES.indexOf(b.scope) || firstAt(a.points) - firstAt(b.points));
    const violations: Violation[] = merged.map((v) => ({
      rule: v.rule.name,
      scope: v.scope,
      points: [...v.points].sort((a, b) => (earlier(a, b) ? -1 : 1)).map((h) => h.point.id),
      reportedAtRun: rec.run,
    }));
    let state: RunState = rec.establishing ? 'establishing' : 'in-control';
    if (violations.length > 0) state = merged.some((v) => v.rule.rejects) ? 'rejected' : 'warning';
    return { analyzer: stream.analyzer, test: stream.test, run: rec.run, state, violations };
  }

  /** The run's verdict; undefined when it is what was last reported and `always` is false. */
  function report(stream: Stream, rec: RunRecord, always: boolean): RunResult | undefined {
    const result = resultOf(stream, rec);
    const text = JSON.stringify(result);
    if (!always && text === rec.last) return undefined;
    rec.last = text;
    return result;
  }

  /** Forgets runs none of whose points is kept, oldest first, once there are more than the series can refer to. */
  function prune(stream: Stream): void {
    const limit = KEEP * (stream.series.size + 1);
    for (const [run, rec] of stream.runs) {
      if (stream.runs.size <= limit) return;
      if (rec.kept === 0) stream.runs.delete(run);
    }
  }

  function add(point: ControlPoint): AddOutcome {
    checkPoint(point);
    if (point.excluded !== undefined) return { placement: 'excluded', runs: [] };
    const stream = streamOf(point);
    const target = options.target(point);
    if (target === undefined) {
      const rec = recordOf(stream, point.run);
      rec.establishing = true;
      return { placement: 'no-target', runs: [report(stream, rec, true)!] };
    }
    checkTarget(target, point);
    const set = options.rules(point.analyzer, point.test);
    const rules = set.rules.map(ruleNamed);
    const held: Held = { point, z: zScore(point.value, target.mean, target.sd), seq: ++stream.seq, found: [] };
    const late = point.at < stream.latest;
    stream.latest = Math.max(stream.latest, point.at);

    if (!place(stream, held, late)) {
      // Behind the window: only the rules that need no other point can judge it.
      const rec = recordOf(stream, point.run);
      rec.outside.push(...judge(rules.filter((r) => r.span === 1), set.r4s, { run: [held] }));
      return { placement: 'outside-window', runs: [report(stream, rec, true)!] };
    }
    const from = allKept(stream).filter((h) => notAfter(held, h));
    for (const q of from) q.found = judge(rules, set.r4s, sequences(stream, q));
    const runIds = [...new Set(from.map((h) => h.point.run))];
    const runs = runIds
      .map((id, i) => report(stream, recordOf(stream, id), i === 0))
      .filter((r): r is RunResult => r !== undefined);
    prune(stream);
    return { placement: late ? 'reordered' : 'in-order', runs };
  }

  return { add };
}

/** Every run's final verdict after the points, taken in the order given (as they arrived). */
export function evaluateSeries(points: Iterable<ControlPoint>, options: EvaluatorOptions): RunResult[] {
  const evaluator = createQcEvaluator(options);
  const byRun = new Map<string, RunResult>();
  for (const p of points) {
    for (const r of evaluator.add(p).runs) byRun.set(JSON.stringify([r.analyzer, r.test, r.run]), r);
  }
  return [...byRun.values()];
}
