/**
 * LIS order -> the analyzer's order download (H, P, O, L), and the "no
 * information" answer to a query, laid out as the profile says and written by
 * the record codec's encodeMessage, so delimiters inside values are escaped
 * and a record is never broken by a patient's name.
 *
 * Identifiers (sample number, patient ID, test codes) are written exactly or
 * refused, never altered. The safety checks that matter most:
 * - an answer to a query must be for the sample the query named;
 * - a profile that echoes the query (Roche: rack and position) cannot write
 *   an answer without that query;
 * - an echo that fills the sample field itself (Sysmex XN O-3) must carry
 *   this sample where the query named it.
 */
import { encodeMessage, formatAstmTimestamp, type AstmValue, type HeaderRecord, type OrderRecord, type PatientRecord, type TerminatorRecord } from '../records';
import { assertProfile, type DialectProfile, type HeaderField, type OrderLayout, type Template } from '../dialects';
import { LabOrderError } from './errors';
import { nameComponents } from '../../../lab/patient-name';
import type { LabOrder, QueriedSample } from '../../../lab/types';

export interface BuildOptions {
  now: Date;
  /** The site's IANA zone for H-14; the profile's own zone wins when it has one. */
  timeZone: string;
  /** Answering the analyzer's query (O-26 'Q' and friends) rather than an unsolicited download. */
  queried?: boolean;
  /** The query being answered, when there is one; required by profiles that echo it. Implies queried. */
  query?: QueriedSample;
}

// Control characters end records or frames (LIS1-A 6.6); the codec refuses
// them too, this only names the field in the error.
const CONTROL = /[\x00-\x1f\x7f]/;

export function buildOrderMessage(order: LabOrder, profile: DialectProfile, opts: BuildOptions): string {
  const layout = layoutOf(profile);
  const sample = identifier(order.SampleNumber, 'SampleNumber', layout);
  const { queried, query } = answering(sample, profile, opts, { what: 'an order', needsQuery: (layout.order.echo?.length ?? 0) > 0 });
  const tests = testCodes(order.instrumentTests, layout, sample);

  const o: OrderRecord = { type: 'O', sequence: '1', ...copy(layout.order.fields) };
  o[layout.order.sampleField] = sample;
  echoQuery(o, layout, profile, sample, query);
  o.universalTestId = testField(tests, layout);
  o.priority = priorityOf(order.Priority, layout);
  if (layout.order.requestedAtFromTransaction === true && order.TransactionDate !== undefined && order.TransactionDate !== null && order.TransactionDate !== '') {
    if (!/^\d{14}$/.test(order.TransactionDate)) throw new LabOrderError(`TransactionDate ${JSON.stringify(order.TransactionDate)} of sample ${sample} is not yyyymmddHHMMSS`);
    o.requestedAt = order.TransactionDate;
  }
  if (layout.order.sampleType !== undefined) o[layout.order.sampleType.field] = sampleTypeCode(order.SampleType, layout, profile, sample);
  o.actionCode = queried ? layout.order.actionCode.queried : layout.order.actionCode.unsolicited;
  o.reportType = queried ? layout.order.reportType.queried : layout.order.reportType.unsolicited;

  return encodeMessage({
    delimiters: { ...layout.delimiters },
    records: [headerRecord(layout, profile, opts, queried ? layout.header.whenQueried : layout.header.whenUnsolicited), patientRecord(order, layout), o, terminatorRecord(layout)],
  });
}

