/**
 * The shape of a dialect profile (./types.ts) as a zod schema, for profiles
 * that arrive as data: a site's edited dialect, imported JSON. Objects are
 * strict, so a misspelt key is refused with its path instead of being ignored
 * (an ignored `sampleID` would leave the sample number where the base reads
 * it). This checks shape only; what the values mean together is
 * profileIssues' (./validate.ts), the same rules the built-in profiles meet.
 */
import { z } from 'zod';
import { HEADER_FIELDS, ORDER_FIELDS, PATIENT_FIELDS, TERMINATOR_FIELDS } from '../records';
import type { DialectProfile } from './types';

const int = z.number().int();
const text = z.string();
const value = z.union([text, z.array(text), z.array(z.array(text))]);
const orderField = z.enum(ORDER_FIELDS);
const template = <F extends readonly [string, ...string[]]>(fields: F) => z.partialRecord(z.enum(fields), value);

const locator = z.strictObject({
  component: int,
  split: z.strictObject({ separator: text, part: int }).optional(),
  alsoComponents: z.array(int).optional(),
  joinWith: text.optional(),
  trim: z.boolean(),
});

const reading = { component: int, trim: z.boolean(), singleComponent: z.boolean() };
const sampleId = z.discriminatedUnion('record', [
  z.strictObject({ record: z.literal('O'), field: z.enum(['specimenId', 'instrumentSpecimenId']), ...reading }),
  z.strictObject({ record: z.literal('P'), field: z.enum(['practicePatientId', 'laboratoryPatientId']), ...reading }),
]);

const query = z.strictObject({
  field: z.literal('startingRange'),
  component: int,
  trim: z.boolean(),
  repeats: z.enum(['first', 'all']),
  bareRepeatComponent: int.optional(),
  cancelStatus: text.optional(),
  allTests: z.array(text),
});

const results = z.strictObject({
  value: z.strictObject({ component: z.union([int, z.literal('first-non-empty')]).optional(), trim: z.boolean(), decimalComma: z.enum(['keep', 'dot']) }),
  units: z.strictObject({ component: int }).optional(),
  completedAt: z.discriminatedUnion('record', [
    z.strictObject({ record: z.literal('R'), field: z.enum(['completedAt', 'startedAt']) }),
    z.strictObject({ record: z.literal('O'), field: z.literal('resultedAt') }),
  ]),
});

const qcRule = z.discriminatedUnion('record', [
  z.strictObject({ record: z.literal('H'), field: z.enum(HEADER_FIELDS), component: int, anyOf: z.array(text) }),
  z.strictObject({ record: z.literal('O'), field: orderField, component: int, anyOf: z.array(text) }),
]);

const qcInOrder = z.strictObject({
  field: orderField,
  components: z.strictObject({ id: int, name: int, lot: int, expiry: int, mean: int, level: int, sd: int, value: int }),
});

const delimiters = z.strictObject({ field: text, repeat: text, component: text, escape: text });

const order = z.strictObject({
  delimiters,
  header: z.strictObject({
    fields: template(HEADER_FIELDS),
    timestamp: z.boolean(),
    whenQueried: template(HEADER_FIELDS).optional(),
    whenUnsolicited: template(HEADER_FIELDS).optional(),
  }),
  patient: z.strictObject({
    fields: template(PATIENT_FIELDS),
    id: z.enum(['practicePatientId', 'laboratoryPatientId', 'patientId3']).optional(),
    nameComponents: int.optional(),
    nameOrder: z.array(z.enum(['last', 'first', ''])).optional(),
    birth: z.array(z.enum(['dateOfBirth', 'age', 'ageUnit'])).optional(),
    sex: z.boolean().optional(),
  }),
  order: z.strictObject({
    fields: template(ORDER_FIELDS),
    sampleField: z.enum(['specimenId', 'instrumentSpecimenId']),
    test: z.strictObject({ codeComponent: int, components: int }),
    priority: z.strictObject({ S: text, R: text, absent: text }),
    requestedAtFromTransaction: z.boolean().optional(),
    sampleType: z.strictObject({ field: orderField, map: z.union([z.literal('as-is'), z.record(text, z.union([text, z.array(text)]))]) }).optional(),
    actionCode: z.strictObject({ queried: text, unsolicited: text }),
    reportType: z.strictObject({ queried: text, unsolicited: text }),
    echo: z.array(z.strictObject({ field: orderField, from: int, to: int })).optional(),
  }),
  terminator: template(TERMINATOR_FIELDS),
  textDelimiters: z.union([z.literal('escape'), z.strictObject({ replaceWith: text })]),
});

const noOrder = z.discriminatedUnion('form', [
  z.strictObject({ form: z.literal('terminator'), header: template(HEADER_FIELDS), terminationCode: text }),
  z.strictObject({
    form: z.literal('order'),
    reportType: text,
    derived: z.array(z.strictObject({ field: orderField, component: int, map: z.record(text, text) })).optional(),
  }),
]);

const serial = z.strictObject({
  baudRate: z.number().positive(),
  dataBits: z.union([z.literal(7), z.literal(8)]),
  parity: z.enum(['none', 'even', 'odd']),
  stopBits: z.union([z.literal(1), z.literal(2)]),
});

const link = z.strictObject({
  framePerRecord: z.boolean().optional(),
  recordFrameEnd: z.enum(['ETB', 'ETX']).optional(),
  frameTextMax: int.positive().optional(),
  checksums: z.boolean().optional(),
  strictFrameNumbers: z.boolean().optional(),
  terminatorRequired: z.boolean().optional(),
});

export const DialectProfileSchema = z.strictObject({
  id: text,
  label: text,
  vendor: text,
  model: text,
  transport: z.strictObject({ serial: serial.optional(), tcp: z.boolean().optional() }),
  link,
  charset: z.enum(['latin1', 'utf8']),
  sampleId,
  query: query.optional(),
  testId: z.strictObject({ code: locator, codeFallbacks: z.array(locator).optional(), subCode: locator.optional(), subCodeIn: z.enum(['testId', 'value']).optional() }),
  results,
  qc: z.array(qcRule),
  qcInOrder: qcInOrder.optional(),
  order: order.optional(),
  noOrder: noOrder.optional(),
  queryDeadlineMs: z.number(),
  acceptsUnsolicitedOrders: z.boolean(),
  timeZone: text.optional(),
});

// Whatever the schema accepts is a DialectProfile: a change to ./types.ts
// that the schema does not follow fails to compile here.
const isProfile = (p: z.infer<typeof DialectProfileSchema>): DialectProfile => p;
void isProfile;
