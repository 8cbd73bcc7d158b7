/**
 * The demo LIS: a small Laboratory Information System implementing the four
 * endpoints of the interface spec (section 4) on loopback, for `npm start`
 * and for integrators to rehearse a flow against before they meet the real
 * LIS. Plain node:http, so it starts instantly and has nothing to install.
 *
 * Routes, all below the optional path prefix:
 *   POST <paths.tests|orders|results|processed>  the LIS endpoints (bearer token when configured)
 *   GET  /            the page;  GET /panels  its live part;  GET /app.js, /app.css
 *   GET  /events      Server-Sent Events, one per request or push
 *   GET  /api/state   everything recorded, as JSON
 *   POST /push        { SampleNumber }: push that sample's order to `pushUrl`
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LisTest, Order } from '../lib/lis/schemas';
import { checkCatalog, loadCatalog } from './catalog';
import { answerOrders, answerProcessed, answerResults, answerTests, type Answer } from './endpoints';
import { EventHub } from './events';
import { BodyTooLargeError, errorBody, header, mediaType, readBody, send, sendJson } from './http';
import { Bounded, ENDPOINT_KINDS, ProcessedLedger, type DemoLisState, type DemoLisTotals, type EndpointKind, type PushRecord, type RequestRecord } from './journal';
import { DEMO_SEEDS, OrderBook } from './orders';
import { PAGE_CSP, PAGE_SCRIPT, PAGE_STYLE, renderPage, renderPanels } from './page';
import { pushOrder } from './push';
import { DEFAULT_HOST, DEFAULT_PATHS, OWN_ROUTES, checkHttpUrl, checkPaths, normalisePrefix, urlHost, type EndpointPaths } from './settings';

export { DEFAULT_HOST, DEFAULT_PATHS, type EndpointPaths } from './settings';

export const DEFAULT_NO_ORDER_PATTERN = /^NOORDER/i;
export const DEFAULT_HISTORY_LIMIT = 1000;
/** Largest request body accepted, bytes. */
export const BODY_LIMIT = 1024 * 1024;
/** Bodies larger than this are answered but not kept in the history, bytes. */
const KEPT_BODY_LIMIT = 256 * 1024;
const PUSH_TIMEOUT_MS = 10000;

export interface DemoLisOptions {
  /** The test catalog. Default: flows/lis-catalog.json. */
  catalog?: LisTest[];
  /** Endpoint paths (below the path prefix). Default: DEFAULT_PATHS. */
  paths?: Partial<EndpointPaths>;
  /** When set, the four endpoints require `Authorization: Bearer <token>`. */
  token?: string | undefined;
  /**
   * Show the token on the page and in /api/state. Only for a token that is no
   * secret, such as the fixed one of npm start: the page is not behind the token.
   */
  showToken?: boolean;
  /** Test IDs orders may carry (so an example flow's analyzer only gets tests it has mapped). Default: the whole catalog. */
  orderableTests?: string[] | undefined;
  /** Test IDs for sample numbers with a prefix, instead of orderableTests (npm start's HL7 analyzer: its flow's tests). */
  orderableByPrefix?: Record<string, string[]> | undefined;
  /** Sample numbers the LIS has no order for. Default: /^NOORDER/i. */
  noOrderPattern?: RegExp;
  /** lis-push-in address the page's "Push an order" posts to, e.g. http://127.0.0.1:8181/api/getSampleData. */
  pushUrl?: string | undefined;
  /** Bearer token the push server expects. */
  pushToken?: string | undefined;
  /** Requests kept per endpoint, and pushes kept. Default: 1000. */
  historyLimit?: number;
  /** Receives one readable line per request; never sees the token. */
  log?: (line: string) => void;
  /** The clock (tests fix it). */
  now?: () => Date;
}

export interface StartOptions {
  /** Default 127.0.0.1: the demo is for this machine. */
  host?: string;
  /** 0 picks a free port. */
  port: number;
  /** Serve everything below this path, e.g. "/lis". Default: none. */
  pathPrefix?: string;
}

/** What POST /push (and push()) answers. */
export interface PushReply {
  status: number;
  body: Record<string, unknown>;
}

export class DemoLis {
  private readonly catalog: LisTest[];
  private readonly paths: EndpointPaths;
  private readonly book: OrderBook;
  private readonly ledger: ProcessedLedger;
  private readonly history: Record<EndpointKind, Bounded<RequestRecord>>;
  private readonly pushes: Bounded<PushRecord>;
  private readonly events = new EventHub();
  private readonly token: string | undefined;
  private readonly pushUrl: string | undefined;
  private readonly log: (line: string) => void;
  private readonly now: () => Date;
  private readonly noOrderPattern: RegExp;
  private server: http.Server | undefined;
  private base: string | undefined;
  private prefix = '';
  private startedAt: string | null = null;
  private seq = 0;
  private readonly counts: DemoLisTotals = { requests: { tests: 0, orders: 0, results: 0, processed: 0 }, resultsAccepted: 0, refused: 0 };