/** The dialect's answer to a query for a sample the LIS has no order for. */
export function buildNoInformation(sampleNumber: string, profile: DialectProfile, opts: BuildOptions): string {
  const layout = layoutOf(profile);
  const noOrder = profile.noOrder;
  if (noOrder === undefined) throw new LabOrderError(`profile ${profile.id} has no "no information" layout`);
  const sample = identifier(sampleNumber, 'SampleNumber', layout);
  const needsQuery = noOrder.form === 'order' && ((layout.order.echo?.length ?? 0) > 0 || (noOrder.derived?.length ?? 0) > 0);
  const { query } = answering(sample, profile, { ...opts, queried: true }, { what: 'a "no information" answer', needsQuery });

  if (noOrder.form === 'terminator') {
    // The header is the answer's own (Mindray H-12 'QA'), not the order's.
    const h: HeaderRecord = { type: 'H', delimiters: { ...layout.delimiters }, ...copy(noOrder.header) };
    if (layout.header.timestamp) h.timestamp = formatAstmTimestamp(opts.now, profile.timeZone ?? opts.timeZone);
    const l: TerminatorRecord = { type: 'L', sequence: '1', terminationCode: noOrder.terminationCode };
    return encodeMessage({ delimiters: { ...layout.delimiters }, records: [h, l] });
  }

  const o: OrderRecord = { type: 'O', sequence: '1', ...copy(layout.order.fields) };
  o[layout.order.sampleField] = sample;
  echoQuery(o, layout, profile, sample, query);
  o.universalTestId = '';
  o.priority = layout.order.priority.absent;
  o.actionCode = layout.order.actionCode.queried;
  o.reportType = noOrder.reportType;
  for (const derived of noOrder.derived ?? []) {
    if (query === undefined) throw new LabOrderError(`profile ${profile.id} derives ${derived.field} from the query; pass the query being answered`);
    const from = (query.range[derived.component - 1] ?? '').trim();
    const code = derived.map[from];
    if (code === undefined) throw new LabOrderError(`query component ${derived.component} ${JSON.stringify(from)} has no ${derived.field} code in profile ${profile.id}`);
    o[derived.field] = code;
  }
  const p: PatientRecord = { type: 'P', sequence: '1', ...copy(layout.patient.fields) };
  return encodeMessage({
    delimiters: { ...layout.delimiters },
    records: [headerRecord(layout, profile, opts, layout.header.whenQueried), p, o, terminatorRecord(layout)],
  });
}

function layoutOf(profile: DialectProfile): OrderLayout {
  assertProfile(profile);
  if (profile.order === undefined) throw new LabOrderError(`profile ${profile.id} has no order download layout: orders cannot be sent to this analyzer`);
  return profile.order;
}

/** Whether this is an answer to a query, and which one; refuses answers that would go to the wrong sample. */
function answering(
  sample: string,
  profile: DialectProfile,
  opts: BuildOptions,
  { what, needsQuery }: { what: string; needsQuery: boolean },
): { queried: boolean; query?: QueriedSample } {
  const query = opts.query;
  if (query !== undefined && query.sampleNumber !== sample) {
    throw new LabOrderError(`the query being answered is for sample ${JSON.stringify(query.sampleNumber)}, not ${JSON.stringify(sample)}`);
  }
  const queried = query !== undefined || opts.queried === true;
  if (needsQuery && query === undefined) {
    throw new LabOrderError(`profile ${profile.id} repeats the query's tube position in its answers: ${what} for sample ${JSON.stringify(sample)} needs the query being answered`);
  }
  if (!queried && !profile.acceptsUnsolicitedOrders) throw new LabOrderError(`profile ${profile.id} takes no unsolicited orders: sample ${JSON.stringify(sample)} was not queried`);
  return query === undefined ? { queried } : { queried, query };
}

function headerRecord(layout: OrderLayout, profile: DialectProfile, opts: BuildOptions, extra: Template<HeaderField> | undefined): HeaderRecord {
  const h: HeaderRecord = { type: 'H', delimiters: { ...layout.delimiters }, ...copy(layout.header.fields), ...copy(extra ?? {}) };
  if (layout.header.timestamp) h.timestamp = formatAstmTimestamp(opts.now, profile.timeZone ?? opts.timeZone);
  return h;
}

