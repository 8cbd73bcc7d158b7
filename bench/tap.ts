/**
 * A transport between the simulator and its real line that timestamps what
 * goes through and, on request, paces the analyzer's writes like a UART.
 *
 * Pacing: a pty moves bytes as fast as they are written, a 9600 baud line
 * does not. With `pace(baud, bitsPerByte)` each byte takes bitsPerByte/baud s
 * (10 bits for 8N1: start, 8 data, stop). Bytes written while the line is
 * busy queue behind it; byte i of a burst that started at t0 reaches the other
 * side at t0 + (i + 1) * byteTime, when a receiving UART would have it. Bytes
 * in the middle of a burst go out in small catch-up chunks every ~2 ms (timer
 * resolution); the last byte of a burst is timed precisely, since that is the
 * one the other side answers.
 */
import { Transport } from '../lib/sim/transport';

export interface Burst {
  /** When the first byte was handed to the line. */
  start: number;
  /** When its last byte reached the other side. */
  end: number;
  /** When its last byte should have reached the other side. */
  ideal: number;
  bytes: number;
  /** First byte of the burst (STX for a frame, ENQ, EOT). */
  first: number;
}

export class TappedTransport extends Transport {
  readonly description: string;
  /** Called with every write as it reaches the line (paced: as each chunk is delivered). */
  onWrite: ((bytes: Buffer, at: number) => void) | undefined;
  /** Called with every read, before the simulator sees it. */
  onRead: ((bytes: Buffer, at: number) => void) | undefined;
  bytesWritten = 0;
  bytesRead = 0;
  readonly bursts: Burst[] = [];

  private byteMs = 0;
  private readonly queue: Buffer[] = [];
  private queued = 0;
  private burst: Burst | undefined;
  private sentInBurst = 0;
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;

  constructor(private readonly inner: Transport) {
    super();
    this.description = `tapped ${inner.description}`;
  }

  get connected(): boolean {
    return this.inner.connected;
  }

  /** From now on each byte written takes bitsPerByte/baud seconds; baud 0 turns pacing off. */
  pace(baud: number, bitsPerByte = 10): void {
    this.byteMs = baud > 0 ? (1000 * bitsPerByte) / baud : 0;
  }

  get idle(): boolean {
    return this.queued === 0;
  }

  async open(): Promise<void> {
    this.inner.on('data', (chunk) => {
      const at = performance.now();
      this.bytesRead += chunk.length;
      this.onRead?.(chunk, at);
      this.emit('data', chunk);
    });
    this.inner.on('connect', (peer) => this.emit('connect', peer));
    this.inner.on('disconnect', (reason) => this.emit('disconnect', reason));
    this.inner.on('error', (err) => this.emit('error', err));
    await this.inner.open();
  }

  write(bytes: Buffer): void {
    if (this.byteMs === 0) {
      const at = performance.now();
      this.inner.write(bytes);
      this.bytesWritten += bytes.length;
      this.onWrite?.(bytes, at);
      return;
    }
    const now = performance.now();
    if (this.burst === undefined) {
      this.burst = { start: now, end: 0, ideal: 0, bytes: 0, first: bytes[0] ?? 0 };
      this.sentInBurst = 0;
    }
    this.queue.push(Buffer.from(bytes));
    this.queued += bytes.length;
    this.burst.bytes += bytes.length;
    this.schedule(now);
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.timer = undefined;
    this.immediate = undefined;
    this.queue.length = 0;
    this.queued = 0;
    this.burst = undefined;
    await this.inner.close();
  }

  private schedule(now: number): void {
    if (this.timer || this.immediate || this.burst === undefined) return;
    const b = this.burst;
    const nextDue = b.start + (this.sentInBurst + 1) * this.byteMs;
    const lastDue = b.start + (this.sentInBurst + this.queued) * this.byteMs;
    if (nextDue <= now) {
      this.immediate = setImmediate(() => this.pump());
    } else if (lastDue - now <= 1.5) {
      // The end of the burst is near: spin on the event loop to hit it precisely.
      this.immediate = setImmediate(() => this.pump());
    } else {
      // Mid-burst: wake up in ~2 ms (no later than needed for the last byte) and catch up.
      const wait = Math.max(1, Math.min(2, lastDue - now - 1.5));
      this.timer = setTimeout(() => this.pump(), wait);
    }
  }

  private pump(): void {
    this.timer = undefined;
    this.immediate = undefined;
    const b = this.burst;
    if (b === undefined) return;
    const now = performance.now();
    const due = Math.min(this.queued, Math.floor((now - b.start) / this.byteMs) - this.sentInBurst);
    if (due > 0) {
      const chunk = this.take(due);
      this.inner.write(chunk);
      this.bytesWritten += chunk.length;
      this.sentInBurst += due;
      this.onWrite?.(chunk, now);
    }
    if (this.queued === 0) {
      b.end = now;
      b.ideal = b.start + this.sentInBurst * this.byteMs;
      this.bursts.push(b);
      this.burst = undefined;
      return;
    }
    this.schedule(now);
  }

  private take(n: number): Buffer {
    const parts: Buffer[] = [];
    let left = n;
    while (left > 0) {
      const head = this.queue[0]!;
      if (head.length <= left) {
        parts.push(head);
        this.queue.shift();
        left -= head.length;
      } else {
        parts.push(head.subarray(0, left));
        this.queue[0] = head.subarray(left);
        left = 0;
      }
    }
    this.queued -= n;
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  }
}
