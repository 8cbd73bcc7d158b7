/**
 * One analyzer's QC settings, as its lis-qc configuration node holds them: the
 * control table (what the analyzer sends for a control, to the material and
 * lot it is), the rules per test, and what a lot without an accepted target
 * means for patient results. Validated with messages that name what to set.
 */
import { z } from 'zod';
import { invalidInput, type LisError } from '../errors';
import { describeIssues } from '../lis/schemas';
import { parseQcRules, type QcRulesConfig } from './config';
import type { RuleSet } from './types';

/** A control as the table names it. */
export interface ControlRow {
  /** What the analyzer sends for the control: its ID or name, or what it writes in the sample's place. */
  code: string;
  /** The instrument test code the row is for; '' or absent: every test run on the control. */
  test?: string;
  /** The control material (its level), e.g. "L1". */
  material: string;
  lot: string;
  /** The lot's expiry, YYYY-MM-DD. */
  expiry?: string;
}

/** What a lot without an accepted target means for patient results of its test: held (the default), or sent with the state shown. */
export type EstablishingPolicy = 'hold' | 'send';

export interface QcSetup {
  /** The analyzer's name in the QC store: its series and charts are filed under it. */
  analyzer: string;
  controls: ControlRow[];
  /** The rules of every test, unless `byTest` names its own. */
  rules: RuleSet;
  byTest: Record<string, RuleSet>;
  establishing: EstablishingPolicy;
  /** Points of one test within this many minutes of a run's first point, each of another material, make one run. */
  runMinutes: number;
}

const TEXT = /^[^\u0000-\u001f\u007f]+$/;
const text = (what: string) => z.string({ error: `must be ${what}` }).trim().min(1, `must be ${what}`).max(100, 'must be at most 100 characters').regex(TEXT, 'must hold no control characters');

const RowSchema = z.strictObject(
  {
    code: text('what the analyzer sends for the control (its ID or name)'),
    test: z.string().trim().max(100).optional(),
    material: text('the control material, e.g. L1'),
    lot: text('the lot number'),
    expiry: z
      .string()
      .trim()
      .regex(/^(\d{4}-\d{2}-\d{2})?$/, 'must be a date YYYY-MM-DD, or empty')
      .optional(),
  },
  { error: (issue) => (issue.code === 'unrecognized_keys' ? `unknown setting ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}: a control row has code, test, material, lot and expiry` : 'must be a control row { code, material, lot }') },
);

const SetupSchema = z.strictObject(
  {
    analyzer: text('the analyzer\'s name (its QC is filed under it)'),
    controls: z.array(RowSchema, { error: 'must be a list of control rows' }).default([]),
    rules: z.unknown().optional(),
    byTest: z.record(z.string(), z.unknown(), { error: 'must map test codes to their rules' }).default({}),
    establishing: z.enum(['hold', 'send'], { error: 'must be "hold" (patient results wait for an accepted target) or "send" (sent, the state shown)' }).default('hold'),
    runMinutes: z.number({ error: 'must be a number of minutes' }).int('must be a whole number of minutes').min(1, 'must be at least 1 minute').max(1440, 'must be at most 1440 minutes (a day)').default(60),
  },
  { error: (issue) => (issue.code === 'unrecognized_keys' ? `unknown setting ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}: the settings are analyzer, controls, rules, byTest, establishing and runMinutes` : 'must be an object') },
);

/** Westgard's set for two controls per run, the commonest case, when a node names no rules. */
export const DEFAULT_RULES: QcRulesConfig = { controlsPerRun: 2 };

/** The settings, validated and resolved; the refusal names `source` and each thing to set. */
export function parseQcSetup(candidate: unknown, source: string): { setup: QcSetup } | { error: LisError } {
  const parsed = SetupSchema.safeParse(candidate);
  if (!parsed.success) return { error: invalidInput(`${source} QC settings are invalid`, describeIssues(parsed.error, 'qc')) };
  const c = parsed.data;
  const problems: string[] = [];
  const resolve = (config: unknown, where: string): RuleSet | undefined => {
    const r = parseQcRules(config, where);
    if ('set' in r) return r.set;
    problems.push(...(r.error.errors ?? [r.error.message]));
    return undefined;
  };
  const rules = resolve(c.rules ?? DEFAULT_RULES, `${source} (every test)`);
  const byTest: Record<string, RuleSet> = {};
  for (const [test, config] of Object.entries(c.byTest)) {
    const set = resolve(config, `${source} test ${test}`);
    if (set) byTest[test] = set;
  }
  const seen = new Map<string, number>();
  c.controls.forEach((row, i) => {
    const key = `${row.code}\u0000${row.test ?? ''}`;
    const before = seen.get(key);
    if (before !== undefined) problems.push(`qc.controls[${i}]: control ${JSON.stringify(row.code)}${row.test ? ` for ${row.test}` : ''} is in row ${before + 1} already: name each control once per test`);
    else seen.set(key, i);
  });
  if (problems.length > 0 || !rules) return { error: invalidInput(`${source} QC settings are invalid`, problems) };
  const controls = c.controls.map((r): ControlRow => ({ code: r.code, material: r.material, lot: r.lot, ...(r.test ? { test: r.test } : {}), ...(r.expiry ? { expiry: r.expiry } : {}) }));
  return { setup: { analyzer: c.analyzer, controls, rules, byTest, establishing: c.establishing, runMinutes: c.runMinutes } };
}
