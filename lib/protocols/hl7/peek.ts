/**
 * What the link node needs to know of a received HL7 message without
 * decoding it: who sent it (MSH-3, or MSH-4 when MSH-3 is empty as the
 * Mindray CL leaves it, to route downloads by name), and whether it carries
 * results (whose repeat must never be processed twice).
 */
import { isQuery } from './ack-plan';
import { parseHl7Bytes, type Hl7Segment } from './message';

/** Message types that carry results: ORU^R01 (v2.3.1 and v2.5.1 ch. 7), OUL^R21 to R24 (LAW's R22; ch. 7). */
const RESULT_TYPES = new Set(['ORU', 'OUL']);

/** The sender of a message: its MSH-3 (or MSH-4) as written, and the first component; undefined when it names none. */
export function hl7Sender(message: Uint8Array): { text: string; name: string } | undefined {
  const msh = header(message);
  if (!msh) return undefined;
  for (const n of [3, 4]) {
    const text = msh.components(n).join(' ').trim();
    if (text !== '') return { text: msh.rawField(n), name: msh.field(n).trim() || text };
  }
  return undefined;
}

/** Whether the message is a result message (ORU, OUL) with at least one OBX. */
export function hl7CarriesResults(message: Uint8Array): boolean {
  const msh = header(message);
  if (!msh || !RESULT_TYPES.has(msh.field(9))) return false;
  const text = Buffer.from(message.buffer, message.byteOffset, message.byteLength).toString('latin1');
  return /[\r\n]OBX./.test(text);
}

/** Whether a message is a host query (QRY, QBP): the link neither stores it nor holds it for the disk. */
export function hl7IsQuery(message: Uint8Array): boolean {
  const msh = header(message);
  return msh !== undefined && isQuery(msh);
}

/**
 * MSH segments the link machine already read, by the very bytes it passes on:
 * the link node asks of each message who sent it, whether it is a query and
 * whether it carries results, and one parse serves them all. Weak, so a
 * message's entry goes with it.
 */
const known = new WeakMap<Uint8Array, Hl7Segment>();

/** The link machine read this message's MSH: the questions above use it instead of parsing it again. */
export function rememberHeader(message: Uint8Array, msh: Hl7Segment): void {
  known.set(message, msh);
}

function header(message: Uint8Array): Hl7Segment | undefined {
  const remembered = known.get(message);
  if (remembered) return remembered;
  const bytes = Buffer.from(message.buffer, message.byteOffset, message.byteLength);
  let end = 0;
  while (end < bytes.length && bytes[end] !== 0x0d && bytes[end] !== 0x0a) end++;
  try {
    return parseHl7Bytes(bytes.subarray(0, end), { charset: 'utf8' }).msh;
  } catch {
    return undefined;
  }
}

const MSA = Buffer.from('MSA', 'latin1');

/**
 * Whether bytes read or written hold a negative acknowledgement (MSA-1 AE,
 * AR, CE or CR; HL7 table 0008), for the link's NAK count. A cheap look at
 * the MSA segment's first field, no decoding: it runs on every read and write.
 */
export function isNegativeAck(bytes: Uint8Array): boolean {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = buf.indexOf(MSA); at !== -1; at = buf.indexOf(MSA, at + 3)) {
    const before = at === 0 ? 0x0d : buf[at - 1];
    const sep = buf[at + 3];
    if ((before !== 0x0d && before !== 0x0a && before !== 0x0b) || sep === undefined || buf[at + 6] !== sep) continue;
    const a = buf[at + 4];
    const b = buf[at + 5];
    if ((a === 0x41 || a === 0x43) && (b === 0x45 || b === 0x52)) return true;
  }
  return false;
}
