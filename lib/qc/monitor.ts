/**
 * One analyzer's QC as the bridge runs it: each QC result identified (its
 * material and lot), grouped into runs, judged by the evaluator in result-time
 * order and written to the store; and the gate that patient results of a test
 * pass only while that test's QC allows (docs/qc.md, "The gate").
 *
 * What the gate decides is kept here in memory and changed in the same turn
 * a QC result is read, so a patient result read right after a failing control
 * is held; the store's writes follow, and the caller waits for them before it
 * counts the message read (a crash before then reads the message again, and
 * points it holds already are not judged twice).
 */
import type { InstrumentResult } from '../lab/types';
import { ruleSetLabel } from './config';
import { createQcEvaluator, type QcEvaluator } from './evaluator';
import { controlValue, identifyControl } from './identify';
import type { ReviewBook, SentResult } from './review';
import type { QcSetup } from './setup';
import type { ProposedTarget, QcStore, RecordedRun, SeriesKey } from './store';
import type { CorrectiveAction } from './store-entries';
import type { ControlPoint, RuleSet, RunResult, RunState, Target } from './types';

/** One QC result to record: `id` is stable across a replay of its message (the journal message and its place in it). */
export interface QcInput {
  result: InstrumentResult;
  id: string;
  /** When it was received: its result time when the analyzer sent none. */
  receivedAt: number;
}

export interface RecordOutcome {
  recorded: ControlPoint[];
  /** QC results no row and no message field identify: held for a person. */
  unidentified: Array<{ result: InstrumentResult; reason: string; code: string }>;
  /** QC results that are no number (a qualitative control): counted, not judged. */
  notJudged: Array<{ result: InstrumentResult; reason: string }>;
  /** Lots past their expiry, as "GLU L1 lot X expired 2026-10-31". */
  expired: string[];
  /** The verdicts that changed, in time order. */
  runs: RecordedRun[];
  /** Resolves once the points, verdicts and targets are on disk. */
  written: Promise<void>;
}

/** Why the gate holds a test's patient results. */
export interface GateHold {
  state: 'rejected' | 'establishing';
  run: string;
  reason: string;
}

/** `accepted`: the last run was rejected and a technologist accepted its event; the test's results go until the next run says. */
export type TestQcState = RunState | 'accepted' | 'no-qc-today';

export interface SeriesView extends SeriesKey {
  count: number;
  target: (Target & { source: string; by: string; at: number }) | undefined;
  proposed: ProposedTarget | undefined;
  expiry: string | undefined;
  expired: boolean;
}

export interface OpenEvent {
  run: string;
  at: number;
  violations: RunResult['violations'];
  /** Patient results sent since the last good control, before this run failed: not recalled, listed for review. */
  review: { items: SentResult[]; more: number };
}

export interface TestView {
  test: string;
  state: TestQcState;
  /** The latest run's verdict, when there is one. */
  latest: RecordedRun | undefined;
  events: OpenEvent[];
  series: SeriesView[];
  rules: string;
}

/** A test has had no QC today when its latest run is older than this. */
export const NO_QC_AFTER_MS = 24 * 3600_000;
// Ids of points seen, per test: a message replayed after a restart names the same ones.
const KNOWN_IDS = 512;
const RECENT_RUNS = 32;

interface RunSlot {
  id: string;
  at: number;
  materials: Set<string>;
}

interface TestMemory {
  known: Set<string>;
  runs: RunSlot[];
  latest: RecordedRun | undefined;
  open: Map<string, RecordedRun>;
  /** The rules already counted for each recent run: a run judged again as its later points come counts each rule once. */
  counted: Map<string, Set<string>>;
  /** Violations by rule, counted as runs are judged while this process runs. */
  violations: Map<string, number>;
}

