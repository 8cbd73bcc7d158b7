/**
 * The E1381 / LIS1-A data link layer (§6 serial, §8 TCP/IP: the same rules) as
 * a pure state machine. No I/O and no clocks: the driver passes in received
 * bytes and the current time, calls tick() at nextDeadline(), and carries out
 * the returned actions in order. Bad input from the wire never throws; it is
 * answered as the standard says and reported through actions.
 *
 * One line is either neutral, or one side sends while the other receives
 * (§6.1.3, simplex stop-and-wait). We send one queued message per transfer
 * phase (ENQ, its frames, EOT) and receive any number of messages per transfer.
 *
 * Driver contract:
 * - feed every read from the port to receive(bytes, now), unchanged;
 * - carry out the returned actions in order ('write' at once);
 * - keep one timer armed for nextDeadline() and call tick(now) when it fires,
 *   re-reading nextDeadline() after every call (null: no timer needed);
 * - `now` is any monotonic millisecond clock.
 * Timers start when an action is returned, i.e. when its write is handed to the
 * port; on a slow serial line with large frames, lengthen replyTimeoutMs.
 */
import { ACK, ENQ, EOT, NAK } from '../control';
import { ActionList, type LinkAction, type LinkState } from '../../../link/actions';
import { FrameReader } from './frame-reader';
import { resolveOptions, type AstmLinkOptions } from './options';
import { Receiver } from './receiver';
import { Outbox, Transfer, checkMessage } from './sender';

export class AstmLink {
  readonly options: Readonly<AstmLinkOptions>;
  private phase: LinkState = 'idle';
  /** Reply, contention or instrument-retry deadline of the current phase. */
  private deadline = 0;
  /** Earliest time of our next ENQ (busy NAK, retry delay, interrupt hold). */
  private notBefore = 0;
  /** The hold after a receiver interrupt also ends when the other side has sent (§6.3.5.3). */
  private interruptHold = false;
  private readonly outbox = new Outbox();
  private transfer: Transfer | null = null;
  /** receive() calls so far; a frame written during call n cannot be answered by the rest of call n's bytes. */
  private call = 0;
  private frameWrittenInCall = -1;
  private readonly reader: FrameReader;
  private readonly receiver: Receiver;
  /** Last reply we sent or last frame byte we got while receiving: the receive timer runs from here. */
  private rxActivity = 0;
  private rxCount = 0;

  constructor(options: Partial<AstmLinkOptions> = {}) {
    this.options = Object.freeze(resolveOptions(options));
    const o = this.options;
    this.reader = new FrameReader({ checksums: o.checksums, maxFrame: o.maxReceiveFrame });
    this.receiver = new Receiver(
      { strictFrameNumbers: o.strictFrameNumbers, terminatorRequired: o.terminatorRequired, holdFinalAck: o.holdFinalAck, storedBeforeAck: o.storedBeforeAck, replyTimeoutMs: o.replyTimeoutMs, maxMessageBytes: o.maxMessageBytes },
      () => `${o.messageIdPrefix}-${++this.rxCount}`,
    );
  }

  get state(): LinkState {
    return this.phase;
  }

  /** Messages waiting to go out, the one in transfer included. */
  get queueLength(): number {
    return this.outbox.size;
  }

  /** Received message ids whose final ACK waits for confirmStored. */
  get awaitingConfirmation(): string[] {
    return this.receiver.heldIds;
  }

  /** When tick() must be called next, or null when only input can change anything. */
  nextDeadline(): number | null {
    switch (this.phase) {
      case 'idle':
        return null;
      case 'busyWait':
        return this.notBefore;
      case 'receiving':
        return this.rxActivity + this.options.receiveTimeoutMs;
      default:
        return this.deadline;
    }
  }

  /** Queues a message (records, each ending in CR) for sending under the caller's id. */
  send(message: Uint8Array, id: string, now: number): LinkAction[] {
    const out = new ActionList();
    const problem = checkMessage(message);
    if (problem) {
      out.push({ type: 'sendFailed', id, reason: problem });
      return out.items;
    }
    this.outbox.add(id, message);
    this.startSending(now, out);
    return out.items;
  }

  /** Bytes from the port, in whatever pieces they arrived. */
  receive(bytes: Uint8Array, now: number): LinkAction[] {
    const out = new ActionList();
    this.call++;
    let i = 0;
    while (i < bytes.length) {
      switch (this.phase) {
        case 'idle':
        case 'busyWait':
        case 'contention':
          i = this.neutralBytes(bytes, i, now, out);
          break;
        case 'establishing':
          i = this.enqReplyBytes(bytes, i, now, out);
          break;
        case 'waitingAck':
          i = this.frameReplyBytes(bytes, i, now, out);
          break;
        case 'receiving':
          i = this.receivingBytes(bytes, i, now, out);
          break;
      }
    }
    return out.items;
  }

