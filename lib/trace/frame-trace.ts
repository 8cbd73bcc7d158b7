/**
 * A raw trace of every unit (ASTM, or HL7 over MLLP) read from and written to one analyzer link,
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
 * - bytes: printable ASCII as is; the framing's control bytes by name (its
 *   TraceNaming, framing.ts: ASTM <STX> <ETX> <ETB> <EOT> <ENQ> <ACK> <NAK>
 *   <CR> <LF>, MLLP <VT> <FS> <CR> <LF> as in `<VT>MSH|…<CR>…<FS><CR>`);
 *   every other byte, including 0x80-0xFF, as <0xNN>; and a '<' that would
 *   otherwise read as one of those tokens as <0x3C>. So the exact bytes can
 *   always be recovered from a line, with the framing's naming.
 *   (`readable()` in lib/protocols/astm/control shows bytes >= 0x80 as latin1 text, which
 *   loses that guarantee, hence this formatter.)
 * - ` [redacted]`: patient fields were blanked (option `redact`, by the
 *   framing's redactor: ASTM P-6 to P-8, HL7 PID-5 to PID-7), so an ASTM
 *   checksum shown no longer matches the text shown.
 *
 * The time is when the last bytes of the unit were recorded. Units are cut by
 * the framing's WireSplitter (shared with the simulator's log), one per
 * direction and session, so reads that split or join frames still give one
 * line per frame. The framing is the protocol's (TraceFraming, framing.ts),
 * passed in by the link node: the trace knows no protocol.
 *
 * The file holds patient data and is written by a RotatingFile
 * (lib/util/rotating-file): owner-only, rotated by size and age, never in the
 * link's way. Lines that cannot be written are counted, and a `!!` line says
 * so once writing works again. Lines are written in batches, at most BATCH_MS
 * after their unit: a host query makes ten units in a few milliseconds, and a
 * write (and a check that the file was not moved away) per unit cost more CPU
 * than the rest of the link. The cutting into units and the formatting wait
 * for the batch too: record() only keeps a copy of the bytes and their time,
 * so tracing adds next to nothing between a byte read and the link's answer.
 * A process killed outright loses the lines of its last BATCH_MS; the trace is
 * never synced, so a power cut loses more anyway.
 */
import type { TraceFraming, TraceNaming, UnitRedactor } from './framing';
import type { WireSplitter } from './wire-splitter';
import { RotatingFile } from '../util/rotating-file';

export interface FrameTraceOptions {
  /** Directory; created with mode 0700 if missing. */
  dir: string;
  /** File base name, e.g. the link node id (characters other than [A-Za-z0-9._-] become '_'). */
  name: string;
  /** The protocol's framing: how bytes are cut into units, named and redacted. */
  framing: TraceFraming;
  /** Rotate the current file when a line would take it past this size (default 10 MiB). */
  maxBytes?: number;
  /** Rotated files kept besides the current one (default 10). */
  maxFiles?: number;
  /** Rotated files whose mtime is older than this are deleted (default 30). */
  maxAgeDays?: number;
  /** Blank patient name, mother's maiden name and birth date (the framing's redactor; default false). */
  redact?: boolean;
  /** Told when writing or pruning fails, at most once a minute; tracing goes on. */
  onError?: (err: Error) => void;
  /** Clock, for tests. */
  now?: () => Date;
}

/** Lines wait this long (ms) to be written together. */
const BATCH_MS = 20;
/** Whether the path still names the open file (an outside logrotate, a deleted directory) is checked this often, and on flush. */
const MOVED_CHECK_MS = 1000;

/** A session not heard from for this long loses its splitter (TCP sessions come and go; the map must not grow). */
const CHANNEL_IDLE_MS = 10 * 60_000;

const LT = 0x3c;
const ESCAPED_LT = '<0x3C>';

const opposite = (d: 'in' | 'out'): 'in' | 'out' => (d === 'in' ? 'out' : 'in');

/** Bytes as one line of ASCII that can be read back to the same bytes with the same naming (see the top comment). */
export function traceText(bytes: Uint8Array, naming: TraceNaming): string {
  const { shown: shownAs, token, window } = naming;
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  let out = '';
  let plain = 0; // start of the current run of bytes shown as they are (copied in one go: frames can be 26 kB)
  for (let i = 0; i < buf.length; i++) {
    const b = buf[i] as number;
    let shown = shownAs[b];
    if (shown === undefined && b === LT && token.test(buf.toString('latin1', i, i + window))) shown = ESCAPED_LT;
    if (shown === undefined) continue;
    out += buf.toString('latin1', plain, i) + shown;
    plain = i + 1;
  }
  return out + buf.toString('latin1', plain);
}

