/**
 * Control IDs the host acknowledged recently, so an analyzer's resend after a
 * lost ACK (it heard nothing within its time-out and sends the same message
 * with the same MSH-10 again, v2.5.1 2.9.2) is answered again and not
 * processed twice.
 *
 * A repeat is the same sender (MSH-3, MSH-4), the same MSH-10 and the same
 * segments after MSH: MSH-7 may be new on a resend, and some analyzers reuse
 * control IDs (the Mindray CL sends `1` for every result, SOURCES.md), so a
 * reused MSH-10 with other content is a new message, never a repeat.
 *
 * One per link node, shared by its connections (an analyzer that heard no ACK
 * often reconnects first); bounded in time and size. After a restart the
 * journal's own repeat recognition (lib/journal/link-store.ts) covers what
 * was stored but never acknowledged.
 */
import { createHash } from 'node:crypto';

export interface Answered {
  /** The ack codes written for it, in order (an enhanced-mode message may have had a CA and an AA). */
  codes: string[];
  at: number;
  /** The content hash of the message (segments after MSH). */
  content: string;
}

export class RecentControlIds {
  private readonly answered = new Map<string, Answered>();

  constructor(
    /** How long a resend is expected: well beyond an analyzer's own time-outs (the journal's REPEAT_WINDOW_MS). */
    private readonly windowMs = 15 * 60_000,
    private readonly max = 1000,
  ) {}

  get size(): number {
    return this.answered.size;
  }

  remember(key: string, content: string, codes: string[], now: number): void {
    this.prune(now);
    this.answered.delete(key);
    this.answered.set(key, { codes, at: now, content });
  }

  /** What was answered to `key`, if it was within the window. */
  find(key: string, now: number): Answered | undefined {
    this.prune(now);
    return this.answered.get(key);
  }

  private prune(now: number): void {
    for (const [key, a] of this.answered) {
      if (now - a.at <= this.windowMs && this.answered.size <= this.max) break;
      this.answered.delete(key);
    }
  }
}

/** The sender and control ID a repeat is known by. */
export function controlKey(sendingApplication: string, sendingFacility: string, controlId: string): string {
  return JSON.stringify([sendingApplication, sendingFacility, controlId]);
}

/** A hash of a message's segments after MSH (bytes after its first CR or LF). */
export function contentHash(bytes: Uint8Array): string {
  let end = 0;
  while (end < bytes.length && bytes[end] !== 0x0d && bytes[end] !== 0x0a) end++;
  return createHash('sha256').update(bytes.subarray(end)).digest('hex');
}
