/**
 * One record: text <-> typed object. Fields are split on the field delimiter,
 * then repeats, then components, and only then are escapes resolved; every
 * split keeps empty pieces, so trailing empty fields (`...|F||||`), trailing
 * empty components (`10000.000000^^^^`) and padding survive, and writing the
 * record back gives the text it came from.
 */
import { isDeepStrictEqual } from 'node:util';
import { commentRecord, headerRecord, orderRecord, patientRecord, queryRecord, resultRecord, terminatorRecord } from './build';
import { delimiterDefinition, isHeaderText, readHeaderDelimiters, type Delimiters } from './delimiters';
import { AstmDecodeError, AstmEncodeError, AstmRecordError, type AstmPosition } from './errors';
import { escapeText, unescapeText } from './escape';
import { COMMENT_FIELDS, FREE_FIELDS, HEADER_FIELDS, ORDER_FIELDS, PATIENT_FIELDS, QUERY_FIELDS, RESULT_FIELDS, TERMINATOR_FIELDS } from './fields';
import { COMPONENT, ESCAPE, FIELD, LONG_TEXT, PLAIN, REPEAT, RESTRICTED, firstRestricted, knownHeaderSyntax, nextDelimiter, syntaxOf, wideClass, type Syntax } from './syntax';
import type { AstmRecord, ManufacturerRecord, RawRecord, ScientificRecord } from './types';
import { describeChar, encodeFieldValue, writeFieldValue, type AstmValue } from './value';
import { giveBackWriter, takeWriter, type TextWriter } from './writer';

/** Every record but raw: the ones with named fields and a verbatim text. */
type TypedRecord = Exclude<AstmRecord, RawRecord>;

/**
 * Decodes one record's text (without its CR). An H record brings its own
 * delimiters; any other record needs the ones in force (from the message's H,
 * or passed explicitly for a fragment). A record of an unknown type is kept
 * as raw text.
 */
export function decodeRecord(text: string, delimiters?: Delimiters, at: AstmPosition = {}): AstmRecord {
  // An H record's own delimiters decide; the given ones are only looked at (and checked) when they are used.
  return decodeText(text, 0, text.length, delimiters === undefined || isHeaderText(text) ? undefined : syntaxOf(delimiters, at), at, true, false);
}

/** What decodeMessage carries from record to record: the delimiters in force, as a syntax table. */
export interface DecodeState {
  syntax: Syntax | undefined;
}

/**
 * decodeRecord for decodeMessage: the record is `text` from `start` to `end`
 * (the message's text, not a copy of the record: V8 reads the characters of a
 * flat string faster than those of a slice of one), the delimiters in force
 * are in `state`, which an H record replaces with its own, and `clean` says
 * the message was searched for restricted characters and this record has none.
 */
export function decodeRecordWith(text: string, start: number, end: number, state: DecodeState, at: AstmPosition, clean: boolean): AstmRecord {
  return decodeText(text, start, end, state.syntax, at, true, clean, state);
}

/**
 * Writes one record as text (without its CR). `delimiters` are the ones in
 * force; an H record uses its own. Unknown properties are refused, because a
 * misspelt field name (`specimenID`) would otherwise vanish from an order.
 */
export function encodeRecord(record: AstmRecord, delimiters?: Delimiters, at: AstmPosition = {}): string {
  checkShape(record, at);
  return encodeRecordWith(record, delimiters === undefined || record.type === 'H' ? undefined : syntaxOf(delimiters, at), at);
}

/** encodeRecord with the delimiters in force as a syntax table. */
export function encodeRecordWith(record: AstmRecord, given: Syntax | undefined, at: AstmPosition): string {
  const w = takeWriter();
  try {
    if (writeInOrder(record, given, at, w)) return w.result();
  } finally {
    giveBackWriter(w);
  }
  return encodeGeneral(record, given, at);
}

/**
 * Any record, any way it is built: checked (checkShape), then written with
 * strings. What writeInOrder leaves, and the one place encoding errors come
 * from.
 */
export function encodeGeneral(record: AstmRecord, given: Syntax | undefined, at: AstmPosition): string {
  checkShape(record, at);
  return encodeChecked(record, given, at);
}

