/**
 * Cuts received bytes into the units a trace shows (a control character, a
 * frame, a record, a message: what a unit is, is the protocol's, see
 * framing.ts). Reads from a port or socket split and join frames at random,
 * and a trace line per read would be unreadable; this is for the log only,
 * never for deciding anything (the link does that on the raw bytes).
 *
 * This base gathers the pieces of a unit, shows a partial one after a
 * silence, and copies what it keeps; a protocol's subclass scans the bytes
 * (scan) and says where units end (take, flush, emit).
 */
export abstract class WireSplitter {
  /** The unit being gathered, as copies of the pieces read (a frame comes whole in one read, most often). */
  private pending: Buffer[] = [];
  private timer: NodeJS.Timeout | undefined;

  /**
   * @param emit receives each unit
   * @param idleMs a partial unit is shown anyway after this much silence (a frame that lost its end)
   */
  constructor(
    protected readonly emit: (unit: Buffer) => void,
    private readonly idleMs = 200,
  ) {}

  /** Runs of bytes between unit boundaries are copied whole: the caller may reuse its buffer. */
  push(chunk: Uint8Array): void {
    this.scan(chunk);
    this.arm();
  }

  /**
   * The other direction is about to show a unit (the link's answer): a unit
   * that is whole though its optional end has not come is shown now, so an
   * answer never appears before what it answers. Nothing to do by default.
   */
  settle(): void {}

  /** Shows the unit gathered so far, if any. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.reset();
    if (this.pending.length === 0) return;
    const unit = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending);
    this.pending = [];
    this.emit(unit);
  }

  /** Reads a chunk: take() the bytes of the current unit, flush() where one ends, emit() a unit of its own. */
  protected abstract scan(chunk: Uint8Array): void;

  /** A unit ended (flush): forget what the scan knew of it. */
  protected reset(): void {}

  /** Adds chunk[from, to) to the unit being gathered. */
  protected take(chunk: Uint8Array, from: number, to: number): void {
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
