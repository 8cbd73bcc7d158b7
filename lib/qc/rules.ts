/**
 * The Westgard control rules, one table entry each, over z-scores. A rule
 * looks at a window of consecutive points (oldest first) that ends at the
 * point being evaluated, and answers with the window indexes that make its
 * pattern, always including that newest point, so a pattern is found once,
 * at the point that completes it.
 */
import type { R4sReading, RuleName, Scope } from './types';

/**
 * z within this of a limit counts as at the limit: a value written at
 * mean + 2 SD can land a hair short of z = 2 in binary floating point
 * ((0.3 - 0.1) / 0.1 is 1.9999999999999998).
 */
const TOLERANCE = 1e-9;

export type Side = -1 | 0 | 1;

/** The side of the limit ±k a z-score is at or beyond (the limit itself counts as beyond), or 0. */
export function beyond(z: number, k: number): Side {
  if (z >= k - TOLERANCE) return 1;
  if (z <= -k + TOLERANCE) return -1;
  return 0;
}

/** The side of the mean a z-score is on; 0 on the mean, which belongs to neither side. */
export function sideOfMean(z: number): Side {
  if (z > TOLERANCE) return 1;
  if (z < -TOLERANCE) return -1;
  return 0;
}

export function zScore(value: number, mean: number, sd: number): number {
  return (value - mean) / sd;
}

export interface RuleDefinition {
  name: RuleName;
  /** False for the warning rule: its violation makes a run a warning, not a rejection. */
  rejects: boolean;
  /** How many of the latest points the window holds; Infinity for the whole run so far. */
  span: number;
  /** The fewest points the window must hold for the rule to be judged. */
  least: number;
  /** The sequences the rule is applied to: the run's points, one material's series, or all materials'. */
  scopes: readonly Scope[];
  /** The indexes of the window that make the pattern (the last one among them), or undefined. */
  match(z: readonly number[], r4s: R4sReading): number[] | undefined;
}

const EVERY_SCOPE: readonly Scope[] = ['run', 'material', 'across'];

function lastOf(z: readonly number[]): number {
  return z[z.length - 1]!;
}

/** The newest point alone beyond ±k. */
function newestBeyond(k: number) {
  return (z: readonly number[]): number[] | undefined => (beyond(lastOf(z), k) !== 0 ? [z.length - 1] : undefined);
}

/** At least `need` points of the window beyond the same limit ±k as the newest one. */
function countBeyond(need: number, k: number) {
  return (z: readonly number[]): number[] | undefined => {
    const side = beyond(lastOf(z), k);
    if (side === 0) return undefined;
    const hits: number[] = [];
    z.forEach((v, i) => {
      if (beyond(v, k) === side) hits.push(i);
    });
    return hits.length >= need ? hits : undefined;
  };
}

/** Every point of the window beyond the same limit ±k. */
function allBeyond(k: number) {
  return (z: readonly number[]): number[] | undefined => {
    const side = beyond(lastOf(z), k);
    if (side === 0 || z.some((v) => beyond(v, k) !== side)) return undefined;
    return z.map((_, i) => i);
  };
}

/** Every point of the window on the same side of the mean (a point on the mean breaks it). */
function allOneSide(z: readonly number[]): number[] | undefined {
  const side = sideOfMean(lastOf(z));
  if (side === 0 || z.some((v) => sideOfMean(v) !== side)) return undefined;
  return z.map((_, i) => i);
}

/** The newest point and the run's point farthest from it, when the two are 4 SD apart (or straddle ±2 SD). */
function rangeOver4s(z: readonly number[], reading: R4sReading): number[] | undefined {
  const newest = lastOf(z);
  let far = -1;
  for (let i = 0; i < z.length - 1; i++) {
    if (far < 0 || Math.abs(z[i]! - newest) > Math.abs(z[far]! - newest)) far = i;
  }
  if (far < 0) return undefined;
  const other = z[far]!;
  const hit =
    reading === 'range'
      ? Math.abs(newest - other) >= 4 - TOLERANCE
      : beyond(newest, 2) !== 0 && beyond(other, 2) === -beyond(newest, 2);
  return hit ? [far, z.length - 1] : undefined;
}

function meanRule(name: RuleName, n: number): RuleDefinition {
  return { name, rejects: true, span: n, least: n, scopes: EVERY_SCOPE, match: allOneSide };
}

/** Every rule, in the order violations are listed. */
export const RULES: readonly RuleDefinition[] = [
  // 1-2s: one measurement beyond mean ± 2 SD; a warning only (westgard.com/mltirule.htm, westgard.com/multirule4.html).
  { name: '1-2s', rejects: false, span: 1, least: 1, scopes: ['run'], match: newestBeyond(2) },
  // 1-3s: one measurement beyond mean ± 3 SD (westgard.com/mltirule.htm).
  { name: '1-3s', rejects: true, span: 1, least: 1, scopes: ['run'], match: newestBeyond(3) },
  // 2-2s: two consecutive measurements beyond the same ±2 SD limit, within a run across materials or within a material across runs (westgard.com/lesson18.htm).
  { name: '2-2s', rejects: true, span: 2, least: 2, scopes: ['run', 'material'], match: allBeyond(2) },
  // R-4s: within one run, one measurement beyond +2 SD and another beyond -2 SD, a range over 4 SD (westgard.com/mltirule.htm); within a run only (westgard.com/mltirule2.htm).
  { name: 'R-4s', rejects: true, span: Infinity, least: 2, scopes: ['run'], match: rangeOver4s },
  // 4-1s: four consecutive measurements beyond the same ±1 SD limit, within or across materials (westgard.com/mltirule.htm).
  { name: '4-1s', rejects: true, span: 4, least: 4, scopes: EVERY_SCOPE, match: allBeyond(1) },
  // 2of3-2s: two of three consecutive measurements beyond the same ±2 SD limit (westgard.com/mltirule.htm, for N of 3).
  { name: '2of3-2s', rejects: true, span: 3, least: 2, scopes: EVERY_SCOPE, match: countBeyond(2, 2) },
  // 3-1s: three consecutive measurements beyond the same ±1 SD limit (westgard.com/mltirule.htm, for N of 3).
  { name: '3-1s', rejects: true, span: 3, least: 3, scopes: EVERY_SCOPE, match: allBeyond(1) },
  // 6x: six consecutive measurements on one side of the mean (westgard.com/mltirule.htm, for N of 3 or 6).
  meanRule('6x', 6),
  // 8x: eight consecutive measurements on one side of the mean (westgard.com/mltirule.htm, for N of 2 or 4).
  meanRule('8x', 8),
  // 9x: nine consecutive measurements on one side of the mean (westgard.com/mltirule.htm, for N of 3).
  meanRule('9x', 9),
  // 10x: ten consecutive measurements on one side of the mean (westgard.com/mltirule.htm, the classic set).
  meanRule('10x', 10),
  // 12x: twelve consecutive measurements on one side of the mean (westgard.com/mltirule.htm, for N of 2, 3, 4 or 6).
  meanRule('12x', 12),
];

/** The longest window any rule needs across runs: what the evaluator keeps per material and across materials. */
export const LONGEST_SPAN = Math.max(...RULES.filter((r) => Number.isFinite(r.span)).map((r) => r.span));

export function ruleNamed(name: RuleName): RuleDefinition {
  return RULES.find((r) => r.name === name)!;
}