  /** Fires whatever timer has run out by `now`; harmless to call at any time. */
  tick(now: number): LinkAction[] {
    const out = new ActionList();
    const o = this.options;
    switch (this.phase) {
      case 'idle':
      case 'busyWait':
        this.startSending(now, out);
        break;
      case 'establishing':
        if (now >= this.deadline) {
          // §6.5.2.1: no reply to ENQ -> termination phase.
          out.write(Buffer.from([EOT]));
          this.abortAttempt(`no reply to ENQ within ${o.replyTimeoutMs} ms`, o.retryDelayMs, now, out);
        }
        break;
      case 'waitingAck':
        if (now >= this.deadline) {
          // §6.5.2.3: no reply to a frame -> abort with EOT; the message is repeated whole later.
          const where = this.transfer ? `frame ${this.transfer.position}` : 'frame';
          out.write(Buffer.from([EOT]));
          this.abortAttempt(`no reply to ${where} within ${o.replyTimeoutMs} ms`, o.retryDelayMs, now, out);
        }
        break;
      case 'contention':
        if (now >= this.deadline) {
          if (o.role === 'instrument') {
            this.establish(now, out); // §6.2.7.1(2): the instrument tries again after its pause
          } else {
            // §6.5.2.2: no ENQ from the instrument within 20 s -> the line is neutral again
            // and our message may go. It counts as an attempt: a contention nobody
            // follows up (an echo of our own ENQ?) must not repeat unnoticed for ever.
            this.abortAttempt(`contention: no ENQ from the instrument within ${o.contentionWaitMs} ms; line neutral`, 0, now, out);
          }
        }
        break;
      case 'receiving':
        if (now >= this.rxActivity + o.receiveTimeoutMs) {
          // §6.5.2.4: discard the incomplete message, line neutral.
          out.warn(`receive time-out: no frame or EOT within ${o.receiveTimeoutMs} ms; line neutral`);
          this.receiver.onTimeout(out);
          this.reader.reset();
          this.goNeutral('receive time-out', now, out);
        }
        break;
    }
    return out.items;
  }

  /** holdFinalAck: whether a frame still waits for message `id` to be stored (false once the transfer ended or moved on). */
  awaitsStored(id: string): boolean {
    return this.phase === 'receiving' && this.receiver.heldIds.includes(id);
  }

  /** holdFinalAck: the message `id` is stored; its frame is ACKed once all messages it completed are. */
  confirmStored(id: string, now: number): LinkAction[] {
    const out = new ActionList();
    if (this.phase !== 'receiving' || !this.receiver.confirm(id, now, out)) {
      out.warn(`confirmStored(${id}): no frame awaits that message (already answered, or the transfer ended)`);
      return out.items;
    }
    if (!this.receiver.holding) {
      this.rxActivity = now;
      this.setPhase('receiving', `message ${id} stored and acknowledged`, out);
    }
    return out.items;
  }

  /** holdFinalAck: the message `id` could not be stored; its frame is NAKed so the sender repeats it. */
  rejectStored(id: string, now: number): LinkAction[] {
    const out = new ActionList();
    if (this.phase !== 'receiving' || !this.receiver.reject(id, now, out)) {
      out.warn(`rejectStored(${id}): no frame awaits that message (already answered, or the transfer ended)`);
      return out.items;
    }
    this.rxActivity = now;
    return out.items;
  }

  /**
   * The connection is gone for good (a TCP peer closed it; a new connection is a
   * new session with a link of its own). A partial received message is
   * discarded, and every message waiting to go out fails at once with the
   * reason, instead of running through its ENQ time-outs on a line that no
   * longer exists.
   */
  disconnect(_now: number, reason: string): LinkAction[] {
    const out = new ActionList();
    if (this.phase === 'receiving') this.receiver.abandon(reason, out);
    this.reader.reset();
    this.transfer = null;
    for (let m = this.outbox.shift(); m; m = this.outbox.shift()) out.push({ type: 'sendFailed', id: m.id, reason });
    this.setPhase('idle', reason, out);
    return out.items;
  }

  // ----- neutral line, contention -----

  private neutralBytes(bytes: Uint8Array, i: number, now: number, out: ActionList): number {
    // §6.2.5: a receiver on a neutral line ignores everything but ENQ.
    const at = bytes.indexOf(ENQ, i);
    if (at < 0) return bytes.length;
    if (this.phase === 'contention' && this.options.role === 'instrument') return at + 1; // the computer must wait for our ENQ
    // §6.2.7.1(1): after contention, the instrument's *next* ENQ is answered like any other.
    this.beginReceiving(now, out);
    return at + 1;
  }

