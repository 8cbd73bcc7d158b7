/**
 * Settings of the link layer. Every timer defaults to the value LIS1-A gives it
 * (§6.5.2 for serial, repeated word for word in §8.5.2 for TCP/IP); tests and
 * odd instruments may override any of them.
 */

export type LinkRole = 'computer' | 'instrument';

export interface AstmLinkOptions {
  /**
   * Which side of the link we are. It only matters on contention (§6.2.7.1):
   * the computer system yields, the instrument insists. 'instrument' exists so
   * a simulator can play the analyzer with the same machine.
   */
  role: LinkRole;
  /** Sender waiting for a reply to its ENQ (§6.5.2.1) or to a frame (§6.5.2.3). */
  replyTimeoutMs: number;
  /** Receiver waiting for the next frame or EOT (§6.5.2.4). */
  receiveTimeoutMs: number;
  /** Pause after the receiver answered our ENQ with NAK: "at least 10 s" (§6.2.6). */
  busyWaitMs: number;
  /** Computer side after ENQ/ENQ contention: wait this long for the instrument's next ENQ (§6.5.2.2). */
  contentionWaitMs: number;
  /** Instrument side after ENQ/ENQ contention: "at least 1 s" before its next ENQ (§6.2.7.1(2)). */
  contentionRetryMs: number;
  /** After honouring a receiver interrupt: no ENQ for 15 s, or until the other side has sent (§6.3.5.3). */
  interruptHoldMs: number;
  /**
   * Pause before the whole message is tried again after a time-out or after too
   * many NAKs. LIS1-A says the message must be "remembered so it can be
   * completely repeated" (§6.5.2.3) but gives no delay; 10 s mirrors the busy wait.
   */
  retryDelayMs: number;
  /**
   * Limit of the retransmit counter of §6.5.1.2: the transfer is aborted when one
   * frame has been sent and not accepted this many times. With 6, a frame goes
   * out at most 6 times (1 transmission + 5 retransmissions).
   */
  maxRetransmits: number;
  /**
   * How many aborted attempts (busy NAK, time-out, retransmits exhausted,
   * interrupt in mid-message, contention the instrument never followed up) one
   * message may suffer before it is given up with 'sendFailed'. A contention
   * resolved by the instrument's ENQ does not count: nothing went wrong there.
   */
  maxSendAttempts: number;
  /**
   * Text characters per frame we send. 240 keeps frames at 247 characters, the
   * limit of E1381-91/-95 that older instruments still enforce; LIS1-A allows
   * 64,000 including the 7 characters of overhead (§6.3.1).
   */
  frameTextMax: number;
  /** Largest frame accepted, overhead included (§6.3.1: 64,000). */
  maxReceiveFrame: number;
  /**
   * Largest message received, in bytes of record text. The standard bounds a
   * frame, not a message; a sender that never ends one would grow memory
   * without end. The frame that would pass it is NAKed, so the sender learns
   * the message was not taken (after its retries it aborts the transfer)
   * instead of an ACKed message vanishing.
   */
  maxMessageBytes: number;
  /** Start every record in a new frame when sending (the Mindray CL and cobas c 111 style). */
  framePerRecord: boolean;
  /**
   * With framePerRecord, what ends the last frame of each record but the final
   * one. 'ETB' keeps the standard's meaning of ETX, "end of message"
   * (§6.3.1.2); 'ETX' imitates analyzers that close every record with ETX.
   */
  recordFrameEnd: 'ETB' | 'ETX';
  /** Verify received checksums and send ours. Off only for instruments that send none. */
  checksums: boolean;
  /**
   * Reject frames whose number is neither the last accepted one nor one higher,
   * modulo 8 (§6.5.1.1(3)). Off by default: real analyzers number frames
   * irregularly (the Yumizen H500 runs 1-5,1,1,1,4,5), and a NAK for every
   * such frame would stop them cold.
   */
  strictFrameNumbers: boolean;
  /**
   * Deliver a message only when an L record ends it. When false, a message
   * without one is also delivered when the sender ends the transfer cleanly or
   * starts the next message with an H record (analyzers that send no L record).
   */
  terminatorRequired: boolean;
  /**
   * Withhold the ACK of the frame that completes a message until the caller
   * reports it stored (confirmStored), so that an acknowledged message is
   * always on disk. LIS1-A lets a receiver take up to 15 s to reply (§6.5.2.5).
   */
  holdFinalAck: boolean;
  /**
   * With holdFinalAck, which messages wait to be stored: every one unless this
   * says otherwise. astm-link exempts messages of queries only, which carry no
   * result to lose (docs/design-notes.md, "Queries are not stored before their ACK").
   */
  storedBeforeAck: (message: Uint8Array) => boolean;
  /** Ids of received messages are `${prefix}-${n}`; give each link a prefix unique to its run. */
  messageIdPrefix: string;
}