/**
 * Writes an H or fixed-layout record whose properties come in the layout's
 * order, as decodeRecord makes them, with no verbatim text, into `w`: found by
 * walking the record's own properties once (for-in, which V8 runs from the
 * object's enumeration cache) instead of looking up every name of the layout
 * and then every key in the allowed set (checkShape): a decoded O record has
 * 30 names and often a dozen properties. Each property must be the next
 * layout name present (or type, extra), which is also the check that the
 * record has no unknown property.
 *
 * false for anything else, on any error, or for a character from U+0100 on,
 * with some of the record perhaps written: the caller then takes the general
 * path (encodeGeneral), which gives the text, or refuses the record with the
 * error it always gave (an unknown property before a bad value, say).
 */
export function writeInOrder(record: AstmRecord, given: Syntax | undefined, at: AstmPosition, w: TextWriter): boolean {
  // A plain object only: the general path also reads inherited properties.
  if (typeof record !== 'object' || record === null || Object.getPrototypeOf(record) !== Object.prototype) return false;
  const r = record as unknown as Record<string, unknown>;
  if (r.verbatim !== undefined) return false;
  const type = r.type;
  if (type === 'M' || type === 'S') return writeFree(r, type, given, w);
  const header = type === 'H';
  const names = header ? HEADER_FIELDS : typeof type === 'string' ? layoutOf(type) : undefined;
  if (names === undefined) return false;
  try {
    const s = header ? syntaxOf(r.delimiters as Delimiters, at, 2) : given;
    if (s === undefined || s.wide !== '') return false;
    if (header) {
      w.byte(0x48);
      w.byte(s.fieldCode);
      if (!w.text(delimiterDefinition(s.d))) return false;
    } else w.byte((type as string).charCodeAt(0));
    const f = s.fieldCode;
    let next = 0;
    for (const key in r) {
      const value = r[key];
      if (value === undefined || key === 'type' || key === 'extra' || (header && key === 'delimiters')) continue;
      let j = next;
      while (j < names.length && names[j] !== key) j++;
      if (j === names.length) return false;
      // Absent fields before this one are written empty.
      for (; next <= j; next++) w.byte(f);
      if (value !== null && !writeFieldValue(value, s, w)) return false;
    }
    const extra = r.extra;
    if (extra !== undefined) {
      if (!Array.isArray(extra)) return false;
      if (extra.length > 0) for (; next < names.length; next++) w.byte(f);
      for (let i = 0; i < extra.length; i++) {
        w.byte(f);
        if (!writeFieldValue(extra[i], s, w)) return false;
      }
    }
    return true;
  } catch {
    return false;
  }
}

/** writeInOrder for M and S records: a sequence and plain fields, in any order of properties. */
function writeFree(r: Record<string, unknown>, type: 'M' | 'S', given: Syntax | undefined, w: TextWriter): boolean {
  if (given === undefined || given.wide !== '') return false;
  for (const key in r) if (key !== 'type' && key !== 'sequence' && key !== 'fields' && r[key] !== undefined) return false;
  const fields = r.fields;
  if (!Array.isArray(fields)) return false;
  try {
    w.byte(type.charCodeAt(0));
    const sequence = r.sequence;
    if (sequence !== undefined || fields.length > 0) {
      w.byte(given.fieldCode);
      if (sequence !== null && sequence !== undefined && !writeFieldValue(sequence, given, w)) return false;
    }
    for (let i = 0; i < fields.length; i++) {
      w.byte(given.fieldCode);
      if (!writeFieldValue(fields[i], given, w)) return false;
    }
    return true;
  } catch {
    return false;
  }
}

function encodeChecked(record: AstmRecord, given: Syntax | undefined, at: AstmPosition): string {
  if (record.type !== 'raw' && typeof record.verbatim === 'string') {
    const { verbatim, ...named } = record;
    let same = false;
    try {
      same = isDeepStrictEqual(decodeText(verbatim, 0, verbatim.length, given, at, false, false), named);
    } catch (err) {
      if (!(err instanceof AstmRecordError)) throw err;
    }
    if (same) return verbatim;
  }
  return encodeCanonical(record, given, at);
}

/**
 * The record `src` holds from `start` to `end`. With `markVerbatim`, a text
 * the encoder would not write back as it is (escapes the standard does not
 * allow, such as a lone `&`) keeps it in `verbatim`. `clean`: the caller knows
 * the text holds no restricted character.
 *
 * Whether the encoder would write the text back is known while decoding,
 * without encoding the record: the encoder joins the pieces the decoder split
 * with the same delimiters, in the same number (empty and trailing ones
 * included), so the two texts can only differ inside a component, and only in
 * one holding the escape character (any other component is written as it was
 * read). Those few components are re-escaped and compared here;
 * astm-records-paths.test.ts checks the rule against the encoder itself.
 */
