/**
 * Files that hold patient data (the result journal, the frame traces): the
 * directory owner-only (0700), each file owner-only (0600). Modes are set
 * again after creation because the umask may have widened them, or the file
 * may predate us.
 */
import { promises as fs } from 'node:fs';

export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

export async function ensurePrivateDir(dir: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: DIR_MODE });
  await fs.chmod(dir, DIR_MODE);
}

export async function openPrivate(file: string, flags: number | string): Promise<fs.FileHandle> {
  const h = await fs.open(file, flags, FILE_MODE);
  try {
    await h.chmod(FILE_MODE);
  } catch (err) {
    await h.close().catch(() => undefined);
    throw err;
  }
  return h;
}