  constructor(private readonly options: DemoLisOptions = {}) {
    this.catalog = options.catalog ? checkCatalog(options.catalog, 'options.catalog') : loadCatalog();
    this.paths = { ...DEFAULT_PATHS, ...options.paths };
    checkPaths(this.paths);
    this.noOrderPattern = options.noOrderPattern ?? DEFAULT_NO_ORDER_PATTERN;
    this.book = new OrderBook({ catalog: this.catalog, orderableTests: options.orderableTests, orderableByPrefix: options.orderableByPrefix, noOrderPattern: this.noOrderPattern });
    const limit = options.historyLimit ?? DEFAULT_HISTORY_LIMIT;
    this.history = { tests: new Bounded(limit), orders: new Bounded(limit), results: new Bounded(limit), processed: new Bounded(limit) };
    this.pushes = new Bounded(limit);
    this.ledger = new ProcessedLedger(limit);
    // An empty token means "none", as in lis-config (spec 5.2).
    this.token = options.token?.trim() || undefined;
    this.pushUrl = options.pushUrl?.trim() || undefined;
    if (this.pushUrl !== undefined) checkHttpUrl(this.pushUrl, 'pushUrl');
    this.log = options.log ?? (() => undefined);
    this.now = options.now ?? (() => new Date());
  }

  /** Starts listening; resolves with the bound port. */
  async start(options: StartOptions): Promise<number> {
    if (this.server) throw new Error('the demo LIS is already running');
    const host = options.host ?? DEFAULT_HOST;
    this.prefix = normalisePrefix(options.pathPrefix ?? '');
    const server = http.createServer((req, res) => {
      this.route(req, res).catch((err: unknown) => {
        this.log(`${new Date().toISOString()} internal error: ${(err as Error).message}`);
        sendJson(res, 500, errorBody('internal error', [(err as Error).message]));
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) =>
        reject(new Error(`cannot listen on ${host}:${options.port}: ${err.code === 'EADDRINUSE' ? 'the port is already in use' : err.message}`)),
      );
      server.listen(options.port, host, () => resolve());
    });
    this.server = server;
    const port = (server.address() as AddressInfo).port;
    this.base = `http://${urlHost(host)}:${port}`;
    this.startedAt = new Date().toISOString();
    return port;
  }