function decodeText(src: string, start: number, end: number, given: Syntax | undefined, at: AstmPosition, markVerbatim: boolean, clean: boolean, state?: DecodeState): AstmRecord {
  let record: TypedRecord;
  let canonical = true;
  const values: AstmValue[] = [];
  if (headerAt(src, start, end)) {
    const header = knownHeaderSyntax(src, start, end) ?? syntaxOf(readHeaderDelimiters(src.slice(start, end), at), at);
    if (!clean) checkRestricted(src.slice(start, end), header, at);
    // `H`, the field delimiter and the one to three others it declares
    // (readHeaderDelimiters made sure), then the field delimiter again if any
    // field follows.
    const definitionEnd = start + 2 + delimiterDefinition(header.d).length;
    if (end > definitionEnd) canonical = scanFields(src, definitionEnd + 1, end, header, values);
    // The record's own copy of the delimiters: a flow may change it, the table must not change with it.
    const { field, repeat, component, escape } = header.d;
    record = headerRecord({ field, repeat, component, escape }, values);
    if (state !== undefined) state.syntax = header;
  } else {
    if (given === undefined) {
      throw new AstmDecodeError(`a ${JSON.stringify(src.slice(start, Math.min(start + 1, end)))} record comes before any H record and no delimiters were given: pass them for a record fragment`, at);
    }
    if (!clean) checkRestricted(src.slice(start, end), given, at);
    // The record type is the text before the first field delimiter; the types
    // this codec reads are one letter, so only a one-letter type needs a look.
    const fields = end - start > 1 && src.charAt(start + 1) === given.d.field;
    const type = end - start === 1 || fields ? src.charAt(start) : '';
    const free = type === 'M' || type === 'S';
    if (!free && layoutOf(type) === undefined) return { type: 'raw', text: src.slice(start, end) };
    if (fields) canonical = scanFields(src, start + 2, end, given, values);
    if (free) {
      const m: ManufacturerRecord | ScientificRecord = { type: type as 'M' | 'S', fields: [] };
      if (values.length > 0) {
        m.sequence = values[0];
        if (values.length > 1) m.fields = values.slice(1);
      }
      record = m;
    } else record = fixedRecord(type, values);
  }
  if (!canonical && markVerbatim) record.verbatim = src.slice(start, end);
  return record;
}

/** isHeaderText for the record from `start` to `end`: `H` and a character that is no letter or digit. */
function headerAt(src: string, start: number, end: number): boolean {
  if (end - start < 2 || src.charCodeAt(start) !== 0x48) return false;
  const c = src.charCodeAt(start + 1);
  return !((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a));
}

/** The named fields of a record type with a fixed layout, from field 2 on; undefined for any other type. */
function layoutOf(type: string): readonly string[] | undefined {
  switch (type) {
    case 'P':
      return PATIENT_FIELDS;
    case 'O':
      return ORDER_FIELDS;
    case 'R':
      return RESULT_FIELDS;
    case 'C':
      return COMMENT_FIELDS;
    case 'Q':
      return QUERY_FIELDS;
    case 'L':
      return TERMINATOR_FIELDS;
    default:
      return undefined;
  }
}

/** A decoded record of a fixed-layout type (build.ts), from the values of fields 2 on. */
function fixedRecord(type: string, values: AstmValue[]): TypedRecord {
  switch (type) {
    case 'P':
      return patientRecord(values);
    case 'O':
      return orderRecord(values);
    case 'R':
      return resultRecord(values);
    case 'C':
      return commentRecord(values);
    case 'Q':
      return queryRecord(values);
    default:
      return terminatorRecord(values);
  }
}

/** Refuses a record text with a restricted character, naming the field it is in. */
function checkRestricted(text: string, s: Syntax, at: AstmPosition): void {
  const bad = firstRestricted(text);
  if (bad >= 0) throw restrictedError(text, bad, text.slice(0, bad).split(s.d.field).length, at);
}

/**
 * Reads the fields of `text` from `from` to `end` into `values`, in one pass.
 * Splits on field, repeat and component delimiters in that order of
 * precedence, keeping every empty piece, and resolves the escapes of each
 * component. The text must hold no restricted character (the caller checked).
 * Returns whether the text is what the encoder writes for these values.
 */
