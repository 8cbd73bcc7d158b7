/**
 * An HL7 v2 message read into segments, fields, repetitions, components and
 * subcomponents (v2.5.1 chapter 2.5), losslessly: every segment keeps its
 * own text and the line end it came with (CR, LF or CR LF: analyzers send all
 * three, test/fixtures/SOURCES.md), so an unmodified message is its own text
 * again, byte for byte, without re-encoding anything.
 *
 * Parsing only finds the segments and checks their names; a segment's fields
 * are split the first time one is read, so a link that needs MSH-10 and MSH-15
 * does not pay for splitting sixty OBX segments.
 *
 * Positions are HL7's, 1-based: `field(5)` of an OBX is OBX-5, and in MSH,
 * field 1 is the field separator itself and field 2 the encoding characters.
 */
import { Hl7Error } from './errors';
import { type Hl7Delimiters, readDelimiters } from './delimiters';
import { type HexDecoder, latin1Hex, unescapeHl7 } from './escape';
import { type Hl7Charset, charsetOfMsh18, decodeText, encodeText, hexDecoderFor } from './charset';

/** Larger messages are refused: 8 MiB holds the URIT UT-5160's four base64 BMP histograms (about 1.3 MB) with room. */
export const DEFAULT_MAX_MESSAGE_LENGTH = 8 * 1024 * 1024;

export interface ParseOptions {
  /** Longest message accepted, in characters (bytes for parseHl7Bytes). Default DEFAULT_MAX_MESSAGE_LENGTH. */
  maxLength?: number;
  /** How `\X…\` hex sequences become text; default: the bytes as Latin-1. */
  hex?: HexDecoder;
}

/** A field's repetitions, each one's components when read, and the values read from it (key `rep.comp.sub`, '' for 1.1.1). */
interface FieldParts {
  reps: string[];
  comps?: (string[] | undefined)[];
  values?: Map<string, string>;
  raws?: Map<string, string>;
}

interface Context {
  readonly d: Hl7Delimiters;
  readonly hex: HexDecoder;
}

export class Hl7Segment {
  /** The segment ID, `MSH`, `OBX`, `ZXX` … */
  readonly name: string;
  /** The segment's text, without its line end. */
  readonly text: string;
  /** The line end it came with (`\r`, `\n`, `\r\n`, or '' for a last segment sent without one). */
  readonly end: string;
  /** 1-based position in the message (MSH is 1). */
  readonly index: number;
  private readonly ctx: Context;
  private parts?: string[];
  /**
   * Each field's repetitions, split once, and the values read from it: a
   * reader that asks for SPM-2 at every OBX, or for each of 20,000 NTE-3
   * repetitions, must not split or decode the same text again each time
   * (issue 23: a 39 KB message held the event loop for 8 s that way).
   */
  private cache?: (FieldParts | undefined)[];

  constructor(ctx: Context, name: string, text: string, end: string, index: number) {
    this.ctx = ctx;
    this.name = name;
    this.text = text;
    this.end = end;
    this.index = index;
  }

  /** The text split on the field separator: [name, field 1, field 2 …] (for MSH: [name, MSH-2, MSH-3 …]). */
  private split(): string[] {
    return (this.parts ??= this.text.split(this.ctx.d.field));
  }

  /** The highest field number present (trailing empty fields count: `OBX|1||` has 3). */
  get fieldCount(): number {
    const n = this.split().length - 1;
    return this.name === 'MSH' ? n + 1 : n;
  }

