/**
 * A real HTTP server on loopback standing in for the LIS. Each path answers
 * from a script of replies (the last one repeats) and every request is kept,
 * with its arrival time, for the test to inspect.
 */
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: unknown;
  /** performance.now() when the request's body had arrived. */
  at: number;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string is sent as it is. */
  body?: unknown;
  /** Answer only after this long (to provoke client time-outs). */
  delayMs?: number;
}

type Script = Reply[] | ((req: RecordedRequest) => Reply);

export class LisStub {
  readonly requests: RecordedRequest[] = [];
  private readonly scripts = new Map<string, Script>();
  private readonly server = http.createServer((req, res) => this.serve(req, res));
  private readonly timers = new Set<NodeJS.Timeout>();
  private port = 0;

  async start(): Promise<this> {
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

  /** Gaps between consecutive requests to `path`, ms. */
  gaps(path: string): number[] {
    const at = this.to(path).map((r) => r.at);
    return at.slice(1).map((t, i) => t - at[i]!);
  }

  private serve(req: http.IncomingMessage, res: http.ServerResponse): void {
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
      const recorded: RecordedRequest = { method: req.method ?? '', path, headers: req.headers, body, json, at: performance.now() };
      const index = this.to(path).length;
      this.requests.push(recorded);
      const script = this.scripts.get(path);
      const reply: Reply = !script
        ? { status: 404, body: { message: `no route ${path} in the stub`, errors: [] } }
        : typeof script === 'function'
          ? script(recorded)
          : script[Math.min(index, script.length - 1)]!;
      const send = () => {
        if (res.destroyed) return;
        const text = typeof reply.body === 'string' ? reply.body : reply.body === undefined ? '' : JSON.stringify(reply.body);
        const headers: Record<string, string> = { ...(typeof reply.body === 'string' ? {} : { 'Content-Type': 'application/json' }), ...reply.headers };
        res.writeHead(reply.status ?? 200, headers);
        res.end(text);
      };
      if (reply.delayMs) {
        const t = setTimeout(() => {
          this.timers.delete(t);
          send();
        }, reply.delayMs);
        this.timers.add(t);
      } else send();
    });
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