function patientRecord(order: LabOrder, layout: OrderLayout): PatientRecord {
  const spec = layout.patient;
  const patient = order.patient;
  const p: PatientRecord = { type: 'P', sequence: '1', ...copy(spec.fields) };
  if (spec.id !== undefined) p[spec.id] = identifier(patient.ID, 'patient.ID', layout);
  if (spec.nameComponents !== undefined) {
    checkText(patient.Name, 'patient.Name');
    p.name = nameComponents(freeText(patient.Name, layout), spec.nameComponents);
  }
  if (spec.nameOrder !== undefined) {
    checkText(patient.Name, 'patient.Name');
    // Split as for nameComponents (only "Last, First" is split), then put
    // each part where the analyzer wants it (Sysmex XN: `^first^last`).
    const [last = '', first = ''] = nameComponents(freeText(patient.Name, layout), spec.nameOrder.includes('first') ? 2 : 1);
    p.name = spec.nameOrder.map((part) => (part === 'last' ? last : part === 'first' ? first : ''));
  }
  if (spec.birth !== undefined) {
    const parts = spec.birth.map((part) => birthPart(part, order));
    p.birthdate = parts.length === 1 ? (parts[0] ?? '') : parts;
  }
  if (spec.sex === true) {
    if (patient.Sex !== 'M' && patient.Sex !== 'F' && patient.Sex !== 'U') throw new LabOrderError(`patient.Sex ${JSON.stringify(patient.Sex)} of sample ${order.SampleNumber} is not M, F or U`);
    p.sex = patient.Sex;
  }
  return p;
}

function birthPart(part: 'dateOfBirth' | 'age' | 'ageUnit', order: LabOrder): string {
  const patient = order.patient;
  const value = part === 'dateOfBirth' ? patient.DateOfBirth : part === 'age' ? patient.Age : patient.AgeUnit;
  if (value === undefined || value === null) return '';
  if (part === 'dateOfBirth' && !/^\d{8}$/.test(value)) throw new LabOrderError(`patient.DateOfBirth ${JSON.stringify(value)} of sample ${order.SampleNumber} is not yyyymmdd`);
  if (part === 'age' && !/^\d{0,3}$/.test(value)) throw new LabOrderError(`patient.Age ${JSON.stringify(value)} of sample ${order.SampleNumber} is not a whole number`);
  if (part === 'ageUnit' && !['Y', 'M', 'D'].includes(value)) throw new LabOrderError(`patient.AgeUnit ${JSON.stringify(value)} of sample ${order.SampleNumber} is not Y, M or D`);
  return value;
}

function terminatorRecord(layout: OrderLayout): TerminatorRecord {
  return { type: 'L', sequence: '1', ...copy(layout.terminator) };
}

function echoQuery(o: OrderRecord, layout: OrderLayout, profile: DialectProfile, sample: string, query: QueriedSample | undefined): void {
  for (const e of layout.order.echo ?? []) {
    if (query === undefined) return;
    const parts: string[] = [];
    for (let n = e.from; n <= e.to; n++) parts.push(query.range[n - 1] ?? '');
    if (e.field === layout.order.sampleField) {
      // The echo replaces the sample number written before it (Sysmex XN
      // O-3 = the query's rack^position^sample^attribute): it goes out only
      // if the component the query named the sample in still holds this sample.
      const at = profile.query === undefined ? -1 : profile.query.component - e.from;
      const raw = parts[at];
      const named = raw === undefined ? undefined : profile.query?.trim === true ? raw.trim() : raw;
      if (named !== sample) {
        throw new LabOrderError(`profile ${profile.id} repeats the query in ${e.field}, but the query's sample component ${JSON.stringify(raw ?? '')} is not sample ${JSON.stringify(sample)}`);
      }
    }
    o[e.field] = parts.length === 1 ? (parts[0] ?? '') : parts;
  }
}