function scanFields(text: string, from: number, end: number, s: Syntax, values: AstmValue[]): boolean {
  const classes = s.classes;
  let canonical = true;
  let start = from;
  let escaped = false;
  let components: string[] | undefined;
  let repeats: string[][] | undefined;
  let after: Int32Array | undefined;
  for (let i = from; ; i++) {
    let cls: number;
    if (i < end) {
      const c = text.charCodeAt(i);
      cls = c < 256 ? classes[c]! : wideClass(c, s);
      if (cls === PLAIN) {
        if (i - start < LONG_TEXT) continue;
        // A long run of data: the rest of it in a few memchr passes (syntax.ts, LONG_TEXT).
        if (after === undefined) after = Int32Array.of(-2, -2, -2, -2);
        i = nextDelimiter(text, i, end, s, after) - 1;
        continue;
      }
      if (cls === ESCAPE) {
        escaped = true;
        continue;
      }
      // Unreachable for a checked text; kept so that an unchecked one is never split on a restricted character.
      if (cls === RESTRICTED) throw new AstmDecodeError(`${describeChar(text.charAt(i))} is not allowed in record text (LIS1-A 6.6)`);
    } else cls = FIELD; // the end of the text ends the last field
    // A delimiter (or the end): the component from `start` is complete.
    let piece = text.slice(start, i);
    if (escaped) {
      const raw = piece;
      piece = unescapeText(raw, s.d);
      if (canonical && escapeText(piece, s.d) !== raw) canonical = false;
      escaped = false;
    }
    start = i + 1;
    if (cls === COMPONENT) {
      if (components === undefined) components = [piece];
      else components.push(piece);
      continue;
    }
    if (cls === REPEAT) {
      if (components === undefined) components = [piece];
      else components.push(piece);
      if (repeats === undefined) repeats = [components];
      else repeats.push(components);
      components = undefined;
      continue;
    }
    // The field is complete: its value has the shape of its text (value.ts).
    if (repeats !== undefined) {
      if (components === undefined) components = [piece];
      else components.push(piece);
      repeats.push(components);
      values.push(repeats);
      repeats = undefined;
    } else if (components !== undefined) {
      components.push(piece);
      values.push(components);
    } else values.push(piece);
    components = undefined;
    if (i >= end) return canonical;
  }
}

function restrictedError(text: string, at: number, field: number, position: AstmPosition): AstmDecodeError {
  return new AstmDecodeError(`${describeChar(text.charAt(at))} is not allowed in record text (LIS1-A 6.6)`, { ...position, field });
}

function encodeCanonical(record: AstmRecord, given: Syntax | undefined, at: AstmPosition): string {
  if (record.type === 'raw') return encodeRaw(record.text, given?.d, at);
  if (record.type === 'H') {
    // An H writes back what it declared, fewer than four delimiters included (syntaxOf accepts them).
    const s = syntaxOf(record.delimiters, at, 2);
    return 'H' + s.d.field + delimiterDefinition(s.d) + namedFields(record, HEADER_FIELDS, 3, s, at);
  }
  if (given === undefined) throw new AstmEncodeError(`a ${record.type} record needs the delimiters of an H record before it, or delimiters given explicitly`, at);
  if (record.type === 'M' || record.type === 'S') {
    const f = given.d.field;
    let out: string = record.type;
    if (record.sequence !== undefined || record.fields.length > 0) out += f + encodeFieldValue(record.sequence ?? '', given, at, 2);
    for (let i = 0; i < record.fields.length; i++) out += f + encodeFieldValue(record.fields[i], given, at, i + 3);
    return out;
  }
  return record.type + namedFields(record, layoutOf(record.type)!, 2, given, at);
}

/**
 * The named fields up to the last present one, then the extra fields, each
 * after a field delimiter. An absent field before a present one is written
 * empty.
 */
function namedFields(record: object, names: readonly string[], firstField: number, s: Syntax, at: AstmPosition): string {
  const source = record as Record<string, unknown>;
  const f = s.d.field;
  const texts: string[] = [''];
  let absent = 0;
  for (let i = 0; i < names.length; i++) {
    const value = source[names[i]!];
    if (value === undefined) {
      absent++;
      continue;
    }
    for (; absent > 0; absent--) texts.push('');
    texts.push(encodeFieldValue(value ?? '', s, at, firstField + i));
  }
  const extra = source.extra as AstmValue[] | undefined;
  if (extra !== undefined && extra.length > 0) {
    for (; absent > 0; absent--) texts.push('');
    for (let i = 0; i < extra.length; i++) texts.push(encodeFieldValue(extra[i], s, at, firstField + names.length + i));
  }
  return texts.length === 1 ? '' : texts.join(f);
}

