/**
 * The receiving side of one transfer phase (from our ACK of an ENQ to the
 * sender's EOT): judges each frame, answers it, and hands complete messages on.
 *
 * Guarantees, because a lost or doubled result is a clinical incident:
 * - a message is delivered once per transfer: a frame repeated because our ACK
 *   was lost is ACKed again but not appended again;
 * - half a message is never delivered: text still pending when the transfer
 *   breaks off (time-out, abort) is reported as discarded, and so is text that
 *   does not begin with an H record (the tail of a message). The sender
 *   then repeats the whole message (§6.5.2.3), so the caller must still expect
 *   a message twice across transfers and de-duplicate it.
 */
import { ACK, NAK } from '../control';
import { ActionList, type MessageEnd } from '../../../link/actions';
import { MessageAssembler } from './assembler';
import type { FrameEnd } from './frame';
import { splitBody, type ReadFrame } from './frame-reader';

export interface ReceiverOptions {
  strictFrameNumbers: boolean;
  terminatorRequired: boolean;
  holdFinalAck: boolean;
  /** With holdFinalAck: whether this message waits to be stored (a frame is held while any message it completed does). */
  storedBeforeAck: (message: Uint8Array) => boolean;
  /** The sender's reply time-out: an EOT later than this after our last reply follows a sender time-out. */
  replyTimeoutMs: number;
  /** Largest message text accepted (options.ts); the frame that would pass it is NAKed. */
  maxMessageBytes: number;
}

/** What became of a frame that passed the checksum. */
export type FrameOutcome = 'accepted' | 'held' | 'duplicate' | 'rejected' | 'ignored';

interface Hold {
  /** Messages of the held frame not yet reported stored. */
  ids: Set<string>;
  /** State from before the held frame, to take it back on rejectStored. */
  before: { lastFn: number | null; lastBody: Buffer | null; lastEnd: FrameEnd | null; accepted: number; assembler: ReturnType<MessageAssembler['snapshot']> };
  body: Buffer;
}

export class Receiver {
  private readonly assembler = new MessageAssembler();
  private lastFn: number | null = null;
  private lastBody: Buffer | null = null;
  private lastEnd: FrameEnd | null = null;
  private accepted = 0;
  private lastReply: 'none' | 'ACK' | 'NAK' = 'none';
  private lastReplyAt = 0;
  private hold: Hold | null = null;
  private fnWarned = false;
  /** Frame number of the frame we last NAKed, when it could be read. */
  private nakedFn: number | null = null;
  /** A frame of this transfer was refused because the message grew past maxMessageBytes. */
  private tooLarge = false;

  constructor(
    private readonly options: ReceiverOptions,
    private readonly nextId: () => string,
  ) {}

  /** Frames accepted in this transfer. */
  get frames(): number {
    return this.accepted;
  }

  get holding(): boolean {
    return this.hold !== null;
  }

  /** Ids still waiting for confirmStored. */
  get heldIds(): string[] {
    return this.hold ? [...this.hold.ids] : [];
  }

  /** A new transfer phase: our ACK of the sender's ENQ has just been written. */
  begin(now: number): void {
    this.assembler.clear();
    this.lastFn = null;
    this.lastBody = null;
    this.lastEnd = null;
    this.accepted = 0;
    this.hold = null;
    this.fnWarned = false;
    this.nakedFn = null;
    this.tooLarge = false;
    this.lastReply = 'ACK';
    this.lastReplyAt = now;
  }