export class QcMonitor {
  private readonly evaluator: QcEvaluator;
  private readonly tests = new Map<string, TestMemory>();
  /** Targets sent with a result, in force before the store has written them. */
  private readonly sentTargets = new Map<string, Target>();
  private readonly expiries = new Map<string, { expiry: string; expired: boolean }>();

  private constructor(
    private readonly store: QcStore,
    private readonly review: ReviewBook,
    private setup: QcSetup,
  ) {
    this.evaluator = createQcEvaluator({ rules: (_a, test) => this.rulesOf(test), target: (p) => this.targetOf(p) });
  }

  /** Feeds the evaluator each test's recent points from the store: a start reads no history. */
  static open(store: QcStore, review: ReviewBook, setup: QcSetup): { monitor: QcMonitor; written: Promise<void> } {
    const m = new QcMonitor(store, review, setup);
    const a = setup.analyzer;
    const tests = new Set(store.summaries().filter((s) => s.analyzer === a).map((s) => s.test));
    for (const r of store.latestRuns()) if (r.analyzer === a) m.memory(r.test).latest = r;
    for (const r of store.openEvents()) if (r.analyzer === a) m.memory(r.test).open.set(r.run, r);
    const missed: RecordedRun[] = [];
    for (const test of tests) {
      const mem = m.memory(test);
      let last: RunResult | undefined;
      for (const p of store.recent(a, test)) {
        m.remember(mem, p);
        const runs = m.evaluator.add(p).runs;
        last = runs.find((r) => r.run === p.run) ?? last;
      }
      // A crash between a point's write and its verdict's: the verdict is written now.
      if (last && (mem.latest?.run !== last.run || mem.latest.state !== last.state)) {
        const at = mem.runs.find((r) => r.id === last!.run)?.at;
        if (at !== undefined && (mem.latest === undefined || at >= mem.latest.at)) missed.push(m.verdict(mem, { ...last, at }));
      }
    }
    return { monitor: m, written: missed.length > 0 ? store.recordRuns(missed) : Promise.resolve() };
  }

  get analyzer(): string {
    return this.setup.analyzer;
  }

  /** The settings deployed now (a redeploy of the same analyzer's node): the table and rules change, the memory stays. */
  configure(setup: QcSetup): void {
    this.setup = setup;
  }

  record(inputs: readonly QcInput[]): RecordOutcome {
    const out: Omit<RecordOutcome, 'written'> = { recorded: [], unidentified: [], notJudged: [], expired: [], runs: [] };
    const targets: Array<SeriesKey & Target> = [];
    const changed = new Map<string, RecordedRun>();
    for (const input of inputs) {
      const r = input.result;
      const id = identifyControl(r, this.setup.controls, this.setup.analyzer);
      if ('unidentified' in id) {
        out.unidentified.push({ result: r, reason: id.unidentified, code: id.code });
        continue;
      }
      const value = controlValue(r);
      if (typeof value === 'string') {
        out.notJudged.push({ result: r, reason: value });
        continue;
      }
      const { material, lot } = id.identified;
      const key: SeriesKey = { analyzer: this.setup.analyzer, test: r.instrumentCode, material, lot };
      if (id.identified.expiry !== undefined) this.expiries.set(keyOf(key), { expiry: id.identified.expiry, expired: id.identified.expired });
      if (id.identified.expired) out.expired.push(`${r.instrumentCode} ${material} lot ${lot} expired ${id.identified.expiry}`);
      const sent = id.identified.target;
      if (sent) {
        const now = this.targetOf(key);
        if (!now || now.mean !== sent.mean || now.sd !== sent.sd) {
          this.sentTargets.set(keyOf(key), sent);
          targets.push({ ...key, ...sent });
        }
      }
      const mem = this.memory(r.instrumentCode);
      const pointId = `${input.id}:${material}`;
      if (mem.known.has(pointId)) continue;
      const at = Date.parse(r.completedAt ?? '') || input.receivedAt;
      const point: ControlPoint = { ...key, id: pointId, value, at, run: this.runFor(mem, pointId, material, at) };
      this.remember(mem, point);
      out.recorded.push(point);
      for (const run of this.evaluator.add(point).runs) {
        const recorded = this.verdict(mem, { ...run, at: mem.runs.find((s) => s.id === run.run)?.at ?? at });
        changed.set(run.run + '\u0000' + run.test, recorded);
        this.count(mem, recorded);
      }
    }
    out.runs = [...changed.values()].sort((x, y) => x.at - y.at);
    const by = `analyzer ${this.setup.analyzer}`;
    // The review lists change in this turn too: a patient result let through next belongs after this run.
    const reviewed = Promise.all(out.runs.map((r) => this.reviewOf(r)));
    const written = (async () => {
      for (const t of targets) await this.store.setTarget({ ...t, source: 'message', by });
      if (out.recorded.length > 0) await this.store.add(out.recorded);
      if (out.runs.length > 0) await this.store.recordRuns(out.runs);
      await reviewed;
    })();
    return { ...out, written };
  }

