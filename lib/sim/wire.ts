/**
 * The simulator's side of the line for outgoing bytes: writes go out in the
 * order the link produced them, and a write held back (pauseMs) holds back
 * everything after it too, as a stalled analyzer would. Each unit that reaches
 * the wire is reported once it is really there, so a trace shows the pause.
 */
import { CR } from '../protocols/astm/control';
import type { Transport } from './transport';

export class Wire {
  private readonly queue: { bytes: Buffer; delayMs: number }[] = [];
  private timer: NodeJS.Timeout | undefined;

  /**
   * @param wrote called for each unit written: the whole write with E1381
   *   framing (one frame or one control character), one record per call for
   *   records-only framing, where a whole message is written at once
   */
  constructor(
    private readonly transport: Transport,
    private readonly framed: boolean,
    private readonly wrote: (unit: Buffer) => void,
  ) {}

  write(bytes: Buffer, delayMs = 0): void {
    if (delayMs <= 0 && this.queue.length === 0) {
      this.put(bytes);
      return;
    }
    this.queue.push({ bytes, delayMs });
    if (this.timer === undefined) this.drain();
  }

  /** Forgets what has not gone out (the connection is gone, or the simulator stops). */
  clear(): void {
    this.queue.length = 0;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private drain(): void {
    while (this.queue.length > 0) {
      const head = this.queue[0]!;
      if (head.delayMs > 0) {
        this.timer = setTimeout(() => {
          this.timer = undefined;
          head.delayMs = 0;
          this.drain();
        }, head.delayMs);
        return;
      }
      this.queue.shift();
      this.put(head.bytes);
    }
  }

  private put(bytes: Buffer): void {
    this.transport.write(bytes);
    if (this.framed) {
      this.wrote(bytes);
      return;
    }
    let start = 0;
    for (let i = 0; i < bytes.length; i++) {
      if (bytes[i] === CR) {
        this.wrote(bytes.subarray(start, i + 1));
        start = i + 1;
      }
    }
    if (start < bytes.length) this.wrote(bytes.subarray(start));
  }
}
