/**
 * The LIS on loopback, for the bench: answers the four endpoints at once and
 * keeps, for every request, when it arrived (the 'request' event: headers in)
 * and when its answer was finished (the response's 'finish': the last byte
 * handed to the socket). Their difference is the time the stand-in spent
 * answering, which section 4 takes off the host query time.
 *
 * Same idea as test/support/lis-stub.ts, with the timing the bench needs and
 * without the per-request scripts; nothing from it is imported.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Served {
  path: string;
  /** X-Expected-Sample on orders, the first result's SampleNumber on results. */
  sample: string;
  /** Result items in the body (results endpoint only). */
  items: number;
  arrivedAt: number;
  answeredAt: number;
}

/** The LIS test IDs the generic example maps (T-GLU -> GLU ...). */
export const EXAMPLE_TESTS = ['T-GLU', 'T-CREA', 'T-UREA', 'T-ALT', 'T-CHOL', 'T-CRP'];

export class LisStandIn {
  readonly served: Served[] = [];
  /** Called when an answer is finished. */
  onServed: ((s: Served) => void) | undefined;
  private readonly server = http.createServer((req, res) => this.serve(req, res));
  private port = 0;

  async start(): Promise<this> {
    this.server.keepAliveTimeout = 60_000;
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

  /** Environment of the example flows pointing at this stand-in. */
  env(): Record<string, string> {
    return {
      LIS_TESTS_URL: this.url('/api/tests'),
      LIS_ORDERS_URL: this.url('/api/orders'),
      LIS_RESULTS_URL: this.url('/api/results'),
      LIS_PROCESSED_URL: this.url('/api/processed'),
      LIS_TOKEN: 'bench-token',
    };
  }

  to(path: string): Served[] {
    return this.served.filter((s) => s.path === path);
  }

  clear(): void {
    this.served.length = 0;
  }

  private serve(req: http.IncomingMessage, res: http.ServerResponse): void {
    const arrivedAt = performance.now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0] ?? '';
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = undefined;
      }
      const served: Served = { path, sample: '', items: 0, arrivedAt, answeredAt: 0 };
      let answer: unknown;
      switch (path) {
        case '/api/orders': {
          const sample = String(req.headers['x-expected-sample'] ?? (body as { SampleNumber?: unknown } | undefined)?.SampleNumber ?? '');
          served.sample = sample;
          answer = { status: 'success', order: orderFor(sample) };
          break;
        }
        case '/api/results': {
          const results = (body as { results?: Array<{ SampleNumber?: string }> } | undefined)?.results ?? [];
          served.sample = results[0]?.SampleNumber ?? '';
          served.items = results.length;
          answer = { status: 'success' };
          break;
        }
        case '/api/processed':
          served.sample = String((body as { SampleNumber?: unknown } | undefined)?.SampleNumber ?? '');
          answer = { status: 'success' };
          break;
        case '/api/tests':
          answer = { status: 'success', tests: [] };
          break;
        default:
          res.writeHead(404, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify({ message: `no route ${path}`, errors: [] }));
          return;
      }
      res.once('finish', () => {
        served.answeredAt = performance.now();
        this.served.push(served);
        this.onServed?.(served);
      });
      const text = JSON.stringify(answer);
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
      res.end(text);
    });
  }
}

/** A valid order (spec 2.2, 2.3) for `sample` with the example's six tests. */
export function orderFor(sample: string): Record<string, unknown> {
  return {
    SampleNumber: sample,
    TransactionDate: '20261121093015',
    Priority: 'R',
    SampleType: 'Serum',
    Tests: EXAMPLE_TESTS,
    patient: { ID: `P-${sample}`, Name: 'Roe, Jane', Sex: 'F', DateOfBirth: '19800229', Age: '46', AgeUnit: 'Y' },
  };
}