  /** A frame that passed the checksum. */
  onFrame(frame: ReadFrame, now: number, out: ActionList): FrameOutcome {
    const { body, end } = frame;
    if (this.hold) {
      // The sender should wait for our reply; a copy of the held frame means it
      // retransmitted after its own time-out, and the ACK still to come answers it.
      if (!sameFrame(this.hold.body, this.lastEnd, body, end)) {
        out.warn('frame received while the previous one awaits confirmStored; ignored (no reply)');
      }
      return 'ignored';
    }
    const { fn, text } = splitBody(body);
    const label = fn === null ? 'frame without number' : `frame ${fn}`;

    // §6.5.1.1(3): the same number as the last accepted frame is a retransmission.
    // Only an identical copy is one: the Sysmex XN-550 capture reuses FN 2 for a
    // different record, and dropping that would lose a result.
    if (this.accepted > 0 && fn === this.lastFn && this.lastBody && sameFrame(this.lastBody, this.lastEnd, body, end)) {
      out.warn(`${label} received again (our ACK was lost?): ACKed, not delivered twice`);
      this.reply(ACK, now, out);
      return 'duplicate';
    }

    const expected = this.lastFn === null ? 1 : (this.lastFn + 1) % 8;
    // After our NAK the sender must repeat that frame (§6.5.1). A different
    // number means it moved on anyway (a NAK it took for an ACK, or a sender
    // that ignores NAKs): accepting would leave a hole in the message, so this
    // is refused even when frame numbers are not checked otherwise. Jumps
    // after an ACK are only numbering quirks: a frame that got no reply at all
    // makes a standard sender abort, not skip.
    if (this.lastReply === 'NAK' && fn !== null && fn !== expected && fn !== this.nakedFn) {
      out.warn(`${label} after our NAK, where the repeat of frame ${this.nakedFn ?? expected} was expected: NAK`);
      this.reply(NAK, now, out);
      return 'rejected';
    }
    // A transfer starts at 1 (§6.3.2.1); after that, same or one higher (§6.5.1.1(3)).
    const irregular = this.accepted === 0 ? fn !== 1 : fn === null || (fn !== expected && fn !== this.lastFn);
    if (irregular) {
      const what = fn === null ? 'no frame number' : `frame number ${fn} where ${expected} was expected`;
      if (this.options.strictFrameNumbers) {
        out.warn(`${what}: NAK (strictFrameNumbers)`);
        this.reply(NAK, now, out);
        return 'rejected';
      }
      if (!this.fnWarned) {
        this.fnWarned = true;
        out.warn(`${what}; accepted because strictFrameNumbers is off (reported once per transfer)`);
      }
    } else if (this.accepted > 0 && fn === this.lastFn && !this.fnWarned) {
      this.fnWarned = true;
      out.warn(`${label} repeats the previous frame number with different text: taken as a new frame (reported once per transfer)`);
    }

    // Delivered before the snapshot below: rejectStored must not bring it back.
    if (this.assembler.startsNewMessage(text)) this.endWithoutTerminator('nextHeader', 'an H record began the next message', out);

    if (this.assembler.pendingLength + text.length > this.options.maxMessageBytes) {
      if (!this.tooLarge) out.warn(`${label} makes the message larger than ${this.options.maxMessageBytes} bytes (Largest message): NAK`);
      this.tooLarge = true;
      if (this.lastReply !== 'NAK') this.nakedFn = fn;
      this.reply(NAK, now, out);
      return 'rejected';
    }

    const before = {
      lastFn: this.lastFn,
      lastBody: this.lastBody,
      lastEnd: this.lastEnd,
      accepted: this.accepted,
      assembler: this.assembler.snapshot(),
    };
    this.lastFn = fn;
    this.lastBody = body;
    this.lastEnd = end;
    this.accepted++;

    const messages = this.assembler.append(Buffer.from(text), end).filter((bytes) => this.beginsWithHeader(bytes, out));
    const ids: string[] = [];
    for (const bytes of messages) {
      const id = this.nextId();
      const held = this.options.holdFinalAck && this.options.storedBeforeAck(bytes);
      if (held) ids.push(id);
      out.push({ type: 'message', id, bytes, end: 'terminator', held });
    }
    if (ids.length > 0) {
      this.hold = { ids: new Set(ids), before, body };
      return 'held';
    }
    this.reply(ACK, now, out);
    return 'accepted';
  }

  /** A frame that failed: bad checksum, too long, garbled. */
  onInvalid(reason: string, fn: number | null, now: number, out: ActionList): void {
    if (this.hold) {
      out.warn(`defective frame while a frame awaits confirmStored (${reason}); ignored`);
      return;
    }
    out.warn(`frame rejected: ${reason}; NAK`);
    // Keep the number of the first frame NAKed in a row: a repeated failure may garble it.
    if (this.lastReply !== 'NAK') this.nakedFn = fn;
    this.reply(NAK, now, out);
  }

  /** EOT: the sender ends the transfer, normally or by aborting. */
  onEot(now: number, inFrame: boolean, out: ActionList): void {
    this.dropHold('the sender ended the transfer', out);
    if (this.assembler.pendingLength === 0) return;
    let why: string | null = null;
    if (inFrame) why = 'EOT arrived inside a frame';
    else if (!this.assembler.atEndFrame) why = 'the transfer ended after an intermediate (ETB) frame';
    else if (this.lastReply !== 'ACK') why = 'the sender gave up after a rejected frame';
    else if (now - this.lastReplyAt >= this.options.replyTimeoutMs) why = 'EOT came only after the sender\'s reply time-out, so a frame was probably lost';
    if (this.tooLarge) this.discard(this.tooLargeReason(), out);
    else if (why) this.discard(`incomplete message: ${why}`, out);
    else this.endWithoutTerminator('eot', 'the transfer ended', out);
  }

