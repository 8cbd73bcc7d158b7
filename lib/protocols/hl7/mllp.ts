/**
 * MLLP, the Minimal Lower Layer Protocol (HL7 v2.5.1 Implementation Guide,
 * appendix C): each message travels as `<VT> message <FS><CR>` (0x0B … 0x1C
 * 0x0D) on a TCP stream. TCP reads never line up with frames: a frame comes in
 * several reads (the cobas pure logs a result in five) and a read can hold the
 * end of one frame and the start of the next. MllpDeframer takes the bytes in
 * whatever chunks they arrive and returns what they made, as events; it has no
 * timers and does no I/O, like the other machines (docs/architecture.md).
 *
 * What it tolerates, because the captures show it (test/fixtures/SOURCES.md):
 * - A frame without its leading VT: the Mindray BC-6200, BioSystems BA400 and
 *   CLINITEK captures start with `MSH`. Outside a frame, `MSH` starts a frame
 *   (flagged `missingStart`), whether at the start of the stream, right after
 *   the previous frame or after bytes that are discarded first. `MSH` is what
 *   every message starts with; text between frames that happened to hold it
 *   would be taken for a message and then fail to parse, loudly.
 * - `<FS>` without the CR: the frame ends at FS (and is returned at once); a
 *   CR right after it, in the same read or the next, is consumed, anything
 *   else is read as the next bytes. So FS at the end of the stream ends a
 *   frame too, and a stray byte after FS is reported as outside a frame.
 * Nothing is dropped silently: bytes outside a frame, a frame cut short by a
 * new VT, an oversized frame's bytes and a frame left open at end() come back
 * as `discarded` events with their count and a short readable excerpt.
 */

export const VT = 0x0b;
export const FS = 0x1c;
export const CR = 0x0d;

/** 8 MiB: the URIT UT-5160 sends four base64 BMP histograms (about 1.3 MB) in one message; a LIS order is a few hundred bytes. */
export const DEFAULT_MAX_FRAME_BYTES = 8 * 1024 * 1024;

export type DiscardReason =
  | 'outside-frame' // bytes between frames that start no frame
  | 'cut-by-new-frame' // a VT arrived before the frame's FS: the partial frame
  | 'oversize' // the rest of a frame longer than the limit, up to its FS
  | 'end-of-stream'; // a frame still open when the stream ended

export type MllpEvent =
  | {
      kind: 'frame';
      /** The message's bytes, between VT and FS. */
      message: Buffer;
      /** The frame began with `MSH`, its VT missing. */
      missingStart?: true;
    }
  | {
      kind: 'discarded';
      reason: DiscardReason;
      count: number;
      excerpt: string;
      /** The bytes discarded; for an oversized frame only its first HEAD_BYTES (where its MSH is, to answer it). */
      bytes: Buffer;
    }
  | { kind: 'oversize'; limit: number };

export interface DeframerOptions {
  /** Longest message accepted, in bytes. Default DEFAULT_MAX_FRAME_BYTES. */
  maxFrameBytes?: number;
}

const MSH = Buffer.from('MSH', 'latin1');
const EXCERPT = 40;
/** What is kept of an oversized frame: enough for its MSH segment, so the link can still answer it. */
export const HEAD_BYTES = 1024;

/** A byte stream in, MLLP frames out. One per connection. */
export class MllpDeframer {
  private readonly max: number;
  /** Inside a frame: its bytes so far (chunks, joined once at FS). */
  private chunks: Buffer[] = [];
  private size = 0;
  private inside = false;
  private missingStart = false;
  /** Inside an oversized frame: the bytes skipped so far, and how the frame began. */
  private skipped = -1;
  private head: Buffer = Buffer.alloc(0);
  /** An FS was the last byte seen: a CR may follow. */
  private afterFs = false;
  /** Outside a frame: the bytes held because they may be the start of `MSH`. */
  private held: Buffer = Buffer.alloc(0);

