/**
 * File names as the file system holds them: bytes. A Windows share or an old
 * instrument may write a name that is not UTF-8 (a Latin-1 `é`); read as
 * text it would come back with U+FFFD, a name no file has. The watcher keeps
 * each name's bytes for every file operation and shows this text of it.
 */
import { createHash } from 'node:crypto';

/** The longest name most file systems take (ext4, XFS, NTFS and SMB: 255). */
export const MAX_NAME_BYTES = 255;

/** The name as text: UTF-8 where it is, each other byte written `\xHH` (so two names never show alike). */
export function shownName(raw: Buffer): string {
  const text = raw.toString('utf8');
  if (Buffer.byteLength(text) === raw.length && !text.includes('\uFFFD')) return text;
  let out = '';
  for (let i = 0; i < raw.length; ) {
    const n = sequenceAt(raw, i);
    out += n > 0 ? raw.toString('utf8', i, i + n) : `\\x${raw[i]!.toString(16).toUpperCase().padStart(2, '0')}`;
    i += Math.max(n, 1);
  }
  return out;
}

/** The length of the valid UTF-8 sequence starting at `i`, or 0. */
function sequenceAt(raw: Buffer, i: number): number {
  const b = raw[i]!;
  const n = b < 0x80 ? 1 : b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf5 ? 4 : 0;
  if (n <= 1 || i + n > raw.length) return n === 1 ? 1 : 0;
  const part = raw.subarray(i, i + n);
  // Decoding and encoding again gives the same bytes only for a well-formed sequence (no overlong form, no surrogate).
  return Buffer.from(part.toString('utf8')).equals(part) ? n : 0;
}

/**
 * `raw` with `suffix` after it, shortened to fit `MAX_NAME_BYTES` when it
 * would not: cut (never inside a UTF-8 character) and marked with a hash of
 * the whole name, so two long names never end under one shortened name.
 */
export function fitName(raw: Buffer, suffix: Buffer | string): Buffer {
  const tail = Buffer.isBuffer(suffix) ? suffix : Buffer.from(suffix);
  if (raw.length + tail.length <= MAX_NAME_BYTES) return Buffer.concat([raw, tail]);
  const mark = Buffer.from(`~${createHash('sha256').update(raw).digest('hex').slice(0, 8)}`);
  let cut = Math.max(0, MAX_NAME_BYTES - tail.length - mark.length);
  while (cut > 0 && (raw[cut]! & 0xc0) === 0x80) cut--;
  return Buffer.concat([raw.subarray(0, cut), mark, tail]);
}