  /** §6.5.2.4: no frame or EOT within the receive time-out. */
  onTimeout(out: ActionList): void {
    this.dropHold('receive time-out', out);
    if (this.assembler.pendingLength > 0) this.discard(this.tooLarge ? this.tooLargeReason() : 'incomplete message: receive time-out', out);
  }

  /** The transfer is abandoned for another reason (new ENQ, reset). */
  abandon(reason: string, out: ActionList): void {
    this.dropHold(reason, out);
    if (this.assembler.pendingLength > 0) this.discard(this.tooLarge ? this.tooLargeReason() : `incomplete message: ${reason}`, out);
  }

  private tooLargeReason(): string {
    return `message larger than ${this.options.maxMessageBytes} bytes, refused with NAK: raise Largest message (bytes) on the astm-link if the analyzer really sends messages this large`;
  }

  /** confirmStored: ACK the held frame once every message it completed is stored. Returns false for an unknown id. */
  confirm(id: string, now: number, out: ActionList): boolean {
    if (!this.hold || !this.hold.ids.has(id)) return false;
    this.hold.ids.delete(id);
    if (this.hold.ids.size === 0) {
      this.hold = null;
      this.reply(ACK, now, out);
    }
    return true;
  }

  /**
   * rejectStored: the message could not be stored. The held frame is taken back
   * and NAKed, so the sender retransmits it and the message is delivered anew
   * (under a new id). Returns false for an unknown id.
   */
  reject(id: string, now: number, out: ActionList): boolean {
    if (!this.hold || !this.hold.ids.has(id)) return false;
    const { before, ids } = this.hold;
    this.hold = null;
    this.lastFn = before.lastFn;
    this.lastBody = before.lastBody;
    this.lastEnd = before.lastEnd;
    this.accepted = before.accepted;
    this.assembler.restore(before.assembler);
    out.warn(`message ${[...ids].join(', ')} not stored: frame NAKed so the sender sends it again`);
    this.reply(NAK, now, out);
    return true;
  }

  private endWithoutTerminator(end: MessageEnd, why: string, out: ActionList): void {
    const bytes = this.assembler.clear();
    if (this.options.terminatorRequired) {
      out.push({ type: 'discarded', reason: `message without L record (${why}); terminatorRequired is on`, bytes });
      out.warn(`discarded ${bytes.length} bytes: message without L record (terminatorRequired)`);
      return;
    }
    if (this.beginsWithHeader(bytes, out)) out.push({ type: 'message', id: this.nextId(), bytes, end, held: false });
  }

  /**
   * Every E1394 message begins with its H record. Text that does not is the
   * tail of a message whose head went astray: reported, never delivered as if
   * it were whole.
   */
  private beginsWithHeader(bytes: Buffer, out: ActionList): boolean {
    let i = 0;
    while (i < bytes.length && (bytes[i] === 0x0d || bytes[i] === 0x0a || bytes[i] === 0x20 || bytes[i] === 0x00)) i++;
    if (bytes[i] === 0x48) return true;
    this.discardBytes(bytes, 'message does not begin with an H record', out);
    return false;
  }

  private discard(reason: string, out: ActionList): void {
    this.discardBytes(this.assembler.clear(), reason, out);
  }

  private discardBytes(bytes: Buffer, reason: string, out: ActionList): void {
    out.push({ type: 'discarded', reason, bytes });
    out.warn(`discarded ${bytes.length} bytes: ${reason}`);
  }

  private dropHold(reason: string, out: ActionList): void {
    if (!this.hold) return;
    out.warn(`${reason} before ${[...this.hold.ids].join(', ')} was confirmed stored; its last frame was never ACKed, so the sender will probably send it again`);
    this.hold = null;
  }

  private reply(byte: number, now: number, out: ActionList): void {
    out.write(Buffer.from([byte]));
    this.lastReply = byte === ACK ? 'ACK' : 'NAK';
    this.lastReplyAt = now;
  }
}

function sameFrame(a: Buffer, aEnd: FrameEnd | null, b: Buffer, bEnd: FrameEnd | null): boolean {
  return aEnd === bEnd && a.equals(b);
}
