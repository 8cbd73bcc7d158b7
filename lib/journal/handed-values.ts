/**
 * The values a link handed on toward the LIS, per (link, sample, test code, sub-test, replicate), with the message
 * they came in, its name (a file's) and when: what a later version of the same file is compared with, so a value is
 * not sent twice and a changed one is held as a correction rather than sent unmarked. Rebuilt from the journal's
 * `val` lines at start; a line leaves at compaction once past the retention time, as the messages it speaks of do.
 *
 * Keys are digests (as result keys are): the record need not spell out sample numbers in memory.
 */
import { createHash } from 'node:crypto';
import type { HandedEntry, HandedValueEntry } from './entries';

/** One value of a message: `n` tells replicates apart (0: the first value for this sample and test in the message). */
export type HandedValue = HandedValueEntry;

export interface HandedRecord {
  value: string;
  /** The journal message that brought it, and its name (the file's). */
  message: string;
  name: string;
  at: number;
  /** 'file': handed on as it came; 'correction': a person sent it in place of an earlier value. */
  via: HandedEntry['via'];
}

export function handedKey(link: string, v: Pick<HandedValue, 'sample' | 'code' | 'sub' | 'n'>): string {
  return createHash('sha256').update(JSON.stringify([link, v.sample, v.code, v.sub ?? '', v.n])).digest('base64url').slice(0, 22);
}

export class HandedValues {
  private readonly records = new Map<string, HandedRecord>();
  /** The lines applied (a message's part, or a hold's send): a message translated again after a restart writes none twice. */
  private readonly lines = new Map<string, { at: number; message: string }>();

  static lineOf(entry: Pick<HandedEntry, 'message' | 'part' | 'hold'>): string {
    return entry.hold !== undefined ? `hold:${entry.hold}` : `${entry.message}#${entry.part ?? ''}`;
  }

  /** A line read back or about to be written; false when it was applied already. Later lines win. */
  apply(entry: HandedEntry): boolean {
    const line = HandedValues.lineOf(entry);
    if (this.lines.has(line)) return false;
    this.lines.set(line, { at: entry.at, message: entry.message });
    for (const v of entry.values) this.records.set(handedKey(entry.link, v), { value: v.value, message: entry.message, name: entry.name, at: entry.at, via: entry.via });
    return true;
  }

  get(link: string, v: Pick<HandedValue, 'sample' | 'code' | 'sub' | 'n'>): HandedRecord | undefined {
    return this.records.get(handedKey(link, v));
  }

  /**
   * What compaction may drop: lines older than `cutoff` whose message goes too (a line of a message still kept, one
   * not settled, may have counted its batch handed on, and a replay of it must still find its values).
   */
  droppable(cutoff: number, kept: (message: string) => boolean): boolean {
    for (const l of this.lines.values()) if (l.at < cutoff && !kept(l.message)) return true;
    return false;
  }

  /** Forgets what compaction dropped. */
  drop(cutoff: number, kept: (message: string) => boolean): void {
    for (const [key, r] of this.records) if (r.at < cutoff && !kept(r.message)) this.records.delete(key);
    for (const [line, l] of this.lines) if (l.at < cutoff && !kept(l.message)) this.lines.delete(line);
  }

  /** Puts back what a line that could not be written changed. */
  undo(entry: HandedEntry, before: ReadonlyArray<HandedRecord | undefined>): void {
    this.lines.delete(HandedValues.lineOf(entry));
    entry.values.forEach((v, i) => {
      const b = before[i];
      if (b) this.records.set(handedKey(entry.link, v), b);
      else this.records.delete(handedKey(entry.link, v));
    });
  }
}
