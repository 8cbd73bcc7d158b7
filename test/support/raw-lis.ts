/**
 * LIS misbehaviour LisStub cannot script: an answer streamed for ever (or for
 * 50 MB), a connection cut in the middle of an answer, and a LIS that is down
 * and comes back on the same address (LisGate, a TCP relay in front of a stub).
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { freePort } from './ports';

export type RawHandler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

/** A loopback HTTP server whose handlers write answers by hand. */
export class RawLis {
  readonly hits: Array<{ path: string; body: string }> = [];
  private readonly handlers = new Map<string, RawHandler>();
  private readonly server = http.createServer((req, res) => this.serve(req, res));
  private port = 0;

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  handle(path: string, fn: RawHandler): this {
    this.handlers.set(path, fn);
    return this;
  }

  to(path: string): Array<{ path: string; body: string }> {
    return this.hits.filter((h) => h.path === path);
  }

  private serve(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0]!;
      const body = Buffer.concat(chunks).toString('utf8');
      this.hits.push({ path, body });
      const fn = this.handlers.get(path);
      if (!fn) {
        res.writeHead(404, { 'Content-Type': 'application/json' });
        res.end('{"message":"no route","errors":[]}');
        return;
      }
      fn(req, res, body);
    });
  }
}

export interface Flood {
  /** Body bytes handed to the socket so far. */
  readonly written: number;
  /** Resolves when the answer ended: completed (all bytes written) or cut by the client. */
  readonly ended: Promise<{ written: number; completed: boolean }>;
}

/**
 * Streams `bytes` bytes of JSON-looking text in 64 KiB chunks, respecting
 * back-pressure, so a client that stops reading stops the flood instead of
 * making this process buffer it. The Content-Length is announced up front.
 */
export function flood(res: http.ServerResponse, opts: { bytes: number; status?: number; announceLength?: boolean }): Flood {
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  chunk.write('{"status":"success","padding":"', 0, 'latin1');
  const state = { written: 0 };
  res.writeHead(opts.status ?? 200, { 'Content-Type': 'application/json', ...(opts.announceLength === false ? {} : { 'Content-Length': String(opts.bytes) }) });
  const ended = new Promise<{ written: number; completed: boolean }>((resolve) => {
    let done = false;
    const finish = (completed: boolean) => {
      if (done) return;
      done = true;
      resolve({ written: state.written, completed });
    };
    res.on('close', () => finish(state.written >= opts.bytes && res.writableFinished));
    const pump = () => {
      while (state.written < opts.bytes) {
        if (res.destroyed) return finish(false);
        const n = Math.min(chunk.length, opts.bytes - state.written);
        state.written += n;
        if (!res.write(n === chunk.length ? chunk : chunk.subarray(0, n))) {
          res.once('drain', pump);
          return;
        }
      }
      res.end();
    };
    pump();
  });
  return {
    get written() {
      return state.written;
    },
    ended,
  };
}

/** Starts an answer with a Content-Length it never honours: `sent` bytes, then the connection is cut. */
export function cutShort(res: http.ServerResponse, text: string, sent: number, status = 200): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)) });
  res.write(text.slice(0, sent));
  setTimeout(() => res.socket?.destroy(), 20);
}

/**
 * A LIS address that can be down (nothing listens: connection refused) or up
 * (relayed to `target`, e.g. a LisStub), on the same port throughout.
 */
export class LisGate {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();

  private constructor(
    readonly port: number,
    private readonly targetPort: number,
  ) {}

  static async inFrontOf(targetUrl: string): Promise<LisGate> {
    return new LisGate(await freePort(), Number(new URL(targetUrl).port));
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  get isUp(): boolean {
    return this.server !== undefined;
  }

  async up(): Promise<void> {
    if (this.server) return;
    const server = net.createServer((client) => {
      const upstream = net.connect(this.targetPort, '127.0.0.1');
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
  }

  async down(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