function testCodes(codes: readonly string[], layout: OrderLayout, sample: string): string[] {
  if (!Array.isArray(codes) || codes.length === 0) throw new LabOrderError(`sample ${sample} has no instrument tests to order; answer with buildNoInformation instead`);
  const out: string[] = [];
  for (const code of codes) {
    const c = identifier(code, `instrument test of sample ${sample}`, layout);
    // The cobas e 411 refuses one test ordered twice (manual note (*6)); no analyzer needs it.
    if (!out.includes(c)) out.push(c);
  }
  return out;
}

function testField(tests: string[], layout: OrderLayout): AstmValue {
  const { codeComponent, components } = layout.order.test;
  const repeats = tests.map((code) => {
    const r = new Array<string>(components).fill('');
    r[codeComponent - 1] = code;
    return r;
  });
  if (repeats.length > 1) return repeats;
  const only = repeats[0] ?? [''];
  return only.length === 1 ? (only[0] ?? '') : only;
}

function priorityOf(priority: LabOrder['Priority'], layout: OrderLayout): string {
  const map = layout.order.priority;
  if (priority === 'S') return map.S;
  if (priority === 'R') return map.R;
  if (priority === undefined || priority === null) return map.absent;
  throw new LabOrderError(`Priority ${JSON.stringify(priority)} is not S or R`);
}

function sampleTypeCode(type: string, layout: OrderLayout, profile: DialectProfile, sample: string): AstmValue {
  const rule = layout.order.sampleType;
  if (rule === undefined) return '';
  if (typeof type !== 'string' || type.trim() === '') throw new LabOrderError(`sample ${sample} has no SampleType`);
  if (rule.map === 'as-is') return freeText(type, layout);
  // Own keys only: a type named like an Object.prototype member is not a code.
  const code = Object.hasOwn(rule.map, type) ? rule.map[type] : undefined;
  if (code === undefined) throw new LabOrderError(`sample type ${JSON.stringify(type)} of sample ${sample} has no code on ${profile.label} (known: ${Object.keys(rule.map).join(', ')})`);
  // Components (Immucor type^source) are copied: the profile is frozen and shared.
  return typeof code === 'string' ? code : [...code];
}

function checkText(text: unknown, what: string): asserts text is string {
  if (typeof text !== 'string') throw new LabOrderError(`${what} must be text`);
  if (CONTROL.test(text)) throw new LabOrderError(`${what} ${JSON.stringify(text)} holds a control character, which cannot be sent in a record`);
}

/** An identifier goes out exactly as given, or not at all. */
function identifier(text: unknown, what: string, layout: OrderLayout): string {
  checkText(text, what);
  if (text.trim() === '') throw new LabOrderError(`${what} is empty`);
  if (layout.textDelimiters !== 'escape') {
    const d = layout.delimiters;
    const bad = [d.field, d.repeat, d.component, d.escape].find((c) => text.includes(c));
    if (bad !== undefined) throw new LabOrderError(`${what} ${JSON.stringify(text)} holds ${JSON.stringify(bad)}, which this analyzer cannot read inside a value`);
  }
  return text;
}

/** Free text (a name): delimiters are escaped by the codec, or replaced where the analyzer cannot read escapes. */
function freeText(text: string, layout: OrderLayout): string {
  const policy = layout.textDelimiters;
  if (policy === 'escape') return text;
  const d = layout.delimiters;
  let out = text;
  for (const c of [d.field, d.repeat, d.component, d.escape]) out = out.split(c).join(policy.replaceWith);
  return out;
}

/**
 * Profiles are frozen; records get their own copies of template values. A
 * template holds ASTM values only (a string, repeats, components), so a copy
 * two levels deep is whole (structuredClone cost more than the rest of the
 * record on every order).
 */
function copy<T extends object>(template: T): T {
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(template)) out[field] = copyValue(value as AstmValue | undefined);
  return out as T;
}

function copyValue(value: AstmValue | undefined): AstmValue | undefined {
  if (!Array.isArray(value)) return value;
  return value.map((item: string | string[]) => (Array.isArray(item) ? [...item] : item)) as AstmValue;
}