  /** Whether a test's patient results are held now, and why. */
  gate(test: string): GateHold | undefined {
    const mem = this.tests.get(test);
    if (!mem) return undefined;
    const open = [...mem.open.values()].sort((x, y) => x.at - y.at)[0];
    if (open) {
      const rules = [...new Set(open.violations.filter((v) => v.rule !== '1-2s').map((v) => v.rule))].join(', ');
      return {
        state: 'rejected',
        run: open.run,
        reason: `QC rejected on ${this.setup.analyzer}: the control run of test ${test} at ${new Date(open.at).toISOString()} violated ${rules || 'a rejecting rule'}; accept the QC event in the Lab sidebar (with its corrective action), then release or reject these results`,
      };
    }
    if (this.setup.establishing === 'hold' && mem.latest?.state === 'establishing') {
      return {
        state: 'establishing',
        run: mem.latest.run,
        reason: `QC establishing on ${this.setup.analyzer}: a ${test} control lot has no accepted target yet; enter its target or accept the one its first runs give (the Lab sidebar's QC chart), then release or reject these results`,
      };
    }
    return undefined;
  }

  /** Patient results the gate let through, for the review list a later failing control makes. */
  passed(test: string, results: readonly SentResult[]): Promise<void> {
    if (!this.tests.has(test) || results.length === 0) return Promise.resolve();
    return this.review.sent(this.setup.analyzer, test, results);
  }

  /** A technologist accepts a QC event; its review list is then reviewed. */
  async accept(a: { test: string; run: string; reason: string; action: CorrectiveAction; note?: string; by: string }): Promise<void> {
    await this.store.acceptEvent({ analyzer: this.setup.analyzer, ...a });
    const mem = this.tests.get(a.test);
    mem?.open.delete(a.run);
    await this.review.done(this.setup.analyzer, a.test, a.run, Date.now());
  }

  /** A run's open event, when it has one. */
  event(test: string, run: string): RecordedRun | undefined {
    return this.tests.get(test)?.open.get(run);
  }

  /** Each test's QC at a glance, with its open events and series. */
  view(now: number): TestView[] {
    const a = this.setup.analyzer;
    const series = this.store.summaries().filter((s) => s.analyzer === a);
    const out: TestView[] = [];
    for (const [test, mem] of [...this.tests].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) {
      const events = [...mem.open.values()].sort((x, y) => x.at - y.at).map((r) => ({ run: r.run, at: r.at, violations: r.violations, review: this.review.forEvent(a, test, r.run) }));
      const latest = mem.latest;
      const state: TestQcState = events.length > 0 ? 'rejected' : !latest || now - latest.at > NO_QC_AFTER_MS ? 'no-qc-today' : latest.state === 'rejected' ? 'accepted' : latest.state;
      const views = series
        .filter((s) => s.test === test)
        .map((s): SeriesView => {
          const e = this.expiries.get(keyOf(s));
          return { analyzer: a, test, material: s.material, lot: s.lot, count: s.count, target: this.store.target(s), proposed: this.store.proposedTarget(s), expiry: e?.expiry, expired: e?.expired ?? false };
        });
      out.push({ test, state, latest, events, series: views, rules: ruleSetLabel(this.rulesOf(test)) });
    }
    return out;
  }

