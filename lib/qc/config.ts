/**
 * A test's QC rule configuration: Westgard's default set for its number of
 * control measurements per run, or a list of rules, validated with messages
 * that name what to set.
 */
import { z } from 'zod';
import { invalidInput, type LisError } from '../errors';
import { describeIssues } from '../lis/schemas';
import { RULE_NAMES, type MeanRule, type R4sReading, type RuleName, type RuleSet } from './types';

export type ControlsPerRun = 2 | 3 | 4 | 6;

export type QcRulesConfig =
  | { controlsPerRun: ControlsPerRun; meanRule?: MeanRule; warning?: boolean; r4s?: R4sReading }
  | { rules: RuleName[]; r4s?: R4sReading };

// Westgard's recommended multirules by N (westgard.com/multirule4.html): pairs of
// controls take 2-2s and 4-1s, threes take 2of3-2s and 3-1s, so that each rule
// looks back over whole runs.
const PAIRS = { rules: ['1-3s', '2-2s', 'R-4s', '4-1s'], mean: ['8x', '10x', '12x'] } as const;
const THREES = { rules: ['1-3s', '2of3-2s', 'R-4s', '3-1s'], mean: ['6x', '9x', '12x'] } as const;

function familyOf(n: ControlsPerRun) {
  return n === 2 || n === 4 ? PAIRS : THREES;
}

const quoted = (values: readonly string[]) => values.map((v) => JSON.stringify(v)).join(', ');

/** The set for N control measurements per run; 1-2s is in it as a warning unless `warning` is false. */
export function defaultRuleSet(controlsPerRun: ControlsPerRun, meanRule?: MeanRule, warning = true, r4s: R4sReading = 'range'): RuleSet {
  const family = familyOf(controlsPerRun);
  const mean = meanRule ?? family.mean[0];
  return { rules: [...(warning ? (['1-2s'] as const) : []), ...family.rules, mean], r4s };
}

const MEAN_RULES = ['6x', '8x', '9x', '10x', '12x'] as const;

const ConfigSchema = z
  .strictObject(
    {
      controlsPerRun: z
        .union([z.literal(2), z.literal(3), z.literal(4), z.literal(6)], {
          error: 'must be 2 or 4 (controls run in pairs) or 3 or 6 (in threes): it picks Westgard\'s rule set for that many',
        })
        .optional(),
      meanRule: z.enum(MEAN_RULES, { error: `must be one of ${quoted(MEAN_RULES)}` }).optional(),
      warning: z.boolean({ error: 'must be true (1-2s reported as a warning) or false (no 1-2s)' }).optional(),
      rules: z.array(z.enum(RULE_NAMES, { error: `must be one of ${quoted(RULE_NAMES)}` }), { error: 'must be a list of rule names' }).optional(),
      r4s: z.enum(['range', 'limits'], { error: 'must be "range" (two points 4 SD apart) or "limits" (one beyond +2 SD, one beyond -2 SD)' }).optional(),
    },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys'
          ? `unknown setting ${quoted(issue.keys)}: the settings are controlsPerRun, meanRule, warning, rules and r4s`
          : 'must be an object: { controlsPerRun } for Westgard\'s set, or { rules } for a list of your own',
    },
  )
  .superRefine((c, ctx) => {
    if (c.rules !== undefined && c.controlsPerRun !== undefined) {
      ctx.addIssue({ code: 'custom', path: [], message: 'set controlsPerRun (Westgard\'s set for that many controls per run) or rules (a list of your own), not both' });
    } else if (c.rules === undefined && c.controlsPerRun === undefined) {
      ctx.addIssue({ code: 'custom', path: [], message: 'set controlsPerRun (2, 3, 4 or 6) for Westgard\'s set, or rules for a list of your own' });
    }
    if (c.rules !== undefined) {
      if (c.rules.length === 0) ctx.addIssue({ code: 'custom', path: ['rules'], message: 'list at least one rule, or set controlsPerRun instead' });
      const seen = new Set<string>();
      c.rules.forEach((r, i) => {
        if (seen.has(r)) ctx.addIssue({ code: 'custom', path: ['rules', i], message: `${JSON.stringify(r)} is listed twice: list each rule once` });
        seen.add(r);
      });
      for (const key of ['meanRule', 'warning'] as const) {
        if (c[key] !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: `goes with controlsPerRun; with a list of rules, put the rule in rules instead` });
      }
    }
    if (c.controlsPerRun !== undefined && c.meanRule !== undefined) {
      const fits: readonly string[] = familyOf(c.controlsPerRun).mean;
      if (!fits.includes(c.meanRule)) {
        ctx.addIssue({
          code: 'custom',
          path: ['meanRule'],
          message: `${JSON.stringify(c.meanRule)} does not go with ${c.controlsPerRun} controls per run: set ${quoted(fits)} (or leave it out for ${JSON.stringify(fits[0])})`,
        });
      }
    }
  });

/** A test's configuration, validated and resolved; the refusal names `source` and each thing to set. */
export function parseQcRules(candidate: unknown, source: string): { set: RuleSet } | { error: LisError } {
  const parsed = ConfigSchema.safeParse(candidate);
  if (!parsed.success) return { error: invalidInput(`${source} QC rules are invalid`, describeIssues(parsed.error, 'qc')) };
  const c = parsed.data;
  const r4s = c.r4s ?? 'range';
  if (c.rules !== undefined) {
    // Listed in the table's order, so the label and violations read the same whatever order was typed.
    return { set: { rules: RULE_NAMES.filter((r) => c.rules!.includes(r)), r4s } };
  }
  return { set: defaultRuleSet(c.controlsPerRun!, c.meanRule, c.warning ?? true, r4s) };
}

/** How the set reads beside a chart: Westgard's slash notation, the warning rule named as such. */
export function ruleSetLabel(set: RuleSet): string {
  const rejecting = set.rules.filter((r) => r !== '1-2s').join('/');
  return set.rules.includes('1-2s') ? `${rejecting} (1-2s warning)` : rejecting;
}
