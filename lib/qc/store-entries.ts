/**
 * The QC store's line formats (docs/qc.md, "QC store"). Segment lines (points
 * and run verdicts) live in one file per analyzer and month; people's
 * decisions in decisions.jsonl. Every line is validated when read back: a
 * damaged one is skipped and counted, never trusted.
 */
import { z } from 'zod';
import { RULE_NAMES } from './types';

const name = z.string().min(1);
const time = z.number().finite();

/**
 * A control point. Keys are short and always in this order (analyzer, test, material, lot first): a chart's query
 * picks its series' lines by their opening text before it parses any line.
 */
/** A series' key, written short in every line that names one: analyzer, test, material, lot. */
const series = { a: name, t: name, m: name, l: name };

export const PointLineSchema = z.object({
  e: z.literal('p'),
  ...series,
  id: name,
  v: z.number().finite(),
  at: time,
  r: name,
});
export type PointLine = z.infer<typeof PointLineSchema>;

const ViolationSchema = z.object({
  rule: z.enum(RULE_NAMES),
  scope: z.enum(['run', 'material', 'across']),
  points: z.array(z.string()),
  reportedAtRun: z.string(),
});

/** A run's verdict as the evaluator gave it; a later line for the same run replaces it (a late point changed it). */
export const RunLineSchema = z.object({
  e: z.literal('run'),
  a: name,
  t: name,
  r: name,
  /** The run's result time: the line lives in that month's segment, beside its points. */
  at: time,
  /** When it was written: an acceptance covers the verdicts written before it. */
  w: time,
  s: z.enum(['in-control', 'warning', 'rejected', 'establishing']),
  v: z.array(ViolationSchema),
});
export type RunLine = z.infer<typeof RunLineSchema>;

export const SegmentLineSchema = z.discriminatedUnion('e', [PointLineSchema, RunLineSchema]);
export type SegmentLine = z.infer<typeof SegmentLineSchema>;

export const CORRECTIVE_ACTIONS = ['rerun-in-control', 'recalibrated', 'new-reagent', 'accepted-as-is'] as const;
export type CorrectiveAction = (typeof CORRECTIVE_ACTIONS)[number];

const AcceptSchema = z.object({
  e: z.literal('accept'),
  a: name,
  t: name,
  r: name,
  reason: name,
  action: z.enum(CORRECTIVE_ACTIONS),
  note: z.string().optional(),
  by: name,
  at: time,
});

/** The point as the person saw it (series, time, value): its series' statistics leave it out without a disk read. */
const ExcludeSchema = z.object({
  e: z.literal('exclude'),
  id: name,
  ...series,
  pointAt: time,
  v: z.number().finite(),
  reason: name,
  by: name,
  at: time,
});

export const TARGET_SOURCES = ['message', 'entered', 'established'] as const;
export type TargetSource = (typeof TARGET_SOURCES)[number];

const TargetSchema = z.object({
  e: z.literal('target'),
  ...series,
  mean: z.number().finite(),
  sd: z.number().finite().positive(),
  source: z.enum(TARGET_SOURCES),
  /** How many points an established target was computed from. */
  n: z.number().int().positive().optional(),
  by: name,
  at: time,
});

export const DecisionSchema = z.discriminatedUnion('e', [AcceptSchema, ExcludeSchema, TargetSchema]);
export type Decision = z.infer<typeof DecisionSchema>;
export type AcceptDecision = z.infer<typeof AcceptSchema>;
export type ExcludeDecision = z.infer<typeof ExcludeSchema>;
export type TargetDecision = z.infer<typeof TargetSchema>;

/** The input of add(): a control point as the evaluator reads it (its `excluded` is a decision, not stored here). */
export const ControlPointSchema = z.object({
  id: name,
  analyzer: name,
  test: name,
  material: name,
  lot: name,
  value: z.number().finite(),
  at: time,
  run: name,
});

/** What open() keeps between starts, so it reads no segment whole: see SNAPSHOT in store.ts. */
export const SnapshotSchema = z.object({
  version: z.literal(1),
  /** Bytes of each live segment (`<analyzer dir>/<YYYY-MM>`) the state below was built from. */
  segments: z.record(z.string(), z.number().int().nonnegative()),
  series: z.array(
    z.object({
      a: name,
      t: name,
      m: name,
      l: name,
      count: z.number().int().nonnegative(),
      firstAt: time,
      lastAt: time,
      shift: z.number(),
      sum: z.number(),
      sumSq: z.number(),
      /** Recent points, [id, value, at, run], in result-time order (current lots only). */
      window: z.array(z.tuple([z.string(), z.number(), z.number(), z.string()])),
      /** The earliest points, the same way: what a target is established from (current lots only). */
      first: z.array(z.tuple([z.string(), z.number(), z.number(), z.string()])),
    }),
  ),
  /** The current lot of each analyzer × test × material: the lot of its latest point. */
  current: z.array(z.object({ a: name, t: name, m: name, l: name, at: time })),
  /** The latest verdict of each analyzer × test, and every run whose latest verdict is rejected and not yet accepted. */
  latest: z.array(RunLineSchema),
  rejected: z.array(RunLineSchema),
});
export type Snapshot = z.infer<typeof SnapshotSchema>;
