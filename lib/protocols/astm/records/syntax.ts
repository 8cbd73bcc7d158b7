/**
 * What each character means to the codec under one delimiter set, as a lookup
 * table. Decoding walks a record once, character by character, and encoding
 * looks at every character of every value: a table read per character is what
 * lets both skip the ordinary characters (nearly all of them) with one
 * comparison, instead of testing each against four delimiters and a regular
 * expression (npm run bench, section 1).
 */
import { checkDeclaredDelimiters, checkDelimiters, type Delimiters } from './delimiters';
import type { AstmPosition } from './errors';

/** A character that is data and nothing else. */
export const PLAIN = 0;
export const FIELD = 1;
export const REPEAT = 2;
export const COMPONENT = 3;
export const ESCAPE = 4;
/** A character that may not appear in record text (RESTRICTED_CODES). */
export const RESTRICTED = 5;

export interface Syntax {
  /** The delimiters; a role the H record left out is '' (delimiters.ts), and nothing is split on it. */
  readonly d: Delimiters;
  /** All four are there: what the encoder needs to write components and repeats (and what our downloads declare). */
  readonly full: boolean;
  /** The class of each character below U+0100; characters from U+0100 on are plain unless a delimiter is one. */
  readonly classes: Uint8Array;
  /** The delimiters from U+0100 on, if any (checkDelimiters allows any character that is no letter, digit, space or control). */
  readonly wide: string;
  /** The delimiters' character codes, for writers of bytes (writer.ts; only used when `wide` is empty and `full`). */
  readonly fieldCode: number;
  readonly repeatCode: number;
  readonly componentCode: number;
}

/**
 * The characters that may not appear in record text: CR ends a record, and
 * LIS1-A 6.6 reserves the others for the link layer (an ETX inside a value
 * would end the frame early).
 */
const RESTRICTED_CODES = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x0a, 0x0d, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17];
/** The same without CR and LF: what may not appear in a message's text besides its record separators. */
const INSIDE_CODES = RESTRICTED_CODES.filter((c) => c !== 0x0a && c !== 0x0d);
const RESTRICTED_CHARS = String.fromCharCode(...RESTRICTED_CODES);
const INSIDE_CHARS = String.fromCharCode(...INSIDE_CODES);
const RESTRICTED_TABLE = new Uint8Array(256);
for (const c of RESTRICTED_CODES) RESTRICTED_TABLE[c] = 1;

/**
 * Below this length a text is searched one character at a time; from it on,
 * with indexOf once per character searched for, which V8 runs as memchr.
 * Tens of kB of base64 in one component (a histogram in an M record) are then
 * a few memchr passes instead of one table read per character (npm run bench,
 * section 1: that M record is more than half of the corpus). The value is
 * where the two cost about the same for the 16 restricted characters.
 */
export const LONG_TEXT = 64;

/** Index of the first character of `text` that may not appear in record text, or -1. */
export function firstRestricted(text: string): number {
  return firstOfChars(text, RESTRICTED_CHARS);
}

/**
 * Index of the first character of a message's text (records and their
 * separators) that may not appear in a record, or -1. CR and LF are left out:
 * decodeMessage has made sure they occur only as separators.
 */
export function firstRestrictedInside(body: string): number {
  return firstOfChars(body, INSIDE_CHARS);
}

function firstOfChars(text: string, chars: string): number {
  if (text.length < LONG_TEXT) {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c < 256 && RESTRICTED_TABLE[c] === 1 && chars.includes(text.charAt(i))) return i;
    }
    return -1;
  }
  let first = -1;
  for (let k = 0; k < chars.length; k++) {
    // Only the stretch before the best match so far needs searching.
    const at = first < 0 ? text.indexOf(chars.charAt(k)) : text.slice(0, first).indexOf(chars.charAt(k));
    if (at >= 0) first = at;
  }
  return first;
}

/**
 * A message repeats its H record's delimiters, and nearly every analyzer uses
 * `|\^&`: the tables are kept by delimiter set, a handful at most. The bound
 * only matters for a caller that invents delimiter sets without end.
 */
const known = new Map<string, Syntax>();
const KNOWN_MAX = 64;

/**
 * The table for a delimiter set. A set seen before costs a lookup; a new one
 * is checked first: as an H record may declare it (checkDeclaredDelimiters:
 * the field delimiter and one to three more, different, no letter, digit,
 * space or control), or with `all` as one we write with (checkDelimiters: all
 * four). AstmDelimiterError names `at` and `field`; the position is put
 * together only for an error: the encoder asks for the H record's table once
 * per message, and an object spread per call was a fifth of its time (npm run
 * bench, section 1).
 */