/** Bytes recorded, waiting for the batch to be cut into units and written. */
interface Recorded {
  direction: 'in' | 'out';
  session: string | undefined;
  bytes: Buffer;
  at: Date;
}

/** One direction of one session: its own splitter, so interleaved sessions never mix inside a unit. */
interface Channel {
  readonly direction: 'in' | 'out';
  readonly session: string | undefined;
  readonly splitter: WireSplitter;
  /** Made with the channel when the trace redacts. */
  readonly redact: UnitRedactor | undefined;
  /** When bytes last came: the time shown for the unit they complete. */
  at: Date;
}

export class FrameTrace {
  readonly file: string;

  /** How the link frames what it traces; readers of the file go by it. */
  readonly framing: TraceFraming;
  private readonly redact: boolean;
  private readonly now: () => Date;
  private readonly out: RotatingFile;

  private readonly channels = new Map<string, Channel>();
  private recorded: Recorded[] = [];
  private batchTimer: NodeJS.Timeout | undefined;
  private lastSweep: number;
  private closing: Promise<void> | undefined;

  constructor(options: FrameTraceOptions) {
    this.framing = options.framing;
    this.redact = options.redact ?? false;
    this.now = options.now ?? (() => new Date());
    this.out = new RotatingFile({
      dir: options.dir,
      name: `${options.name || '_'}.trace`,
      maxBytes: options.maxBytes,
      maxFiles: options.maxFiles,
      maxAgeDays: options.maxAgeDays,
      lostNote: (count, reason) => `${this.now().toISOString()} !! ${count} trace lines lost: ${reason}\n`,
      onError: options.onError,
      now: this.now,
      // The batch is made here (record() waits BATCH_MS), so the file writes what a batch gives it at once.
      movedCheckMs: MOVED_CHECK_MS,
    });
    this.file = this.out.file;
    this.lastSweep = this.clock();
  }

  /**
   * Bytes read from ('in') or written to ('out') the line; `session` = TCP
   * session id, if any. Never throws; the bytes are copied, so the caller may
   * reuse its buffer.
   */
  record(direction: 'in' | 'out', bytes: Uint8Array, session?: string): void {
    if (this.closing) return;
    try {
      this.recorded.push({ direction, session, bytes: Buffer.from(bytes), at: this.now() });
      this.batchTimer ??= setTimeout(() => this.cut(), BATCH_MS);
    } catch (err) {
      this.out.drop(1, err);
    }
  }

  /** Writes out partial units and everything queued; resolves when written (or failed, see onError). */
  async flush(): Promise<void> {
    this.cut();
    for (const ch of this.channels.values()) ch.splitter.flush();
    await this.out.flush();
  }

  /** Flushes, then closes the file; later records are ignored. */
  close(): Promise<void> {
    if (this.closing === undefined) {
      this.cut();
      for (const ch of this.channels.values()) ch.splitter.flush();
      this.channels.clear();
      this.closing = this.out.close();
    }
    return this.closing;
  }

  /** The recorded bytes of the batch, cut into units and handed to the file. */
  private cut(): void {
    if (this.batchTimer !== undefined) clearTimeout(this.batchTimer);
    this.batchTimer = undefined;
    const batch = this.recorded;
    this.recorded = [];
    // Runs from a timer: nothing may throw out of here.
    try {
      for (const r of batch) {
        const ch = this.channel(r.direction, r.session);
        // Bytes one way may answer a frame the other way whose CR LF have not come (or never come): that frame
        // is shown first, so the answer is never written before what it answers.
        this.channels.get(r.session === undefined ? opposite(r.direction) : `${opposite(r.direction)} ${r.session}`)?.splitter.settle();
        ch.at = r.at;
        ch.splitter.push(r.bytes);
      }
      this.sweep();
    } catch (err) {
      this.out.drop(1, err);
    }
  }

  private channel(direction: 'in' | 'out', session: string | undefined): Channel {
    const key = session === undefined ? direction : `${direction} ${session}`;
    let ch = this.channels.get(key);
    if (ch === undefined) {
      const shown = session?.replace(/[^A-Za-z0-9._:@#/-]/g, '_');
      const created: Channel = {
        direction,
        session: shown,
        splitter: this.framing.splitter((unit) => this.unit(created, unit)),
        redact: this.redact ? this.framing.redactor() : undefined,
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
      if (ch.redact !== undefined) ({ bytes, redacted } = ch.redact(unit));
      const session = ch.session === undefined ? '' : ` [${ch.session}]`;
      this.out.append(`${ch.at.toISOString()} ${ch.direction}${session} ${traceText(bytes, this.framing.naming)}${redacted ? ' [redacted]' : ''}\n`);
    } catch (err) {
      this.out.drop(1, err);
    }
  }

  private clock(): number {
    const t = this.now().getTime();
    return Number.isFinite(t) ? t : Date.now();
  }
}
