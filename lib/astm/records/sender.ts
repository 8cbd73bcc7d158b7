/**
 * Who sent a message: H-5, the sender name or ID (LIS2-A2 §7.1.5), which
 * analyzers fill with `model^version^serial` or a configured instrument name.
 * Read from the raw text, without decoding the message, because the link
 * layer wants it for every message it receives (to know which analyzer is on
 * which TCP connection) and nothing else of the message.
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
    const first = field.split(d.repeat)[0]!.split(d.component)[0]!;
    return { text: unescapeText(field, d), name: unescapeText(first, d).trim() };
  } catch {
    // A header the decoder will refuse anyway names nobody worth routing to.
    return undefined;
  }
}