export function syntaxOf(d: Delimiters, at: AstmPosition = {}, field?: number, all = false): Syntax {
  // Not an object (a flow's null, say): checkDelimiters says so.
  if (typeof d !== 'object' || d === null) checkDelimiters(d, positionOf(at, field));
  // The set of the last call, nearly always: four comparisons, no key to build.
  const last = lastSyntax;
  if (last !== undefined && (last.full || !all) && last.d.field === d.field && last.d.repeat === d.repeat && last.d.component === d.component && last.d.escape === d.escape) return last;
  const key = `${d.field}${d.repeat}${d.component}${d.escape}`;
  let syntax = known.get(key);
  // The key alone could match a set whose characters are spread differently
  // (a field delimiter of `||` and an empty repeat, which the checks refuse):
  // the four must be the same.
  if (syntax === undefined || (all && !syntax.full) || syntax.d.field !== d.field || syntax.d.repeat !== d.repeat || syntax.d.component !== d.component || syntax.d.escape !== d.escape) {
    if (all) checkDelimiters(d, positionOf(at, field));
    else checkDeclaredDelimiters(d, positionOf(at, field));
    const classes = new Uint8Array(256);
    for (const c of RESTRICTED_CODES) classes[c] = RESTRICTED;
    let wide = '';
    for (const [c, cls] of [
      [d.field, FIELD],
      [d.repeat, REPEAT],
      [d.component, COMPONENT],
      [d.escape, ESCAPE],
    ] as const) {
      // A role the H record left out ('') is in no table: nothing is split on it.
      if (c === '') continue;
      const code = c.charCodeAt(0);
      if (code < 256) classes[code] = cls;
      else wide += c;
    }
    // A copy of the delimiters: the syntax outlives the caller's object, which the caller may change.
    syntax = {
      d: { field: d.field, repeat: d.repeat, component: d.component, escape: d.escape },
      full: d.repeat !== '' && d.component !== '' && d.escape !== '',
      classes,
      wide,
      fieldCode: d.field.charCodeAt(0),
      repeatCode: d.repeat === '' ? -1 : d.repeat.charCodeAt(0),
      componentCode: d.component === '' ? -1 : d.component.charCodeAt(0),
    };
    if (known.size >= KNOWN_MAX) known.delete(known.keys().next().value as string);
    known.set(key, syntax);
  }
  lastSyntax = syntax;
  return syntax;
}

let lastSyntax: Syntax | undefined;

function positionOf(at: AstmPosition, field: number | undefined): AstmPosition {
  return field === undefined ? at : { ...at, field };
}

/** Whether a text holds any of the delimiters (memchr passes: for long texts, see LONG_TEXT). */
export function holdsDelimiter(text: string, s: Syntax): boolean {
  const { field, repeat, component, escape } = s.d;
  // A role the H record left out ('') is held by no text (includes('') would say every one).
  return text.includes(field) || (repeat !== '' && text.includes(repeat)) || (component !== '' && text.includes(component)) || (escape !== '' && text.includes(escape));
}

/** The class of a character from U+0100 on (the table covers the ones below). */
export function wideClass(code: number, s: Syntax): number {
  if (s.wide === '') return PLAIN;
  const c = String.fromCharCode(code);
  if (c === s.d.field) return FIELD;
  if (c === s.d.repeat) return REPEAT;
  if (c === s.d.component) return COMPONENT;
  if (c === s.d.escape) return ESCAPE;
  return PLAIN;
}

/**
 * The syntax the H record from `start` to `end` declares, when it declares
 * all four delimiters and a set already known (and so already checked): every
 * message starts with an H,
 * and this costs a comparison where readHeaderDelimiters checks the set
 * again. undefined for a new set or any other form of header, which
 * readHeaderDelimiters then reads (and refuses with its reasons). The caller
 * has seen the `H`.
 */
export function knownHeaderSyntax(src: string, start: number, end: number): Syntax | undefined {
  // `H` and the four delimiters, then the field delimiter again or the end.
  if (end - start < 5 || (end - start > 5 && src.charCodeAt(start + 5) !== src.charCodeAt(start + 1))) return undefined;
  // Consecutive messages nearly always declare the same set: compare before building a key.
  if (lastHeader !== undefined && src.startsWith(lastHeader.key, start + 1)) return lastHeader.syntax;
  const key = src.slice(start + 1, start + 5);
  const syntax = known.get(key);
  if (syntax === undefined || !syntax.full) return undefined;
  lastHeader = { key, syntax };
  return syntax;
}

let lastHeader: { key: string; syntax: Syntax } | undefined;

/**
 * Where the next delimiter of any kind is, from `from` on, or `end` if none
 * is before it: for long runs of data, see LONG_TEXT. `after` holds, per delimiter (field,
 * repeat, component, escape), the position indexOf last gave (-1: none up to
 * the end), so that a delimiter that does not occur is searched for once per
 * text, not once per run.
 */
export function nextDelimiter(text: string, from: number, end: number, s: Syntax, after: Int32Array): number {
  const d = s.d;
  let next = end;
  for (let k = 0; k < 4; k++) {
    let at = after[k]!;
    if (at !== -1 && at < from) {
      const c = k === 0 ? d.field : k === 1 ? d.repeat : k === 2 ? d.component : d.escape;
      // A role the H record left out: never there (indexOf('') would find it everywhere).
      at = c === '' ? -1 : text.indexOf(c, from);
      after[k] = at;
    }
    if (at >= 0 && at < next) next = at;
  }
  return next;
}
