/**
 * A run's exports packed into one ZIP archive (the Absolute Q software's
 * "export all": its summary, fluorescence and multichannel CSVs together):
 * the dialect's `archive.member` names the one member it reads, which is
 * then read as the dialect's format says, as if it had come alone. Nothing
 * else in the archive is inflated. The member's inflated size is bounded by
 * maxUnpackedMB (its declared size first, then the bytes inflated), as a
 * workbook's is: a few kilobytes of ZIP can inflate to gigabytes.
 */
import { inflateRaw, inflateRawSync, type ZlibOptions } from 'node:zlib';
import { promisify } from 'node:util';
import { excerpt, excerptList } from './excerpt';
import type { FileDialectProfile } from './types';
import { DEFAULT_MAX_UNPACKED_MB } from './workbook';
import { startsAsZip, zipEntries, zipEntryData, type ZipEntry, type ZipReader } from './zip';

/** Why an archive's member cannot be had, and the setting to change (the reader wraps it in its own error). */
export class ArchiveError extends Error {
  constructor(
    message: string,
    readonly setting: string,
  ) {
    super(message);
    this.name = 'ArchiveError';
  }
}

const asArchive: ZipReader = {
  noun: 'archive',
  damaged: 'the file is damaged: cut short, or read as text on its way (an archive must arrive as bytes: Node-RED\'s file-in node set to "a single Buffer object")',
  fail: (message, setting) => new ArchiveError(message, setting),
};

const inflateRawAsync = promisify<Buffer, ZlibOptions, Buffer>(inflateRaw);

interface Planned {
  entry: ZipEntry;
  data: Buffer;
  limit: number;
  limitMB: number;
}

/** The member the dialect names, found in the directory and checked before anything is inflated. */
function plan(bytes: Buffer, profile: FileDialectProfile): Planned {
  const pattern = new RegExp(profile.archive!.member, 'u');
  if (!startsAsZip(bytes)) throw new ArchiveError('the file is no ZIP archive, and the dialect reads one (archive.member): leave archive out for a file that comes alone', 'archive');
  const entries = zipEntries(bytes, asArchive).filter((e) => !e.name.endsWith('/'));
  const matching = entries.filter((e) => pattern.test(e.name.split('/').pop()!));
  const names = excerptList(entries.map((e) => e.name));
  if (matching.length === 0) throw new ArchiveError(`the archive holds no member whose name matches archive.member ${JSON.stringify(profile.archive!.member)}; it holds ${names}; set archive.member`, 'archive.member');
  if (matching.length > 1) throw new ArchiveError(`the archive holds ${matching.length} members whose names match archive.member ${JSON.stringify(profile.archive!.member)} (${excerptList(matching.map((e) => e.name))}); the dialect reads one, and the others' results would not be sent: narrow archive.member`, 'archive.member');
  const entry = matching[0]!;
  const limitMB = profile.maxUnpackedMB ?? DEFAULT_MAX_UNPACKED_MB;
  const limit = limitMB * 1024 * 1024;
  if (entry.unpacked > limit) throw refuse(entry, `${Math.ceil(entry.unpacked / (1024 * 1024))} MB by its directory`, limitMB);
  if (entry.method !== 0 && entry.method !== 8) throw new ArchiveError(`the archive's member ${excerpt(entry.name, 60)} uses compression method ${entry.method}; only stored and deflated members are read`, 'archive');
  const start = zipEntryData(bytes, entry, asArchive);
  return { entry, data: bytes.subarray(start, start + entry.compressed), limit, limitMB };
}

function refuse(entry: ZipEntry, total: string, limitMB: number): ArchiveError {
  return new ArchiveError(`the archive's member ${excerpt(entry.name, 60)} unpacks to ${total}, more than maxUnpackedMB ${limitMB} MB allows: not read (a damaged or hostile file; raise maxUnpackedMB only for an archive you trust)`, 'maxUnpackedMB');
}

function inflateFailed(p: Planned, err: unknown): ArchiveError {
  if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return refuse(p.entry, 'more than its directory says', p.limitMB);
  return new ArchiveError(`the archive's member ${excerpt(p.entry.name, 60)} does not inflate (${(err as Error).message}): ${asArchive.damaged}`, 'format');
}

/** The bytes of the member the dialect names (profile.archive), inflated here. */
export function archiveMember(bytes: Buffer, profile: FileDialectProfile): Buffer {
  const p = plan(bytes, profile);
  if (p.entry.method === 0) return p.data;
  try {
    return inflateRawSync(p.data, { maxOutputLength: Math.max(1, p.limit) });
  } catch (err) {
    throw inflateFailed(p, err);
  }
}

/** The same, inflated on libuv's thread pool: the event loop is not held while a large member inflates. */
export async function archiveMemberOffLoop(bytes: Buffer, profile: FileDialectProfile): Promise<Buffer> {
  const p = plan(bytes, profile);
  if (p.entry.method === 0) return p.data;
  try {
    return await inflateRawAsync(p.data, { maxOutputLength: Math.max(1, p.limit) });
  } catch (err) {
    throw inflateFailed(p, err);
  }
}