export const DEFAULT_OPTIONS: Readonly<AstmLinkOptions> = Object.freeze({
  role: 'computer',
  replyTimeoutMs: 15_000,
  receiveTimeoutMs: 30_000,
  busyWaitMs: 10_000,
  contentionWaitMs: 20_000,
  contentionRetryMs: 1_000,
  interruptHoldMs: 15_000,
  retryDelayMs: 10_000,
  maxRetransmits: 6,
  maxSendAttempts: 6,
  frameTextMax: 240,
  maxReceiveFrame: 64_000,
  // The largest capture (Yumizen H500 with histograms) is under 100 KB; HL7's frame limit is the same 8 MiB.
  maxMessageBytes: 8 * 1024 * 1024,
  framePerRecord: false,
  recordFrameEnd: 'ETB',
  checksums: true,
  strictFrameNumbers: false,
  terminatorRequired: false,
  holdFinalAck: false,
  storedBeforeAck: () => true,
  messageIdPrefix: 'rx',
});

/** STX, FN, ETB/ETX, C1, C2, CR, LF. */
export const FRAME_OVERHEAD = 7;

/**
 * Defaults merged with the caller's choices. Options come from configuration,
 * not from the wire, so a nonsensical value is a programming error and throws.
 */
export function resolveOptions(partial: Partial<AstmLinkOptions> = {}): AstmLinkOptions {
  const o: AstmLinkOptions = { ...DEFAULT_OPTIONS };
  for (const [key, value] of Object.entries(partial) as [keyof AstmLinkOptions, unknown][]) {
    if (value !== undefined) (o as unknown as Record<string, unknown>)[key] = value;
  }
  const counts: (keyof AstmLinkOptions)[] = ['maxRetransmits', 'maxSendAttempts', 'frameTextMax', 'maxReceiveFrame', 'maxMessageBytes'];
  for (const key of counts) {
    const v = o[key];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw new RangeError(`${key} must be a positive integer, got ${String(v)}`);
  }
  const delays: (keyof AstmLinkOptions)[] = [
    'replyTimeoutMs', 'receiveTimeoutMs', 'busyWaitMs', 'contentionWaitMs', 'contentionRetryMs', 'interruptHoldMs', 'retryDelayMs',
  ];
  for (const key of delays) {
    const v = o[key];
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new RangeError(`${key} must be a number of milliseconds >= 0, got ${String(v)}`);
  }
  if (o.frameTextMax > 64_000 - FRAME_OVERHEAD) throw new RangeError(`frameTextMax must be at most ${64_000 - FRAME_OVERHEAD} (LIS1-A §6.3.1)`);
  if (o.maxReceiveFrame <= FRAME_OVERHEAD) throw new RangeError(`maxReceiveFrame must exceed the ${FRAME_OVERHEAD} characters of frame overhead`);
  if (o.role !== 'computer' && o.role !== 'instrument') throw new RangeError(`role must be 'computer' or 'instrument', got ${String(o.role)}`);
  if (typeof o.storedBeforeAck !== 'function') throw new TypeError('storedBeforeAck must be a function of the message bytes');
  if (o.recordFrameEnd !== 'ETB' && o.recordFrameEnd !== 'ETX') throw new RangeError(`recordFrameEnd must be 'ETB' or 'ETX', got ${String(o.recordFrameEnd)}`);
  return o;
}
