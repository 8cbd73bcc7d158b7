/**
 * An append-only file of JSON lines, made durable in groups: every line handed
 * to append() is written and fdatasync'ed before its promise resolves, and all
 * lines that arrive while one sync is under way share the next one. A crash
 * can leave a torn last line; read() skips it (and counts it) instead of
 * refusing the whole file. Directory and file are owner-only (patient data).
 */
import { promises as fs, constants } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ensurePrivateDir, openPrivate } from '../util/private-files';

export interface ReadResult {
  lines: string[];
  /** Lines that were not complete (no newline at the end of the file): a write cut by a crash. */
  torn: number;
}

/** Told of each group commit (the metrics): lines written and how long the fdatasync took. */
export interface AppendObserver {
  committed(lines: number, syncSeconds: number): void;
}

interface Pending {
  text: string;
  resolve: () => void;
  reject: (err: Error) => void;
}

export class AppendLog {
  private handle: fs.FileHandle | undefined;
  private queue: Pending[] = [];
  private writing = false;
  /** Rewrites (compaction) and closing wait for the write under way. */
  private idle: Promise<void> = Promise.resolve();
  private markIdle: () => void = () => {};
  private closed = false;
  /** Bytes in the file, kept to decide when compaction pays. */
  size = 0;
  /** Group commits made, for the benchmark. */
  syncs = 0;
  private readonly observers = new Set<AppendObserver>();

  constructor(readonly file: string) {}

  /**
   * Creates the directory (owner-only) and opens the file for appending. Returns what it already held after byte
   * `from`: a caller that knows the lines before it (a QC segment) does not read the whole file again.
   */
  async open(from = 0): Promise<ReadResult> {
    await ensurePrivateDir(dirname(this.file));
    const existing = await readLines(this.file, from);
    this.handle = await openPrivate(this.file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT);
    this.size = (await this.handle.stat()).size;
    // A torn tail is cut off, so the next line starts on a line of its own.
    if (existing.torn > 0) {
      await this.handle.truncate(existing.validBytes);
      this.size = existing.validBytes;
    }
    await syncDir(dirname(this.file));
    return { lines: existing.lines, torn: existing.torn };
  }

  /** Adds an observer of group commits; returns its removal. */
  observe(observer: AppendObserver): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  /** Resolves once the line is on disk (written and fdatasync'ed). */
  append(line: string): Promise<void> {
    if (this.closed || !this.handle) return Promise.reject(new Error(`journal ${this.file} is closed`));
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ text: line + '\n', resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  /**
   * Keeps only the lines `keep` accepts, atomically (temporary file, fsync,
   * rename, fsync of the directory): a crash leaves either the old file or the
   * new one, never a mix. Appends wait meanwhile.
   */
  async compact(keep: (line: string) => boolean): Promise<{ before: number; after: number }> {
    // Checked and taken with no await in between: an append arriving meanwhile must not start writing to
    // the file this is about to replace (its lines would go to the old file and be lost).
    while (this.writing) await this.idle;
    if (!this.handle) throw new Error(`journal ${this.file} is closed`);
    this.writing = true;
    this.idle = new Promise((r) => (this.markIdle = r));
    try {
      const { lines } = await readLines(this.file);
      const kept = lines.filter(keep);
      const tmp = join(dirname(this.file), `.${basename(this.file)}.${process.pid}.compact`);
      const out = await openPrivate(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC);
      const text = kept.map((l) => l + '\n').join('');
      try {
        await out.writeFile(text);
        await out.sync();
      } finally {
        await out.close();
      }
      await fs.rename(tmp, this.file);
      await syncDir(dirname(this.file));
      await this.handle.close();
      this.handle = await openPrivate(this.file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT);
      this.size = Buffer.byteLength(text);
      return { before: lines.length, after: kept.length };
    } finally {
      this.writing = false;
      this.markIdle();
      if (this.queue.length > 0) void this.drain();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.waitIdle();
    const h = this.handle;
    this.handle = undefined;
    if (h) await h.close();
  }

  private waitIdle(): Promise<void> {
    return this.writing ? this.idle : Promise.resolve();
  }

  private async drain(): Promise<void> {
    this.writing = true;
    this.idle = new Promise((r) => (this.markIdle = r));
    while (this.queue.length > 0 && this.handle) {
      const batch = this.queue;
      this.queue = [];
      const text = batch.map((p) => p.text).join('');
      try {
        await this.handle.write(text);
        const syncing = this.observers.size > 0 ? performance.now() : 0;
        await this.handle.datasync();
        this.size += Buffer.byteLength(text);
        this.syncs++;
        if (syncing > 0) for (const o of this.observers) o.committed(batch.length, (performance.now() - syncing) / 1000);
        for (const p of batch) p.resolve();
      } catch (err) {
        const e = err instanceof Error ? err : new Error(String(err));
        for (const p of batch) p.reject(e);
      }
    }
    for (const p of this.queue.splice(0)) p.reject(new Error(`journal ${this.file} is closed`));
    this.writing = false;
    this.markIdle();
  }
}

async function readLines(file: string, from = 0): Promise<ReadResult & { validBytes: number }> {
  let buf: Buffer;
  try {
    buf = from === 0 ? await fs.readFile(file) : await readFrom(file, from);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { lines: [], torn: 0, validBytes: 0 };
    throw err;
  }
  const end = buf.lastIndexOf(0x0a) + 1;
  const lines = buf.subarray(0, end).toString('utf8').split('\n');
  lines.pop();
  return { lines: lines.filter((l) => l.length > 0), torn: end < buf.length ? 1 : 0, validBytes: from + end };
}

async function readFrom(file: string, from: number): Promise<Buffer> {
  const h = await fs.open(file, constants.O_RDONLY);
  try {
    const size = (await h.stat()).size;
    const buf = Buffer.alloc(Math.max(0, size - from));
    let got = 0;
    while (got < buf.length) {
      const { bytesRead } = await h.read(buf, got, buf.length - got, from + got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return buf.subarray(0, got);
  } finally {
    await h.close();
  }
}

/** fsyncs a directory, so a file created or renamed in it survives a crash. */
export async function syncDir(dir: string): Promise<void> {
  const h = await fs.open(dir, constants.O_RDONLY);
  try {
    await h.sync();
  } finally {
    await h.close();
  }
}