  private beginReceiving(now: number, out: ActionList): void {
    out.write(Buffer.from([ACK]));
    this.reader.reset();
    this.receiver.begin(now);
    this.rxActivity = now;
    this.setPhase('receiving', 'ENQ acknowledged', out);
  }

  // ----- sending -----

  private startSending(now: number, out: ActionList): void {
    if (this.phase !== 'idle' && this.phase !== 'busyWait') return;
    if (this.phase === 'busyWait' && now < this.notBefore) return;
    if (this.phase === 'idle' && !this.outbox.head) return;
    this.goNeutral('nothing to send', now, out);
  }

  private establish(now: number, out: ActionList): void {
    const head = this.outbox.head;
    if (!head) return this.setPhase('idle', 'nothing to send', out);
    out.write(Buffer.from([ENQ]));
    this.interruptHold = false;
    this.deadline = now + this.options.replyTimeoutMs;
    this.setPhase('establishing', `ENQ for ${head.id}`, out);
  }

  private enqReplyBytes(bytes: Uint8Array, i: number, now: number, out: ActionList): number {
    // §6.2.4: while waiting after ENQ, only ACK, NAK and ENQ mean anything.
    let j = i;
    while (j < bytes.length && bytes[j] !== ACK && bytes[j] !== NAK && bytes[j] !== ENQ) j++;
    if (j >= bytes.length) return j;
    const reply = bytes[j]!;
    const head = this.outbox.head;
    if (!head) {
      out.write(Buffer.from([EOT]));
      this.goNeutral('nothing to send', now, out);
      return j + 1;
    }
    if (reply === ACK) {
      this.transfer = new Transfer(head, this.options);
      this.sendFrame(this.transfer, now, out);
    } else if (reply === NAK) {
      // §6.2.6: the receiver is busy; wait at least 10 s before the next ENQ.
      this.abortAttempt('receiver busy (ENQ answered with NAK)', this.options.busyWaitMs, now, out);
    } else if (this.options.role === 'instrument') {
      // §6.2.7.1(2): the instrument keeps priority and tries again after a pause.
      this.deadline = now + this.options.contentionRetryMs;
      this.setPhase('contention', `ENQ/ENQ contention; ENQ again in ${this.options.contentionRetryMs} ms`, out);
    } else {
      // §6.2.7.1(1), §6.5.2.2: the computer yields and waits up to 20 s for the instrument's next ENQ.
      this.deadline = now + this.options.contentionWaitMs;
      this.setPhase('contention', `ENQ/ENQ contention; waiting ${this.options.contentionWaitMs} ms for the instrument's ENQ`, out);
    }
    return j + 1;
  }

  private sendFrame(t: Transfer, now: number, out: ActionList): void {
    out.write(t.current);
    this.frameWrittenInCall = this.call;
    this.deadline = now + this.options.replyTimeoutMs;
    this.setPhase('waitingAck', `${t.message.id}: frame ${t.position}${t.naks > 0 ? ` (retransmission ${t.naks})` : ''}`, out);
  }

  private frameReplyBytes(bytes: Uint8Array, i: number, now: number, out: ActionList): number {
    // Bytes read together with the reply that made us send this frame were on the
    // wire before the frame: they cannot answer it.
    if (this.frameWrittenInCall === this.call) return bytes.length;
    const t = this.transfer;
    if (!t) {
      this.goNeutral('no transfer in progress', now, out); // cannot happen; never throw on input
      return i;
    }
    let j = i;
    while (j < bytes.length && bytes[j] !== ACK && bytes[j] !== NAK && bytes[j] !== EOT) j++;
    if (j >= bytes.length) {
      // §6.5.1.2: any character but ACK or EOT is a NAK condition (one per read).
      this.nakCondition(t, 'unexpected reply', now, out);
      return bytes.length;
    }
    const reply = bytes[j]!;
    if (reply === NAK) this.nakCondition(t, 'NAK', now, out);
    else if (reply === ACK) this.frameAccepted(t, now, out);
    else this.receiverInterrupt(t, now, out);
    return j + 1;
  }

  private frameAccepted(t: Transfer, now: number, out: ActionList): void {
    if (t.isLast) {
      out.write(Buffer.from([EOT]));
      this.messageSent(t, now, out);
      return;
    }
    t.index++;
    t.naks = 0;
    this.sendFrame(t, now, out);
  }

  private nakCondition(t: Transfer, what: string, now: number, out: ActionList): void {
    t.naks++;
    if (t.naks >= this.options.maxRetransmits) {
      // §6.5.1.2: sent and not accepted six times -> abort (termination phase).
      out.write(Buffer.from([EOT]));
      this.abortAttempt(`frame ${t.position} not accepted after ${t.naks} transmissions (last reply: ${what})`, this.options.retryDelayMs, now, out);
      return;
    }
    out.warn(`${t.message.id}: frame ${t.position} answered with ${what}; retransmitting (${t.naks} of ${this.options.maxRetransmits - 1})`);
    this.sendFrame(t, now, out);
  }

