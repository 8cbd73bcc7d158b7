/**
 * The line between the simulated analyzer and the host: a serial device (a
 * real port or one end of a socat pty pair), a TCP connection the analyzer
 * opens (LIS1-A §8: the instrument is normally the client), a TCP server the
 * host connects to (the role reversal some analyzers offer), or an in-memory
 * pair for tests and benchmarks.
 *
 * A transport only moves bytes. It says when a peer is there ('connect') and
 * when it is gone ('disconnect'), because the simulator starts a fresh link
 * state machine per connection: a half-sent message must not leak into the
 * next session.
 */
import { EventEmitter } from 'node:events';
import net from 'node:net';
import type { SerialSettings } from '../protocols/astm/dialects';

export interface TransportEvents {
  data: [chunk: Buffer];
  connect: [peer: string];
  disconnect: [reason: string];
  error: [err: Error];
}

export abstract class Transport extends EventEmitter<TransportEvents> {
  abstract readonly description: string;
  abstract get connected(): boolean;
  /** Serial: port open. TCP client: connected. TCP server: listening (a peer may come later). */
  abstract open(): Promise<void>;
  /** Bytes for the peer; dropped (with no error) while nobody is connected, as on an unplugged cable. */
  abstract write(bytes: Buffer): void;
  abstract close(): Promise<void>;
}

export type TransportSpec =
  | { kind: 'serial'; path: string; baudRate?: number; settings?: Partial<SerialSettings>; reopenMs?: number }
  | { kind: 'tcp'; host: string; port: number; connectTimeoutMs?: number; reconnectMs?: number }
  | { kind: 'listen'; port: number; host?: string };

export function createTransport(spec: TransportSpec): Transport {
  switch (spec.kind) {
    case 'serial':
      return new SerialTransport(spec.path, { ...spec.settings, ...(spec.baudRate === undefined ? {} : { baudRate: spec.baudRate }) }, spec.reopenMs === undefined ? {} : { reopenMs: spec.reopenMs });
    case 'tcp':
      return new TcpClientTransport(spec.host, spec.port, spec);
    case 'listen':
      return new TcpServerTransport(spec.port, spec.host);
  }
}

// ----- serial -----

interface SerialPortLike {
  readonly isOpen: boolean;
  write(data: Buffer): boolean;
  close(cb: (err: Error | null) => void): void;
  on(event: 'data', fn: (chunk: Buffer) => void): unknown;
  on(event: 'close', fn: () => void): unknown;
  on(event: 'error', fn: (err: Error) => void): unknown;
  once(event: 'open', fn: () => void): unknown;
  once(event: 'error', fn: (err: Error) => void): unknown;
}

interface SerialPortOptions {
  path: string;
  baudRate: number;
  dataBits: 7 | 8;
  parity: 'none' | 'even' | 'odd';
  stopBits: 1 | 2;
}

type SerialPortClass = new (options: SerialPortOptions) => SerialPortLike;

/**
 * The `serialport` package node-red-node-serialport brings: the package does
 * not depend on serialport itself, so it is resolved from there, which also
 * keeps the simulator on the very driver the astm-link flows use.
 */
function serialPortClass(): SerialPortClass {
  const path = require.resolve('serialport', { paths: [require.resolve('node-red-node-serialport/package.json')] });
  return (require(path) as { SerialPort: SerialPortClass }).SerialPort;
}

/** LIS1-A §5.2: 9600 baud, 8 data bits, no parity, 1 stop bit unless the analyzer says otherwise. */
const SERIAL_DEFAULTS: SerialSettings = { baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 };

export interface SerialTransportOptions {
  /**
   * When the port goes away (a USB adapter unplugged, the socat of a pty pair
   * stopped), try to open it again every reopenMs until close(), as an analyzer
   * whose cable is plugged back in would. Default: no reopening.
   */
  reopenMs?: number;
}

export class SerialTransport extends Transport {
  readonly description: string;
  private port: SerialPortLike | undefined;
  private readonly settings: SerialSettings;
  private closing = false;
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly path: string,
    settings: Partial<SerialSettings> = {},
    private readonly options: SerialTransportOptions = {},
  ) {
    super();
    this.settings = { ...SERIAL_DEFAULTS, ...settings };
    const s = this.settings;
    this.description = `serial ${path} ${s.baudRate} ${s.dataBits}${s.parity.charAt(0).toUpperCase()}${s.stopBits}`;
  }

  get connected(): boolean {
    return this.port?.isOpen === true;
  }

  async open(): Promise<void> {
    await this.openOnce();
  }

  private async openOnce(): Promise<void> {
    const SerialPort = serialPortClass();
    const port = new SerialPort({ path: this.path, ...this.settings });
    await new Promise<void>((resolve, reject) => {
      port.once('open', () => resolve());
      port.once('error', (err) => reject(err));
    });
    if (this.closing) {
      // close() came while this (re)opening was under way.
      await new Promise<void>((resolve) => port.close(() => resolve()));
      return;
    }
    this.port = port;
    port.on('data', (chunk) => this.emit('data', chunk));
    port.on('error', (err) => this.emit('error', err));
    port.on('close', () => {
      if (this.port === port) {
        this.port = undefined;
        this.emit('disconnect', `${this.path} closed`);
        if (!this.closing && this.options.reopenMs !== undefined) this.scheduleReopen(this.options.reopenMs);
      }
    });
    this.emit('connect', this.path);
  }

  private scheduleReopen(ms: number): void {
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (this.closing) return;
      this.openOnce().catch(() => this.scheduleReopen(ms));
    }, ms);
  }

  write(bytes: Buffer): void {
    if (this.port?.isOpen === true) this.port.write(bytes);
  }

  async close(): Promise<void> {
    this.closing = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const port = this.port;
    this.port = undefined;
    if (port === undefined || !port.isOpen) return;
    await new Promise<void>((resolve) => port.close(() => resolve()));
  }
}

