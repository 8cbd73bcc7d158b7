/**
 * Joins the texts of accepted frames into messages.
 *
 * Analyzers map records onto frames every way there is: a whole H…L message in
 * one end frame, one record per end frame (Pentra XLR, STA Satellite), one
 * record per intermediate frame (cobas c 111), or fixed 240-character pieces
 * cut in mid-field (cobas e 411). So frame texts are joined first and records
 * looked for afterwards. A message ends with its L record (LIS2-A2 §12), found
 * once an end frame (ETX) has arrived; several messages in one end frame,
 * against §6.3.1.1, are still told apart.
 */
import { CR, LF } from '../control';
import type { FrameEnd } from './frame';

const L = 0x4c;
const H = 0x48;

/** Where the scan of the pending text stands, so each byte is looked at once. */
interface Scan {
  /** The first byte of the record being scanned (undefined before it has one): an L record ends a message. */
  first: number | undefined;
  /** The scan is in the CR/LF run after that record. */
  inSeparators: boolean;
  /** Offsets just past each L record (and its CR/LF run) found so far. */
  cuts: number[];
}

export interface AssemblerSnapshot {
  parts: Buffer[];
  count: number;
  length: number;
  endFrame: boolean;
  scan: Scan;
}

const freshScan = (): Scan => ({ first: undefined, inSeparators: false, cuts: [] });

export class MessageAssembler {
  private parts: Buffer[] = [];
  private length = 0;
  /** The last frame appended was an end frame (ETX): text so far ends on a record boundary for the sender. */
  private endFrame = false;
  /**
   * Records are found as frames arrive, not by rescanning the whole pending
   * text at every end frame: analyzers that put one record in each ETX frame
   * (Pentra XLR, STA Satellite) made that rescan quadratic, and a 1 MB
   * message of 32,000 records took 39 s of the runtime (issue 23's rule).
   */
  private scan: Scan = freshScan();

  get pendingLength(): number {
    return this.length;
  }

  /** Text held for a message that is not complete yet. */
  pending(): Buffer {
    return Buffer.concat(this.parts, this.length);
  }

  /** True when the text so far ended with an end frame, so a message without L record could end here. */
  get atEndFrame(): boolean {
    return this.endFrame;
  }

  /**
   * True when `text`, arriving after an end frame, starts with an H record: a
   * new message, so whatever is pending was a message without L record.
   * After an intermediate frame an 'H' may just continue a record cut in two.
   */
  startsNewMessage(text: Uint8Array): boolean {
    return this.length > 0 && this.endFrame && text[0] === H;
  }

  clear(): Buffer {
    const out = this.pending();
    this.parts = [];
    this.length = 0;
    this.endFrame = false;
    this.scan = freshScan();
    return out;
  }

  /**
   * Captures the state so a frame can be taken back (rejectStored). Appending
   * only pushes onto `parts` and completing replaces the array, so the array
   * and its count are enough: no copy per frame.
   */
  snapshot(): AssemblerSnapshot {
    return { parts: this.parts, count: this.parts.length, length: this.length, endFrame: this.endFrame, scan: { ...this.scan, cuts: [...this.scan.cuts] } };
  }

  restore(s: AssemblerSnapshot): void {
    this.parts = s.parts;
    this.parts.length = s.count;
    this.length = s.length;
    this.endFrame = s.endFrame;
    this.scan = { ...s.scan, cuts: [...s.scan.cuts] };
  }

  /** Adds the text of an accepted frame; returns the messages it completed, in order. */
  append(text: Buffer, end: FrameEnd): Buffer[] {
    if (text.length > 0) {
      this.scanRecords(text, this.length);
      this.parts.push(text);
      this.length += text.length;
    }
    this.endFrame = end === 'ETX';
    if (!this.endFrame) return [];
    const cuts = [...this.scan.cuts];
    // The record still open counts as ended by the end frame (a final L record with no CR).
    if (this.scan.first === L) cuts.push(this.length);
    if (cuts.length === 0) return [];
    const joined = this.pending();
    const messages: Buffer[] = [];
    let start = 0;
    for (const cut of cuts) {
      messages.push(joined.subarray(start, cut));
      start = cut;
    }
    const rest = joined.subarray(start);
    this.scan = freshScan();
    // CR/LF/blanks after the last L record belong to no message.
    if (isBlank(rest)) {
      this.parts = [];
      this.length = 0;
      this.endFrame = false;
    } else {
      this.parts = [rest];
      this.length = rest.length;
      this.scanRecords(rest, 0);
    }
    return messages;
  }

  /**
   * Moves the scan over `text`, which sits at `offset` in the pending text.
   * CR and LF both count as record separators here, for analyzers whose logs
   * show LF; an L record ends a message just past its CR/LF run.
   */
  private scanRecords(text: Uint8Array, offset: number): void {
    const scan = this.scan;
    for (let i = 0; i < text.length; i++) {
      const b = text[i]!;
      const separator = b === CR || b === LF;
      if (scan.first === undefined) scan.first = b;
      if (scan.inSeparators && !separator) {
        const at = offset + i;
        if (scan.first === L) scan.cuts.push(at);
        scan.first = b;
        scan.inSeparators = false;
      } else if (!scan.inSeparators && separator) scan.inSeparators = true;
    }
  }
}

function isBlank(bytes: Uint8Array): boolean {
  for (const b of bytes) if (b !== CR && b !== LF && b !== 0x20 && b !== 0x00) return false;
  return true;
}
