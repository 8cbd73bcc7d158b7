/**
 * The shape of a file dialect (./types.ts) as a strict zod schema, for
 * dialects that arrive as data (a site's overrides, imported JSON): a
 * misspelt key is refused with its path instead of being ignored. What the
 * values mean together is fileProfileIssues' (./validate.ts).
 */
import { z } from 'zod';
import type { FileDialectProfile } from './types';
import { FILE_ENCODINGS } from './encoding';

const text = z.string();
const column = z.union([text, z.number().int()]);
const time = z.strictObject({ columns: z.array(column), format: text });

const namedTest = z.union([z.strictObject({ from: z.enum(['header', 'name']), pattern: text }), z.strictObject({ constant: text }), z.strictObject({ from: z.enum(['block', 'line']) })]);

const layout = z.discriminatedUnion('form', [
  z.strictObject({ form: z.literal('row-per-result'), sample: column, test: z.union([column, z.array(column), namedTest]), value: column, headerUnits: z.boolean().optional(), units: column.optional(), flags: column.optional(), time: time.optional(), repeats: z.boolean().optional(), notWith: z.array(text).optional() }),
  z.strictObject({ form: z.literal('row-per-sample'), sample: column, tests: z.union([z.array(column), z.literal('rest')]), notTests: z.array(column).optional(), testPattern: text.optional(), units: z.record(text, text).optional(), headerUnits: z.boolean().optional(), someTests: z.boolean().optional(), notWith: z.array(text).optional(), replicatesBelow: z.boolean().optional(), assay: column.optional(), time: time.optional() }),
  z.strictObject({ form: z.literal('plate'), samples: text.optional(), values: text, test: z.union([text, namedTest]), units: text.optional(), samplesLine: text.optional(), valuesLine: z.union([text, z.array(text)]).optional(), wells: z.record(text, text).optional() }),
]);

const qcRule = z.discriminatedUnion('by', [z.strictObject({ by: z.literal('sample'), pattern: text }), z.strictObject({ by: z.literal('column'), column, anyOf: z.array(text) }), z.strictObject({ by: z.literal('block'), pattern: text })]);

export const FileDialectProfileSchema = z.strictObject({
  id: text,
  label: text,
  vendor: text,
  model: text,
  format: z.enum(['text', 'xlsx', 'bioplex-xml']).optional(),
  sheet: z.union([text, z.number().int(), z.array(text)]).optional(),
  maxUnpackedMB: z.number().optional(),
  archive: z.strictObject({ member: text }).optional(),
  maxRows: z.number().int().optional(),
  encoding: z.enum(FILE_ENCODINGS),
  delimiter: z.union([z.enum(['comma', 'semicolon', 'tab']), z.strictObject({ widths: z.array(z.number().int()) })]),
  table: z.strictObject({ skipRows: z.number().int(), startsAfter: z.union([text, z.array(text)]).optional(), header: z.boolean(), headerFirstCell: text.optional(), endsAtEmptyRow: z.boolean(), blocks: text.optional(), quotedLines: z.boolean().optional() }),
  layout,
  decimalComma: z.boolean(),
  noResult: z.array(text),
  sampleNumber: z.strictObject({ take: text.optional(), pattern: text }),
  qc: z.array(qcRule),
  validWhen: z.array(z.union([z.strictObject({ column, anyOf: z.array(text) }), z.strictObject({ column, noneOf: z.array(text) })])).optional(),
  runDate: z.strictObject({ from: z.enum(['header', 'name']), pattern: text, format: text }).optional(),
  timeZone: text.optional(),
});

// Whatever the schema accepts is a FileDialectProfile: a change to ./types.ts
// that the schema does not follow fails to compile here.
const isProfile = (p: z.infer<typeof FileDialectProfileSchema>): FileDialectProfile => p;
void isProfile;
