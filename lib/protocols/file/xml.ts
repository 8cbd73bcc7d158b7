/**
 * A small XML reader for instrument exports (XML 1.0 as software writes it):
 * elements, attributes in either quote, text, the five predefined entities
 * and character references, comments, CDATA sections, the XML declaration
 * and processing instructions, a DOCTYPE passed over. One pass over the
 * text, each character looked at a bounded number of times, so its cost is
 * linear in the file; a checkpoint every few hundred tokens lets it run in
 * slices (../../util/slices.ts). Entities a DOCTYPE would declare are not
 * expanded (no entity can grow the text): an unknown `&name;` is an error.
 *
 * What it gives is a tree of elements, each with its attributes, the text
 * directly inside it, and the line its start tag is on. Namespaces are not
 * resolved: a name keeps its prefix (`bpm:BioPlexManager`), and localName
 * drops it. Malformed XML throws XmlError naming the line and what was
 * wrong; so do a nesting deeper than maxDepth and a text longer than
 * maxChars (a file no export is: refused before it costs memory).
 */
import { checkpoints, runAtOnce, type Steps } from '../../util/slices';

export interface XmlElement {
  /** The name as written, with its prefix. */
  readonly name: string;
  readonly attrs: Readonly<Record<string, string>>;
  readonly children: XmlElement[];
  /** The text directly inside (entities decoded, CDATA as written), its pieces joined. */
  text: string;
  /** The 1-based line the start tag is on. */
  readonly line: number;
}

export class XmlError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`line ${line}: ${message}`);
    this.name = 'XmlError';
  }
}

export interface XmlLimits {
  /** The deepest nesting of elements (absent: 64). */
  maxDepth?: number;
  /** The most characters the text may have (absent: 200 million). */
  maxChars?: number;
}

export const DEFAULT_MAX_DEPTH = 64;
export const DEFAULT_MAX_CHARS = 200_000_000;

/** The name without its namespace prefix. */
export const localName = (name: string): string => name.slice(name.indexOf(':') + 1);

export function parseXml(text: string, limits: XmlLimits = {}): XmlElement {
  return runAtOnce(xmlSteps(text, limits));
}

const PREDEFINED: ReadonlyMap<string, string> = new Map([
  ['amp', '&'],
  ['lt', '<'],
  ['gt', '>'],
  ['quot', '"'],
  ['apos', "'"],
]);

const GT = 62;
const SLASH = 47;
const EQ = 61;
const QUOTE = 34;
const APOS = 39;

const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;
/** A name's first character: a letter, `_`, `:`, or any character past ASCII (XML's NameStartChar, loosely). */
const isNameStart = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 58 || c >= 0xc0;
const isNameChar = (c: number) => isNameStart(c) || (c >= 48 && c <= 57) || c === 45 || c === 46 || c === 0xb7;

