/**
 * Runs a link state machine against real time: carries out its actions through
 * callbacks and keeps exactly one timer armed at its next deadline. Shared by
 * the astm-link node, the analyzer simulator and the benchmarks, so all three
 * drive the link the same way.
 */
import type { LinkAction, LinkState } from './actions';

/** What goes with a message to send, for the protocols that use it. */
export interface SendOptions {
  /**
   * HL7: false for a message the analyzer answers with no ACK (Mindray CL's
   * QCK^Q02, answered by its DSR^Q03's ACK instead): sent once written.
   * E1381 acknowledges every frame and ignores it.
   */
  expectAck?: boolean;
}

/** What a driver needs of a link: the pure state machine's interface. */
export interface LinkMachine {
  readonly state: LinkState;
  receive(bytes: Uint8Array, now: number): LinkAction[];
  send(message: Uint8Array, id: string, now: number, options?: SendOptions): LinkAction[];
  tick(now: number): LinkAction[];
  nextDeadline(): number | null;
  confirmStored(id: string, now: number): LinkAction[];
  rejectStored(id: string, now: number): LinkAction[];
  awaitsStored(id: string): boolean;
  disconnect(now: number, reason: string): LinkAction[];
}

export type LinkListener = (action: LinkAction) => void;

export class LinkDriver {
  private timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires, in this.now()'s clock. */
  private firesAt = 0;
  private closed = false;

  constructor(
    private readonly link: LinkMachine,
    private readonly listener: LinkListener,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get state(): LinkState {
    return this.link.state;
  }

  receive(bytes: Uint8Array): void {
    this.run(this.link.receive(bytes, this.now()));
  }

  send(message: Uint8Array, id: string, options?: SendOptions): void {
    this.run(this.link.send(message, id, this.now(), options));
  }

  confirmStored(id: string): void {
    this.run(this.link.confirmStored(id, this.now()));
  }

  awaitsStored(id: string): boolean {
    return !this.closed && this.link.awaitsStored(id);
  }

  rejectStored(id: string): void {
    this.run(this.link.rejectStored(id, this.now()));
  }

  get closedForGood(): boolean {
    return this.closed;
  }

  /** The connection is gone: what was in transfer or queued fails now, then the link stops. */
  disconnect(reason: string): void {
    this.run(this.link.disconnect(this.now(), reason));
    this.close();
  }

  /** Stops the timer; the link is not driven any more. */
  close(): void {
    this.closed = true;
    this.disarm();
  }

  private run(actions: LinkAction[]): void {
    if (this.closed) return;
    // Replies to the other side go out before anything is done with what it sent:
    // the ACK of a frame never waits on decoding (or on the LIS).
    for (const action of actions) if (action.type === 'write') this.listener(action);
    for (const action of actions) if (action.type !== 'write') this.listener(action);
    this.arm();
  }

  /**
   * Every byte moves the receive deadline later, so a timer made anew for each
   * would be cleared and made again several times a frame. A timer that fires
   * no later than the deadline is kept instead: when it fires before the
   * deadline it is armed again for the rest.
   */
  private arm(): void {
    const deadline = this.closed ? null : this.link.nextDeadline();
    if (deadline === null) return this.disarm();
    if (this.timer !== undefined && this.firesAt <= deadline) return;
    this.disarm();
    const now = this.now();
    const wait = Math.max(0, Math.ceil(deadline - now));
    this.firesAt = now + wait;
    this.timer = setTimeout(() => this.fire(), wait);
  }

  private fire(): void {
    this.timer = undefined;
    const deadline = this.link.nextDeadline();
    if (deadline !== null && deadline > this.now()) this.arm();
    else this.run(this.link.tick(this.now()));
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