  /** Violations by test and rule since this process started (a Prometheus counter's life), each run's rule once. */
  violationTotals(): Array<{ test: string; rule: string; count: number }> {
    const out: Array<{ test: string; rule: string; count: number }> = [];
    for (const [test, mem] of this.tests) for (const [rule, count] of mem.violations) out.push({ test, rule, count });
    return out;
  }

  rulesOf(test: string): RuleSet {
    return this.setup.byTest[test] ?? this.setup.rules;
  }

  private targetOf(key: SeriesKey): Target | undefined {
    return this.store.target(key) ?? this.sentTargets.get(keyOf(key));
  }

  private memory(test: string): TestMemory {
    let m = this.tests.get(test);
    if (!m) this.tests.set(test, (m = { known: new Set(), runs: [], latest: undefined, open: new Map(), counted: new Map(), violations: new Map() }));
    return m;
  }

  private remember(mem: TestMemory, p: ControlPoint): void {
    mem.known.add(p.id);
    if (mem.known.size > KNOWN_IDS) mem.known.delete(mem.known.values().next().value!);
    let slot = mem.runs.find((r) => r.id === p.run);
    if (!slot) {
      mem.runs.push((slot = { id: p.run, at: p.at, materials: new Set() }));
      mem.runs.sort((x, y) => x.at - y.at);
      if (mem.runs.length > RECENT_RUNS) mem.runs.shift();
    }
    slot.at = Math.min(slot.at, p.at);
    slot.materials.add(p.material);
  }

  /** The run a point joins: a recent run within runMinutes of it that has no point of its material yet, else its own. */
  private runFor(mem: TestMemory, pointId: string, material: string, at: number): string {
    const span = this.setup.runMinutes * 60_000;
    let best: RunSlot | undefined;
    for (const r of mem.runs) if (Math.abs(at - r.at) <= span && !r.materials.has(material) && (!best || Math.abs(at - r.at) < Math.abs(at - best.at))) best = r;
    return best?.id ?? pointId;
  }

  /** The evaluator's verdict, taken into the gate's memory. */
  private verdict(mem: TestMemory, run: RecordedRun): RecordedRun {
    if (!mem.latest || run.at >= mem.latest.at || mem.latest.run === run.run) mem.latest = run;
    if (run.state === 'rejected') mem.open.set(run.run, run);
    else mem.open.delete(run.run);
    return run;
  }

  private count(mem: TestMemory, run: RecordedRun): void {
    let rules = mem.counted.get(run.run);
    if (!rules) {
      mem.counted.set(run.run, (rules = new Set()));
      if (mem.counted.size > RECENT_RUNS) mem.counted.delete(mem.counted.keys().next().value!);
    }
    for (const v of run.violations) {
      if (rules.has(v.rule)) continue;
      rules.add(v.rule);
      mem.violations.set(v.rule, (mem.violations.get(v.rule) ?? 0) + 1);
    }
  }

  /** A rejected run takes the review list; the latest run good empties it. */
  private reviewOf(r: RecordedRun): Promise<void> {
    const a = this.setup.analyzer;
    if (r.state === 'rejected') return this.review.rejected(a, r.test, r.run, r.at);
    const mem = this.tests.get(r.test);
    if ((r.state === 'in-control' || r.state === 'warning') && mem?.latest?.run === r.run) return this.review.good(a, r.test, r.at);
    return Promise.resolve();
  }
}

function keyOf(k: SeriesKey): string {
  return [k.analyzer, k.test, k.material, k.lot].join('\u0000');
}
