/**
 * Cuts received bytes into the units a trace shows: one control character
 * (ENQ, ACK, NAK, EOT), one frame (STX ... LF), with records-only framing
 * one record (... CR), or with MLLP one HL7 message (VT ... FS CR) and the
 * bytes between messages. Reads from a port or socket split and join frames at
 * random, and a trace line per read would be unreadable; this is for the log
 * only, never for deciding anything (the link does that on the raw bytes).
 */
import { ACK, CR, ENQ, EOT, LF, NAK, STX } from '../astm/control';

const SINGLE = new Set([ENQ, ACK, NAK, EOT]);
const VT = 0x0b;
const FS = 0x1c;

/** E1381 frames (true), records only (false), or MLLP ('mllp', the HL7 link). */
export type UnitFraming = boolean | 'mllp';

export class WireSplitter {
  private pending: number[] = [];
  private inFrame = false;
  private timer: NodeJS.Timeout | undefined;

  /**
   * @param emit receives each unit
   * @param framed E1381 framing (true), records only (false), or MLLP
   * @param idleMs a partial unit is shown anyway after this much silence (a frame that lost its end)
   */
  constructor(
    private readonly emit: (unit: Buffer) => void,
    private readonly framed: UnitFraming,
    private readonly idleMs = 200,
  ) {}

  push(chunk: Uint8Array): void {
    if (this.framed === 'mllp') this.pushMllp(chunk);
    else this.pushAstm(chunk);
    this.arm();
  }

  /** A message from VT to FS and the CR after it; bytes outside one as a unit of their own. */
  private pushMllp(chunk: Uint8Array): void {
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i] as number;
      if (b === VT) this.flush();
      this.pending.push(b);
      if (b !== FS) continue;
      if (chunk[i + 1] === CR) this.pending.push(chunk[++i] as number);
      this.flush();
    }
  }

  private pushAstm(chunk: Uint8Array): void {
    for (const b of chunk) {
      if (!this.framed) {
        this.pending.push(b);
        if (b === CR) this.flush();
        continue;
      }
      if (this.inFrame) {
        if (b === STX || b === EOT) {
          // The frame broke off: show what came, then the new unit.
          this.flush();
        } else {
          this.pending.push(b);
          if (b === LF) this.flush();
          continue;
        }
      }
      if (b === STX) {
        this.flush();
        this.inFrame = true;
        this.pending.push(b);
      } else if (SINGLE.has(b)) {
        this.flush();
        this.emit(Buffer.from([b]));
      } else {
        this.pending.push(b);
      }
    }
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.inFrame = false;
    if (this.pending.length === 0) return;
    const unit = Buffer.from(this.pending);
    this.pending = [];
    this.emit(unit);
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0) return;
    this.timer = setTimeout(() => this.flush(), this.idleMs);
    this.timer.unref();
  }
}
