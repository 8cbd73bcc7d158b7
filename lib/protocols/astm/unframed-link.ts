/**
 * "Records without framing": analyzers that send plain CR-separated E1394
 * records over TCP, with no ENQ/STX/checksum/ACK. A message ends with its
 * L record; there is nothing to acknowledge, so sending is writing.
 */
import { CR, LF } from './control';
import type { LinkAction, LinkState } from '../../link/actions';
import type { LinkMachine } from '../../link/driver';

export interface UnframedOptions {
  /** Partial text older than this with no new byte is discarded, never delivered half. */
  receiveTimeoutMs: number;
  /** Largest message accepted; beyond it the pending text is discarded. */
  maxMessageBytes: number;
  messageIdPrefix: string;
}

export const DEFAULT_UNFRAMED: UnframedOptions = { receiveTimeoutMs: 30_000, maxMessageBytes: 1_000_000, messageIdPrefix: 'rx' };

export class UnframedLink implements LinkMachine {
  private readonly options: UnframedOptions;
  private pending: number[] = [];
  private lastByteAt = 0;
  private count = 0;

  constructor(options: Partial<UnframedOptions> = {}) {
    this.options = { ...DEFAULT_UNFRAMED, ...options };
  }

  get state(): LinkState {
    return this.pending.length > 0 ? 'receiving' : 'idle';
  }

  receive(bytes: Uint8Array, now: number): LinkAction[] {
    const out: LinkAction[] = [];
    this.lastByteAt = now;
    let recordStart = this.lastRecordStart();
    for (const b of bytes) {
      // A LF after CR is line-ending noise from TCP tools, not data.
      if (b === LF && this.pending.at(-1) === CR) continue;
      this.pending.push(b);
      if (b !== CR) continue;
      const isTerminator = this.pending[recordStart] === 0x4c; // 'L'
      recordStart = this.pending.length;
      if (isTerminator) {
        this.count++;
        out.push({ type: 'message', id: `${this.options.messageIdPrefix}-${this.count}`, bytes: Buffer.from(this.pending), end: 'terminator', held: false });
        this.pending = [];
        recordStart = 0;
      }
    }
    if (this.pending.length > this.options.maxMessageBytes) out.push(this.discard(`message larger than ${this.options.maxMessageBytes} bytes: raise Largest message (bytes) on the astm-link if the analyzer really sends messages this large`));
    out.push({ type: 'state', state: this.state, detail: this.pending.length > 0 ? 'receiving records' : 'idle' });
    return out;
  }

  send(message: Uint8Array, id: string): LinkAction[] {
    return [
      { type: 'write', bytes: Buffer.from(message) },
      { type: 'sent', id },
    ];
  }

  tick(now: number): LinkAction[] {
    if (this.pending.length > 0 && now - this.lastByteAt >= this.options.receiveTimeoutMs) {
      return [this.discard(`no byte for ${this.options.receiveTimeoutMs} ms before the L record`), { type: 'state', state: 'idle', detail: 'idle' }];
    }
    return [];
  }

  nextDeadline(): number | null {
    return this.pending.length > 0 ? this.lastByteAt + this.options.receiveTimeoutMs : null;
  }

  /** Records-only framing sends at once, so only a partial received message can be lost. */
  disconnect(_now: number, reason: string): LinkAction[] {
    return this.pending.length > 0 ? [this.discard(`incomplete message: ${reason}`), { type: 'state', state: 'idle', detail: reason }] : [];
  }

  /** Records-only framing has no ACK to hold back. */
  confirmStored(): LinkAction[] {
    return [];
  }

  rejectStored(): LinkAction[] {
    return [];
  }

  awaitsStored(): boolean {
    return false;
  }

  private lastRecordStart(): number {
    const i = this.pending.lastIndexOf(CR);
    return i + 1;
  }

  private discard(reason: string): LinkAction {
    const bytes = Buffer.from(this.pending);
    this.pending = [];
    return { type: 'discarded', reason, bytes };
  }
}
