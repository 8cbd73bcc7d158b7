/**
 * QC: the rule engine (Westgard multirules over control points, per analyzer
 * × test, judged incrementally in result-time order; no I/O) and the QC store
 * (points, verdicts and decisions on disk). Plain TypeScript (docs/qc.md).
 */
export { defaultRuleSet, parseQcRules, ruleSetLabel, type ControlsPerRun, type QcRulesConfig } from './config';
export { createQcEvaluator, evaluateSeries, QC_WINDOW, type EvaluatorOptions, type QcEvaluator } from './evaluator';
export { zScore } from './rules';
export * from './types';
export {
  ESTABLISH_POINTS,
  openQcStore,
  QcStore,
  RECENT_POINTS,
  type ChartData,
  type ProposedTarget,
  type QcStoreOptions,
  type RecordedRun,
  type SeriesKey,
  type SeriesSummary,
  type StoreStats,
} from './store';
export { CORRECTIVE_ACTIONS, TARGET_SOURCES, type AcceptDecision, type CorrectiveAction, type Decision, type ExcludeDecision, type TargetDecision, type TargetSource } from './store-entries';
export { controlCode, identifyControl, type Identification, type Identified } from './identify';
export { NO_QC_AFTER_MS, QcMonitor, type GateHold, type OpenEvent, type QcInput, type RecordOutcome, type SeriesView, type TestQcState, type TestView } from './monitor';
export { REVIEW_CAP, ReviewBook, type SentResult } from './review';
export { DEFAULT_RULES, parseQcSetup, type ControlRow, type EstablishingPolicy, type QcSetup } from './setup';
