/**
 * The encoder's output as bytes, one per character, turned into a string once
 * per message. Building a record's text from a dozen fields and their
 * components by string concatenation (or arrays joined) made the encoder spend
 * more on allocating and then flattening the intermediate strings than on
 * looking at the characters (npm run bench, section 1): here each character is
 * looked at and copied in the same step, and the only string made is the
 * result.
 *
 * Only characters below U+0100 fit in a byte: a text holding any other
 * character (a UTF-8 dialect's patient name, say) is refused (false), and the
 * encoder writes that record, or the message, the way it always did, with
 * strings.
 */
import { LONG_TEXT, firstRestricted, holdsDelimiter, type Syntax } from './syntax';

/** A writer that grew past this is not kept for the next message. */
const KEEP_MAX = 1 << 20;

export class TextWriter {
  private buf = Buffer.allocUnsafe(4096);
  pos = 0;

  /**
   * Writes a component's text when it is written as it is: no delimiter,
   * escape or restricted character, nothing from U+0100 on. false, and
   * nothing written, otherwise.
   */
  plain(text: string, s: Syntax): boolean {
    const n = text.length;
    if (this.pos + n > this.buf.length) this.grow(n);
    if (n >= LONG_TEXT) return this.longPlain(text, s);
    const classes = s.classes;
    const b = this.buf;
    let p = this.pos;
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c > 255 || classes[c] !== 0) return false;
      b[p++] = c;
    }
    this.pos = p;
    return true;
  }

  /** Writes any text (already escaped) whose characters are all below U+0100; false, and nothing written, otherwise. */
  text(text: string): boolean {
    const n = text.length;
    if (this.pos + n > this.buf.length) this.grow(n);
    if (n >= LONG_TEXT && this.ascii(text)) return true;
    const b = this.buf;
    let p = this.pos;
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c > 255) return false;
      b[p++] = c;
    }
    this.pos = p;
    return true;
  }

  /** One character below U+0100 (a delimiter or separator the caller checked). */
  byte(code: number): void {
    if (this.pos === this.buf.length) this.grow(1);
    this.buf[this.pos++] = code;
  }

  /** Everything written, as a string. */
  result(): string {
    return this.buf.toString('latin1', 0, this.pos);
  }

  /**
   * plain() for long data (a base64 histogram of tens of kB): memchr passes
   * for the characters that need escaping (syntax.ts, LONG_TEXT), and one
   * copy when the text is ASCII, which a Buffer writes as Latin-1 without a
   * look at each character.
   */
  private longPlain(text: string, s: Syntax): boolean {
    if (holdsDelimiter(text, s) || firstRestricted(text) >= 0) return false;
    return this.ascii(text) || this.text(text);
  }

  /** Writes a text in one copy if it is ASCII (its UTF-8 length is its length); false, and nothing written, otherwise. */
  private ascii(text: string): boolean {
    if (Buffer.byteLength(text, 'utf8') !== text.length) return false;
    this.pos += this.buf.write(text, this.pos, 'latin1');
    return true;
  }

  private grow(needed: number): void {
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + needed + 4096));
    this.buf.copy(bigger, 0, 0, this.pos);
    this.buf = bigger;
  }

  /** Whether it is small enough to keep for the next message. */
  get reusable(): boolean {
    return this.buf.length <= KEEP_MAX;
  }
}

let spare: TextWriter | undefined;

/**
 * A writer, empty. Taken from the spare slot, so that an encode that starts
 * another before it ends (a getter on a record that encodes, say) gets its
 * own.
 */
export function takeWriter(): TextWriter {
  const w = spare ?? new TextWriter();
  spare = undefined;
  w.pos = 0;
  return w;
}

export function giveBackWriter(w: TextWriter): void {
  if (w.reusable) spare = w;
}
