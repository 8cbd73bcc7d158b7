/**
 * The test map an operator keeps in the test-mapper dialog: one row per pairing
 * of a LIS test with an instrument test (spec 1.4).
 *
 * - Several rows may share an instrumentCode: LIS tests run by one instrument
 *   test (a panel), e.g. LIS "WBC" and "HGB" both ordered as instrument "CBC".
 * - Several rows may share a lisTestId: one LIS test whose instrument
 *   components come back as separate results, told apart by instrumentSubCode,
 *   each reported with its own LIS SubTestCode (spec 2.5).
 * - A row works both ways unless `use` says orders only (its code is sent in
 *   order downloads, never read in results) or results only (read in results,
 *   never sent in downloads: a code the analyzer reports but is not ordered by).
 * - A coded row (`values` present) turns each result text the analyzer sends
 *   into the LIS's word for it; a text it does not hold is held for a person.
 */
import { z } from 'zod';
import { invalidInput, type LisError } from '../errors';
import { describeIssues } from '../lis/schemas';

/** Which way a row works; absent means both. */
export type RowUse = 'orders' | 'results';

/** One analyzer result text and the LIS value it becomes. */
export interface ValueRow {
  text: string;
  lis: string;
}

export interface MappingRow {
  lisTestId: string;
  lisCode: string;
  lisName: string;
  lisType?: string;
  /** The instrument's test code; empty means "not mapped yet". */
  instrumentCode: string;
  /** The instrument's sub-test / channel, when results come per component. */
  instrumentSubCode?: string;
  /** The LIS sub-test code reported with results of this row (spec 2.5 SubTestCode). */
  lisSubCode?: string;
  note?: string;
  /** Set when the LIS catalog no longer lists this test; the row is kept, never dropped. */
  stale?: boolean;
  /** Orders only or results only; absent: both ways. */
  use?: RowUse;
  /** Present for a coded test: the analyzer's result texts and the LIS value each becomes. */
  values?: ValueRow[];
}

const text = z.string().trim();
const optionalText = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v === '' ? undefined : v));

export const MappingRowSchema = z.object({
  lisTestId: text.min(1, { message: 'lisTestId must not be empty' }),
  lisCode: text.min(1, { message: 'lisCode must not be empty' }),
  lisName: text.default(''),
  lisType: optionalText,
  instrumentCode: text.default(''),
  instrumentSubCode: optionalText,
  lisSubCode: optionalText,
  note: optionalText,
  stale: z.boolean().optional(),
  use: z.enum(['orders', 'results', 'both'], { message: 'use must be orders, results, or empty for both ways' }).optional().transform((v) => (v === 'both' ? undefined : v)),
  values: z
    .array(z.object({ text: text.min(1, { message: 'a value row\'s analyzer text must not be empty' }), lis: text.min(1, { message: 'a value row\'s LIS value must not be empty' }) }))
    .optional()
    .superRefine((rows, ctx) => {
      const seen = new Set<string>();
      for (const r of rows ?? []) {
        if (seen.has(r.text)) ctx.addIssue({ code: 'custom', message: `the analyzer text "${r.text}" is given two LIS values` });
        seen.add(r.text);
      }
    }),
});

export const MappingSchema = z.array(MappingRowSchema);

/** Rows without undefined keys, so saved flows stay tidy and comparisons exact. */
export function cleanRow(row: z.infer<typeof MappingRowSchema>): MappingRow {
  const out: MappingRow = { lisTestId: row.lisTestId, lisCode: row.lisCode, lisName: row.lisName, instrumentCode: row.instrumentCode };
  if (row.lisType !== undefined) out.lisType = row.lisType;
  if (row.instrumentSubCode !== undefined) out.instrumentSubCode = row.instrumentSubCode;
  if (row.lisSubCode !== undefined) out.lisSubCode = row.lisSubCode;
  if (row.note !== undefined) out.note = row.note;
  if (row.stale) out.stale = true;
  if (row.use !== undefined) out.use = row.use;
  if (row.values !== undefined) out.values = row.values.map((v) => ({ text: v.text, lis: v.lis }));
  return out;
}

/** Rows that pair a LIS test with an instrument test (instrumentCode filled in), for one way or for any. */
export function mappedRows(rows: readonly MappingRow[], way?: RowUse): MappingRow[] {
  return rows.filter((r) => r.instrumentCode !== '' && (way === undefined || r.use === undefined || r.use === way));
}

/** Rows as a flow or a message gives them, validated; the refusal names `source` and each unusable field. */
export function parseMapping(candidate: unknown, source: string): { rows: MappingRow[] } | { error: LisError } {
  const parsed = MappingSchema.safeParse(candidate ?? []);
  if (!parsed.success) return { error: invalidInput(`${source} mapping is invalid`, describeIssues(parsed.error, 'mapping')) };
  return { rows: parsed.data.map(cleanRow) };
}
