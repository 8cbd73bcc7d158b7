/**
 * A ZIP archive's central directory, read before anything is inflated: an
 * .xlsx workbook is one (./workbook.ts), and some instruments write a run's
 * CSV files into one (./archive.ts). Only what a results file needs: no
 * ZIP64, no encryption, at most MAX_ENTRIES entries (APPNOTE.TXT 4.3.12,
 * 4.3.16: the central directory header and its end record).
 */

import { excerpt } from './excerpt';

/** More entries than any workbook or run archive needs: each costs an inflate. */
const MAX_ENTRIES = 10_000;

const LOCAL = 0x04034b50;
const CENTRAL = 0x02014b50;
const END = 0x06054b50;

/** The bytes start as a ZIP archive does (a local file header). */
export function startsAsZip(bytes: Buffer): boolean {
  return bytes.length >= 4 && bytes.readUInt32LE(0) === LOCAL;
}

export interface ZipEntry {
  name: string;
  /** 0: stored, 8: deflated. */
  method: number;
  compressed: number;
  unpacked: number;
  /** Where its local header starts. */
  local: number;
}

/** Whose ZIP it is, for the errors: `workbook` or `archive`, why a directory may not hold together, and the error to throw. */
export interface ZipReader {
  noun: string;
  damaged: string;
  fail(message: string, setting: string): Error;
}

/** The ZIP's central directory, or the reader's error saying why the bytes are no ZIP it takes. */
export function zipEntries(bytes: Buffer, as: ZipReader): ZipEntry[] {
  // The end record is in the last 22 + 65535 bytes (its comment is at most 64 KB).
  let end = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 0xffff); i--) {
    if (bytes.readUInt32LE(i) === END) {
      end = i;
      break;
    }
  }
  if (end < 0) throw as.fail(`the file starts like a ZIP archive but has no ZIP directory at its end: ${as.damaged}`, 'format');
  const count = bytes.readUInt16LE(end + 10);
  const size = bytes.readUInt32LE(end + 12);
  const offset = bytes.readUInt32LE(end + 16);
  if (count === 0xffff || offset === 0xffffffff) throw as.fail(`the ${as.noun} is a ZIP64 archive (over 4 GB or 65535 entries), which no results export needs: not read`, 'format');
  if (count > MAX_ENTRIES) throw as.fail(`the ${as.noun}'s ZIP holds ${count} entries, more than the ${MAX_ENTRIES} a ${as.noun} needs: not read`, 'format');
  if (offset + size > end) throw as.fail(`the ${as.noun}'s ZIP directory points past its end: ${as.damaged}`, 'format');
  const entries: ZipEntry[] = [];
  let at = offset;
  for (let k = 0; k < count; k++) {
    if (at + 46 > end || bytes.readUInt32LE(at) !== CENTRAL) throw as.fail(`the ${as.noun}'s ZIP directory does not hold together: ${as.damaged}`, 'format');
    const nameLength = bytes.readUInt16LE(at + 28);
    entries.push({
      method: bytes.readUInt16LE(at + 10),
      compressed: bytes.readUInt32LE(at + 20),
      unpacked: bytes.readUInt32LE(at + 24),
      local: bytes.readUInt32LE(at + 42),
      name: bytes.toString('latin1', at + 46, at + 46 + nameLength),
    });
    at += 46 + nameLength + bytes.readUInt16LE(at + 30) + bytes.readUInt16LE(at + 32);
  }
  return entries;
}

/** Where an entry's data starts, after its local header; the reader's error when the header is not where the directory says. */
export function zipEntryData(bytes: Buffer, e: ZipEntry, as: ZipReader): number {
  if (e.local + 30 > bytes.length || bytes.readUInt32LE(e.local) !== LOCAL) throw as.fail(`the ${as.noun}'s ZIP entry ${excerpt(e.name, 60)} is not where its directory says: ${as.damaged}`, 'format');
  return e.local + 30 + bytes.readUInt16LE(e.local + 26) + bytes.readUInt16LE(e.local + 28);
}
