/**
 * The LIS on loopback, for every test and the bench: a real HTTP server. Each
 * path answers from a script of replies (the last one repeats) or from a
 * handler; a reply is JSON or text, may come late, or is written by hand (an
 * answer streamed for ever, a connection cut mid-answer). Every request is
 * kept, with its headers, body and times, for the test to inspect.
 *
 * LisGate puts a LIS behind an address that can be down (connection refused)
 * and come back on the same port.
 */
import http, { type IncomingHttpHeaders } from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { freePort } from './ports';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: unknown;
  /** performance.now() when its headers had arrived (the server's 'request' event). */
  arrivedAt: number;
  /** performance.now() when its body had arrived. */
  at: number;
  /** performance.now() when the last byte of the answer was handed to the socket; unset until then, and for ever when the answer was cut. */
  answeredAt?: number;
}

/** A request whose answer was finished: what onAnswered is given. */
export type AnsweredRequest = RecordedRequest & { answeredAt: number };

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string is sent as it is. */
  body?: unknown;
  /** Answer only after this long (to provoke client time-outs). */
  delayMs?: number;
  /** Writes the answer by hand instead (status, headers and body are not used): see flood() and cutShort(). */
  write?: (res: http.ServerResponse) => void;
}

type Script = Reply[] | ((req: RecordedRequest) => Reply);

export class LisStub {
  readonly requests: RecordedRequest[] = [];
  /** Called as each answer is finished (the bench times the stub's own share of a request with it). */
  onAnswered: ((req: AnsweredRequest) => void) | undefined;
  private readonly scripts = new Map<string, Script>();
  /** Requests per path so far, for the scripts: counted, not filtered out of `requests`, so a long bench run stays cheap. */
  private readonly counts = new Map<string, number>();
  private readonly server = http.createServer((req, res) => this.serve(req, res));
  private readonly timers = new Set<NodeJS.Timeout>();
  private port = 0;

  async start(): Promise<this> {
    // Longer than Node's 5 s, so a client's kept-alive connection is not closed under it between a bench's phases.
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /**
   * The variables the example flows read their LIS from, pointing at this
   * stub's `prefix` + /tests, /orders, /results and /processed.
   */
  exampleEnv(token: string, prefix = ''): Record<string, string> {
    return {
      LIS_TESTS_URL: this.url(`${prefix}/tests`),
      LIS_ORDERS_URL: this.url(`${prefix}/orders`),
      LIS_RESULTS_URL: this.url(`${prefix}/results`),
      LIS_PROCESSED_URL: this.url(`${prefix}/processed`),
      LIS_TOKEN: token,
    };
  }

  /** Answer `path` with these replies in turn; the last one repeats. */
  reply(path: string, ...replies: Reply[]): this {
    this.scripts.set(path, replies);
    return this;
  }

  /** Answer `path` with whatever `fn` computes from the request. */
  handle(path: string, fn: (req: RecordedRequest) => Reply): this {
    this.scripts.set(path, fn);
    return this;
  }

  to(path: string): RecordedRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  /** Forgets the requests kept so far (scripts carry on where they are): a long bench run keeps only what it still reads. */
  clear(): void {
    this.requests.length = 0;
  }

  /** Gaps between consecutive requests to `path`, ms. */
  gaps(path: string): number[] {
    const at = this.to(path).map((r) => r.at);
    return at.slice(1).map((t, i) => t - at[i]!);
  }

  private serve(req: http.IncomingMessage, res: http.ServerResponse): void {
    const arrivedAt = performance.now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = body ? JSON.parse(body) : undefined;
      } catch {
        json = undefined;
      }
      const path = (req.url ?? '').split('?')[0]!;
      const recorded: RecordedRequest = { method: req.method ?? '', path, headers: req.headers, body, json, arrivedAt, at: performance.now() };
      const index = this.counts.get(path) ?? 0;
      this.counts.set(path, index + 1);
      this.requests.push(recorded);
      const script = this.scripts.get(path);
      const reply: Reply = !script
        ? { status: 404, body: { message: `no route ${path} in the stub`, errors: [] } }
        : typeof script === 'function'
          ? script(recorded)
          : script[Math.min(index, script.length - 1)]!;
      res.once('finish', () => {
        recorded.answeredAt = performance.now();
        this.onAnswered?.(recorded as AnsweredRequest);
      });
      if (reply.delayMs) {
        const t = setTimeout(() => {
          this.timers.delete(t);
          send(res, reply);
        }, reply.delayMs);
        this.timers.add(t);
      } else send(res, reply);
    });
  }
}

function send(res: http.ServerResponse, reply: Reply): void {
  if (res.destroyed) return;
  if (reply.write) return reply.write(res);
  const text = typeof reply.body === 'string' ? reply.body : reply.body === undefined ? '' : JSON.stringify(reply.body);
  const headers: Record<string, string> = {
    ...(typeof reply.body === 'string' ? {} : { 'Content-Type': 'application/json' }),
    // A body goes out with its length, as a LIS sends it (not chunked); a reply without one is left as Node sends it (a 204 must not have one).
    ...(reply.body === undefined ? {} : { 'Content-Length': String(Buffer.byteLength(text)) }),
    ...reply.headers,
  };
  res.writeHead(reply.status ?? 200, headers);
  res.end(text);
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

/** A valid order for `sample` (spec 2.2, 2.3), with overrides. */
export function anOrder(sample: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    SampleNumber: sample,
    TransactionDate: '20261121093015',
    Priority: 'R',
    SampleType: 'Serum',
    Tests: ['T-GLU', 'T-CREA'],
    patient: { ID: 'P-0042', Name: 'Jane Roe', Sex: 'F', DateOfBirth: '19800229', Age: '46', AgeUnit: 'Y' },
    ...overrides,
  };
}
