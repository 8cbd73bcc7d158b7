/**
 * Writes new HL7 v2 messages (ACKs, query answers, orders) from segments given
 * as field values, escaping every text so a value holding `|`, `^` or a CR
 * cannot break the message. Segments end with CR (v2.5.1 chapter 2.5.1),
 * whatever the analyzer used on its side.
 *
 * A field value is
 *   - a string: one value, escaped;
 *   - undefined or null: an empty field (at the end, undefined writes no field
 *     while null and '' write an empty one);
 *   - an array: the components of one repetition, each a string or an array
 *     of subcomponents (`['140799', 'BARCODE']` inside a component is
 *     `140799&BARCODE`);
 *   - repeat(…): several repetitions, each one of the above;
 *   - rawHl7(text): text already in HL7 form, written as it is (for a value
 *     copied from a received message with rawField()).
 * Nothing is trimmed: a segment has exactly the fields given, so a dialect can
 * write the trailing empty fields its analyzer expects.
 */
import { Hl7Error } from './errors';
import { DEFAULT_DELIMITERS, type Hl7Delimiters, checkWriteDelimiters, encodingCharacters } from './delimiters';
import { escapeHl7 } from './escape';

export type Hl7Component = string | null | undefined | readonly (string | null | undefined)[];
export type Hl7Repetition = string | null | undefined | readonly Hl7Component[];

const REPEAT = Symbol('repeat');
const RAW = Symbol('raw');

export interface Hl7Repeat {
  readonly [REPEAT]: readonly Hl7Repetition[];
}
export interface Hl7Raw {
  readonly [RAW]: string;
}

export type Hl7FieldValue = Hl7Repetition | Hl7Repeat | Hl7Raw;

/** Several repetitions of one field. */
export function repeat(...repetitions: Hl7Repetition[]): Hl7Repeat {
  return { [REPEAT]: repetitions };
}

/** Text already in HL7 form (delimiters and escapes as they are), written unchanged. */
export function rawHl7(text: string): Hl7Raw {
  return { [RAW]: text };
}

/**
 * One segment: its name and its fields, by HL7 position. An array holds field
 * 1 at index 0; an object holds fields by number (`{ 2: 'AA', 3: id }`). For
 * MSH, fields 1 and 2 come from the delimiters and must be left out.
 */
export interface Hl7SegmentSpec {
  name: string;
  fields: readonly Hl7FieldValue[] | Readonly<Record<number, Hl7FieldValue>>;
}

export interface BuildOptions {
  /** Default `|^~\&`. */
  delimiters?: Hl7Delimiters;
}

/** The message text; turn it into bytes with encodeText() and frame it with frameMllp(). */
export function buildHl7(segments: readonly Hl7SegmentSpec[], options: BuildOptions = {}): string {
  const d = checkWriteDelimiters(options.delimiters ?? DEFAULT_DELIMITERS);
  if (segments[0]?.name !== 'MSH') throw new Hl7Error('a message starts with its MSH segment', { segment: 1 });
  return segments.map((s, i) => `${segmentText(s, i + 1, d)}\r`).join('');
}

function segmentText(spec: Hl7SegmentSpec, index: number, d: Required<Hl7Delimiters>): string {
  const { name } = spec;
  if (!/^[A-Z0-9]{3}$/.test(name)) throw new Hl7Error(`${JSON.stringify(name)} is not a segment name (3 capital letters or digits)`, { segment: index });
  const at = { segment: index, name };
  const byNumber = Array.isArray(spec.fields) ? new Map((spec.fields as readonly Hl7FieldValue[]).map((v, i) => [i + 1, v])) : new Map(Object.entries(spec.fields).map(([k, v]) => [Number(k), v]));
  let last = 0;
  for (const n of byNumber.keys()) {
    if (!Number.isInteger(n) || n < 1) throw new Hl7Error(`field numbers start at 1, got ${n}`, at);
    if (byNumber.get(n) !== undefined) last = Math.max(last, n);
  }
  const isMsh = name === 'MSH';
  if (isMsh && (byNumber.get(1) != null || byNumber.get(2) != null)) throw new Hl7Error('MSH-1 and MSH-2 are written from the delimiters; leave them out', { ...at, field: 1 });
  const parts: string[] = [name];
  for (let n = isMsh ? 2 : 1; n <= last; n++) parts.push(isMsh && n === 2 ? encodingCharacters(d) : fieldText(byNumber.get(n), d));
  return parts.join(d.field);
}

function fieldText(value: Hl7FieldValue, d: Required<Hl7Delimiters>): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object' && RAW in value) return value[RAW];
  if (typeof value === 'object' && REPEAT in value) return value[REPEAT].map((r) => repetitionText(r, d)).join(d.repetition);
  return repetitionText(value, d);
}

function repetitionText(value: Hl7Repetition, d: Required<Hl7Delimiters>): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return escapeHl7(value, d);
  return value.map((c) => (typeof c === 'string' || c == null ? escapeHl7(c ?? '', d) : c.map((s) => escapeHl7(s ?? '', d)).join(d.subcomponent))).join(d.component);
}