  /** Stops listening and ends open connections (event streams included). Safe to call twice. */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    this.events.close();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    this.startedAt = null;
  }

  /** The full URL of `path` below the prefix, e.g. url('/api/orders'). */
  url(path = '/'): string {
    if (!this.base) throw new Error('the demo LIS is not running');
    return `${this.base}${this.prefix}${path.startsWith('/') ? path : `/${path}`}`;
  }

  /** The four addresses to put in lis-config. */
  endpointUrls(): EndpointPaths {
    return { tests: this.url(this.paths.tests), orders: this.url(this.paths.orders), results: this.url(this.paths.results), processed: this.url(this.paths.processed) };
  }

  /** Everything recorded, newest first. */
  state(): DemoLisState {
    const running = this.base !== undefined && this.server !== undefined;
    return {
      startedAt: this.startedAt,
      page: running ? this.url('/') : null,
      endpoints: running ? this.endpointUrls() : null,
      tokenRequired: this.token !== undefined,
      token: this.options.showToken === true ? (this.token ?? null) : null,
      pushUrl: this.pushUrl ?? null,
      noOrderPattern: String(this.noOrderPattern),
      seededSamples: DEMO_SEEDS.map((s) => s.SampleNumber),
      orderableTests: this.book.orderable.map((t) => t.ID),
      requests: {
        tests: this.history.tests.newestFirst(),
        orders: this.history.orders.newestFirst(),
        results: this.history.results.newestFirst(),
        processed: this.history.processed.newestFirst(),
      },
      pushes: this.pushes.newestFirst(),
    };
  }

  /** Requests and accepted results since start. */
  totals(): DemoLisTotals {
    return { requests: { ...this.counts.requests }, resultsAccepted: this.counts.resultsAccepted, refused: this.counts.refused };
  }

  /** Pushes the order of `sampleNumber` to the configured push URL, as POST /push does. */
  async push(sampleNumber: string): Promise<PushReply> {
    if (!this.pushUrl) {
      return { status: 409, body: errorBody('no push URL configured', ['start the demo LIS with --push-url (or LIS_PUSH_URL) set to a lis-push-in address']) };
    }
    const found = this.book.lookup(sampleNumber, this.now());
    if (!found.found) {
      return { status: 422, body: errorBody(`the demo LIS has no order for ${sampleNumber}`, [`sample numbers matching ${String(this.noOrderPattern)} have no order`]) };
    }
    const target = this.pushUrl;
    const order: Order = found.order;
    const outcome = await pushOrder(target, order, this.options.pushToken?.trim() || undefined, PUSH_TIMEOUT_MS);
    const record: PushRecord = {
      seq: ++this.seq,
      at: new Date().toISOString(),
      kind: 'push',
      sampleNumber,
      target,
      order,
      status: outcome.status,
      answer: outcome.body,
      error: outcome.error,
      requestId: outcome.requestId,
    };
    this.pushes.add(record);
    this.events.publish('push', record);
    this.log(`${record.at} push ${clean(sampleNumber)} -> ${target}: ${outcome.status ?? 'no answer'}${outcome.error ? ` ${clean(outcome.error)}` : ''} [X-Request-ID ${outcome.requestId}]`);
    const answer = { status: outcome.status, body: outcome.body };
    return outcome.ok
      ? { status: 200, body: { status: 'success', target, order, answer } }
      : { status: 502, body: { ...errorBody(`the push server did not accept the order: ${outcome.error ?? 'unknown'}`), target, order, answer } };
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const pathname = (req.url ?? '/').split('?')[0]!;
    if (this.prefix && pathname === this.prefix) {
      // The page's relative URLs need the trailing slash.
      res.writeHead(301, { Location: `${this.prefix}/` });
      res.end();
      return;
    }
    if (this.prefix && !pathname.startsWith(`${this.prefix}/`)) return this.notFound(res, pathname);
    const path = pathname.slice(this.prefix.length);
    const kind = ENDPOINT_KINDS.find((k) => this.paths[k] === path);
    if (kind) return this.endpoint(kind, path, req, res);
    if (path === '/push') return this.pushRoute(req, res);
    if (!OWN_ROUTES.includes(path)) return this.notFound(res, pathname);
    if (req.method !== 'GET') {
      sendJson(res, 405, errorBody(`method ${req.method} not allowed: use GET`), { Allow: 'GET' });
      return;
    }
    switch (path) {
      case '/':
        return send(res, 200, 'text/html; charset=utf-8', renderPage(this.state()), { 'Content-Security-Policy': PAGE_CSP });
      case '/panels':
        return send(res, 200, 'text/html; charset=utf-8', renderPanels(this.state()));
      case '/app.js':
        return send(res, 200, 'text/javascript; charset=utf-8', PAGE_SCRIPT);
      case '/app.css':
        return send(res, 200, 'text/css; charset=utf-8', PAGE_STYLE);
      case '/favicon.ico':
        // Browsers ask for it unprompted; "no content" keeps their consoles quiet.
        res.writeHead(204);
        res.end();
        return;
      case '/events':
        return this.events.attach(req, res);
      case '/api/state':
        return sendJson(res, 200, this.state());
      default:
        return this.notFound(res, pathname);
    }
  }

  private notFound(res: ServerResponse, pathname: string): void {
    const endpoints = ENDPOINT_KINDS.map((k) => `${this.prefix}${this.paths[k]}`).join(', ');
    sendJson(res, 404, errorBody(`unknown route ${pathname}`, [`LIS endpoints: ${endpoints}; the page is at ${this.prefix}/`]));
  }

  /** One LIS endpoint: read, check, answer, record, log, tell the page. */
  private async endpoint(kind: EndpointKind, path: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const arrived = new Date();
    let text = '';
    let answer: Answer;
    let tooLarge = false;
    try {
      text = await readBody(req, BODY_LIMIT);
      answer = this.answer(kind, req, text);
    } catch (err) {
      if (!(err instanceof BodyTooLargeError)) throw err;
      tooLarge = true;
      answer = { status: 413, body: errorBody(err.message), note: `refused: ${err.message}` };
    }
    const record: RequestRecord = {
      seq: ++this.seq,
      at: arrived.toISOString(),
      kind,
      method: req.method ?? '',
      path,
      requestId: header(req, 'x-request-id'),
      requestTimestamp: header(req, 'x-request-timestamp'),
      expectedSample: header(req, 'x-expected-sample'),
      authorization: req.headers.authorization === undefined ? 'absent' : 'present',
      body: tooLarge || text.length > KEPT_BODY_LIMIT ? null : parseOrText(text),
      status: answer.status,
      answer: answer.body,
      note: answer.note,
    };
    this.history[kind].add(record);
    this.count(record);
    this.events.publish(kind, record);
    this.log(this.logLine(record));
    const headers: Record<string, string> = {};
    if (answer.status === 405) headers.Allow = 'POST';
    if (answer.status === 401) headers['WWW-Authenticate'] = 'Bearer';
    // Stop reading the rest of an oversize body: close once answered.
    if (tooLarge) headers.Connection = 'close';
    sendJson(res, answer.status, answer.body, headers);
  }

  private count(r: RequestRecord): void {
    this.counts.requests[r.kind]++;
    if (r.status >= 400) this.counts.refused++;
    const received = prop(r.answer, 'received');
    if (r.kind === 'results' && r.status === 200 && typeof received === 'number') this.counts.resultsAccepted += received;
  }

  private answer(kind: EndpointKind, req: IncomingMessage, text: string): Answer {
    const refuse = (status: number, message: string, errors: string[] = []): Answer => ({ status, body: errorBody(message, errors), note: `refused: ${message}` });
    if (req.method !== 'POST') return refuse(405, `method ${req.method} not allowed: use POST`);
    if (!this.authorised(req)) {
      return refuse(401, 'missing or wrong bearer token', ['send the header Authorization: Bearer <token> with the token the demo LIS was started with']);
    }
    const type = mediaType(req);
    if (type !== 'application/json') return refuse(415, `Content-Type must be application/json, not ${type || 'none'}`);
    let body: unknown;
    try {
      body = text.trim() === '' ? undefined : JSON.parse(text);
    } catch (err) {
      return refuse(400, 'body is not valid JSON', [(err as Error).message]);
    }
    switch (kind) {
      case 'tests':
        return answerTests(body, this.catalog);
      case 'orders':
        return answerOrders(body, this.book, this.ledger, this.now());
      case 'results':
        return answerResults(body, this.catalog);
      case 'processed':
        return answerProcessed(body, this.catalog, this.ledger);
    }
  }

  private async pushRoute(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') return sendJson(res, 405, errorBody(`method ${req.method} not allowed: use POST`), { Allow: 'POST' });
    // JSON only: a cross-site form cannot send it without a preflight this server never allows.
    if (mediaType(req) !== 'application/json') return sendJson(res, 415, errorBody('Content-Type must be application/json'));
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req, BODY_LIMIT));
    } catch (err) {
      if (err instanceof BodyTooLargeError) return sendJson(res, 413, errorBody(err.message), { Connection: 'close' });
      return sendJson(res, 400, errorBody('body is not valid JSON', [(err as Error).message]));
    }
    const sample = typeof body === 'object' && body !== null && 'SampleNumber' in body ? body.SampleNumber : undefined;
    if (typeof sample !== 'string' || sample.trim() === '') {
      return sendJson(res, 422, errorBody('request body invalid', ['SampleNumber: must be a non-empty string']));
    }
    const reply = await this.push(sample);
    sendJson(res, reply.status, reply.body);
  }

  private authorised(req: IncomingMessage): boolean {
    if (this.token === undefined) return true;
    const match = /^Bearer\s+(.+)$/i.exec(header(req, 'authorization') ?? '');
    if (!match) return false;
    // Equal-length digests make the comparison take the same time whatever was sent.
    const sent = createHash('sha256').update(match[1]!.trim()).digest();
    const expected = createHash('sha256').update(this.token).digest();
    return timingSafeEqual(sent, expected);
  }

  /** One line per request: time, endpoint, status, outcome, request ID. Never a header value beyond that. */
  private logLine(r: RequestRecord): string {
    const mismatch =
      r.kind === 'orders' && r.expectedSample !== null && r.expectedSample !== sampleOf(r.body)
        ? ` (X-Expected-Sample ${clean(r.expectedSample)} differs from the body)`
        : '';
    return `${r.at} ${r.method} ${this.prefix}${r.path} ${r.status} ${clean(r.note)}${mismatch} [X-Request-ID ${clean(r.requestId ?? 'none')}]`;
  }
}

function prop(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && key in value ? (value as Record<string, unknown>)[key] : undefined;
}

function sampleOf(body: unknown): unknown {
  return typeof body === 'object' && body !== null && 'SampleNumber' in body ? body.SampleNumber : undefined;
}

function parseOrText(text: string): unknown {
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Keeps a log line on one line and readable whatever a caller sent. */
function clean(text: string): string {
  const flat = text.replace(/[\u0000-\u001f\u007f]/g, '?');
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
}