/** The document's root element, with a checkpoint every few hundred tokens. */
export function* xmlSteps(text: string, limits: XmlLimits = {}): Steps<XmlElement> {
  const maxDepth = limits.maxDepth ?? DEFAULT_MAX_DEPTH;
  const maxChars = limits.maxChars ?? DEFAULT_MAX_CHARS;
  if (text.length > maxChars) throw new XmlError(`the file has ${text.length.toLocaleString('en-US')} characters, more than the ${maxChars.toLocaleString('en-US')} an export is allowed: refused unread`, 1);
  const tick = checkpoints();
  // Lines are counted forward only, each line end found once (places asked about only grow).
  let line = 1;
  let nextEnd = text.indexOf('\n');
  if (nextEnd < 0) nextEnd = Infinity;
  const lineAt = (pos: number) => {
    while (nextEnd < pos) {
      line++;
      nextEnd = text.indexOf('\n', nextEnd + 1);
      if (nextEnd < 0) nextEnd = Infinity;
    }
    return line;
  };
  const fail = (message: string, pos: number): never => {
    throw new XmlError(message, lineAt(Math.min(pos, text.length)));
  };
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let i = 0;
  const n = text.length;

  const decode = (raw: string, at: number): string => {
    let amp = raw.indexOf('&');
    if (amp < 0) return raw;
    let out = '';
    let from = 0;
    while (amp >= 0) {
      const semi = raw.indexOf(';', amp);
      // An entity's name is short: a `;` far on is no end of this one.
      if (semi < 0 || semi - amp > 12) fail(`an "&" that starts no entity (write it as &amp;)`, at + amp);
      const name = raw.slice(amp + 1, semi);
      let ch: string | undefined;
      if (name.startsWith('#x') || name.startsWith('#X')) ch = codePoint(/^[0-9a-fA-F]+$/.test(name.slice(2)) ? parseInt(name.slice(2), 16) : NaN);
      else if (name.startsWith('#')) ch = codePoint(/^[0-9]+$/.test(name.slice(1)) ? parseInt(name.slice(1), 10) : NaN);
      else ch = PREDEFINED.get(name);
      if (ch === undefined) fail(`&${name}; is no entity XML defines (&amp; &lt; &gt; &quot; &apos;, or a character reference &#n; &#xh;)`, at + amp);
      out += raw.slice(from, amp) + ch;
      from = semi + 1;
      amp = raw.indexOf('&', from);
    }
    return out + raw.slice(from);
  };

  const addText = (piece: string, at: number) => {
    const top = stack[stack.length - 1];
    if (top !== undefined) top.text += piece;
    else if (piece.trim() !== '') fail(`text outside the root element (${clipped(piece.trim())})`, at + piece.length - piece.trimStart().length);
  };

  const readName = (what: string): string => {
    const start = i;
    if (i >= n || !isNameStart(text.charCodeAt(i))) fail(i >= n ? `the file ends inside ${what}` : `${what} has no valid name (at ${JSON.stringify(text.charAt(i))})`, i);
    while (i < n && isNameChar(text.charCodeAt(i))) i++;
    return text.slice(start, i);
  };
  const skipSpace = () => {
    while (i < n && isSpace(text.charCodeAt(i))) i++;
  };
  /** The index of `end` from `from`, or an error naming the construct left open. */
  const until = (end: string, from: number, what: string, openedAt: number): number => {
    const at = text.indexOf(end, from);
    if (at < 0) fail(`the file ends inside ${what} opened on line ${lineAt(openedAt)} (no closing ${end}): truncated?`, n);
    return at;
  };

  while (i < n) {
    if (tick()) yield;
    const lt = text.indexOf('<', i);
    const textEnd = lt < 0 ? n : lt;
    if (textEnd > i) {
      const raw = text.slice(i, textEnd);
      if (raw.includes(']]>')) fail('"]]>" outside a CDATA section', i + raw.indexOf(']]>'));
      addText(decode(raw, i), i);
    }
    if (lt < 0) break;
    i = lt;
    if (text.startsWith('<!--', i)) {
      const end = until('-->', i + 4, 'a comment', i);
      i = end + 3;
    } else if (text.startsWith('<![CDATA[', i)) {
      const end = until(']]>', i + 9, 'a CDATA section', i);
      if (stack.length === 0) fail('a CDATA section outside the root element', i);
      addText(text.slice(i + 9, end), i);
      i = end + 3;
    } else if (text.startsWith('<?', i)) {
      // The XML declaration, or a processing instruction: nothing a result is read from.
      const end = until('?>', i + 2, 'a processing instruction', i);
      i = end + 2;
    } else if (text.startsWith('<!DOCTYPE', i)) {
      if (root !== undefined || stack.length > 0) fail('a DOCTYPE after the root element started', i);
      // Passed over, an internal subset in brackets with it; its declarations are not used.
      const open = i;
      let depth = 0;
      i += 9;
      for (; i < n; i++) {
        const c = text.charAt(i);
        if (c === '[') depth++;
        else if (c === ']') depth--;
        else if (c === '>' && depth <= 0) break;
      }
      if (i >= n) fail(`the file ends inside the DOCTYPE opened on line ${lineAt(open)}: truncated?`, n);
      i++;
    } else if (text.charCodeAt(i + 1) === SLASH) {
      const open = i;
      i += 2;
      const name = readName('an end tag');
      skipSpace();
      if (i >= n) fail(`the file ends inside the end tag </${name}>: truncated?`, n);
      if (text.charCodeAt(i) !== GT) fail(`the end tag </${name}> has ${JSON.stringify(text.charAt(i))} where ">" should close it`, i);
      i++;
      const top = stack.pop();
      if (top === undefined) fail(`the end tag </${name}> closes nothing (no element is open)`, open);
      else if (top.name !== name) fail(`the end tag </${name}> does not close <${top.name}>, opened on line ${top.line}`, open);
    } else {
      const open = i;
      i++;
      const name = readName('a start tag');
      // No prototype: an attribute named like one of Object's own (`__proto__`, `constructor`) is an attribute like any.
      const attrs = Object.create(null) as Record<string, string>;
      let selfClosing = false;
      for (;;) {
        const before = i;
        skipSpace();
        if (i >= n) fail(`the file ends inside the start tag <${name}> opened on line ${lineAt(open)}: truncated?`, n);
        const c = text.charCodeAt(i);
        if (c === GT) {
          i++;
          break;
        }
        if (c === SLASH) {
          if (text.charCodeAt(i + 1) !== GT) fail(`the start tag <${name}> has "/" not followed by ">"`, i);
          i += 2;
          selfClosing = true;
          break;
        }
        if (i === before) fail(`the start tag <${name}> needs a space before its attribute (at ${JSON.stringify(text.charAt(i))})`, i);
        const attr = readName(`an attribute of <${name}>`);
        skipSpace();
        if (text.charCodeAt(i) !== EQ) fail(`the attribute ${attr} of <${name}> has no "=" and value`, i);
        i++;
        skipSpace();
        const q = text.charCodeAt(i);
        if (q !== QUOTE && q !== APOS) fail(`the value of the attribute ${attr} of <${name}> is not in quotes`, i);
        const close = text.indexOf(q === QUOTE ? '"' : "'", i + 1);
        if (close < 0) fail(`the file ends inside the value of the attribute ${attr} of <${name}> opened on line ${lineAt(open)}: truncated?`, n);
        const raw = text.slice(i + 1, close);
        const lt2 = raw.indexOf('<');
        if (lt2 >= 0) fail(`the value of the attribute ${attr} of <${name}> holds a "<" (a quote left open?)`, i + 1 + lt2);
        if (Object.hasOwn(attrs, attr)) fail(`the start tag <${name}> has the attribute ${attr} twice`, i);
        attrs[attr] = decode(raw, i + 1);
        i = close + 1;
      }
      if (root !== undefined && stack.length === 0) fail(`a second root element <${name}> after <${root.name}> (line ${root.line})`, open);
      if (stack.length >= maxDepth) fail(`<${name}> is nested ${stack.length + 1} elements deep, deeper than the ${maxDepth} an export is allowed`, open);
      const el: XmlElement = { name, attrs, children: [], text: '', line: lineAt(open) };
      const parent = stack[stack.length - 1];
      if (parent !== undefined) parent.children.push(el);
      else root = el;
      if (!selfClosing) stack.push(el);
    }
  }
  const open = stack[stack.length - 1];
  if (open !== undefined) fail(`the file ends inside <${open.name}> opened on line ${open.line} (no </${open.name}>): truncated?`, n);
  if (root === undefined) fail('the file holds no XML element', n);
  return root!;
}

function codePoint(c: number): string | undefined {
  // Char per XML 1.0: not 0, no surrogate, within Unicode.
  if (!Number.isInteger(c) || c === 0 || (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff) return undefined;
  return String.fromCodePoint(c);
}

function clipped(s: string): string {
  return JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…` : s);
}

/** The element's children named `name` (without prefix, as localName). */
export function childrenNamed(el: XmlElement, name: string): XmlElement[] {
  return el.children.filter((c) => localName(c.name) === name);
}

/** The first child named `name`, or undefined. */
export function childNamed(el: XmlElement, name: string): XmlElement | undefined {
  return el.children.find((c) => localName(c.name) === name);
}
