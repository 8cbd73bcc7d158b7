/**
 * The test map an operator keeps in the test-mapper dialog: one row per pairing
 * of a LIS test with an instrument test (spec 1.4).
 *
 * - Several rows may share an instrumentCode: LIS tests run by one instrument
 *   test (a panel), e.g. LIS "WBC" and "HGB" both ordered as instrument "CBC".
 * - Several rows may share a lisTestId: one LIS test whose instrument
 *   components come back as separate results, told apart by instrumentSubCode,
 *   each reported with its own LIS SubTestCode (spec 2.5).
 */
import { z } from 'zod';

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
  return out;
}

/** Rows that pair a LIS test with an instrument test (instrumentCode filled in). */
export function mappedRows(rows: readonly MappingRow[]): MappingRow[] {
  return rows.filter((r) => r.instrumentCode !== '');
}
