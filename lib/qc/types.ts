/**
 * What the QC rule engine reads and says: control points, their targets, the
 * rules, and each evaluated run's state with the violations that made it.
 * See docs/qc.md for the decisions behind each field.
 */

/** One control measurement, as the caller identified it (analyzer, test, material and lot). */
export interface ControlPoint {
  /** The caller's id for this point; violations name their points by it. */
  id: string;
  analyzer: string;
  test: string;
  /** The control material (its level), e.g. "L1". */
  material: string;
  lot: string;
  value: number;
  /** The analyzer's result time, in ms since the epoch: points are evaluated in this order. */
  at: number;
  /** The caller's id of the run: the points of one run of the analyzer for this test share it. */
  run: string;
  /** Set (to the reason) when a person excluded the point: it then takes no part in any rule. */
  excluded?: string;
}

/** The mean and SD a point is judged against, per analyzer × test × lot × material. */
export interface Target {
  mean: number;
  sd: number;
}

export const RULE_NAMES = ['1-2s', '1-3s', '2-2s', 'R-4s', '4-1s', '2of3-2s', '3-1s', '6x', '8x', '9x', '10x', '12x'] as const;
export type RuleName = (typeof RULE_NAMES)[number];

/** The mean rules a default set may end with. */
export type MeanRule = '6x' | '8x' | '9x' | '10x' | '12x';

/**
 * How R-4s reads "a range over 4 SD within the run": `range`, any two points
 * of the run at least 4 SD apart; `limits`, one at or above +2 SD and another
 * at or below -2 SD.
 */
export type R4sReading = 'range' | 'limits';

/** The rules in force for one test, resolved from its configuration. */
export interface RuleSet {
  rules: readonly RuleName[];
  r4s: R4sReading;
}

/**
 * Where a violation's points lie: `run`, all in the run that reports it;
 * `material`, one material over several runs; `across`, several materials
 * over several runs.
 */
export type Scope = 'run' | 'material' | 'across';

export interface Violation {
  rule: RuleName;
  scope: Scope;
  /** The ids of the points that make the pattern, oldest first. */
  points: string[];
  /** The run whose point completed the pattern. */
  reportedAtRun: string;
}

export type RunState = 'in-control' | 'warning' | 'rejected' | 'establishing';

/** A run's verdict as it stands after the points evaluated so far. */
export interface RunResult {
  analyzer: string;
  test: string;
  run: string;
  state: RunState;
  violations: Violation[];
}

/**
 * How a point was taken: `in-order` (at or after the latest result time seen);
 * `reordered` (earlier, placed in time order among the recent points, and the
 * runs after it evaluated again); `outside-window` (earlier than the recent
 * points kept, or of a lot no longer in use: judged by the one-point rules
 * only); `no-target` (not evaluated: its run reads establishing); `excluded`.
 */
export type Placement = 'in-order' | 'reordered' | 'outside-window' | 'no-target' | 'excluded';

export interface AddOutcome {
  placement: Placement;
  /** The point's run, then every later run whose verdict the point changed, in time order. */
  runs: RunResult[];
}