  /**
   * The raw text of field n, escapes and delimiters as sent; '' when absent.
   * MSH-1 is the field separator and MSH-2 the encoding characters.
   */
  rawField(n: number): string {
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`${this.name}: field numbers start at 1, got ${n}`);
    if (this.name === 'MSH') return n === 1 ? this.ctx.d.field : (this.split()[n - 1] ?? '');
    return this.split()[n] ?? '';
  }

  /** The raw text of each repetition of field n (one, '' , when the field is empty or absent). */
  rawRepetitions(n: number): string[] {
    return this.partsOf(n).reps.slice();
  }

  private partsOf(n: number): FieldParts {
    const cache = (this.cache ??= []);
    let parts = cache[n];
    if (parts === undefined) {
      const raw = this.rawField(n);
      const rep = this.ctx.d.repetition;
      parts = { reps: rep === undefined || this.isEncodingField(n) ? [raw] : splitOn(raw, rep) };
      cache[n] = parts;
    }
    return parts;
  }

  /** The components of repetition `rep` (1-based) of field n, split once. */
  private componentsOf(n: number, rep: number): string[] {
    const parts = this.partsOf(n);
    const comps = (parts.comps ??= []);
    return (comps[rep - 1] ??= splitOn(pick(parts.reps, rep), this.ctx.d.component));
  }

  /**
   * The decoded value at SEG-n, repetition rep, component comp, subcomponent
   * sub (1-based, each defaulting to the first); '' when absent. Decoded means
   * the escapes resolved (`\S\` is `^` again). `""` (HL7's explicit null) is
   * returned as the two quote characters: whether it means "delete" or "none"
   * is the reader's call (see isNull).
   */
  field(n: number, rep = 1, comp = 1, sub = 1): string {
    if (this.isEncodingField(n)) return rep === 1 && comp === 1 && sub === 1 ? this.rawField(n) : '';
    checkPosition(rep);
    checkPosition(comp);
    checkPosition(sub);
    const parts = this.partsOf(n);
    if ((parts.reps[rep - 1] ?? '') === '') return '';
    const key = rep === 1 && comp === 1 && sub === 1 ? '' : `${rep}.${comp}.${sub}`;
    const values = (parts.values ??= new Map());
    let value = values.get(key);
    if (value === undefined) {
      value = this.decode(pick(this.componentsOf(n, rep), comp), sub);
      values.set(key, value);
    }
    return value;
  }

  /** The decoded value of component comp (subcomponent sub) in every repetition of field n. */
  fieldAll(n: number, comp = 1, sub = 1): string[] {
    if (this.isEncodingField(n)) return [this.field(n, 1, comp, sub)];
    checkPosition(comp);
    checkPosition(sub);
    const { reps } = this.partsOf(n);
    const component = this.ctx.d.component;
    // One pass over each repetition, without the cache: each is read once here.
    return reps.map((raw) => (raw === '' ? '' : this.decode(comp === 1 && !raw.includes(component) ? raw : pick(splitOn(raw, component), comp), sub)));
  }

  /** SEG-n, repetition rep, component comp, subcomponent sub as it arrived: escapes unresolved; '' when absent. */
  rawAt(n: number, rep = 1, comp = 1, sub = 1): string {
    if (this.isEncodingField(n)) return rep === 1 && comp === 1 && sub === 1 ? this.rawField(n) : '';
    checkPosition(sub);
    // Kept, as decoded values are: a reader asks at every OBX for the same place of one SPM or PID.
    const raws = (this.partsOf(n).raws ??= new Map());
    const key = `${rep}.${comp}.${sub}`;
    let raw = raws.get(key);
    if (raw === undefined) {
      raw = pick(splitOn(pick(this.componentsOf(n, rep), comp), this.ctx.d.subcomponent), sub);
      raws.set(key, raw);
    }
    return raw;
  }

  /** Subcomponent sub of a component's raw text, its escapes resolved. */
  private decode(component: string, sub: number): string {
    const text = sub === 1 && (this.ctx.d.subcomponent === undefined || !component.includes(this.ctx.d.subcomponent)) ? component : pick(splitOn(component, this.ctx.d.subcomponent), sub);
    return unescapeHl7(text, this.ctx.d, this.ctx.hex);
  }

  /** Every component of one repetition of field n, decoded (subcomponents left joined, raw). */
  components(n: number, rep = 1): string[] {
    if (this.isEncodingField(n)) return [this.rawField(n)];
    checkPosition(rep);
    return this.componentsOf(n, rep).map((c) => (this.ctx.d.subcomponent !== undefined && c.includes(this.ctx.d.subcomponent) ? c : unescapeHl7(c, this.ctx.d, this.ctx.hex)));
  }

  /** Whether field n is HL7's explicit null, `""`. */
  isNull(n: number): boolean {
    return this.rawField(n) === '""';
  }

  /**
   * The whole segment as a tree of raw strings: fields → repetitions →
   * components → subcomponents (index 0 is field 1). encodeTree() joins it back;
   * a test of the codec checks that this gives the text again.
   */
  tree(): string[][][][] {
    const { component, subcomponent } = this.ctx.d;
    const out: string[][][][] = [];
    for (let n = 1; n <= this.fieldCount; n++) {
      out.push(this.rawRepetitions(n).map((r) => (this.isEncodingField(n) ? [[r]] : splitOn(r, component).map((c) => splitOn(c, subcomponent)))));
    }
    return out;
  }

  /** The segment's text rebuilt from tree(), without its line end. */
  encodeTree(): string {
    const { field, component, repetition = '', subcomponent = '' } = this.ctx.d;
    const fields = this.tree().map((reps) => reps.map((comps) => comps.map((subs) => subs.join(subcomponent)).join(component)).join(repetition));
    // MSH-1 is the separator between the name and MSH-2, not a field between separators.
    if (this.name === 'MSH') return [this.name, ...fields.slice(1)].join(field);
    return [this.name, ...fields].join(field);
  }

  private isEncodingField(n: number): boolean {
    return this.name === 'MSH' && (n === 1 || n === 2);
  }
}