  /**
   * §6.3.5: EOT in place of ACK accepts the frame and asks us to stop. We honour
   * it (the instrument has priority): termination phase, then no ENQ for 15 s or
   * until the instrument has sent. If the frame ended the message, it was sent;
   * otherwise the message is incomplete at the receiver and is repeated whole.
   */
  private receiverInterrupt(t: Transfer, now: number, out: ActionList): void {
    out.write(Buffer.from([EOT]));
    if (t.isLast) {
      out.warn(`${t.message.id}: receiver interrupt on the last frame; message complete, pausing before the next ENQ`);
      this.messageSent(t, now, out, false);
    } else {
      this.abortAttempt(`receiver interrupt after frame ${t.position}`, 0, now, out, false);
    }
    this.interruptHold = true;
    this.notBefore = Math.max(this.notBefore, now + this.options.interruptHoldMs);
    this.goNeutral('receiver interrupt honoured', now, out);
  }

  private messageSent(t: Transfer, now: number, out: ActionList, neutral = true): void {
    this.transfer = null;
    if (this.outbox.head === t.message) this.outbox.shift();
    out.push({ type: 'sent', id: t.message.id });
    if (neutral) this.goNeutral(`${t.message.id} sent`, now, out);
  }

  /**
   * The attempt ended without the message getting through. It stays at the head
   * of the queue to be repeated whole (§6.5.2.3) unless it used up maxSendAttempts.
   */
  private abortAttempt(reason: string, delayMs: number, now: number, out: ActionList, neutral = true): void {
    const head = this.outbox.head;
    this.transfer = null;
    if (head) {
      head.failures++;
      const n = `attempt ${head.failures} of ${this.options.maxSendAttempts}`;
      if (head.failures >= this.options.maxSendAttempts) {
        this.outbox.shift();
        out.push({ type: 'sendFailed', id: head.id, reason: `${reason} (${n})` });
      } else {
        out.warn(`${head.id}: ${reason}; the whole message will be sent again (${n})`);
      }
    }
    this.notBefore = Math.max(this.notBefore, now + delayMs);
    if (neutral) this.goNeutral(reason, now, out);
  }

  /** The line is neutral (§6.4.1): send the next message, wait until we may, or rest. */
  private goNeutral(detail: string, now: number, out: ActionList): void {
    this.phase = 'idle';
    this.transfer = null;
    const head = this.outbox.head;
    if (!head) this.setPhase('idle', detail, out);
    else if (now >= this.notBefore) this.establish(now, out);
    else this.setPhase('busyWait', `${detail}; ${head.id} waits until ${this.notBefore}`, out);
  }

  // ----- receiving -----

  private receivingBytes(bytes: Uint8Array, i: number, now: number, out: ActionList): number {
    const { next, event } = this.reader.feed(bytes, i);
    if (event || this.reader.inFrame) this.rxActivity = now;
    if (!event) return next;
    switch (event.kind) {
      case 'frame': {
        const outcome = this.receiver.onFrame(event.frame, now, out);
        if (outcome === 'accepted') this.setPhase('receiving', `frame ${this.receiver.frames} accepted`, out);
        else if (outcome === 'held') this.setPhase('receiving', `frame ${this.receiver.frames} accepted; ACK held until ${this.receiver.heldIds.join(', ')} stored`, out);
        break;
      }
      case 'invalid':
        this.receiver.onInvalid(event.reason, event.fn, now, out);
        break;
      case 'restart':
        if (event.dropped > 0) out.warn(`STX inside a frame: ${event.dropped} bytes of an unfinished frame dropped`);
        break;
      case 'enq':
        // Not defined inside a transfer. Answering it would put an ACK on the
        // line that the sender could take for the reply to its next frame, and
        // restarting would cut the message whose first frames we already ACKed.
        // A sender that really started over sends EOT or times out, and the
        // timers recover (a new connection gets a new link).
        out.warn('ENQ inside a transfer ignored');
        break;
      case 'eot':
        this.receiver.onEot(now, event.inFrame, out);
        // §6.3.5.3: the interrupt hold ends once the other side has sent and released the line.
        if (this.interruptHold) {
          this.interruptHold = false;
          this.notBefore = now;
        }
        this.goNeutral(`transfer ended after ${this.receiver.frames} frame(s)`, now, out);
        break;
    }
    return next;
  }

  private setPhase(state: LinkState, detail: string, out: ActionList): void {
    this.phase = state;
    out.push({ type: 'state', state, detail });
  }
}
