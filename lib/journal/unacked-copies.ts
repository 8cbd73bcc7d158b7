/**
 * Messages whose final ACK never went out although they were stored: the
 * analyzer ended the transfer (or the link closed) while the disk was busy.
 * An E1381 sender that heard no ACK sends the message again; one that does not
 * wait for ACKs never will. So the stored copy is processed (nothing is lost),
 * and a repeat of it arriving soon after is recognised here and not processed
 * twice. The H record is left out of the comparison: a repeat may carry a new
 * message time-stamp in it.
 */
import { createHash } from 'node:crypto';

const CR = 0x0d;

export class UnackedCopies {
  private readonly copies = new Map<string, { journalId: string; at: number }>();

  constructor(
    /** How long a repeat is expected: well beyond the analyzer's own retry delays. */
    private readonly windowMs = 15 * 60_000,
    private readonly max = 1000,
  ) {}

  get size(): number {
    return this.copies.size;
  }

  remember(bytes: Uint8Array, journalId: string, now: number): void {
    this.prune(now);
    this.copies.set(contentKey(bytes), { journalId, at: now });
  }

  /** The journal id of the copy `bytes` repeats, if any; the copy is forgotten (one repeat expected). */
  takeRepeat(bytes: Uint8Array, now: number): string | undefined {
    if (this.copies.size === 0) return undefined;
    this.prune(now);
    const key = contentKey(bytes);
    const copy = this.copies.get(key);
    if (!copy) return undefined;
    this.copies.delete(key);
    return copy.journalId;
  }

  private prune(now: number): void {
    for (const [key, copy] of this.copies) {
      if (now - copy.at <= this.windowMs && this.copies.size <= this.max) break;
      this.copies.delete(key);
    }
  }
}

function contentKey(bytes: Uint8Array): string {
  const afterHeader = bytes.indexOf(CR) + 1;
  return createHash('sha256').update(bytes.subarray(afterHeader)).digest('hex');
}
