/**
 * What the link asks its driver to do. The machine performs no I/O itself:
 * every call returns the actions in the order they must be carried out.
 */

/**
 * - idle: neutral line, nothing waiting to go out.
 * - busyWait: neutral line, a message waits, but the next ENQ is not allowed
 *   yet (busy NAK, retry delay, receiver-interrupt hold).
 * - establishing: our ENQ is out, waiting for ACK/NAK/ENQ.
 * - waitingAck: one of our frames is out, waiting for its reply.
 * - contention: both sides sent ENQ (§6.2.7.1).
 * - receiving: the other side is sending to us.
 */
export type LinkState = 'idle' | 'busyWait' | 'establishing' | 'waitingAck' | 'contention' | 'receiving';

/** How a received message was known to be complete. */
export type MessageEnd =
  /** an end frame (ETX) whose text ended with an L record */
  | 'terminator'
  /** no L record; the sender ended the transfer cleanly with EOT */
  | 'eot'
  /** no L record; the sender began the next message with an H record */
  | 'nextHeader'
  /** HL7: an MLLP frame's FS (lib/protocols/hl7/link-machine.ts) */
  | 'frame';

export type LinkAction =
  /** Bytes for the serial port or socket, to be written at once. */
  | { type: 'write'; bytes: Buffer }
  /**
   * A complete received message: the text of its frames joined, exactly the
   * bytes received, without STX, FN, ETB/ETX, checksum or CR LF. With
   * holdFinalAck, `held` says the final ACK waits for confirmStored(id).
   */
  | { type: 'message'; id: string; bytes: Buffer; end: MessageEnd; held: boolean }
  /** Our message was positively acknowledged, last frame included. */
  | { type: 'sent'; id: string }
  /** Our message was given up; it was not (entirely) accepted by the other side. */
  | { type: 'sendFailed'; id: string; reason: string }
  /** Received text that will never be delivered: a partial message cut by a time-out, an abort or an interrupt. */
  | { type: 'discarded'; reason: string; bytes: Buffer }
  | { type: 'warning'; text: string }
  /** For a status display; emitted on every change of state and on each frame. */
  | { type: 'state'; state: LinkState; detail: string };

export class ActionList {
  readonly items: LinkAction[] = [];

  write(bytes: Buffer): void {
    this.items.push({ type: 'write', bytes });
  }

  warn(text: string): void {
    this.items.push({ type: 'warning', text });
  }

  push(action: LinkAction): void {
    this.items.push(action);
  }
}
