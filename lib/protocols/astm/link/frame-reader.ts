/**
 * Finds frames in a byte stream that arrives in arbitrary pieces: one byte at a
 * time, a frame split over reads, or a whole session in one read (TCP reads do
 * not follow frame boundaries; serial ones even less).
 *
 * It only recognises; whether to ACK or NAK, and what a frame means, is for
 * receiver.ts. Tolerances, each seen in real captures:
 * - bytes before STX are skipped (§6.5.1.1; stray ACKs, CR/LF, junk);
 * - a frame ends with its second checksum character: the CR LF after it are
 *   optional, because analyzers send `C1 C2 LF`, `C1 C2 CR` or nothing more;
 * - checksum digits are accepted in lower case;
 * - no character of the text is refused by itself: the checksum decides. An LF
 *   inside the text breaks §6.6.1, but refusing it would lock out a sloppy
 *   analyzer whose frames are otherwise intact.
 */
import { EOT, ENQ, ETB, ETX, STX, CR, LF } from '../control';
import { hexDigit, hexPair, type FrameEnd } from './frame';

export interface ReaderOptions {
  /** Expect and verify C1 C2 after ETB/ETX. */
  checksums: boolean;
  /** Largest frame accepted, STX through LF. */
  maxFrame: number;
}

export interface ReadFrame {
  /** Everything between STX and ETB/ETX: the frame number, if any, and the text. */
  body: Buffer;
  end: FrameEnd;
}

export type ReadEvent =
  | { kind: 'frame'; frame: ReadFrame }
  /** A frame that must be answered with NAK (§6.5.1); `fn` is its frame number as far as it can be read. */
  | { kind: 'invalid'; reason: string; fn: number | null }
  /** STX inside a frame: the frame so far was abandoned (its end was lost, or the sender started over). */
  | { kind: 'restart'; dropped: number }
  /** EOT; `inFrame` when it cut a frame short. */
  | { kind: 'eot'; inFrame: boolean }
  /** ENQ between frames. */
  | { kind: 'enq' };

type Phase = 'between' | 'body' | 'checksum';

export class FrameReader {
  private phase: Phase = 'between';
  private parts: Buffer[] = [];
  private length = 0;
  private sum = 0;
  private overflow = false;
  private end: FrameEnd = 'ETX';
  private c1 = -1;
  /** First byte after STX, the frame number of a frame that may fail. */
  private first = -1;

  constructor(private readonly options: ReaderOptions) {}

  /** True while the bytes of a frame are arriving: the receive timer treats that as activity. */
  get inFrame(): boolean {
    return this.phase !== 'between';
  }

  /** Forget any partial frame. */
  reset(): void {
    this.phase = 'between';
    this.clearBody();
  }

  /**
   * Consumes bytes from `start` until one event happens or the input is used up.
   * Returns the index of the first byte not consumed.
   */
  feed(bytes: Uint8Array, start: number): { next: number; event?: ReadEvent } {
    let i = start;
    while (i < bytes.length) {
      const b = bytes[i]!;
      if (this.phase === 'between') {
        i++;
        if (b === STX) this.beginFrame();
        else if (b === EOT) return { next: i, event: { kind: 'eot', inFrame: false } };
        else if (b === ENQ) return { next: i, event: { kind: 'enq' } };
        continue;
      }
      if (this.phase === 'body') {
        // Scan a run of text in one go; only STX, EOT, ETB and ETX stop it.
        let j = i;
        let sum = this.sum;
        while (j < bytes.length) {
          const c = bytes[j]!;
          if (c === ETB || c === ETX || c === STX || c === EOT) break;
          sum = (sum + c) & 0xff;
          j++;
        }
        this.keep(bytes, i, j);
        this.sum = sum;
        i = j;
        if (i >= bytes.length) break;
        const c = bytes[i]!;
        i++;
        if (c === STX) {
          const dropped = this.length;
          this.beginFrame();
          return { next: i, event: { kind: 'restart', dropped } };
        }
        if (c === EOT) {
          this.reset();
          return { next: i, event: { kind: 'eot', inFrame: true } };
        }
        this.end = c === ETB ? 'ETB' : 'ETX';
        this.sum = (this.sum + c) & 0xff;
        if (!this.options.checksums) return { next: i, event: this.finish(true, '') };
        this.phase = 'checksum';
        this.c1 = -1;
        continue;
      }
      // checksum phase
      i++;
      if (b === STX) {
        const dropped = this.length;
        this.beginFrame();
        return { next: i, event: { kind: 'restart', dropped } };
      }
      if (b === EOT) {
        this.reset();
        return { next: i, event: { kind: 'eot', inFrame: true } };
      }
      if (b === CR || b === LF) {
        const fn = this.frameNumber();
        this.reset();
        return { next: i, event: { kind: 'invalid', reason: 'checksum missing after ' + this.end, fn } };
      }
      if (this.c1 < 0) {
        // Keep the raw byte; a non-hex one is reported as a mismatch below.
        this.c1 = b;
        continue;
      }
      const hi = hexDigit(this.c1);
      const lo = hexDigit(b);
      const expected = hexPair(this.sum);
      const ok = hi >= 0 && lo >= 0 && ((hi << 4) | lo) === this.sum;
      const got = String.fromCharCode(this.c1, b);
      return { next: i, event: this.finish(ok, ok ? '' : `checksum ${printable(got)} received, ${expected} computed`) };
    }
    return { next: i };
  }