  constructor(options: DeframerOptions = {}) {
    const max = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`maxFrameBytes must be a whole number of bytes above 0, got ${max}`);
    this.max = max;
  }

  /** Whether the bytes so far end inside a frame (its FS still to come). */
  get inFrame(): boolean {
    return this.inside;
  }

  /** The events the chunk's bytes complete, in order. */
  push(chunk: Uint8Array): MllpEvent[] {
    const events: MllpEvent[] = [];
    let bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (this.held.length > 0) {
      bytes = Buffer.concat([this.held, bytes]);
      this.held = Buffer.alloc(0);
    }
    let i = 0;
    const find = new Finder(bytes);
    while (i < bytes.length) {
      if (this.afterFs) {
        this.afterFs = false;
        if (bytes[i] === CR) {
          i++;
          continue;
        }
      }
      i = this.inside ? this.readFrame(bytes, i, events, find) : this.readOutside(bytes, i, events, find);
    }
    return events;
  }

  /** The stream ended: a frame still open is reported, held bytes are discarded. */
  end(): MllpEvent[] {
    const events: MllpEvent[] = [];
    if (this.held.length > 0) events.push(discarded('outside-frame', this.held));
    if (this.inside) {
      if (this.skipped >= 0) events.push(this.oversized());
      else events.push(discarded('end-of-stream', Buffer.concat(this.chunks)));
    }
    this.reset();
    this.held = Buffer.alloc(0);
    this.afterFs = false;
    return events;
  }

  private readOutside(bytes: Buffer, from: number, events: MllpEvent[], find: Finder): number {
    const vt = find.next(VT_AT, from);
    const msh = find.next(MSH_AT, from);
    const start = vt < 0 ? msh : msh < 0 ? vt : Math.min(vt, msh);
    if (start < 0) {
      // Keep a tail that may be the start of `MSH` completed by the next read.
      const keep = partialMsh(bytes, from);
      if (bytes.length - keep > from) events.push(discarded('outside-frame', bytes.subarray(from, bytes.length - keep)));
      this.held = Buffer.from(bytes.subarray(bytes.length - keep));
      return bytes.length;
    }
    if (start > from) events.push(discarded('outside-frame', bytes.subarray(from, start)));
    this.inside = true;
    this.missingStart = start === msh;
    return start === msh ? start : start + 1;
  }

  private readFrame(bytes: Buffer, from: number, events: MllpEvent[], find: Finder): number {
    const fs = find.next(FS_AT, from);
    const vt = find.next(VT_AT, from);
    if (vt >= 0 && (fs < 0 || vt < fs)) {
      // A new frame began before this one's FS: report what came of this one.
      this.take(bytes.subarray(from, vt), events);
      events.push(this.skipped >= 0 ? this.oversized() : discarded('cut-by-new-frame', Buffer.concat(this.chunks)));
      this.reset();
      this.inside = true;
      return vt + 1;
    }
    const end = fs < 0 ? bytes.length : fs;
    this.take(bytes.subarray(from, end), events);
    if (fs < 0) return bytes.length;
    if (this.skipped >= 0) events.push(this.oversized());
    else events.push({ kind: 'frame', message: Buffer.concat(this.chunks, this.size), ...(this.missingStart ? { missingStart: true as const } : {}) });
    this.reset();
    this.afterFs = true;
    return fs + 1;
  }

  /** Adds a frame's bytes, or counts them once the frame is too long. */
  private take(part: Buffer, events: MllpEvent[]): void {
    if (part.length === 0) return;
    if (this.skipped >= 0) {
      this.skipped += part.length;
      return;
    }
    if (this.size + part.length > this.max) {
      events.push({ kind: 'oversize', limit: this.max });
      this.head = Buffer.from(Buffer.concat([...this.chunks, part.subarray(0, HEAD_BYTES)]).subarray(0, HEAD_BYTES));
      this.skipped = this.size + part.length;
      this.chunks = [];
      return;
    }
    // Copied: the caller may reuse its read buffer.
    this.chunks.push(Buffer.from(part));
    this.size += part.length;
  }

  private oversized(): MllpEvent {
    return { kind: 'discarded', reason: 'oversize', count: this.skipped, excerpt: readable(this.head), bytes: this.head };
  }

  private reset(): void {
    this.chunks = [];
    this.size = 0;
    this.inside = false;
    this.missingStart = false;
    this.skipped = -1;
    this.head = Buffer.alloc(0);
  }
}

const VT_AT = 0;
const FS_AT = 1;
const MSH_AT = 2;
const NEEDLES: readonly (number | Buffer)[] = [VT, FS, MSH];

/**
 * The next VT, FS and `MSH` in one read, each searched for again only once
 * passed: a read of many frames must not have its rest searched for a VT
 * (or an `MSH`) at every frame, which made it quadratic in frames per read.
 */
class Finder {
  private readonly at = [-2, -2, -2];

  constructor(private readonly bytes: Buffer) {}

  next(kind: number, from: number): number {
    let at = this.at[kind] as number;
    if (at !== -1 && at < from) {
      at = this.bytes.indexOf(NEEDLES[kind] as number, from);
      this.at[kind] = at;
    }
    return at;
  }
}

/** `<VT> message <FS><CR>`: a message's bytes as they go on the wire. */
export function frameMllp(message: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(message.length + 3);
  out[0] = VT;
  out.set(message, 1);
  out[message.length + 1] = FS;
  out[message.length + 2] = CR;
  return out;
}

/** How many of the last bytes (at most 2) could begin `MSH`. */
function partialMsh(bytes: Buffer, from: number): number {
  const n = bytes.length;
  if (n - from >= 2 && bytes[n - 2] === 0x4d && bytes[n - 1] === 0x53) return 2;
  if (n - from >= 1 && bytes[n - 1] === 0x4d) return 1;
  return 0;
}

function discarded(reason: DiscardReason, bytes: Buffer): MllpEvent {
  return { kind: 'discarded', reason, count: bytes.length, excerpt: readable(bytes), bytes: Buffer.from(bytes) };
}

/** The first bytes, control characters named (`<VT>`, `<CR>`, `<0x1f>`), for a log line. */
export function readable(bytes: Buffer, max = EXCERPT): string {
  const names: Record<number, string> = { [VT]: '<VT>', [FS]: '<FS>', [CR]: '<CR>', 0x0a: '<LF>' };
  let out = '';
  for (const b of bytes.subarray(0, max)) out += names[b] ?? (b < 0x20 || b > 0x7e ? `<0x${b.toString(16).padStart(2, '0')}>` : String.fromCharCode(b));
  return bytes.length > max ? `${out}…` : out;
}
