/**
 * QC rule engine: Westgard multirules over control points, per analyzer ×
 * test, judged incrementally in result-time order. Plain TypeScript, no I/O
 * (docs/qc.md).
 */
export { defaultRuleSet, parseQcRules, ruleSetLabel, type ControlsPerRun, type QcRulesConfig } from './config';
export { createQcEvaluator, evaluateSeries, QC_WINDOW, type EvaluatorOptions, type QcEvaluator } from './evaluator';
export { zScore } from './rules';
export * from './types';