  private beginFrame(): void {
    this.phase = 'body';
    this.clearBody();
  }

  private clearBody(): void {
    this.parts = [];
    this.length = 0;
    this.sum = 0;
    this.overflow = false;
    this.c1 = -1;
    this.first = -1;
  }

  private frameNumber(): number | null {
    return this.first >= 0x30 && this.first <= 0x39 ? this.first - 0x30 : null;
  }

  private keep(bytes: Uint8Array, from: number, to: number): void {
    if (to <= from) return;
    if (this.length === 0) this.first = bytes[from]!;
    // STX + body + ETB/ETX + C1 C2 + CR LF: the body may take all but 6 characters.
    const room = this.options.maxFrame - 6 - this.length;
    if (to - from > room) this.overflow = true;
    if (!this.overflow) this.parts.push(Buffer.from(bytes.subarray(from, to)));
    this.length += to - from;
  }

  private finish(checksumOk: boolean, reason: string): ReadEvent {
    const body = Buffer.concat(this.parts, this.overflow ? 0 : this.length);
    const overflow = this.overflow;
    const length = this.length;
    const fn = this.frameNumber();
    this.reset();
    if (overflow) return { kind: 'invalid', reason: `frame of ${length + 6} characters exceeds the limit of ${this.options.maxFrame}`, fn };
    if (!checksumOk) return { kind: 'invalid', reason, fn };
    return { kind: 'frame', frame: { body, end: this.end } };
  }
}

function printable(s: string): string {
  return s.replace(/[^\x20-\x7e]/g, (c) => `<0x${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}>`);
}

/** Frame number and text of a frame body. A body that does not start with a digit has no frame number. */
export function splitBody(body: Buffer): { fn: number | null; text: Buffer } {
  const first = body[0];
  if (first !== undefined && first >= 0x30 && first <= 0x39) return { fn: first - 0x30, text: body.subarray(1) };
  return { fn: null, text: body };
}

export type ParsedFrame =
  | { ok: true; fn: number | null; text: Buffer; end: FrameEnd; consumed: number }
  | { ok: false; reason: string; consumed: number };

/**
 * Parses the first frame in `bytes` (leading bytes before STX are skipped).
 * For tests and simulators; the link itself uses FrameReader on the stream.
 */
export function parseFrame(bytes: Uint8Array, options: Partial<ReaderOptions> = {}): ParsedFrame {
  const reader = new FrameReader({ checksums: options.checksums ?? true, maxFrame: options.maxFrame ?? 64_000 });
  let i = 0;
  while (i < bytes.length) {
    const { next, event } = reader.feed(bytes, i);
    i = next;
    if (!event || event.kind === 'restart') continue;
    if (event.kind === 'frame') return { ok: true, ...splitBody(event.frame.body), end: event.frame.end, consumed: i };
    if (event.kind === 'invalid') return { ok: false, reason: event.reason, consumed: i };
    if (event.kind === 'eot') return { ok: false, reason: event.inFrame ? 'EOT inside the frame' : 'EOT before any frame', consumed: i };
    return { ok: false, reason: 'ENQ before any frame', consumed: i };
  }
  return { ok: false, reason: reader.inFrame ? 'frame incomplete' : 'no STX found', consumed: i };
}