// ----- TCP client -----

export class TcpClientTransport extends Transport {
  readonly description: string;
  private socket: net.Socket | undefined;
  private closed = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly connectTimeoutMs: number;
  private readonly reconnectMs: number;

  constructor(
    private readonly host: string,
    private readonly port: number,
    options: { connectTimeoutMs?: number; reconnectMs?: number } = {},
  ) {
    super();
    this.description = `tcp client to ${host}:${port}`;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 30_000;
    this.reconnectMs = options.reconnectMs ?? 1_000;
  }

  get connected(): boolean {
    return this.socket !== undefined && !this.socket.destroyed;
  }

  /**
   * Connects, retrying while the host is not listening yet (it is often
   * started at the same time). Analyzers reconnect after a dropped
   * connection, so this does too until close().
   */
  async open(): Promise<void> {
    const started = Date.now();
    for (;;) {
      try {
        await this.connectOnce();
        return;
      } catch (err) {
        if (this.closed) throw new Error('transport closed');
        if (Date.now() - started >= this.connectTimeoutMs) throw new Error(`could not connect to ${this.host}:${this.port} within ${this.connectTimeoutMs} ms: ${(err as Error).message}`);
        await new Promise((r) => setTimeout(r, Math.min(this.reconnectMs, 250)));
      }
    }
  }

  private connectOnce(): Promise<void> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: this.host, port: this.port });
      socket.setNoDelay(true); // single control bytes (ACK, ENQ) must not wait for Nagle
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.off('error', reject);
        this.adopt(socket);
        resolve();
      });
    });
  }

  private adopt(socket: net.Socket): void {
    this.socket = socket;
    socket.on('data', (chunk) => this.emit('data', chunk));
    socket.on('error', (err) => this.emit('error', err));
    socket.on('close', () => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      this.emit('disconnect', `connection to ${this.host}:${this.port} closed`);
      if (!this.closed) this.scheduleReconnect();
    });
    this.emit('connect', `${this.host}:${this.port}`);
  }

  private scheduleReconnect(): void {
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (this.closed) return;
      this.connectOnce().catch(() => this.scheduleReconnect());
    }, this.reconnectMs);
  }

  write(bytes: Buffer): void {
    if (this.connected) this.socket?.write(bytes);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const socket = this.socket;
    this.socket = undefined;
    if (socket && !socket.destroyed) await new Promise<void>((resolve) => socket.end(() => resolve()));
    socket?.destroy();
  }
}

// ----- TCP server -----

export class TcpServerTransport extends Transport {
  private server: net.Server | undefined;
  private socket: net.Socket | undefined;

  constructor(
    private readonly port: number,
    private readonly host = '127.0.0.1',
  ) {
    super();
  }

  get description(): string {
    return `tcp server on ${this.host}:${this.boundPort}`;
  }

  /** The port actually bound (useful with port 0). */
  get boundPort(): number {
    const address = this.server?.address();
    return typeof address === 'object' && address !== null ? address.port : this.port;
  }

  get connected(): boolean {
    return this.socket !== undefined && !this.socket.destroyed;
  }

  async open(): Promise<void> {
    const server = net.createServer((socket) => this.accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, this.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (err) => this.emit('error', err));
    this.server = server;
  }

  /** One host at a time: a new connection replaces the old one, as when the host restarts. */
  private accept(socket: net.Socket): void {
    socket.setNoDelay(true);
    const previous = this.socket;
    this.socket = socket;
    if (previous) {
      previous.destroy();
      this.emit('disconnect', 'replaced by a new connection');
    }
    const peer = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
    socket.on('data', (chunk) => this.emit('data', chunk));
    socket.on('error', (err) => this.emit('error', err));
    socket.on('close', () => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      this.emit('disconnect', `host ${peer} disconnected`);
    });
    this.emit('connect', peer);
  }

  write(bytes: Buffer): void {
    if (this.connected) this.socket?.write(bytes);
  }

  async close(): Promise<void> {
    const socket = this.socket;
    this.socket = undefined;
    socket?.destroy();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

// ----- in memory -----

/**
 * One end of an in-memory line. Bytes reach the other end on a later turn of
 * the event loop, never inside write(): a real wire is never synchronous, and
 * delivering at once would run the peer's link inside ours.
 */
export class MemoryTransport extends Transport {
  readonly description: string;
  private peer: MemoryTransport | undefined;
  private isOpen = false;

  constructor(name: string) {
    super();
    this.description = `memory line (${name})`;
  }

  static pair(): [analyzer: MemoryTransport, host: MemoryTransport] {
    const a = new MemoryTransport('analyzer end');
    const b = new MemoryTransport('host end');
    a.peer = b;
    b.peer = a;
    return [a, b];
  }

  get connected(): boolean {
    return this.isOpen;
  }

  async open(): Promise<void> {
    this.isOpen = true;
    this.emit('connect', 'memory peer');
  }

  write(bytes: Buffer): void {
    const peer = this.peer;
    if (!this.isOpen || peer === undefined) return;
    const copy = Buffer.from(bytes);
    setImmediate(() => {
      if (peer.isOpen) peer.emit('data', copy);
    });
  }

  async close(): Promise<void> {
    if (!this.isOpen) return;
    this.isOpen = false;
    this.emit('disconnect', 'closed');
  }
}
