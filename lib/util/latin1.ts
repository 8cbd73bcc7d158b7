/**
 * Text we write into a message whose character set is Latin-1 (or ASCII, read
 * and written as Latin-1 so received bytes go back unchanged), as bytes.
 * `Buffer.from(text, 'latin1')` keeps only the low byte of a character above
 * U+00FF: `…` (U+2026) became `&`, HL7's subcomponent separator, and cut the
 * ERR-8 of our own ACK short; `ż` (U+017C) would be ASTM's `|` in a patient
 * name (issue 23). A character the set cannot carry is written `?` instead,
 * visibly, and never as a byte of another character.
 */

const BEYOND = /[^\u0000-\u00ff]/u;
const BEYOND_ALL = /[^\u0000-\u00ff]/gu;

export function latin1Bytes(text: string): Buffer {
  return Buffer.from(BEYOND.test(text) ? text.replace(BEYOND_ALL, '?') : text, 'latin1');
}
