/**
 * The committed baseline (bench/baseline.json, written from a quick run on the
 * bench machine) and the regression rule quick mode applies: a throughput or
 * latency figure more than REGRESSION_FACTOR times worse than its baseline
 * value fails the run.
 */
import type { Better, Figure } from './report';

export const REGRESSION_FACTOR = 2;

export interface Baseline {
  mode?: string;
  writtenAt?: string;
  machine: Record<string, unknown>;
  figures: Record<string, { value: number; unit: string; better: Better }>;
}

/** The gated figures of a run, as a baseline. */
export function baselineOf(figures: Figure[], machine: Record<string, unknown>, mode: string): Baseline {
  const gated = figures.filter((f) => f.better !== undefined && f.value !== null && Number.isFinite(f.value));
  return {
    mode,
    writtenAt: new Date().toISOString(),
    machine,
    figures: Object.fromEntries(gated.map((f) => [f.key, { value: f.value!, unit: f.unit, better: f.better! }])),
  };
}

export interface Regression {
  figure: Figure;
  baseline: number;
  /** How many times worse. */
  factor: number;
}

/** Gated figures of this run more than REGRESSION_FACTOR times worse than in the baseline. */
export function regressions(figures: Figure[], baseline: Baseline): { compared: number; found: Regression[] } {
  let compared = 0;
  const found: Regression[] = [];
  for (const f of figures) {
    const base = baseline.figures[f.key];
    if (f.better === undefined || f.value === null || !Number.isFinite(f.value) || base === undefined) continue;
    compared++;
    const factor = f.better === 'higher' ? base.value / f.value : f.value / base.value;
    if (factor > REGRESSION_FACTOR) found.push({ figure: f, baseline: base.value, factor });
  }
  return { compared, found };
}

export function describeRegression(r: Regression): string {
  const f = r.figure;
  return `REGRESSION ${f.key} (${f.section}: ${f.label}): ${f.value!.toPrecision(4)} ${f.unit} against ${r.baseline.toPrecision(4)} ${f.unit} in the baseline, ${r.factor.toFixed(1)}x worse (${f.better} is better, limit ${REGRESSION_FACTOR}x)`;
}
