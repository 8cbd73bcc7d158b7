/**
 * The watched folder's lock file, `.lis-bridge.lock`: one Node-RED process
 * reads a folder, so two processes on one share (a second instance, a test
 * copy) never both deliver its files. Made with O_EXCL; it holds the
 * process's host, pid and a token of its own, and the holder touches it
 * every minute. Another process's lock is respected, and said, unless it is
 * stale: on this host, its pid no longer runs (or is this process's, left by
 * an earlier life with the same pid, a container's 1); from anywhere, it has
 * not changed for LOCK_STALE_MS as this process sees it (so no two hosts'
 * clocks are compared). A folder the process may not write gets no lock:
 * then nothing keeps another process out, and the caller says so.
 */
import { constants, promises as fs } from 'node:fs';
import { join } from 'node:path';

export const LOCK_NAME = '.lis-bridge.lock';
/** A lock unchanged this long is a dead holder's (its holder touches it every LOCK_TOUCH_MS). */
export const LOCK_STALE_MS = 10 * 60_000;
const LOCK_TOUCH_MS = 60_000;

export interface LockOwner {
  host: string;
  pid: number;
  token: string;
  /** When that process took the lock, ISO 8601: for the operator. */
  since: string;
}

export type LockState =
  | { held: true }
  /** The folder cannot hold a lock (read-only for this process): read without one. */
  | { held: false; unlockable: string }
  /** Another process holds it (`by` undefined: a lock file that could not be read as one). */
  | { held: false; by: LockOwner | undefined };

export class FolderLock {
  private readonly path: string;
  private touched = 0;
  /** The other process's lock as last seen, and since when it looked so (this process's clock). */
  private seen: { text: string; mtimeMs: number; since: number } | undefined;

  constructor(
    folder: string,
    private readonly me: Omit<LockOwner, 'since'>,
    private readonly isRunning: (pid: number) => boolean = running,
  ) {
    this.path = join(folder, LOCK_NAME);
  }

  /** Takes the lock, or keeps it (touched now and then); called at every poll. */
  async hold(now: number): Promise<LockState> {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await fs.writeFile(this.path, `${JSON.stringify({ ...this.me, since: new Date(now).toISOString() })}\n`, { flag: constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY });
        this.touched = now;
        this.seen = undefined;
        return { held: true };
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return { held: false, unlockable: code };
        if (code !== 'EEXIST') throw err;
      }
      const found = await this.read();
      if (found === undefined) continue; // gone since: try again
      if (found.owner?.token === this.me.token) {
        if (now - this.touched >= LOCK_TOUCH_MS) {
          await fs.utimes(this.path, new Date(now), new Date(now)).catch(() => undefined);
          this.touched = now;
        }
        return { held: true };
      }
      if (!this.stale(found, now)) return { held: false, by: found.owner };
      await fs.rm(this.path, { force: true });
    }
    return { held: false, by: undefined };
  }

  /** Removes the lock, when it is still this process's. */
  async release(): Promise<void> {
    const found = await this.read().catch(() => undefined);
    if (found?.owner?.token === this.me.token) await fs.rm(this.path, { force: true }).catch(() => undefined);
  }

  private async read(): Promise<{ owner: LockOwner | undefined; text: string; mtimeMs: number } | undefined> {
    try {
      const [text, st] = await Promise.all([fs.readFile(this.path, 'utf8'), fs.stat(this.path)]);
      return { owner: ownerOf(text), text, mtimeMs: st.mtimeMs };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  private stale(found: { owner: LockOwner | undefined; text: string; mtimeMs: number }, now: number): boolean {
    const o = found.owner;
    if (o !== undefined && o.host === this.me.host && (o.pid === this.me.pid || !this.isRunning(o.pid))) return true;
    if (this.seen === undefined || this.seen.text !== found.text || this.seen.mtimeMs !== found.mtimeMs) {
      this.seen = { text: found.text, mtimeMs: found.mtimeMs, since: now };
      return false;
    }
    return now - this.seen.since >= LOCK_STALE_MS;
  }
}

function ownerOf(text: string): LockOwner | undefined {
  try {
    const o = JSON.parse(text) as Partial<LockOwner>;
    if (typeof o.host === 'string' && typeof o.pid === 'number' && typeof o.token === 'string') return { host: o.host, pid: o.pid, token: o.token, since: String(o.since ?? '') };
  } catch {
    // Not a lock this package wrote: respected until it is stale.
  }
  return undefined;
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
