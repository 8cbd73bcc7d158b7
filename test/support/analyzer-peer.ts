/**
 * The analyzer end of a serial line in tests: an instrument-role E1381 link on
 * the far pty of a socat pair, framing by the standard, so the package is
 * tested against a peer that does not share its receive code paths' mistakes.
 */
import { AstmLink } from '../../lib/protocols/astm/link';
import type { AstmLinkOptions } from '../../lib/protocols/astm/link';
import { LinkDriver } from '../../lib/link/driver';

interface PortLike {
  write(data: Buffer, cb?: (err?: Error | null) => void): boolean;
  on(event: 'data', fn: (chunk: Buffer) => void): unknown;
  close(cb?: (err?: Error | null) => void): void;
}

/** The serialport package that node-red-node-serialport brings. */
function serialPortClass(): new (opts: { path: string; baudRate: number }) => PortLike & { once(e: 'open' | 'error', fn: (err?: Error) => void): unknown } {
  const path = require.resolve('serialport', { paths: [require.resolve('node-red-node-serialport/package.json')] });
  return (require(path) as { SerialPort: never }).SerialPort;
}

export class AnalyzerPeer {
  readonly received: string[] = [];
  /** Every byte the host wrote (to count its ACKs). */
  readonly heard: number[] = [];
  private readonly waiters: Array<(text: string) => void> = [];
  private readonly sendWaiters = new Map<string, { resolve: () => void; reject: (e: Error) => void }>();
  private readonly driver: LinkDriver;
  private count = 0;

  private constructor(
    private readonly port: PortLike,
    options: Partial<AstmLinkOptions>,
  ) {
    this.driver = new LinkDriver(new AstmLink({ role: 'instrument', ...options }), (a) => {
      if (a.type === 'write') port.write(a.bytes);
      else if (a.type === 'message') {
        const text = a.bytes.toString('latin1');
        const waiter = this.waiters.shift();
        if (waiter) waiter(text);
        else this.received.push(text);
      } else if (a.type === 'sent') this.sendWaiters.get(a.id)?.resolve();
      else if (a.type === 'sendFailed') this.sendWaiters.get(a.id)?.reject(new Error(a.reason));
    });
    port.on('data', (chunk) => {
      this.heard.push(...chunk);
      this.driver.receive(chunk);
    });
  }

  static async open(path: string, options: Partial<AstmLinkOptions> = {}): Promise<AnalyzerPeer> {
    const SerialPort = serialPortClass();
    const port = new SerialPort({ path, baudRate: 9600 });
    await new Promise<void>((resolve, reject) => {
      port.once('open', () => resolve());
      port.once('error', (err) => reject(err ?? new Error('open failed')));
    });
    return new AnalyzerPeer(port, options);
  }

  /** Sends one message (records, CR-separated) and resolves when the host acknowledged it all. */
  send(text: string): Promise<void> {
    const id = `peer-${++this.count}`;
    return new Promise((resolve, reject) => {
      this.sendWaiters.set(id, { resolve, reject });
      this.driver.send(Buffer.from(text, 'latin1'), id);
    });
  }

  /** The next message the host sent to the analyzer. */
  next(timeoutMs = 10000): Promise<string> {
    const queued = this.received.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no message from the host within ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push((text) => {
        clearTimeout(timer);
        resolve(text);
      });
    });
  }

  close(): Promise<void> {
    this.driver.close();
    return new Promise((resolve) => this.port.close(() => resolve()));
  }
}

/** The analyzer's end of a line, raw: what it writes as given, every byte the host wrote kept (an HL7 analyzer over serial). */
export interface RawPeer {
  write(bytes: Buffer): void;
  readonly heard: number[];
  close(): Promise<void>;
}

export async function openRawPeer(path: string): Promise<RawPeer> {
  const SerialPort = serialPortClass();
  const port = new SerialPort({ path, baudRate: 9600 });
  await new Promise<void>((resolve, reject) => {
    port.once('open', () => resolve());
    port.once('error', (err) => reject(err ?? new Error('open failed')));
  });
  const heard: number[] = [];
  port.on('data', (chunk) => heard.push(...chunk));
  return {
    write: (bytes) => void port.write(bytes),
    heard,
    close: () => new Promise((resolve) => port.close(() => resolve())),
  };
}
