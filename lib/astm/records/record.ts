/**
 * One record: text <-> typed object. Fields are split on the field delimiter,
 * then repeats, then components, and only then are escapes resolved; every
 * split keeps empty pieces, so trailing empty fields (`...|F||||`), trailing
 * empty components (`10000.000000^^^^`) and padding survive, and writing the
 * record back gives the text it came from.
 */
import { isDeepStrictEqual } from 'node:util';
import { checkDeclaredDelimiters, delimiterDefinition, isHeaderText, readHeaderDelimiters, type Delimiters } from './delimiters';
import { AstmDecodeError, AstmEncodeError, AstmRecordError, type AstmPosition } from './errors';
import { COMMENT_FIELDS, FREE_FIELDS, HEADER_FIELDS, ORDER_FIELDS, PATIENT_FIELDS, QUERY_FIELDS, RESULT_FIELDS, TERMINATOR_FIELDS } from './fields';
import type { AstmRecord, HeaderRecord, ManufacturerRecord, ScientificRecord } from './types';
import { decodeValue, describeChar, encodeValue, restrictedCharAt, type AstmValue } from './value';

/** Named fields of the record types with a fixed layout, from field 2 on. */
const LAYOUTS: Readonly<Record<'P' | 'O' | 'R' | 'C' | 'Q' | 'L', readonly string[]>> = {
  P: PATIENT_FIELDS,
  O: ORDER_FIELDS,
  R: RESULT_FIELDS,
  C: COMMENT_FIELDS,
  Q: QUERY_FIELDS,
  L: TERMINATOR_FIELDS,
};
const FREE_TYPES = new Set(['M', 'S']);

type Fixed = keyof typeof LAYOUTS;

function isFixed(type: string): type is Fixed {
  return Object.prototype.hasOwnProperty.call(LAYOUTS, type);
}

/**
 * Decodes one record's text (without its CR). An H record brings its own
 * delimiters; any other record needs the ones in force (from the message's H,
 * or passed explicitly for a fragment). A record of an unknown type is kept
 * as raw text.
 */
export function decodeRecord(text: string, delimiters?: Delimiters, at: AstmPosition = {}): AstmRecord {
  const record = decodeBare(text, delimiters, at);
  if (record.type !== 'raw' && encodeCanonical(record, delimiters, at) !== text) record.verbatim = text;
  return record;
}

/** The delimiters that apply after this record: its own for an H, else the ones given. */
export function delimitersAfter(record: AstmRecord, current: Delimiters | undefined): Delimiters | undefined {
  return record.type === 'H' ? record.delimiters : current;
}

/**
 * Writes one record as text (without its CR). `delimiters` are the ones in
 * force; an H record uses its own. Unknown properties are refused, because a
 * misspelt field name (`specimenID`) would otherwise vanish from an order.
 */
export function encodeRecord(record: AstmRecord, delimiters?: Delimiters, at: AstmPosition = {}): string {
  checkShape(record, at);
  if (record.type !== 'raw' && typeof record.verbatim === 'string') {
    const { verbatim, ...named } = record;
    let same = false;
    try {
      same = isDeepStrictEqual(decodeBare(verbatim, delimiters, at), named);
    } catch (err) {
      if (!(err instanceof AstmRecordError)) throw err;
    }
    if (same) return verbatim;
  }
  return encodeCanonical(record, delimiters, at);
}

function decodeBare(text: string, given: Delimiters | undefined, at: AstmPosition): AstmRecord {
  const header = isHeaderText(text);
  const d = header ? readHeaderDelimiters(text, at) : given;
  if (d === undefined) {
    throw new AstmDecodeError(`a ${JSON.stringify(text.slice(0, 1))} record comes before any H record and no delimiters were given: pass them for a record fragment`, at);
  }
  const bad = restrictedCharAt(text);
  if (bad >= 0) {
    const field = text.slice(0, bad).split(d.field).length;
    throw new AstmDecodeError(`${describeChar(text.charAt(bad))} is not allowed in record text (LIS1-A 6.6)`, { ...at, field });
  }
  if (header) {
    const end = text.indexOf(d.field, 2);
    const rest = end < 0 ? [] : text.slice(end + 1).split(d.field);
    const record: HeaderRecord = { type: 'H', delimiters: d };
    assignNamed(record, HEADER_FIELDS, rest, d);
    return record;
  }
  const fields = text.split(d.field);
  const type = fields[0] ?? '';
  if (isFixed(type)) {
    const record = { type } as Extract<AstmRecord, { type: Fixed }>;
    assignNamed(record, LAYOUTS[type], fields.slice(1), d);
    return record;
  }
  if (type === 'M' || type === 'S') {
    const [sequence, ...rest] = fields.slice(1);
    const record: ManufacturerRecord | ScientificRecord = { type, fields: [] };
    if (sequence !== undefined) record.sequence = decodeValue(sequence, d);
    record.fields = rest.map((f) => decodeValue(f, d));
    return record;
  }
  return { type: 'raw', text };
}

function assignNamed(record: object, names: readonly string[], texts: string[], d: Delimiters): void {
  const target = record as Record<string, unknown>;
  const extra: AstmValue[] = [];
  texts.forEach((t, i) => {
    const name = names[i];
    if (name !== undefined) target[name] = decodeValue(t, d);
    else extra.push(decodeValue(t, d));
  });
  if (extra.length > 0) target.extra = extra;
}

