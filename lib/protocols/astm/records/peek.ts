/**
 * What the link layer needs to know of every message it receives, read from
 * the raw text without decoding it (the dialect, and so the decoding, belong
 * to astm-message):
 * - who sent it: H-5, the sender name or ID (LIS2-A2 §7.1.5), which analyzers
 *   fill with `model^version^serial` or a configured instrument name, to know
 *   which analyzer is on which TCP connection;
 * - whether it carries results (R records, LIS2-A2 §10), the only messages
 *   whose repeat must never be processed twice;
 * - whether it holds nothing but queries (Q records, LIS2-A2 §12), the only
 *   messages not stored before their final ACK (docs/design-notes.md).
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

const Q = 0x51;
/** Record types a query message may hold besides its Q records: header, comment, terminator (LIS2-A2 §7, §11, §13). */
const QUERY_FRAME = new Set([0x48, 0x43, 0x4c]);

/**
 * Whether the message is a request for information only: one or more Q
 * records with nothing but H, C and L records around them. Anything else
 * (a P, O, R, M or S record, an empty line, a line feed after a CR) answers
 * false, so what cannot be told apart is stored like any other message.
 */
export function onlyQueries(message: Uint8Array): boolean {
  const field = message[0] === 0x48 && message.length > 1 ? message[1] : 0x7c;
  let queries = 0;
  let start = 0;
  while (start < message.length) {
    const type = message[start]!;
    if (message[start + 1] !== field) return false;
    if (type === Q) queries++;
    else if (!QUERY_FRAME.has(type)) return false;
    const end = message.indexOf(CR, start);
    if (end < 0) break;
    start = end + 1;
  }
  return queries > 0;
}