export class Hl7Message {
  /** The message's text, exactly as received. */
  readonly text: string;
  readonly delimiters: Hl7Delimiters;
  readonly segments: readonly Hl7Segment[];
  /** The character set the text was read in, when it came from bytes. */
  readonly charset?: Hl7Charset;
  /** Set when the bytes were not valid in the character set meant, and were read as Latin-1 instead. */
  readonly fellBackFrom?: Hl7Charset;

  constructor(text: string, delimiters: Hl7Delimiters, segments: Hl7Segment[], charset?: { charset: Hl7Charset; fellBackFrom?: Hl7Charset }) {
    this.text = text;
    this.delimiters = delimiters;
    this.segments = segments;
    if (charset !== undefined) {
      this.charset = charset.charset;
      if (charset.fellBackFrom !== undefined) this.fellBackFrom = charset.fellBackFrom;
    }
  }

  get msh(): Hl7Segment {
    return this.segments[0] as Hl7Segment;
  }

  /** The line end of the first segment: the sender's habit (a new message is written with CR). */
  get segmentEnd(): string {
    return this.segments[0]?.end || '\r';
  }

  /** The nth segment named `name` (1-based), or undefined. */
  segment(name: string, nth = 1): Hl7Segment | undefined {
    let seen = 0;
    for (const s of this.segments) if (s.name === name && ++seen === nth) return s;
    return undefined;
  }

  /** Every segment named `name`, in order. */
  all(name: string): Hl7Segment[] {
    return this.segments.filter((s) => s.name === name);
  }

  /** The message's text, as received: no re-encoding. */
  toString(): string {
    return this.text;
  }

  /** The message's bytes in the character set it was read in (the received bytes again). */
  toBytes(): Buffer {
    return encodeText(this.text, this.charset ?? 'latin1');
  }

  /** The message rebuilt from each segment's tree and line end (see Hl7Segment.tree). */
  encodeTree(): string {
    return this.segments.map((s) => s.encodeTree() + s.end).join('');
  }
}

/** Reads a message's text. Throws Hl7Error, naming the segment and field, when it is not HL7 v2. */
export function parseHl7(text: string, options: ParseOptions = {}): Hl7Message {
  return parseWith(text, options);
}

export interface BytesOptions extends Omit<ParseOptions, 'hex'> {
  /** The link's character set, used when MSH-18 states none (or one this package cannot read). Default 'latin1'. */
  charset?: Hl7Charset;
  /** Whether MSH-18 overrides the link's character set when it names one. Default true. */
  useMsh18?: boolean;
}

/**
 * Reads a message's bytes (one MLLP frame's content): the character set is
 * MSH-18's when it states one this package reads, else the link's (see
 * charset.ts for why no byte is ever lost).
 */
export function parseHl7Bytes(bytes: Uint8Array, options: BytesOptions = {}): Hl7Message {
  const max = options.maxLength ?? DEFAULT_MAX_MESSAGE_LENGTH;
  if (bytes.length > max) throw new Hl7Error(`the message is ${bytes.length} bytes, more than the ${max} allowed`);
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const stated = options.useMsh18 === false ? undefined : statedCharset(buf);
  const decoded = decodeText(buf, stated ?? options.charset ?? 'latin1');
  return parseWith(decoded.text, { maxLength: max, hex: hexDecoderFor(decoded.charset) }, decoded);
}

