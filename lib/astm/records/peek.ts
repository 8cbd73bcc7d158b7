/**
 * What the link layer needs to know of every message it receives, read from
 * the raw text without decoding it (the dialect, and so the decoding, belong
 * to astm-message):
 * - who sent it: H-5, the sender name or ID (LIS2-A2 §7.1.5), which analyzers
 *   fill with `model^version^serial` or a configured instrument name, to know
 *   which analyzer is on which TCP connection;
 * - whether it carries results (R records, LIS2-A2 §10), the only messages
 *   whose repeat must never be processed twice.
 */
import { isHeaderText, readHeaderDelimiters } from './delimiters';
import { unescapeText } from './escape';

export interface Sender {
  /** The field as written, escapes resolved. */
  text: string;
  /** Its first component, trimmed. */
  name: string;
}

/** The sender of a message (its first record must be the H record), or undefined when it names none. */
export function messageSender(message: Uint8Array): Sender | undefined {
  const bytes = Buffer.from(message.buffer, message.byteOffset, message.byteLength);
  const end = bytes.indexOf(0x0d);
  const header = bytes.toString('latin1', 0, end < 0 ? bytes.length : end);
  if (!isHeaderText(header)) return undefined;
  try {
    const d = readHeaderDelimiters(header);
    const field = header.split(d.field)[4];
    if (field === undefined || field.trim() === '') return undefined;
    const first = upTo(upTo(field, d.repeat), d.component);
    return { text: unescapeText(field, d), name: unescapeText(first, d).trim() };
  } catch {
    // A header the decoder will refuse anyway names nobody worth routing to.
    return undefined;
  }
}

/** The text before the first delimiter; all of it when the H declares no such delimiter (''). */
function upTo(text: string, delimiter: string): string {
  return delimiter === '' ? text : text.split(delimiter)[0]!;
}

const CR = 0x0d;
const R = 0x52;

/** Whether any record of the message is a result record (`R` and the field delimiter the H record declares). */
export function carriesResults(message: Uint8Array): boolean {
  // The field delimiter is the H record's second byte; without an H record, the standard's `|`.
  const field = message[0] === 0x48 && message.length > 1 ? message[1] : 0x7c;
  let start = 0;
  while (start < message.length) {
    if (message[start] === R && message[start + 1] === field) return true;
    const end = message.indexOf(CR, start);
    if (end < 0) break;
    start = end + 1;
  }
  return false;
}
