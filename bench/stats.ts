/**
 * Summaries of measured samples. Percentiles are nearest-rank on the sorted
 * samples (p99 of 1,000 samples is the 990th smallest), so every reported
 * figure is a value that was actually measured.
 */

export interface Summary {
  n: number;
  p50: number;
  p99: number;
  max: number;
  mean: number;
}

export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function summarize(samples: ArrayLike<number>): Summary {
  const sorted = Float64Array.from(samples as ArrayLike<number>).sort();
  let sum = 0;
  for (let i = 0; i < sorted.length; i++) sum += sorted[i]!;
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.length === 0 ? Number.NaN : sorted[sorted.length - 1]!,
    mean: sorted.length === 0 ? Number.NaN : sum / sorted.length,
  };
}

export function median(values: number[]): number {
  return percentile(Float64Array.from(values).sort(), 50);
}

/** A number with about three significant digits, no exponent for everyday magnitudes. */
export function fmt(value: number, digits = 3): string {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  if (abs >= 10 ** digits) return Math.round(value).toLocaleString('en-US');
  if (abs === 0) return '0';
  const decimals = Math.max(0, digits - 1 - Math.floor(Math.log10(abs)));
  return value.toFixed(Math.min(decimals, 4));
}

export function ms(value: number): string {
  return `${fmt(value)} ms`;
}

export function sleep(msToWait: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, msToWait));
}

/** Polls `condition` every `everyMs` until it holds or `timeoutMs` passed; resolves with whether it held. */
export async function waitFor(condition: () => boolean, timeoutMs: number, everyMs = 20): Promise<boolean> {
  const until = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() >= until) return false;
    await sleep(everyMs);
  }
  return true;
}
