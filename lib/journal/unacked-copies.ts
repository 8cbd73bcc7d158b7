/**
 * Messages the analyzer may send again because their final ACK may never have
 * reached it: the transfer ended (or the link closed) while the disk was busy,
 * or Node-RED stopped between the disk and the ACK. An E1381 sender that heard
 * no ACK sends the message again (LIS1-A 6.5.2.3); one that does not wait for
 * ACKs never will. So the stored copy is processed (nothing is lost), and a
 * repeat of it arriving within the window is recognised here and not
 * processed twice. The H record is left out of the comparison: a repeat may
 * carry a new message time-stamp in it.
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

  /** The journal id of the copy `bytes` repeats, if any. */
  find(bytes: Uint8Array, now: number): string | undefined {
    if (this.copies.size === 0) return undefined;
    this.prune(now);
    return this.copies.get(contentKey(bytes))?.journalId;
  }

  /** The analyzer heard the ACK of a repeat: no further one is expected. */
  forget(bytes: Uint8Array): void {
    this.copies.delete(contentKey(bytes));
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
