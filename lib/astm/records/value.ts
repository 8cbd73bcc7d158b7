/**
 * One field's value, in the shape its text has:
 *
 *   `GLU`               -> 'GLU'                          (no delimiter)
 *   `^^^GLU`            -> ['', '', '', 'GLU']            (components)
 *   `^^^GLU\^^^CRE`     -> [['', '', '', 'GLU'], ['', '', '', 'CRE']]   (repeats of components)
 *
 * Every component is kept, empty or not, padded or not, so writing the value
 * back gives the text it came from. Escapes are resolved in each component.
 * The shape follows the data rather than the standard's field definitions
 * because vendors put components and repeats where the standard has none
 * (Roche `RSUPL^REAL` in H-11, Mindray `^` in R-6); `component()`
 * and `repeatsOf()` read any shape the same way.
 */
import { readable } from '../control';
import type { Delimiters } from './delimiters';
import { AstmEncodeError, type AstmPosition } from './errors';
import { escapeText, unescapeText } from './escape';

export type AstmValue = string | string[] | string[][];

/**
 * Characters that may not appear in record text: CR ends a record, and LIS1-A
 * 6.6 reserves the others for the link layer (an ETX inside a value would end
 * the frame early).
 */
const RESTRICTED = /[\x01-\x06\x0a\x0d\x10-\x17]/;

/** Index of the first character that may not appear in record text, or -1. */
export function restrictedCharAt(text: string): number {
  const m = RESTRICTED.exec(text);
  return m ? m.index : -1;
}

export function describeChar(c: string): string {
  return readable(Uint8Array.of(c.charCodeAt(0) & 0xff));
}

/** The value of one field's text (the H record's delimiter field excepted). */
export function decodeValue(text: string, d: Delimiters): AstmValue {
  const repeats = splitOn(text, d.repeat);
  if (repeats.length === 1) {
    const components = splitOn(text, d.component);
    if (components.length === 1) return unescapeText(text, d);
    return components.map((c) => unescapeText(c, d));
  }
  return repeats.map((r) => splitOn(r, d.component).map((c) => unescapeText(c, d)));
}

/** Pieces of text between delimiters; the whole text when the message declares no such delimiter (''). */
function splitOn(text: string, delimiter: string): string[] {
  return delimiter === '' ? [text] : text.split(delimiter);
}

/** The text of one field. Throws AstmEncodeError for values that are not an AstmValue. */
export function encodeValue(value: unknown, d: Delimiters, at: AstmPosition = {}): string {
  if (typeof value === 'string') return encodeComponent(value, d, at);
  if (!Array.isArray(value) || value.length === 0) throw new AstmEncodeError(`value must be a string, an array of component strings or an array of repeats, got ${describe(value)}`, at);
  if (value.every((c) => typeof c === 'string')) {
    if (value.length > 1) declared(d, 'component', at);
    return value.map((c: string) => encodeComponent(c, d, at)).join(d.component);
  }
  if (value.every((r) => Array.isArray(r) && r.length > 0 && r.every((c) => typeof c === 'string'))) {
    const repeats = value as string[][];
    if (repeats.length > 1) declared(d, 'repeat', at);
    if (repeats.some((r) => r.length > 1)) declared(d, 'component', at);
    return repeats.map((r) => r.map((c) => encodeComponent(c, d, at)).join(d.component)).join(d.repeat);
  }
  throw new AstmEncodeError('value must be a string, an array of component strings, or an array of repeats that are non-empty arrays of component strings', at);
}

function encodeComponent(text: string, d: Delimiters, at: AstmPosition): string {
  const bad = restrictedCharAt(text);
  if (bad >= 0) throw new AstmEncodeError(`${describeChar(text.charAt(bad))} cannot be sent inside a value (it would end the record or the frame)`, at);
  if (d.escape === '') {
    // Without an escape character a delimiter in the text would split it on
    // the way back; refuse rather than send a different value.
    const held = [d.field, d.repeat, d.component].find((c) => c !== '' && text.includes(c));
    if (held !== undefined) throw new AstmEncodeError(`${JSON.stringify(held)} cannot be written: the message declares no escape character`, at);
  }
  return escapeText(text, d);
}

/** Components or repeats can only be written with a delimiter the message declares. */
function declared(d: Delimiters, role: 'repeat' | 'component', at: AstmPosition): void {
  if (d[role] === '') throw new AstmEncodeError(`a value with several ${role === 'repeat' ? 'repeats' : 'components'} cannot be written: the message declares no ${role} delimiter`, at);
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return value.length === 0 ? 'an empty array' : 'an array of other things';
  return value === null ? 'null' : typeof value;
}

/** Any value as a list of repeats, each a list of components; an absent value has none. */
export function repeatsOf(value: AstmValue | undefined): string[][] {
  if (value === undefined) return [];
  if (typeof value === 'string') return [[value]];
  if (isRepeats(value)) return value.map((r) => [...r]);
  return [[...(value as string[])]];
}

/**
 * One component, counted from 1 as the standard does (`O-5.4` of `^^^GLU` is
 * `component(o.universalTestId, 4)` = 'GLU'); '' when the value has no such
 * component. `repeat` is also counted from 1.
 */
export function component(value: AstmValue | undefined, position: number, repeat = 1): string {
  if (!Number.isInteger(position) || position < 1 || !Number.isInteger(repeat) || repeat < 1) throw new RangeError('component positions and repeats are counted from 1');
  return repeatsOf(value)[repeat - 1]?.[position - 1] ?? '';
}

export function isRepeats(value: AstmValue): value is string[][] {
  return Array.isArray(value) && Array.isArray(value[0]);
}