/** MSH-18 of a message's bytes, read before the text is decoded (the MSH segment is ASCII). */
export function statedCharset(bytes: Buffer): Hl7Charset | undefined {
  if (bytes.length < 8 || bytes.toString('latin1', 0, 3) !== 'MSH') return undefined;
  let end = bytes.indexOf(0x0d);
  const lf = bytes.indexOf(0x0a);
  if (end < 0 || (lf >= 0 && lf < end)) end = lf;
  const msh = bytes.toString('latin1', 0, end < 0 ? bytes.length : end);
  const fields = msh.split(msh.charAt(3));
  const value = fields[17] ?? '';
  const rep = fields[1]?.charAt(1);
  const first = rep ? value.split(rep)[0] ?? '' : value;
  return charsetOfMsh18(first);
}

function parseWith(text: string, options: ParseOptions, charset?: { charset: Hl7Charset; fellBackFrom?: Hl7Charset }): Hl7Message {
  const max = options.maxLength ?? DEFAULT_MAX_MESSAGE_LENGTH;
  if (text.length > max) throw new Hl7Error(`the message is ${text.length} characters, more than the ${max} allowed`);
  if (!text.startsWith('MSH')) {
    throw new Hl7Error(`the message does not start with an MSH segment (it starts ${JSON.stringify(text.slice(0, 12))}); an HL7 v2 message starts with MSH and its delimiters`, { segment: 1 });
  }
  const { delimiters } = readDelimiters(text);
  const ctx: Context = { d: delimiters, hex: options.hex ?? latin1Hex };
  const segments: Hl7Segment[] = [];
  const fieldCode = delimiters.field.charCodeAt(0);
  let i = 0;
  // The next CR and LF at or after i, each searched for again only once passed: a message of CRs only
  // must not have the rest of its text searched for an LF at every segment (quadratic in segments).
  let cr = -2;
  let lf = -2;
  while (i < text.length) {
    if (cr !== -1 && cr < i) cr = text.indexOf('\r', i);
    if (lf !== -1 && lf < i) lf = text.indexOf('\n', i);
    const end = cr < 0 ? (lf < 0 ? text.length : lf) : lf < 0 ? cr : Math.min(cr, lf);
    let next = end;
    while (next < text.length && (text.charCodeAt(next) === 13 || text.charCodeAt(next) === 10)) next++;
    const body = text.slice(i, end);
    const index = segments.length + 1;
    if (!isSegmentName(body, fieldCode)) {
      const name = body.slice(0, 3);
      throw new Hl7Error(
        `${JSON.stringify(body.slice(0, 12))} does not start with a segment name (3 letters or digits, then ${JSON.stringify(delimiters.field)})${body === '' ? ': an empty segment' : ''}`,
        { segment: index, ...(name.length === 3 && /^[A-Za-z0-9]{3}$/.test(name) ? { name } : {}) },
      );
    }
    // The usual line ends as constants: a message of many tiny segments must not pay a slice for each.
    const lineEnd = next - end === 1 ? (text.charCodeAt(end) === 13 ? '\r' : '\n') : text.slice(end, next);
    segments.push(new Hl7Segment(ctx, body.slice(0, 3), body, lineEnd, index));
    i = next;
  }
  return new Hl7Message(text, delimiters, segments, charset);
}

function isSegmentName(body: string, fieldCode: number): boolean {
  if (body.length < 3 || (body.length > 3 && body.charCodeAt(3) !== fieldCode)) return false;
  for (let k = 0; k < 3; k++) {
    const c = body.charCodeAt(k);
    if (!((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122))) return false;
  }
  return true;
}

function splitOn(text: string, sep: string | undefined): string[] {
  return sep === undefined || !text.includes(sep) ? [text] : text.split(sep);
}

function checkPosition(n: number): void {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`HL7 positions start at 1, got ${n}`);
}

function pick(parts: string[], n: number): string {
  checkPosition(n);
  return parts[n - 1] ?? '';
}
