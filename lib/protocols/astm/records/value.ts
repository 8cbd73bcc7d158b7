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
import { LONG_TEXT, PLAIN, firstRestricted, holdsDelimiter, wideClass, type Syntax } from './syntax';
import type { TextWriter } from './writer';

export type AstmValue = string | string[] | string[][];

/** Index of the first character that may not appear in record text, or -1 (syntax.ts says which they are). */
export function restrictedCharAt(text: string): number {
  return firstRestricted(text);
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

/**
 * encodeValue for the record encoder: the same text and the same errors, for
 * delimiters syntaxOf accepted. The field's position is a number, made
 * into an AstmPosition only for an error: a record has a dozen fields and
 * nearly never an error.
 */
export function encodeFieldValue(value: unknown, s: Syntax, at: AstmPosition, field: number): string {
  if (typeof value === 'string') return componentText(value, s, at, field);
  // A message that declares no repeat or component delimiter: encodeValue says what cannot be written.
  if (!Array.isArray(value) || value.length === 0 || !s.full) return encodeValue(value, s.d, { ...at, field });
  // The shape is checked before any component is written, as encodeValue does,
  // so a value that is wrong in two ways fails the same way in both.
  let strings = true;
  for (let i = 0; i < value.length && strings; i++) strings = typeof value[i] === 'string';
  if (strings) return componentsText(value as string[], s, at, field);
  for (let i = 0; i < value.length; i++) {
    const r: unknown = value[i];
    if (!Array.isArray(r) || r.length === 0) return encodeValue(value, s.d, { ...at, field });
    for (let k = 0; k < r.length; k++) if (typeof r[k] !== 'string') return encodeValue(value, s.d, { ...at, field });
  }
  let out = componentsText(value[0] as string[], s, at, field);
  for (let i = 1; i < value.length; i++) out += s.d.repeat + componentsText(value[i] as string[], s, at, field);
  return out;
}

/** Components joined by the component delimiter. */
function componentsText(components: string[], s: Syntax, at: AstmPosition, field: number): string {
  // Concatenation, not map and join: no array or closure per field (npm run bench, section 1).
  let out = componentText(components[0]!, s, at, field);
  for (let i = 1; i < components.length; i++) out += s.d.component + componentText(components[i]!, s, at, field);
  return out;
}

/** One component's text: itself when nothing in it needs escaping (the rule), else encodeComponent's answer. */
function componentText(text: string, s: Syntax, at: AstmPosition, field: number): string {
  return isPlain(text, s) ? text : encodeComponent(text, s.d, { ...at, field });
}

/**
 * encodeFieldValue into a TextWriter (writer.ts): false when the value is not
 * written there (any shape but an AstmValue's, a restricted character, a
 * character from U+0100 on), with some of it perhaps written. The caller then
 * encodes the record with encodeFieldValue, which gives its text or its error.
 */
export function writeFieldValue(value: unknown, s: Syntax, w: TextWriter): boolean {
  if (typeof value === 'string') return writeComponent(value, s, w);
  // Components and repeats only with all four delimiters declared; encodeFieldValue handles the rest.
  if (!Array.isArray(value) || value.length === 0 || !s.full) return false;
  if (typeof value[0] === 'string') return writeComponents(value, s, w);
  for (let i = 0; i < value.length; i++) {
    const r: unknown = value[i];
    if (!Array.isArray(r) || r.length === 0) return false;
    if (i > 0) w.byte(s.repeatCode);
    if (!writeComponents(r, s, w)) return false;
  }
  return true;
}

function writeComponents(components: unknown[], s: Syntax, w: TextWriter): boolean {
  for (let i = 0; i < components.length; i++) {
    const c = components[i];
    if (typeof c !== 'string') return false;
    if (i > 0) w.byte(s.componentCode);
    if (!writeComponent(c, s, w)) return false;
  }
  return true;
}

function writeComponent(text: string, s: Syntax, w: TextWriter): boolean {
  if (w.plain(text, s)) return true;
  // Something to escape, a restricted character (refused with its position
  // by the caller's fallback), or a wide character. Without an escape
  // character a delimiter cannot be written: the fallback refuses it.
  if (s.d.escape === '' || firstRestricted(text) >= 0) return false;
  return w.text(escapeText(text, s.d));
}

/** Whether a component's text is written as it is: no delimiter, escape or restricted character in it. */
function isPlain(text: string, s: Syntax): boolean {
  if (text.length >= LONG_TEXT) {
    // Long data (a base64 histogram): memchr passes (syntax.ts, LONG_TEXT).
    return !holdsDelimiter(text, s) && firstRestricted(text) < 0;
  }
  const classes = s.classes;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c < 256 ? classes[c] : wideClass(c, s)) !== PLAIN) return false;
  }
  return true;
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
