/**
 * Reading one file of the watched folder so that nothing outside it is read.
 * The name is opened without following a symbolic link, so a link swapped in
 * after the folder was listed is refused by the open itself, not by a check
 * made before it; what is measured and read is the opened handle, never the
 * name again; and the handle's real path must be directly in the folder's
 * real path (the folder itself may be reached through a link: that one is
 * the integrator's choice).
 */
import { constants, promises as fs, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import type { Observed } from './settle';

// Windows has neither: there the real path check alone keeps the edge.
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
// A FIFO swapped in under the name would hold the open for ever; non-blocking, it opens and is refused as no file.
const NON_BLOCK = constants.O_NONBLOCK ?? 0;

/** Why a name of the folder is not read. */
export type Refusal =
  | { kind: 'link' }
  | { kind: 'not-a-file' }
  /** Its real path, for the operator: the file is elsewhere. */
  | { kind: 'outside'; real: string };

export type FolderRead =
  | { kind: 'read'; bytes: Buffer; before: Observed; after: Observed }
  /** The file opened is not as it was looked at (`expected`): not read, `now` is how it looks. */
  | { kind: 'changed'; now: Observed }
  | { kind: 'refused'; refusal: Refusal };

/**
 * Reads the file at `path` (a name in the folder whose real path is
 * `folderReal`). Errors other than a link (ENOENT, EACCES) are thrown, for
 * the caller to word.
 */
export async function readInFolder(path: Buffer, folderReal: Buffer, expected?: Observed): Promise<FolderRead> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(path, constants.O_RDONLY | NO_FOLLOW | NON_BLOCK);
  } catch (err) {
    // ELOOP on Linux and macOS, EMLINK on FreeBSD: the name is a link.
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'EMLINK') return { kind: 'refused', refusal: { kind: 'link' } };
    throw err;
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) return { kind: 'refused', refusal: { kind: 'not-a-file' } };
    const real = await realPathOf(handle, path, st);
    if (real === undefined) return { kind: 'changed', now: lookOf(st) };
    if (!inFolder(real, folderReal)) return { kind: 'refused', refusal: { kind: 'outside', real: real.toString() } };
    const before = lookOf(st);
    if (expected !== undefined && (expected.size !== before.size || expected.mtimeMs !== before.mtimeMs)) return { kind: 'changed', now: before };
    const bytes = await handle.readFile();
    return { kind: 'read', bytes, before, after: lookOf(await handle.stat()) };
  } finally {
    await handle.close();
  }
}

export function lookOf(st: Stats): Observed {
  return { size: st.size, mtimeMs: st.mtimeMs };
}

/**
 * The opened file's real path: what the kernel says of the handle where it
 * can (Linux's /proc), else the name's real path when it still leads to the
 * same file; undefined when it no longer does (replaced since it was opened).
 */
async function realPathOf(handle: fs.FileHandle, path: Buffer, st: Stats): Promise<Buffer | undefined> {
  try {
    return await fs.readlink(`/proc/self/fd/${handle.fd}`, { encoding: 'buffer' });
  } catch {
    const real = await fs.realpath(path, { encoding: 'buffer' });
    const now = await fs.stat(real);
    return now.dev === st.dev && now.ino === st.ino ? real : undefined;
  }
}

/** Whether `real` names a file directly in `folder` (both real paths, compared byte for byte: names need not be UTF-8). */
function inFolder(real: Buffer, folder: Buffer): boolean {
  // Latin-1 maps each byte to one character and back: dirname cuts the bytes as they are.
  return Buffer.from(dirname(real.toString('latin1')), 'latin1').equals(folder);
}
