/**
 * The shape of an HL7 dialect profile (./types.ts) as a zod schema, for
 * profiles that arrive as data: a site's edited dialect, imported JSON.
 * Objects are strict, so a misspelt key is refused with its path instead of
 * being ignored (an ignored `sampleID` would leave the sample number where the
 * base reads it). This checks shape only; what the values mean together is
 * profileIssues' (./validate.ts), the same rules the built-in profiles meet.
 */
import { z } from 'zod';
import { HL7_CHARSETS } from '../charset';
import type { Hl7DialectProfile } from './types';

const int = z.number().int();
const text = z.string();
const texts = z.array(text);

const place = z.strictObject({ segment: text, field: int, component: int.optional(), subcomponent: int.optional() });
const obxPlace = place.extend({ segment: z.literal('OBX') });
const reading = z.strictObject({ field: int, component: z.union([int, z.literal('all')]).optional(), join: text.optional() });
const match = z.strictObject({ place, anyOf: texts });

const results = z.strictObject({
  messages: texts,
  code: obxPlace,
  codeFallbacks: z.array(obxPlace).optional(),
  subCode: obxPlace.optional(),
  value: reading,
  units: reading.optional(),
  referenceRange: reading.optional(),
  flagsField: int.optional(),
  statusField: int.optional(),
  completedAt: z.array(int),
  trim: z.boolean(),
  asideValueTypes: texts,
  supplemental: z.array(match),
  patientId: z.array(place).optional(),
});

const qcInRequest = z.strictObject({
  code: int,
  value: int,
  units: int,
  completedAt: int,
  control: z.strictObject({ id: int, name: int, lot: int, expiry: int, level: int, mean: int, sd: int }),
});

const query = z.strictObject({ messages: texts, sample: place, tag: place.optional() });

const answer = z.discriminatedUnion('form', [
  z.strictObject({
    form: z.literal('display'),
    items: z.strictObject({ patientId: int, name: int, birth: int, sex: int, sample: int, stat: int, sampleType: int, tests: int }),
    sampleTypes: z.record(text, text).optional(),
    unsolicitedAcceptAck: text,
    testComponents: int,
    charsetName: text,
  }),
  z.strictObject({
    form: z.literal('law'),
    profiles: z.strictObject({ answer: text, order: text }),
    testCodingSystem: text,
    sampleTypes: z.record(text, text).optional(),
    specimenIdType: text.optional(),
    charsetName: text,
  }),
]);

export const Hl7DialectProfileSchema = z.strictObject({
  id: text,
  label: text,
  vendor: text,
  model: text,
  versions: texts,
  charset: z.enum(HL7_CHARSETS as readonly ['ascii', 'latin1', 'utf8']),
  sampleId: z.strictObject({ places: z.array(place), trim: z.boolean() }),
  results,
  qc: z.array(match),
  qcInRequest: qcInRequest.optional(),
  statusMessages: texts,
  query: query.optional(),
  answer: answer.optional(),
  notAcknowledged: texts,
  queryDeadlineMs: z.number(),
  acceptsUnsolicitedOrders: z.boolean(),
  ackMode: z.enum(['original', 'enhanced']),
});

// Whatever the schema accepts is an Hl7DialectProfile: a change to ./types.ts
// that the schema does not follow fails to compile here.
const isProfile = (p: z.infer<typeof Hl7DialectProfileSchema>): Hl7DialectProfile => p;
void isProfile;
