/**
 * Our outgoing side: the queue of messages and the frames of the one in
 * transfer. Timing and replies are handled by link.ts; this keeps the counts.
 */
import { CR } from '../control';
import { buildFrames, findRestricted, type BuildOptions } from './frame';

export interface Outgoing {
  id: string;
  bytes: Buffer;
  /** Aborted attempts so far (maxSendAttempts). */
  failures: number;
}

/** Why a message cannot be sent at all, or null when it can. */
export function checkMessage(bytes: Uint8Array): string | null {
  if (bytes.length === 0) return 'empty message';
  const bad = findRestricted(bytes);
  if (bad >= 0) {
    return `byte 0x${bytes[bad]!.toString(16).toUpperCase().padStart(2, '0')} at offset ${bad} may not appear in message text (LIS1-A §6.6.2)`;
  }
  if (bytes[bytes.length - 1] !== CR) return 'message must end with the CR of its last record';
  return null;
}

export class Outbox {
  private readonly queue: Outgoing[] = [];

  get size(): number {
    return this.queue.length;
  }

  get head(): Outgoing | undefined {
    return this.queue[0];
  }

  add(id: string, bytes: Uint8Array): void {
    this.queue.push({ id, bytes: Buffer.from(bytes), failures: 0 });
  }

  shift(): Outgoing | undefined {
    return this.queue.shift();
  }
}

/** One message going out in one transfer phase: FN starts at 1 (§6.3.2.1). */
export class Transfer {
  readonly frames: Buffer[];
  index = 0;
  /** The retransmit counter of §6.5.1.2 for the current frame. */
  naks = 0;

  constructor(readonly message: Outgoing, options: BuildOptions) {
    this.frames = buildFrames(message.bytes, { ...options, firstFrameNumber: 1 });
  }

  get current(): Buffer {
    return this.frames[this.index]!;
  }

  get isLast(): boolean {
    return this.index === this.frames.length - 1;
  }

  /** 1-based position for messages: "frame 2/5". */
  get position(): string {
    return `${this.index + 1}/${this.frames.length}`;
  }
}
