/**
 * Cuts received bytes into the units a trace shows: one control character
 * (ENQ, ACK, NAK, EOT), one frame (STX ... LF), with records-only framing
 * one record (... CR), or with MLLP one HL7 message (VT ... FS CR) and the
 * bytes between messages. Reads from a port or socket split and join frames at
 * random, and a trace line per read would be unreadable; this is for the log
 * only, never for deciding anything (the link does that on the raw bytes).
 */
import { ACK, CR, ENQ, EOT, ETB, ETX, FS, LF, NAK, STX, VT } from '../link/control-bytes';

const SINGLE = new Set([ENQ, ACK, NAK, EOT]);

/** E1381 frames (true), records only (false), or MLLP ('mllp', the HL7 link). */
export type UnitFraming = boolean | 'mllp';

export class WireSplitter {
  /** The unit being gathered, as copies of the pieces read (a frame comes whole in one read, most often). */
  private pending: Buffer[] = [];
  private inFrame = false;
  /**
   * Characters of the frame's checksum still to come after its ETX or ETB
   * (undefined: not there yet). At 0 the frame is whole, as the link reads it
   * (lib/protocols/astm/link/frame-reader): the CR LF after the checksum are optional,
   * and the link answers the frame before they come, or without them.
   */
  private checksumToCome: number | undefined;
  private timer: NodeJS.Timeout | undefined;

  /**
   * @param emit receives each unit
   * @param framed E1381 framing (true) or records only
   * @param idleMs a partial unit is shown anyway after this much silence (a frame that lost its end)
   */
  constructor(
    private readonly emit: (unit: Buffer) => void,
    private readonly framed: UnitFraming,
    private readonly idleMs = 200,
  ) {}

  /** Runs of bytes between unit boundaries are copied whole: the caller may reuse its buffer. */
  push(chunk: Uint8Array): void {
    if (this.framed === 'mllp') this.pushMllp(chunk);
    else this.pushAstm(chunk);
    this.arm();
  }

  /** A message from VT to FS and the CR after it; bytes outside one as a unit of their own. */
  private pushMllp(chunk: Uint8Array): void {
    let from = 0; // start of the bytes not yet taken into `pending`
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (b === VT) {
        this.take(chunk, from, (from = i));
        this.flush();
      } else if (b === FS) {
        const end = chunk[i + 1] === CR ? i + 2 : i + 1;
        this.take(chunk, from, (from = end));
        this.flush();
        i = end - 1;
      }
    }
    this.take(chunk, from, chunk.length);
  }

  private pushAstm(chunk: Uint8Array): void {
    let from = 0; // start of the bytes not yet taken into `pending`
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (!this.framed) {
        if (b === CR) {
          this.take(chunk, from, (from = i + 1));
          this.flush();
        }
        continue;
      }
      if (this.inFrame) {
        const whole = this.checksumToCome === 0;
        if (b === STX || b === EOT || (whole && b !== CR && b !== LF)) {
          // The frame broke off, or is whole and something else follows: show it, then the new unit.
          this.take(chunk, from, (from = i));
          this.flush();
        } else {
          if (b === LF) {
            this.take(chunk, from, (from = i + 1));
            this.flush();
          } else if (this.checksumToCome === undefined) {
            if (b === ETX || b === ETB) this.checksumToCome = 2;
          } else if (this.checksumToCome > 0 && b !== CR) this.checksumToCome--;
          continue;
        }
      }
      if (b === STX) {
        this.take(chunk, from, (from = i));
        this.flush();
        this.inFrame = true;
      } else if (SINGLE.has(b)) {
        this.take(chunk, from, i);
        from = i + 1;
        this.flush();
        this.emit(Buffer.from([b]));
      }
    }
    this.take(chunk, from, chunk.length);
  }

  /**
   * The other direction is about to show a unit (the link's answer): a frame
   * that is whole, its checksum read, is shown first, without waiting for a
   * CR LF that may come later or never (they then show as a unit of their own).
   * So an ACK never appears before the frame it answers.
   */
  settle(): void {
    if (this.inFrame && this.checksumToCome === 0) this.flush();
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.inFrame = false;
    this.checksumToCome = undefined;
    if (this.pending.length === 0) return;
    const unit = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending);
    this.pending = [];
    this.emit(unit);
  }

  private take(chunk: Uint8Array, from: number, to: number): void {
    if (to > from) this.pending.push(Buffer.from(chunk.subarray(from, to)));
  }

  private arm(): void {
    if (this.pending.length === 0) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
    } else if (this.timer) {
      this.timer.refresh();
    } else {
      this.timer = setTimeout(() => this.flush(), this.idleMs);
      this.timer.unref();
    }
  }
}
