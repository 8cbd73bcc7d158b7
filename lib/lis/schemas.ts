/**
 * zod schemas of the resources in the LIS interface spec (section 2).
 *
 * Objects are "loose": fields the spec does not name are kept, never dropped,
 * so a LIS that sends more than the spec shows loses nothing on its way through.
 * Optional fields accept null as "absent" because many JSON producers write
 * null rather than leaving a key out (README, "Where the spec is silent").
 */
import { z } from 'zod';

/** Spec 2.4, in the spec's order and spelling. */
export const SAMPLE_TYPES = [
  'EDTA', 'Serum', 'Plasma', 'Urine', 'CSF', 'Suprnt', 'Whole blood', 'Synovial', 'Pleural',
  'Peritoneal', 'Pericardial', 'Timed', 'Blood', 'Amniotic', 'Saliva', 'Cervical', 'Urethral',
  'Ratio', 'Other',
] as const;
export type SampleType = (typeof SAMPLE_TYPES)[number];

const nonEmpty = (what: string) => z.string().min(1, { message: `${what} must not be empty` });

/** True when y-m-d (and h:m:s) name a moment that exists in the calendar. */
export function isRealDate(y: number, mo: number, d: number, h = 0, mi = 0, s = 0): boolean {
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return false;
  const daysInMonth = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  return d <= daysInMonth;
}

/** yyyymmddHHMMSS (spec 2.2 TransactionDate): 14 digits naming a real moment. */
export const TransactionDateSchema = z.string().refine(
  (v) => {
    const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(v);
    return m !== null && isRealDate(+m[1]!, +m[2]!, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
  },
  { message: 'must be 14 digits yyyymmddHHMMSS naming a real date and time' },
);

/** yyyymmdd (spec 2.3 DateOfBirth): 8 digits naming a real day. */
export const DateOfBirthSchema = z.string().refine(
  (v) => {
    const m = /^(\d{4})(\d{2})(\d{2})$/.exec(v);
    return m !== null && isRealDate(+m[1]!, +m[2]!, +m[3]!);
  },
  { message: 'must be 8 digits yyyymmdd naming a real date' },
);

function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { message: `must be one of ${values.map((v) => JSON.stringify(v)).join(', ')}` });
}

/** Spec 2.1. */
export const TestSchema = z.looseObject({
  ID: nonEmpty('ID'),
  Name: z.string(),
  Code: nonEmpty('Code'),
  Type: z.string().nullish(),
});
export type LisTest = z.infer<typeof TestSchema>;

/** Spec 4.1 response. */
export const TestsResponseSchema = z.looseObject({
  tests: z.array(TestSchema),
});

/** Spec 2.3. */
export const PatientSchema = z.looseObject({
  ID: nonEmpty('ID'),
  Name: z.string(),
  Sex: oneOf(['M', 'F', 'U']),
  DateOfBirth: DateOfBirthSchema.nullish(),
  Age: z.string().nullish(),
  AgeUnit: oneOf(['Y', 'M', 'D']).nullish(),
});
export type Patient = z.infer<typeof PatientSchema>;

/** Spec 2.2. */
export const OrderSchema = z.looseObject({
  SampleNumber: nonEmpty('SampleNumber'),
  TransactionDate: TransactionDateSchema,
  Priority: oneOf(['S', 'R']).nullish(),
  SampleType: oneOf(SAMPLE_TYPES),
  Tests: z.array(nonEmpty('test ID')).min(1, { message: 'must list at least one test ID' }),
  patient: PatientSchema,
});
export type Order = z.infer<typeof OrderSchema>;

/**
 * Spec 4.2 response envelope. The order itself is checked separately so that
 * "no order for this sample" (absent, null or {}) can be told from a bad one.
 */
export const OrderEnvelopeSchema = z.looseObject({
  status: z.string().nullish(),
  order: z.unknown().optional(),
});

/** Spec 2.5. */
export const ResultItemSchema = z.looseObject({
  SampleNumber: nonEmpty('SampleNumber'),
  TestCode: nonEmpty('TestCode'),
  SubTestCode: z.string().nullish(),
  Result: nonEmpty('Result'),
});
export type ResultItem = z.infer<typeof ResultItemSchema>;

export const ResultItemsSchema = z.array(ResultItemSchema).min(1, { message: 'must hold at least one result item' });

/** Input of lis-mark-processed (spec 4.4, before Tests is serialised). */
export const ProcessedInputSchema = z.looseObject({
  SampleNumber: nonEmpty('SampleNumber'),
  Tests: z.array(nonEmpty('test ID')).min(1, { message: 'must list at least one test ID' }),
});

/** Spec 7: the LIS's error body. */
export const ErrorBodySchema = z.looseObject({
  message: z.string(),
  errors: z.array(z.string()).optional(),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/** One line per problem, naming the field by its path, e.g. `order.patient.Sex: must be one of "M", "F", "U"`. */
export function describeIssues(error: z.ZodError, root: string): string[] {
  return error.issues.map((issue) => `${formatPath(root, issue.path)}: ${issue.message}`);
}

function formatPath(root: string, path: ReadonlyArray<PropertyKey>): string {
  let out = root;
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? '(body)' : out;
}
