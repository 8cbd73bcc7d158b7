/**
 * Frames as LIS1-A §6.3 defines them:
 *
 *   <STX> FN text <ETB> C1 C2 <CR> <LF>   intermediate frame
 *   <STX> FN text <ETX> C1 C2 <CR> <LF>   end frame
 *
 * Everything works on bytes. Checksums are sums of byte values, so a latin1
 * 'ü' (0xFC) counts as 252 whatever the text encoding is taken to be; decoding
 * first is how other bridges came to NAK every accented frame.
 */
import { CR, ETB, ETX, LF, STX } from '../control';
import { FRAME_OVERHEAD } from './options';

const HEX = '0123456789ABCDEF';

/** The 8-bit sum of §6.3.3 over `bytes`, which must run from FN through ETB/ETX inclusive. */
export function checksumValue(bytes: Uint8Array): number {
  let sum = 0;
  for (const b of bytes) sum = (sum + b) & 0xff;
  return sum;
}

/** The two characters C1 C2 for `bytes` (FN through ETB/ETX), upper case, most significant first (§6.3.3.2). */
export function checksum(bytes: Uint8Array): string {
  return hexPair(checksumValue(bytes));
}

export function hexPair(value: number): string {
  return HEX.charAt((value >> 4) & 0x0f) + HEX.charAt(value & 0x0f);
}

/** Value of one received hex digit; lower case is accepted (senders get it wrong), anything else is -1. */
export function hexDigit(b: number): number {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  if (b >= 0x41 && b <= 0x46) return b - 0x41 + 10;
  if (b >= 0x61 && b <= 0x66) return b - 0x61 + 10;
  return -1;
}

/**
 * Characters that may not appear in message text (§6.6.2): SOH, STX, ETX, EOT,
 * ENQ, ACK, DLE, NAK, SYN, ETB, LF, DC1-DC4. We refuse to send them; on
 * receipt the checksum is the judge (see frame-reader.ts).
 */
const RESTRICTED = new Set([0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x10, 0x15, 0x16, 0x17, 0x0a, 0x11, 0x12, 0x13, 0x14]);

export function findRestricted(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; i++) if (RESTRICTED.has(bytes[i]!)) return i;
  return -1;
}

export type FrameEnd = 'ETB' | 'ETX';

export interface BuildOptions {
  /** Text characters per frame at most (default 240). */
  frameTextMax?: number;
  /** Begin each record in a new frame. */
  framePerRecord?: boolean;
  /** With framePerRecord: ETB (default) or ETX after each record but the last. */
  recordFrameEnd?: FrameEnd;
  /** Append C1 C2 (default true). */
  checksums?: boolean;
  /** Number of the first frame; the transfer phase starts at 1 (§6.3.2.1). */
  firstFrameNumber?: number;
}

/** One frame, FN taken modulo 8. */
export function buildFrame(frameNumber: number, text: Uint8Array, end: FrameEnd, checksums = true): Buffer {
  const out = Buffer.alloc(text.length + FRAME_OVERHEAD - (checksums ? 0 : 2));
  let i = 0;
  out[i++] = STX;
  out[i++] = 0x30 + (((frameNumber % 8) + 8) % 8);
  out.set(text, i);
  i += text.length;
  out[i++] = end === 'ETX' ? ETX : ETB;
  if (checksums) {
    // FN through ETB/ETX: the bytes just written after STX.
    const cs = checksum(out.subarray(1, i));
    out[i++] = cs.charCodeAt(0);
    out[i++] = cs.charCodeAt(1);
  }
  out[i++] = CR;
  out[i] = LF;
  return out;
}

/** Records of a message, each with its CR; a last record without CR is kept as it is. */
export function splitRecords(message: Uint8Array): Buffer[] {
  const records: Buffer[] = [];
  let start = 0;
  for (let i = 0; i < message.length; i++) {
    if (message[i] === CR) {
      records.push(Buffer.from(message.subarray(start, i + 1)));
      start = i + 1;
    }
  }
  if (start < message.length) records.push(Buffer.from(message.subarray(start)));
  return records;
}

/**
 * The frames that carry one message. §6.3.1.1: a message starts in a new frame
 * and never shares one, so the first frame is numbered `firstFrameNumber` and
 * only the last ends with ETX (unless recordFrameEnd asks for ETX per record).
 */
export function buildFrames(message: Uint8Array, options: BuildOptions = {}): Buffer[] {
  const max = options.frameTextMax ?? 240;
  if (!Number.isInteger(max) || max < 1) throw new RangeError(`frameTextMax must be a positive integer, got ${max}`);
  const checksums = options.checksums ?? true;
  const chunks: { text: Uint8Array; end: FrameEnd }[] = [];
  const groups = options.framePerRecord ? splitRecords(message) : [Buffer.from(message)];
  groups.forEach((group, g) => {
    const lastGroup = g === groups.length - 1;
    for (let start = 0; start < group.length; start += max) {
      const text = group.subarray(start, Math.min(group.length, start + max));
      const lastOfGroup = start + max >= group.length;
      const end: FrameEnd = lastOfGroup && (lastGroup || options.recordFrameEnd === 'ETX') ? 'ETX' : 'ETB';
      chunks.push({ text, end });
    }
  });
  if (chunks.length === 0) chunks.push({ text: Buffer.alloc(0), end: 'ETX' });
  const first = options.firstFrameNumber ?? 1;
  return chunks.map((c, i) => buildFrame(first + i, c.text, c.end, checksums));
}
