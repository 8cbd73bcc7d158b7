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

export class MessageAssembler {
  private parts: Buffer[] = [];
  private length = 0;
  /** The last frame appended was an end frame (ETX): text so far ends on a record boundary for the sender. */
  private endFrame = false;

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
    return out;
  }

  /** Captures the state so a frame can be taken back (rejectStored). */
  snapshot(): { parts: Buffer[]; length: number; endFrame: boolean } {
    return { parts: [...this.parts], length: this.length, endFrame: this.endFrame };
  }

  restore(s: { parts: Buffer[]; length: number; endFrame: boolean }): void {
    this.parts = [...s.parts];
    this.length = s.length;
    this.endFrame = s.endFrame;
  }

  /** Adds the text of an accepted frame; returns the messages it completed, in order. */
  append(text: Buffer, end: FrameEnd): Buffer[] {
    if (text.length > 0) {
      this.parts.push(text);
      this.length += text.length;
    }
    this.endFrame = end === 'ETX';
    if (!this.endFrame) return [];
    const joined = this.pending();
    const cuts = terminatorEnds(joined);
    if (cuts.length === 0) {
      this.parts = joined.length > 0 ? [joined] : [];
      return [];
    }
    const messages: Buffer[] = [];
    let start = 0;
    for (const cut of cuts) {
      messages.push(joined.subarray(start, cut));
      start = cut;
    }
    const rest = joined.subarray(start);
    // CR/LF/blanks after the last L record belong to no message.
    if (isBlank(rest)) {
      this.parts = [];
      this.length = 0;
      this.endFrame = false;
    } else {
      this.parts = [rest];
      this.length = rest.length;
    }
    return messages;
  }
}

/**
 * Offsets just past each L record: its CR and any LF after it. CR and LF both
 * count as record separators here, for analyzers whose logs show LF.
 */
function terminatorEnds(text: Buffer): number[] {
  const ends: number[] = [];
  let recordStart = 0;
  while (recordStart < text.length) {
    let sep = recordStart;
    while (sep < text.length && text[sep] !== CR && text[sep] !== LF) sep++;
    let next = sep;
    while (next < text.length && (text[next] === CR || text[next] === LF)) next++;
    if (text[recordStart] === L) ends.push(next);
    recordStart = next;
  }
  return ends;
}

function isBlank(bytes: Uint8Array): boolean {
  for (const b of bytes) if (b !== CR && b !== LF && b !== 0x20 && b !== 0x00) return false;
  return true;
}
