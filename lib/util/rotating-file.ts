/**
 * An append-only log file rotated by size and pruned by age and count, for
 * files that may hold patient data (the frame traces): owner-only, and never
 * in the way of the caller. Knows nothing of what it stores; an entry is a
 * string or bytes, usually one line with its own newline.
 *
 * - Files: `<dir>/<name>.log` is current; a rotated one is renamed to
 *   `<name>.<yyyymmddThhmmssZ>[-n].log` (UTC, n counting rotations within the
 *   same second), so names sort by age.
 * - An entry is never split: the file is rotated before an entry that would
 *   take it past maxBytes, and an entry larger than that gets a file of its
 *   own.
 * - append() never throws and never waits for the disk: entries are queued in
 *   memory and appended in order by a single async writer, at most `batchMs`
 *   after they were appended (default 0: at once), so entries that come in
 *   quick succession share one write. Entries that
 *   cannot be written are dropped and counted, and the count goes into the
 *   file (see lostNote) once writing works again. Failures are reported at
 *   most once a minute.
 * - Whether the path still names the open file (see reopenIfMoved) is checked
 *   at most once every `movedCheckMs` (default 0: before every write), and
 *   always on flush() and close().
 */
import { promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { ensurePrivateDir, openPrivate } from './private-files';

export interface RotatingFileOptions {
  /** Directory; created with mode 0700 if missing. */
  dir: string;
  /** Base of the file names (characters other than [A-Za-z0-9._-] become '_'). */
  name: string;
  /** Rotate the current file when an entry would take it past this size (default 10 MiB). */
  maxBytes?: number;
  /** Rotated files kept besides the current one (default 10). */
  maxFiles?: number;
  /** Rotated files whose mtime is older than this are deleted (default 30). */
  maxAgeDays?: number;
  /** Beyond this much unwritten data new entries are dropped (and counted), so a dead disk cannot eat the memory (default 8 MiB). */
  maxPendingBytes?: number;
  /**
   * The entry that stands in the file where `count` entries went missing;
   * `reason` is printable ASCII. Without it losses are only reported.
   */
  lostNote?: (count: number, reason: string) => string | Uint8Array;
  /** Told when writing or pruning fails, at most once a minute; writing goes on. */
  onError?: (err: Error) => void;
  /**
   * Entries wait up to this long (ms) to be written together (default 0). What
   * is waiting is lost if the process is killed, as anything not yet written is.
   */
  batchMs?: number;
  /** Check that the file was not moved or deleted at most this often (ms; default 0: before every write). */
  movedCheckMs?: number;
  /** Clock, for tests. */
  now?: () => Date;
}

const MiB = 1024 * 1024;
const ERROR_INTERVAL_MS = 60_000;
const PRUNE_INTERVAL_MS = 3_600_000;
const DAY_MS = 86_400_000;

interface Rotated {
  path: string;
  stamp: string;
  n: number;
}

export class RotatingFile {
  /** Path of the current file. */
  readonly file: string;

  private readonly dir: string;
  private readonly name: string;
  private readonly maxBytes: number;
  private readonly maxFiles: number;
  private readonly maxAgeMs: number;
  private readonly maxPending: number;
  private readonly lostNote: ((count: number, reason: string) => string | Uint8Array) | undefined;
  private readonly onError: ((err: Error) => void) | undefined;
  private readonly now: () => Date;
  private readonly batchMs: number;
  private readonly movedCheckMs: number;

  private queue: Buffer[] = [];
  private queuedBytes = 0;
  private lost = 0;
  private lostReason = '';
  /** Queue position of the first entry lost since the last note: the note is written there. */
  private lostAt = 0;
  private handle: FileHandle | undefined;
  private size = 0;
  /** Identity of the open file, to notice it being removed or replaced. */
  private ino = 0;
  private dev = 0;
  private lastPrune = -Infinity;
  private lastRotation: { stamp: string; n: number } | undefined;
  private lastError = -Infinity;
  /** The writer: only one runs at a time, so entries reach the file in order. */
  private busy = false;
  private running: Promise<void> = Promise.resolve();
  private closed = false;
  private closing: Promise<void> | undefined;
  /** The timer of a batch waiting to be written (batchMs). */
  private batchTimer: NodeJS.Timeout | undefined;
  private checkedAt = -Infinity;
  /** flush() wants the path checked before its write, whenever it was checked last. */
  private checkNow = false;

  constructor(options: RotatingFileOptions) {
    this.dir = options.dir;
    this.name = options.name.replace(/[^A-Za-z0-9._-]/g, '_') || '_';
    this.file = join(this.dir, `${this.name}.log`);
    this.maxBytes = positive(options.maxBytes, 10 * MiB);
    this.maxFiles = Math.floor(nonNegative(options.maxFiles, 10));
    this.maxAgeMs = positive(options.maxAgeDays, 30) * DAY_MS;
    this.maxPending = positive(options.maxPendingBytes, 8 * MiB);
    this.lostNote = options.lostNote;
    this.onError = options.onError;
    this.now = options.now ?? (() => new Date());
    this.batchMs = nonNegative(options.batchMs, 0);
    this.movedCheckMs = nonNegative(options.movedCheckMs, 0);
    // Open (and prune) now, so old files go even if nothing is ever appended.
    this.kick();
  }

  /**
   * Queues one entry (a string is written as UTF-8). Never throws; bytes are
   * copied, so the caller may reuse its buffer. Ignored once close() was called.
   */
  append(entry: string | Uint8Array): void {
    if (this.closing) return;
    const bytes = typeof entry === 'string' ? Buffer.from(entry, 'utf8') : Buffer.from(entry);
    if (this.queuedBytes + bytes.length > this.maxPending) {
      this.drop(1, new Error(`more than ${sizeText(this.maxPending)} waiting to be written`));
      return;
    }
    this.queue.push(bytes);
    this.queuedBytes += bytes.length;
    if (this.batchMs === 0) this.kick();
    else if (this.batchTimer === undefined && !this.busy) this.batchTimer = setTimeout(() => this.kick(), this.batchMs);
  }

  /**
   * Counts entries that will never reach append() (the caller failed to make
   * them); the count goes into the file at this point of the sequence.
   */
  drop(count: number, err: unknown): void {
    const error = err instanceof Error ? err : new Error(String(err));
    if (count > 0) {
      if (this.lost === 0) this.lostAt = this.queue.length;
      this.lost += count;
      this.lostReason = error.message.replace(/[^\x20-\x7e]+/g, ' ');
    }
    this.report(error);
  }

  /** Resolves when everything queued is written (or failed, see onError). */
  async flush(): Promise<void> {
    this.checkNow = true;
    while (this.busy) await this.running;
    // Try once more even after a failure: the caller wants the entries out now.
    if (this.hasWork()) {
      this.kick();
      await this.running;
    }
  }

  /** Flushes, then closes the file; later appends are ignored. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.flush();
      this.closed = true;
      await this.closeHandle();
    })();
    return this.closing;
  }

  private hasWork(): boolean {
    return !this.closed && (this.handle === undefined || this.queue.length > 0 || this.lost > 0);
  }

  private kick(): void {
    if (this.batchTimer !== undefined) clearTimeout(this.batchTimer);
    this.batchTimer = undefined;
    if (this.busy) return;
    this.busy = true;
    this.running = this.drain();
  }

  /** The single writer. Never rejects; on failure it stops and the next append or flush tries again. */
  private async drain(): Promise<void> {
    let batch: Buffer[] = [];
    let taken = 0; // length of the batch as taken, before write() removes what it wrote
    let noteAt = -1; // where the "entries lost" note sits in it, if any
    let told = 0; // entries that note counts
    try {
      while (this.hasWork()) {
        const at = this.clock();
        if (this.checkNow || at - this.checkedAt >= this.movedCheckMs) {
          this.checkNow = false;
          this.checkedAt = at;
          await this.reopenIfMoved();
        }
        await this.open();
        if (this.clock() - this.lastPrune >= PRUNE_INTERVAL_MS) await this.prune();
        batch = this.queue;
        this.queue = [];
        this.queuedBytes = 0;
        told = this.lost;
        noteAt = -1;
        if (told > 0) {
          const note = this.lostNote?.(told, this.lostReason);
          this.lost = 0;
          if (note !== undefined) {
            // The note goes where the entries went missing: after those queued before the loss.
            noteAt = Math.min(this.lostAt, batch.length);
            batch.splice(noteAt, 0, Buffer.from(note));
          }
        }
        taken = batch.length;
        await this.write(batch);
      }
    } catch (err) {
      // Drop what is queued too rather than hold patient data in memory for as
      // long as the disk stays broken; the count goes into the file later.
      const noteUnwritten = noteAt >= 0 && taken - batch.length <= noteAt;
      const dropped = batch.length + this.queue.length + (noteUnwritten ? told - 1 : 0);
      this.queue = [];
      this.queuedBytes = 0;
      this.drop(dropped, err);
      this.lostAt = 0;
      // The file or directory may be gone: open afresh next time.
      await this.closeHandle();
    } finally {
      this.busy = false;
    }
  }

  /**
   * Appends entries, rotating first whenever the next one would take the file
   * past maxBytes. Removes the entries written from `entries`, so on failure
   * what is left there is exactly what was lost.
   */
  private async write(entries: Buffer[]): Promise<void> {
    while (entries.length > 0) {
      let count = 0;
      let bytes = 0;
      for (const entry of entries) {
        if (this.size + bytes + entry.length > this.maxBytes && this.size + bytes > 0) break;
        bytes += entry.length;
        count += 1;
      }
      if (count === 0) {
        await this.rotate();
        continue;
      }
      const handle = await this.open();
      const data = count === 1 ? (entries[0] as Buffer) : Buffer.concat(entries.slice(0, count), bytes);
      // The file is open for appending (O_APPEND): each write lands at its end.
      for (let done = 0; done < data.length; ) done += (await handle.write(data, done, data.length - done)).bytesWritten;
      this.size += bytes;
      entries.splice(0, count);
    }
  }

  /**
   * Appending to a file that was deleted or renamed away (directory removed,
   * an outside logrotate) succeeds and the entries vanish; so check that the
   * path still names the open file, and open it afresh when not.
   */
  private async reopenIfMoved(): Promise<void> {
    if (this.handle === undefined) return;
    const stat = await fsp.stat(this.file).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return undefined;
      throw err;
    });
    if (stat === undefined || stat.ino !== this.ino || stat.dev !== this.dev) await this.closeHandle();
  }

  private async open(): Promise<FileHandle> {
    if (this.handle !== undefined) return this.handle;
    await ensurePrivateDir(this.dir);
    const handle = await openPrivate(this.file, 'a');
    try {
      const stat = await handle.stat();
      this.size = stat.size;
      this.ino = stat.ino;
      this.dev = stat.dev;
    } catch (err) {
      await handle.close().catch(() => undefined);
      throw err;
    }
    this.handle = handle;
    await this.prune();
    return handle;
  }

  private async closeHandle(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close().catch(() => undefined);
  }

  /** Renames the current file to `<name>.<yyyymmddThhmmssZ>[-n].log` and starts a new one. */
  private async rotate(): Promise<void> {
    await this.closeHandle();
    const stamp = this.now().toISOString().replace(/\.\d+Z$/, 'Z').replace(/[-:]/g, '');
    // Within one second the counter only goes up, even when older files of
    // that second were pruned already: a reused name would sort as the oldest
    // and be the next one pruned.
    let last = this.lastRotation?.stamp === stamp ? this.lastRotation.n : -1;
    for (const f of await this.rotatedFiles()) if (f.stamp === stamp) last = Math.max(last, f.n);
    const n = last + 1;
    const target = `${this.name}.${stamp}${n > 0 ? `-${n}` : ''}.log`;
    this.lastRotation = { stamp, n };
    try {
      await fsp.rename(this.file, join(this.dir, target));
    } catch (err) {
      // Someone removed the current file: nothing to keep, start a new one.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    await this.open(); // prunes
  }

  /** Deletes rotated files older than maxAgeDays, then the oldest beyond maxFiles. Reports, never throws. */
  private async prune(): Promise<void> {
    const now = this.clock();
    this.lastPrune = now;
    try {
      const kept: string[] = [];
      for (const f of await this.rotatedFiles()) {
        const stat = await fsp.stat(f.path).catch(() => undefined);
        if (stat !== undefined && now - stat.mtimeMs > this.maxAgeMs) await this.remove(f.path);
        else kept.push(f.path);
      }
      for (const path of kept.slice(0, Math.max(0, kept.length - this.maxFiles))) await this.remove(path);
    } catch (err) {
      this.report(err);
    }
  }

  /** This file's rotated files, oldest first: by name, since rotations within a second share an mtime. */
  private async rotatedFiles(): Promise<Rotated[]> {
    const pattern = new RegExp(`^${this.name.replace(/\./g, '\\.')}\\.(\\d{8}T\\d{6}Z)(?:-(\\d+))?\\.log$`);
    const rotated: Rotated[] = [];
    for (const file of await fsp.readdir(this.dir)) {
      const m = pattern.exec(file);
      if (m) rotated.push({ path: join(this.dir, file), stamp: m[1] ?? '', n: Number(m[2] ?? 0) });
    }
    return rotated.sort((a, b) => (a.stamp < b.stamp ? -1 : a.stamp > b.stamp ? 1 : a.n - b.n));
  }

  private async remove(path: string): Promise<void> {
    await fsp.unlink(path).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') this.report(err);
    });
  }

  private report(err: unknown): void {
    const now = this.clock();
    if (now - this.lastError < ERROR_INTERVAL_MS) return;
    this.lastError = now;
    try {
      this.onError?.(err instanceof Error ? err : new Error(String(err)));
    } catch {
      // The caller's handler failing must not stop the writer.
    }
  }

  private clock(): number {
    const t = this.now().getTime();
    return Number.isFinite(t) ? t : Date.now();
  }
}

function positive(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback;
}

function nonNegative(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value >= 0 ? value : fallback;
}

function sizeText(bytes: number): string {
  return bytes % MiB === 0 ? `${bytes / MiB} MiB` : `${bytes} bytes`;
}