function encodeCanonical(record: AstmRecord, given: Delimiters | undefined, at: AstmPosition): string {
  if (record.type === 'raw') return encodeRaw(record.text, given, at);
  if (record.type === 'H') {
    // An H writes back what it declared, fewer than four delimiters included.
    const d = checkDeclaredDelimiters(record.delimiters, { ...at, field: 2 });
    const rest = namedTexts(record, HEADER_FIELDS, 3, d, at);
    return ['H', d.field, delimiterDefinition(d), ...rest.map((t) => d.field + t)].join('');
  }
  if (given === undefined) throw new AstmEncodeError(`a ${record.type} record needs the delimiters of an H record before it, or delimiters given explicitly`, at);
  const d = given;
  if (record.type === 'M' || record.type === 'S') {
    const texts: string[] = [];
    if (record.sequence !== undefined || record.fields.length > 0) texts.push(encodeValue(record.sequence ?? '', d, { ...at, field: 2 }));
    record.fields.forEach((f, i) => texts.push(encodeValue(f, d, { ...at, field: i + 3 })));
    return [record.type, ...texts].join(d.field);
  }
  return [record.type, ...namedTexts(record, LAYOUTS[record.type], 2, d, at)].join(d.field);
}

/** Texts of the named fields up to the last present one, then the extra fields. */
function namedTexts(record: object, names: readonly string[], firstField: number, d: Delimiters, at: AstmPosition): string[] {
  const source = record as Record<string, unknown>;
  const extra = (source.extra as AstmValue[] | undefined) ?? [];
  let count = extra.length > 0 ? names.length : 0;
  names.forEach((name, i) => {
    if (source[name] !== undefined) count = Math.max(count, i + 1);
  });
  const texts = names.slice(0, count).map((name, i) => encodeValue(source[name] ?? '', d, { ...at, field: firstField + i }));
  extra.forEach((value, i) => texts.push(encodeValue(value, d, { ...at, field: firstField + names.length + i })));
  return texts;
}

function encodeRaw(text: unknown, given: Delimiters | undefined, at: AstmPosition): string {
  if (typeof text !== 'string') throw new AstmEncodeError('a raw record needs its text as a string', at);
  const bad = restrictedCharAt(text);
  if (bad >= 0) throw new AstmEncodeError(`${describeChar(text.charAt(bad))} cannot be sent inside a record`, at);
  // A raw record must come back raw: text that reads as a known record would
  // be decoded as that record and skip the checks typed records get.
  const type = given === undefined ? text.slice(0, 1) : (text.split(given.field)[0] ?? '');
  if (isHeaderText(text) || isFixed(type) || FREE_TYPES.has(type)) {
    throw new AstmEncodeError(`raw record text ${JSON.stringify(text.slice(0, 20))} would be read as a ${type || 'H'} record; give it as a typed record`, at);
  }
  return text;
}

const COMMON_KEYS = ['type', 'extra', 'verbatim'];
const ALLOWED_KEYS: Readonly<Record<string, ReadonlySet<string>>> = {
  H: new Set([...COMMON_KEYS, 'delimiters', ...HEADER_FIELDS]),
  P: new Set([...COMMON_KEYS, ...PATIENT_FIELDS]),
  O: new Set([...COMMON_KEYS, ...ORDER_FIELDS]),
  R: new Set([...COMMON_KEYS, ...RESULT_FIELDS]),
  C: new Set([...COMMON_KEYS, ...COMMENT_FIELDS]),
  Q: new Set([...COMMON_KEYS, ...QUERY_FIELDS]),
  L: new Set([...COMMON_KEYS, ...TERMINATOR_FIELDS]),
  M: new Set(['type', 'verbatim', 'fields', ...FREE_FIELDS]),
  S: new Set(['type', 'verbatim', 'fields', ...FREE_FIELDS]),
  raw: new Set(['type', 'text']),
};

/** Records come from flows too (plain JSON), so their shape is checked at run time. */
function checkShape(record: unknown, at: AstmPosition): asserts record is AstmRecord {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) throw new AstmEncodeError('a record must be an object with a type', at);
  const r = record as Record<string, unknown>;
  const allowed = typeof r.type === 'string' ? ALLOWED_KEYS[r.type] : undefined;
  if (allowed === undefined) throw new AstmEncodeError(`unknown record type ${JSON.stringify(r.type)}: expected H, P, O, R, C, Q, M, S, L or raw`, at);
  const unknown = Object.keys(r).filter((k) => !allowed.has(k) && r[k] !== undefined);
  if (unknown.length > 0) throw new AstmEncodeError(`${String(r.type)} record has no field ${unknown.map((k) => JSON.stringify(k)).join(', ')}`, at);
  if (r.extra !== undefined && !Array.isArray(r.extra)) throw new AstmEncodeError('extra must be an array of field values', at);
  if ((r.type === 'M' || r.type === 'S') && !Array.isArray(r.fields)) throw new AstmEncodeError(`${r.type} record needs fields as an array of field values`, at);
  if (r.verbatim !== undefined && typeof r.verbatim !== 'string') throw new AstmEncodeError('verbatim must be the record text as a string', at);
}
