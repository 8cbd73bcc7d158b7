/**
 * Character sets: an HL7 message arrives as bytes and is read as text in the
 * character set the link is set to, or the one MSH-18 states (HL7 table 0211).
 * The bridge's rule (docs/design-notes.md, "Characters") holds here too: a byte
 * never turns into U+FFFD. ASCII is read as Latin-1 (its superset that maps
 * every byte to one character), and bytes that are not valid UTF-8 in a
 * message said to be UTF-8 are read as Latin-1 too and reported, so a wrong
 * setting or a lying MSH-18 shows as odd letters in one name, never as a
 * corrupted message or a different byte on the way back.
 */
import { isUtf8 } from 'node:buffer';
import { latin1Bytes } from '../../util/latin1';

export type Hl7Charset = 'ascii' | 'latin1' | 'utf8';

export const HL7_CHARSETS: readonly Hl7Charset[] = ['ascii', 'latin1', 'utf8'];

/**
 * The character set an MSH-18 value names, or undefined for one this package
 * cannot read (or an empty one). The captures spell it `ASCII`, `UNICODE`,
 * `UNICODE UTF-8` (test/fixtures/SOURCES.md); table 0211 also has `8859/1`,
 * and senders write `UTF-8`, `ISO-8859-1`, `ISO_IR 100` or `Latin1`. HL7 v2.3.1
 * left `UNICODE` without an encoding form; the Mindray BC-6200 and URIT
 * captures that state it send UTF-8, so it is read as UTF-8 (and falls back
 * to Latin-1 when the bytes are not UTF-8).
 */
export function charsetOfMsh18(value: string): Hl7Charset | undefined {
  const key = value.toUpperCase().replace(/[\s_-]/g, '');
  switch (key) {
    case 'ASCII':
    case 'USASCII':
    case 'ISOIR6':
      return 'ascii';
    case '8859/1':
    case 'ISO8859/1':
    case 'ISO88591':
    case 'LATIN1':
    case 'ISOIR100':
      return 'latin1';
    case 'UNICODE':
    case 'UNICODEUTF8':
    case 'UTF8':
      return 'utf8';
    default:
      return undefined;
  }
}

export interface DecodedText {
  text: string;
  /** The character set the text was read in ('latin1' when UTF-8 was meant but the bytes are not UTF-8). */
  charset: Hl7Charset;
  /** The character set meant (stated in MSH-18, or the link's) when the bytes could not be read in it. */
  fellBackFrom?: Hl7Charset;
}

/** Bytes to text in a character set, never losing a byte (see above). */
export function decodeText(bytes: Uint8Array, charset: Hl7Charset): DecodedText {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (charset === 'utf8') {
    if (isUtf8(buf)) return { text: buf.toString('utf8'), charset };
    return { text: buf.toString('latin1'), charset: 'latin1', fellBackFrom: 'utf8' };
  }
  return { text: buf.toString('latin1'), charset };
}

/**
 * Text to bytes: the inverse of decodeText (ASCII written as Latin-1, so a kept
 * high byte goes back unchanged). A character a Latin-1 or ASCII message
 * cannot carry is written `?`, never as the low byte of its code (which could
 * be a delimiter: `…` was `&`); lib/util/latin1.ts.
 */
export function encodeText(text: string, charset: Hl7Charset): Buffer {
  return charset === 'utf8' ? Buffer.from(text, 'utf8') : latin1Bytes(text);
}

/** The `\X…\` decoder for a character set. */
export function hexDecoderFor(charset: Hl7Charset): (bytes: Buffer) => string {
  return charset === 'utf8' ? (b) => (isUtf8(b) ? b.toString('utf8') : b.toString('latin1')) : (b) => b.toString('latin1');
}
