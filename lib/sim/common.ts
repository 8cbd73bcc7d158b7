/** Helpers both simulators (ASTM and HL7) use beside their lifecycle (lifecycle.ts): the error, sample and option checks, the unordered test. */
import { analyteCodes } from './analytes';

export class SimulatorError extends Error {
  override name = 'SimulatorError';
}

/** A sample that never ran or failed before it started, as runSamples reports it. */
export function failed(sampleNumber: string, error: string): { sampleNumber: string; resultsAcked: false; ok: false; error: string } {
  return { sampleNumber, resultsAcked: false, ok: false, error };
}

export function checkSample(sample: string): void {
  if (typeof sample !== 'string' || sample.trim() === '') throw new SimulatorError('a sample number must be a non-empty string');
  if (/[\x00-\x1f\x7f]/.test(sample)) throw new SimulatorError(`sample number ${JSON.stringify(sample)} holds a control character`);
}

export function nonNegative(name: string, v: number): number {
  if (!Number.isFinite(v) || v < 0) throw new SimulatorError(`${name} must be a number of ms >= 0, got ${String(v)}`);
  return v;
}

/** The test a misbehaving analyzer adds (unorderedResult): the one given, or one of the analyte table nobody ordered. */
export function unorderedTestFor(option: string | true | undefined, ordered: readonly string[]): string | undefined {
  if (option === undefined) return undefined;
  if (option !== true) return ordered.includes(option) ? undefined : option;
  return analyteCodes().find((code) => !ordered.includes(code));
}
