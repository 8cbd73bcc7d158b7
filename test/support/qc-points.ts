// Builders for the QC rule tests: control points from z-scores or values, and
// a compact reading of the verdicts to compare with hand-worked lists.
import { evaluateSeries, type ControlPoint, type EvaluatorOptions, type RuleName, type RunResult, type Target } from '../../lib/qc';

/** Synthetic targets: every material at mean 100, SD 10, so value = 100 + 10 z reads back exactly. */
export const FLAT: Target = { mean: 100, sd: 10 };

export interface PointExtra {
  lot?: string;
  at?: number;
  excluded?: string;
  value?: number;
}

/** A point of material `material` in run `run` (ids read `L1#3`, runs `r3`); its time is the run's, the material's order breaking ties. */
export function pt(run: number, material: string, z: number, extra: PointExtra = {}): ControlPoint {
  const p: ControlPoint = {
    id: `${material}#${run}`,
    analyzer: 'an1',
    test: 'GLU',
    material,
    lot: extra.lot ?? 'A',
    value: extra.value ?? FLAT.mean + FLAT.sd * z,
    at: extra.at ?? run * 1000 + Number(material.replace(/\D/g, '')),
    run: `r${run}`,
  };
  if (extra.excluded !== undefined) p.excluded = extra.excluded;
  return p;
}

/** Runs from rows of z-scores, one column per material (L1, L2, ...); null leaves that level out of the run. */
export function rows(zs: readonly (readonly (number | null)[])[], first = 1): ControlPoint[] {
  return zs.flatMap((row, i) => row.flatMap((z, j) => (z === null ? [] : [pt(first + i, `L${j + 1}`, z)])));
}

export function options(rules: readonly RuleName[], targets: Record<string, Target | undefined> = {}, r4s: 'range' | 'limits' = 'range'): EvaluatorOptions {
  return {
    rules: () => ({ rules, r4s }),
    target: (p) => (p.material in targets ? targets[p.material] : FLAT),
  };
}

/** Each run with violations, as `rule scope point,point,...` lines; runs in control are left out. */
export function verdicts(results: readonly RunResult[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const r of results) {
    if (r.violations.length === 0) continue;
    out[r.run] = r.violations.map((v) => {
      if (v.reportedAtRun !== r.run) throw new Error(`violation of ${r.run} reported at ${v.reportedAtRun}`);
      return `${v.rule} ${v.scope} ${v.points.join(',')}`;
    });
  }
  return out;
}

export function states(results: readonly RunResult[]): Record<string, string> {
  return Object.fromEntries(results.map((r) => [r.run, r.state]));
}

export function judge(points: Iterable<ControlPoint>, rules: readonly RuleName[], targets: Record<string, Target | undefined> = {}, r4s: 'range' | 'limits' = 'range') {
  return verdicts(evaluateSeries(points, options(rules, targets, r4s)));
}
