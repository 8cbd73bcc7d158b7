/**
 * instrument -> LIS: results carrying instrument test codes become the spec's
 * result items (2.5). A result that cannot be mapped to exactly one LIS test is
 * never guessed at: it is handed back with the reason.
 */
import { z } from 'zod';
import { describeIssues, type ResultItem } from '../lis/schemas';
import { mappedRows, type MappingRow } from './model';

export const InstrumentResultSchema = z.looseObject({
  SampleNumber: z.string().trim().min(1, { message: 'SampleNumber must not be empty' }),
  instrumentCode: z.string().trim().min(1, { message: 'instrumentCode must not be empty' }),
  instrumentSubCode: z.string().trim().nullish(),
  Result: z.string().min(1, { message: 'Result must not be empty' }),
});

/**
 * Why a result was not mapped: no LIS test for its code, several and nothing to choose by, a coded test's text
 * with no LIS value, or not a result at all.
 */
export type RejectedKind = 'unmapped' | 'ambiguous' | 'unvalued' | 'invalid';

export interface Rejected {
  result: unknown;
  reason: string;
  kind: RejectedKind;
  /** The instrument code as the reason names it (`CODE` or `CODE/SUB`); '' for an invalid result. */
  code: string;
}

export interface LisResults {
  items: ResultItem[];
  /** Per sample, the LIS test IDs the mapped results cover (lis-mark-processed input). */
  processed: Array<{ SampleNumber: string; Tests: string[] }>;
  /** Every LIS test ID covered, each once. */
  processedTests: string[];
  rejected: Rejected[];
}

export interface ToLisOptions {
  /**
   * The LIS test IDs ordered for the samples, when the flow knows them. Used only to
   * choose between several LIS tests that share one instrument code.
   */
  orderedTests?: readonly string[] | undefined;
}

const key = (code: string, sub: string | undefined | null) => `${code}\u0000${sub ?? ''}`;

export function toLisResults(results: readonly unknown[], rows: readonly MappingRow[], options: ToLisOptions = {}): LisResults {
  const byInstrument = new Map<string, MappingRow[]>();
  for (const row of mappedRows(rows, 'results')) {
    const k = key(row.instrumentCode, row.instrumentSubCode);
    byInstrument.set(k, [...(byInstrument.get(k) ?? []), row]);
  }
  const out: LisResults = { items: [], processed: [], processedTests: [], rejected: [] };
  results.forEach((raw, index) => {
    const parsed = InstrumentResultSchema.safeParse(raw);
    if (!parsed.success) {
      out.rejected.push({ result: raw, reason: `invalid result: ${describeIssues(parsed.error, `results[${index}]`).join('; ')}`, kind: 'invalid', code: '' });
      return;
    }
    const r = parsed.data;
    const label = r.instrumentSubCode ? `${r.instrumentCode}/${r.instrumentSubCode}` : r.instrumentCode;
    let candidates = byInstrument.get(key(r.instrumentCode, r.instrumentSubCode)) ?? [];
    if (candidates.length === 0) {
      out.rejected.push({ result: raw, reason: `no LIS test is mapped to instrument test ${label}`, kind: 'unmapped', code: label });
      return;
    }
    if (candidates.length > 1 && options.orderedTests) {
      const ordered = candidates.filter((c) => options.orderedTests!.includes(c.lisTestId));
      if (ordered.length > 0) candidates = ordered;
    }
    const lisIds = [...new Set(candidates.map((c) => c.lisTestId))];
    if (lisIds.length > 1) {
      out.rejected.push({ result: raw, reason: `instrument test ${label} maps to several LIS tests (${lisIds.join(', ')}) and the order does not tell which`, kind: 'ambiguous', code: label });
      return;
    }
    const subCodes = [...new Set(candidates.map((c) => c.lisSubCode ?? ''))];
    if (subCodes.length > 1) {
      out.rejected.push({ result: raw, reason: `instrument test ${label} maps to several LIS sub-tests of ${lisIds[0]} (${subCodes.join(', ')})`, kind: 'ambiguous', code: label });
      return;
    }
    const row = candidates[0]!;
    const value = lisValue(row, r.Result);
    if (value === undefined) {
      out.rejected.push({ result: raw, reason: `no LIS value is mapped for result "${r.Result.trim()}" of instrument test ${label} (${row.lisTestId} is coded)`, kind: 'unvalued', code: label });
      return;
    }
    const item: ResultItem = { SampleNumber: r.SampleNumber, TestCode: row.lisCode, Result: value };
    if (row.lisSubCode) item.SubTestCode = row.lisSubCode;
    out.items.push(item);
    let sample = out.processed.find((p) => p.SampleNumber === r.SampleNumber);
    if (!sample) out.processed.push((sample = { SampleNumber: r.SampleNumber, Tests: [] }));
    if (!sample.Tests.includes(row.lisTestId)) sample.Tests.push(row.lisTestId);
    if (!out.processedTests.includes(row.lisTestId)) out.processedTests.push(row.lisTestId);
  });
  return out;
}

/**
 * The value sent for a result: as it came for a numeric row; for a coded row the LIS value its text (trimmed, exact
 * in case) maps to, else undefined: never the text as it came, never a default.
 */
function lisValue(row: MappingRow, result: string): string | undefined {
  if (row.values === undefined) return result;
  const text = result.trim();
  return row.values.find((v) => v.text === text)?.lis;
}

/**
 * Held results mapped again, with the rows deployed now and the ordered tests their message carried: the mapped
 * items, or, while any still does not map, the reasons (and nothing is sent).
 */
export function remapHeld(held: { results: ReadonlyArray<{ result: unknown }>; msg: Record<string, unknown> }, rows: readonly MappingRow[]): LisResults | { reasons: string[] } {
  const orderedTests = Array.isArray(held.msg.orderedTests) ? (held.msg.orderedTests as string[]) : undefined;
  const mapped = toLisResults(held.results.map((x) => x.result), rows, { orderedTests });
  return mapped.rejected.length > 0 ? { reasons: [...new Set(mapped.rejected.map((x) => x.reason))] } : mapped;
}