function encodeRaw(text: unknown, given: Delimiters | undefined, at: AstmPosition): string {
  if (typeof text !== 'string') throw new AstmEncodeError('a raw record needs its text as a string', at);
  const bad = firstRestricted(text);
  if (bad >= 0) throw new AstmEncodeError(`${describeChar(text.charAt(bad))} cannot be sent inside a record`, at);
  // A raw record must come back raw: text that reads as a known record would
  // be decoded as that record and skip the checks typed records get.
  const type = given === undefined ? text.slice(0, 1) : (text.split(given.field)[0] ?? '');
  if (isHeaderText(text) || layoutOf(type) !== undefined || type === 'M' || type === 'S') {
    throw new AstmEncodeError(`raw record text ${JSON.stringify(text.slice(0, 20))} would be read as a ${type || 'H'} record; give it as a typed record`, at);
  }
  return text;
}

const COMMON_KEYS = ['type', 'extra', 'verbatim'];
// A Map, not an object: a record whose type is "constructor" or "__proto__" must find nothing here.
const ALLOWED_KEYS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['H', new Set([...COMMON_KEYS, 'delimiters', ...HEADER_FIELDS])],
  ['P', new Set([...COMMON_KEYS, ...PATIENT_FIELDS])],
  ['O', new Set([...COMMON_KEYS, ...ORDER_FIELDS])],
  ['R', new Set([...COMMON_KEYS, ...RESULT_FIELDS])],
  ['C', new Set([...COMMON_KEYS, ...COMMENT_FIELDS])],
  ['Q', new Set([...COMMON_KEYS, ...QUERY_FIELDS])],
  ['L', new Set([...COMMON_KEYS, ...TERMINATOR_FIELDS])],
  ['M', new Set(['type', 'verbatim', 'fields', ...FREE_FIELDS])],
  ['S', new Set(['type', 'verbatim', 'fields', ...FREE_FIELDS])],
  ['raw', new Set(['type', 'text'])],
]);

/** Records come from flows too (plain JSON), so their shape is checked at run time. */
function checkShape(record: unknown, at: AstmPosition): asserts record is AstmRecord {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) throw new AstmEncodeError('a record must be an object with a type', at);
  const r = record as Record<string, unknown>;
  const allowed = typeof r.type === 'string' ? ALLOWED_KEYS.get(r.type) : undefined;
  if (allowed === undefined) throw new AstmEncodeError(`unknown record type ${JSON.stringify(r.type)}: expected H, P, O, R, C, Q, M, S, L or raw`, at);
  // Every record is checked on the way out, so this is a plain loop: the list of
  // unknown keys is only built for the error.
  const keys = Object.keys(r);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (!allowed.has(k) && r[k] !== undefined) {
      const unknown = keys.filter((key) => !allowed.has(key) && r[key] !== undefined);
      throw new AstmEncodeError(`${String(r.type)} record has no field ${unknown.map((key) => JSON.stringify(key)).join(', ')}`, at);
    }
  }
  if (r.extra !== undefined && !Array.isArray(r.extra)) throw new AstmEncodeError('extra must be an array of field values', at);
  if ((r.type === 'M' || r.type === 'S') && !Array.isArray(r.fields)) throw new AstmEncodeError(`${r.type} record needs fields as an array of field values`, at);
  if (r.verbatim !== undefined && typeof r.verbatim !== 'string') throw new AstmEncodeError('verbatim must be the record text as a string', at);
}

/**
 * One component of field `field` (numbered as E1394 does: 1 is the record
 * type) as it arrived, escapes unresolved, read from the record's verbatim
 * text; undefined when the record has none, which means its text is what the
 * encoder writes from its values (escapeText of the decoded component gives
 * it). `component` counts from 1, or from the end when negative.
 */
export function arrivedComponent(record: AstmRecord, field: number, repeat: number, component: number, d: Delimiters): string | undefined {
  if (record.type === 'raw' || record.verbatim === undefined) return undefined;
  const fieldText = record.verbatim.split(d.field)[field - 1] ?? '';
  const repeatText = (d.repeat === '' ? [fieldText] : fieldText.split(d.repeat))[repeat - 1] ?? '';
  const components = d.component === '' ? [repeatText] : repeatText.split(d.component);
  const index = component > 0 ? component - 1 : components.length + component;
  return index >= 0 ? (components[index] ?? '') : '';
}
