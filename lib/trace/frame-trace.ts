/**
 * A raw trace of every ASTM unit read from and written to one analyzer link,
 * so that a disputed result can be traced back to the exact bytes the analyzer
 * sent. Plain TypeScript, no Node-RED.
 *
 * One line per unit (a control byte, a frame, or an unframed record), ASCII only:
 *
 *   2024-05-01T10:20:30.123Z in [10.0.0.7:50412] <STX>1H|\^&|||ABX<CR><ETX>58<CR><LF>
 *   <UTC time, ms>           <dir> [<session>]   <bytes>                         [ [redacted]]
 *
 * - dir: `in` = read from the line (sent by the analyzer), `out` = written to
 *   the line (sent to the analyzer), `!!` = a note from the trace itself
 *   ("N trace lines lost: reason").
 * - session: the TCP session id, when the link has one (characters other than
 *   [A-Za-z0-9._:@#/-] become '_').
 * - bytes: printable ASCII as is; the ASTM control bytes by name (<STX> <ETX>
 *   <ETB> <EOT> <ENQ> <ACK> <NAK> <CR> <LF>); every other byte, including
 *   0x80-0xFF, as <0xNN>; and a '<' that would otherwise read as one of those
 *   tokens as <0x3C>. So the exact bytes can always be recovered from a line.
 *   (`readable()` in lib/astm/control shows bytes >= 0x80 as latin1 text, which
 *   loses that guarantee, hence this formatter.)
 * - ` [redacted]`: patient fields were blanked (option `redact`), so the
 *   checksum shown no longer matches the text shown.
 *
 * The time is when the last bytes of the unit were recorded. Units are cut by
 * WireSplitter (shared with the simulator's log), one per direction and session, so reads that
 * split or join frames still give one line per frame.
 *
 * The file holds patient data: the directory is 0700 and files 0600.
 * Recording never throws and never waits for the disk: lines are queued in
 * memory and appended in order by a single async writer. Lines that cannot be
 * written are counted and reported in the file once writing works again.
 */
import { promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { ACK, CR, ENQ, EOT, ETB, ETX, LF, NAK, STX } from '../astm/control';
import { WireSplitter } from './wire-splitter';
import { ensurePrivateDir, openPrivate } from '../util/private-files';
import { initialUnitRedaction, redactUnit, type UnitRedaction } from './redact';

export interface FrameTraceOptions {
  /** Directory; created with mode 0700 if missing. */
  dir: string;
  /** File base name, e.g. the link node id (characters other than [A-Za-z0-9._-] become '_'). */
  name: string;
  /** E1381 framing (true) or records only (false): how bytes are cut into units. */
  framed: boolean;
  /** Rotate the current file when a line would take it past this size (default 10 MiB). */
  maxBytes?: number;
  /** Rotated files kept besides the current one (default 10). */
  maxFiles?: number;
  /** Rotated files whose mtime is older than this are deleted (default 30). */
  maxAgeDays?: number;
  /** Blank patient name, mother's maiden name and birth date in P records (default false). */
  redact?: boolean;
  /** Told when writing or pruning fails, at most once a minute; tracing goes on. */
  onError?: (err: Error) => void;
  /** Clock, for tests. */
  now?: () => Date;
}

const MiB = 1024 * 1024;
/** Beyond this much unwritten text new lines are dropped (and counted), so a dead disk cannot eat the memory. */
const MAX_PENDING = 8 * MiB;
const ERROR_INTERVAL_MS = 60_000;
const PRUNE_INTERVAL_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** A session not heard from for this long loses its splitter (TCP sessions come and go; the map must not grow). */
const CHANNEL_IDLE_MS = 10 * 60_000;

const NAMES = new Map<number, string>([
  [STX, 'STX'], [ETX, 'ETX'], [ETB, 'ETB'], [EOT, 'EOT'], [ENQ, 'ENQ'], [ACK, 'ACK'], [NAK, 'NAK'], [CR, 'CR'], [LF, 'LF'],
]);
const TOKEN = /^<(?:STX|ETX|ETB|EOT|ENQ|ACK|NAK|CR|LF|0x[0-9A-F]{2})>/;
const LT = 0x3c;

const hex = (b: number): string => `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`;

/** Bytes as one line of ASCII that can be read back to the same bytes (see the top comment). */
export function traceText(bytes: Uint8Array): string {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  let out = '';
  let plain = 0; // start of the current run of bytes shown as they are (copied in one go: frames can be 26 kB)
  for (let i = 0; i < buf.length; i++) {
    const b = buf[i] as number;
    let shown: string | undefined;
    const name = NAMES.get(b);
    if (name !== undefined) shown = `<${name}>`;
    else if (b < 0x20 || b > 0x7e) shown = hex(b);
    else if (b === LT && TOKEN.test(buf.toString('latin1', i, i + 6))) shown = hex(b);
    if (shown === undefined) continue;
    out += buf.toString('latin1', plain, i) + shown;
    plain = i + 1;
  }
  return out + buf.toString('latin1', plain);
}

/** One direction of one session: its own splitter, so interleaved sessions never mix inside a unit. */
interface Channel {
  readonly direction: 'in' | 'out';
  readonly session: string | undefined;
  readonly splitter: WireSplitter;
  redaction: UnitRedaction;
  /** When bytes last came: the time shown for the unit they complete. */
  at: Date;
}

export class FrameTrace {
  readonly file: string;

  private readonly dir: string;
  private readonly name: string;
  private readonly framed: boolean;
  private readonly maxBytes: number;
  private readonly maxFiles: number;
  private readonly maxAgeMs: number;
  private readonly redact: boolean;
  private readonly onError: ((err: Error) => void) | undefined;
  private readonly now: () => Date;

  private readonly channels = new Map<string, Channel>();
  private lastSweep: number;
  private queue: string[] = [];
  private queuedBytes = 0;
  private lost = 0;
  private lostReason = '';
  /** Queue position of the first line lost since the last note: the note is written there. */
  private lostAt = 0;
  private handle: FileHandle | undefined;
  private size = 0;
  /** Identity of the open file, to notice it being removed or replaced. */
  private ino = 0;
  private dev = 0;
  private lastPrune = -Infinity;
  private lastRotation: { stamp: string; n: number } | undefined;
  private lastError = -Infinity;
  /** The writer: only one runs at a time, so lines reach the file in order. */
  private busy = false;
  private running: Promise<void> = Promise.resolve();
  private closed = false;
  private closing: Promise<void> | undefined;

  constructor(options: FrameTraceOptions) {
    this.dir = options.dir;
    this.name = options.name.replace(/[^A-Za-z0-9._-]/g, '_') || '_';
    this.file = join(this.dir, `${this.name}.trace.log`);
    this.framed = options.framed;
    this.maxBytes = positive(options.maxBytes, 10 * MiB);
    this.maxFiles = Math.floor(nonNegative(options.maxFiles, 10));
    this.maxAgeMs = positive(options.maxAgeDays, 30) * DAY_MS;
    this.redact = options.redact ?? false;
    this.onError = options.onError;
    this.now = options.now ?? (() => new Date());
    this.lastSweep = this.clock();
    // Open (and prune) now, so old files go even if the link stays silent.
    this.kick();
  }

  /**
   * Bytes read from ('in') or written to ('out') the line; `session` = TCP
   * session id, if any. Never throws; the bytes are copied, so the caller may
   * reuse its buffer.
   */
  record(direction: 'in' | 'out', bytes: Uint8Array, session?: string): void {
    if (this.closed || this.closing) return;
    try {
      const ch = this.channel(direction, session);
      ch.at = this.now();
      ch.splitter.push(bytes);
      this.sweep();
    } catch (err) {
      this.lose(1, err); // e.g. a `now` that returns an invalid date
    }
  }

  /** Writes out partial units and everything queued; resolves when written (or failed, see onError). */
  async flush(): Promise<void> {
    for (const ch of this.channels.values()) ch.splitter.flush();
    while (this.busy) await this.running;
    // Try once more even after a failure: the caller wants the lines out now.
    if (this.hasWork()) {
      this.kick();
      await this.running;
    }
  }

  /** Flushes, then closes the file; later records are ignored. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.flush();
      this.closed = true;
      this.channels.clear();
      await this.closeHandle();
    })();
    return this.closing;
  }

  private channel(direction: 'in' | 'out', session: string | undefined): Channel {
    const key = session === undefined ? direction : `${direction} ${session}`;
    let ch = this.channels.get(key);
    if (ch === undefined) {
      const shown = session?.replace(/[^A-Za-z0-9._:@#/-]/g, '_');
      const created: Channel = {
        direction,
        session: shown,
        splitter: new WireSplitter((unit) => this.unit(created, unit), this.framed),
        redaction: initialUnitRedaction(),
        at: this.now(),
      };
      ch = created;
      this.channels.set(key, ch);
    }
    return ch;
  }

  /** Drops the splitters of sessions long silent, showing what they still held. */
  private sweep(): void {
    const now = this.clock();
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [key, ch] of this.channels) {
      if (now - ch.at.getTime() < CHANNEL_IDLE_MS) continue;
      ch.splitter.flush();
      this.channels.delete(key);
    }
  }

  /** A unit from a splitter (also from its idle timer, so nothing may throw out of here). */
  private unit(ch: Channel, unit: Buffer): void {
    try {
      let bytes = unit;
      let redacted = false;
      if (this.redact) {
        const r = redactUnit(unit, this.framed, ch.redaction);
        ch.redaction = r.state;
        bytes = r.bytes;
        redacted = r.redacted;
      }
      const session = ch.session === undefined ? '' : ` [${ch.session}]`;
      this.enqueue(`${ch.at.toISOString()} ${ch.direction}${session} ${traceText(bytes)}${redacted ? ' [redacted]' : ''}\n`);
    } catch (err) {
      this.lose(1, err);
    }
  }

  private enqueue(line: string): void {
    if (this.queuedBytes + line.length > MAX_PENDING) {
      this.lose(1, new Error(`more than ${MAX_PENDING / MiB} MiB waiting to be written`));
      return;
    }
    this.queue.push(line);
    this.queuedBytes += line.length; // lines are ASCII: length = bytes
    this.kick();
  }

  private hasWork(): boolean {
    return !this.closed && (this.handle === undefined || this.queue.length > 0 || this.lost > 0);
  }

  private kick(): void {
    if (this.busy) return;
    this.busy = true;
    this.running = this.drain();
  }

  /** The single writer. Never rejects; on failure it stops and the next record or flush tries again. */
  private async drain(): Promise<void> {
    let batch: string[] = [];
    let taken = 0; // length of the batch as taken, before write() removes what it wrote
    let noteAt = -1; // where the "lines lost" note sits in it, if any
    let told = 0; // lines that note counts
    try {
      while (this.hasWork()) {
        await this.reopenIfMoved();
        await this.open();
        if (this.clock() - this.lastPrune >= PRUNE_INTERVAL_MS) await this.prune();
        batch = this.queue;
        this.queue = [];
        this.queuedBytes = 0;
        told = this.lost;
        noteAt = -1;
        if (told > 0) {
          // The note goes where the lines went missing: after those queued before the loss.
          noteAt = Math.min(this.lostAt, batch.length);
          batch.splice(noteAt, 0, `${this.now().toISOString()} !! ${told} trace lines lost: ${this.lostReason}\n`);
          this.lost = 0;
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
      this.lose(dropped, err);
      this.lostAt = 0;
      // The file or directory may be gone: open afresh next time.
      await this.closeHandle();
    } finally {
      this.busy = false;
    }
  }

  /**
   * Appends lines, rotating first whenever the next line would take the file
   * past maxBytes. Removes the lines written from `lines`, so on failure what
   * is left there is exactly what was lost.
   */
  private async write(lines: string[]): Promise<void> {
    while (lines.length > 0) {
      let count = 0;
      let bytes = 0;
      for (const line of lines) {
        if (this.size + bytes + line.length > this.maxBytes && this.size + bytes > 0) break;
        bytes += line.length;
        count += 1;
      }
      if (count === 0) {
        await this.rotate();
        continue;
      }
      const handle = await this.open();
      await handle.appendFile(lines.slice(0, count).join(''), 'latin1');
      this.size += bytes;
      lines.splice(0, count);
    }
  }

  /**
   * Appending to a file that was deleted or renamed away (directory removed,
   * an outside logrotate) succeeds and the lines vanish; so check that the
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

  /** Renames the current file to `<name>.trace.<yyyymmddThhmmssZ>[-n].log` and starts a new one. */
  private async rotate(): Promise<void> {
    await this.closeHandle();
    const stamp = this.now().toISOString().replace(/\.\d+Z$/, 'Z').replace(/[-:]/g, '');
    // Within one second the counter only goes up, even when older files of
    // that second were pruned already: a reused name would sort as the oldest
    // and be the next one pruned.
    let last = this.lastRotation?.stamp === stamp ? this.lastRotation.n : -1;
    for (const f of await this.rotatedFiles()) if (f.stamp === stamp) last = Math.max(last, f.n);
    const n = last + 1;
    const target = `${this.name}.trace.${stamp}${n > 0 ? `-${n}` : ''}.log`;
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

  /** This trace's rotated files, oldest first: by name, since rotations within a second share an mtime. */
  private async rotatedFiles(): Promise<{ path: string; stamp: string; n: number }[]> {
    const pattern = new RegExp(`^${this.name.replace(/\./g, '\\.')}\\.trace\\.(\\d{8}T\\d{6}Z)(?:-(\\d+))?\\.log$`);
    const rotated: { path: string; stamp: string; n: number }[] = [];
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

  /** Counts lines that will never be written; the count goes into the file when writing works again. */
  private lose(count: number, err: unknown): void {
    const error = err instanceof Error ? err : new Error(String(err));
    if (count > 0) {
      if (this.lost === 0) this.lostAt = this.queue.length;
      this.lost += count;
      this.lostReason = error.message.replace(/[^\x20-\x7e]+/g, ' ');
    }
    this.report(error);
  }

  private report(err: unknown): void {
    const now = this.clock();
    if (now - this.lastError < ERROR_INTERVAL_MS) return;
    this.lastError = now;
    try {
      this.onError?.(err instanceof Error ? err : new Error(String(err)));
    } catch {
      // The caller's handler failing must not stop the trace.
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
