/**
 * The local server the LIS pushes orders to (spec 4.6): POST /api/getSampleData.
 * Plain node:http so it owns its port and closes it completely on redeploy.
 *
 * Answers (body always { message, errors } on failure, spec 7's error shape):
 * 200 accepted, 400 not JSON, 401 bad token, 404 unknown route, 405 not POST,
 * 413 too large, 415 not JSON content type, 422 order data missing, empty or
 * invalid, 500 internal.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MAX_JSON_DEPTH, tooDeepAt } from './json-depth';
import { readPushedOrders } from './push-orders';
import type { Order } from './schemas';

export const PUSH_PATH = '/api/getSampleData';

export interface PushServerOptions {
  host: string;
  port: number;
  /** Largest accepted body in bytes. */
  bodyLimit: number;
  /** When set, requests must carry `Authorization: Bearer <authToken>`. */
  authToken?: string | undefined;
  /** Time a client has to send its headers, and its whole request, ms. */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** Called once per accepted request with every order in it; a throw answers 500. */
  onOrders: (orders: Order[], meta: { requestId: string | undefined; remoteAddress: string | undefined }) => void;
  /** Told about every answer that was not 200, for the node's status and log. */
  onRejected?: (status: number, message: string) => void;
}

export class PushServer {
  private readonly server: http.Server;

  constructor(private readonly options: PushServerOptions) {
    const headersTimeout = options.headersTimeoutMs ?? 10000;
    const requestTimeout = options.requestTimeoutMs ?? 30000;
    // Node checks both time-outs only every connectionsCheckingInterval (30 s by
    // default), so a short time-out would be enforced up to 30 s late: check at
    // least four times per time-out, at most once a second.
    const connectionsCheckingInterval = Math.max(10, Math.min(1000, Math.floor(Math.min(headersTimeout, requestTimeout) / 4)));
    this.server = http.createServer({ connectionsCheckingInterval }, (req, res) => this.handle(req, res));
    // Set after creation: createServer refuses a headers time-out above the request time-out.
    this.server.headersTimeout = headersTimeout;
    this.server.requestTimeout = requestTimeout;
  }

  /** Resolves with the bound port once listening; rejects with a readable error (port in use, no permission) carrying the system's code (EADDRINUSE, ...). */
  listen(): Promise<number> {
    const { host, port } = this.options;
    return new Promise((resolve, reject) => {
      const onError = (err: NodeJS.ErrnoException) => {
        this.server.off('listening', onListening);
        reject(Object.assign(new Error(`cannot listen on ${host}:${port}: ${describeListenError(err)}`), { code: err.code }));
      };
      const onListening = () => {
        this.server.off('error', onError);
        resolve((this.server.address() as AddressInfo).port);
      };
      this.server.once('error', onError);
      this.server.once('listening', onListening);
      this.server.listen(port, host);
    });
  }

  /** Stops listening and drops open connections, so a redeploy can bind the port again at once. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      if (!this.server.listening) return resolve();
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '').split('?')[0];
    if (path !== PUSH_PATH) return this.reject(res, 404, `unknown route ${path}: orders are posted to ${PUSH_PATH}`);
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      return this.reject(res, 405, `method ${req.method} not allowed: use POST`);
    }
    if (!this.authorised(req)) {
      res.setHeader('WWW-Authenticate', 'Bearer');
      return this.reject(res, 401, 'missing or wrong bearer token');
    }
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json') {
      return this.reject(res, 415, `Content-Type must be application/json, not ${type || 'none'}`);
    }
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (declared > this.options.bodyLimit) return this.tooLarge(res);

    const chunks: Buffer[] = [];
    let size = 0;
    let overflow = false;
    req.on('data', (chunk: Buffer) => {
      if (overflow) return;
      size += chunk.length;
      if (size > this.options.bodyLimit) {
        overflow = true;
        this.tooLarge(res);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!overflow) this.accept(req, res, Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', () => {
      // The client went away mid-body: nothing was accepted, nobody to answer.
    });
  }

  private accept(req: IncomingMessage, res: ServerResponse, text: string): void {
    if (text.trim() === '') return this.reject(res, 422, 'order data missing or empty');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (err) {
      return this.reject(res, 400, 'body is not valid JSON', [(err as Error).message]);
    }
    const deep = tooDeepAt(body);
    if (deep !== undefined) {
      return this.reject(res, 422, 'order data cannot be passed on: nothing was accepted', [`${deep}: nested more than ${MAX_JSON_DEPTH} levels deep`]);
    }
    const read = readPushedOrders(body);
    if (!read.ok) return this.reject(res, 422, read.message, read.errors);
    try {
      const requestId = req.headers['x-request-id'];
      this.options.onOrders(read.orders, {
        requestId: typeof requestId === 'string' ? requestId : undefined,
        remoteAddress: req.socket.remoteAddress,
      });
    } catch (err) {
      return this.reject(res, 500, 'internal error: orders not accepted', [(err as Error).message]);
    }
    this.respond(res, 200, { status: 'success', received: read.orders.length });
  }

  private authorised(req: IncomingMessage): boolean {
    const expected = this.options.authToken?.trim();
    if (!expected) return true;
    const header = req.headers.authorization ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header);
    if (!match) return false;
    // Compare digests so the comparison takes the same time whatever the input.
    const a = createHash('sha256').update(match[1]!.trim()).digest();
    const b = createHash('sha256').update(expected).digest();
    return timingSafeEqual(a, b);
  }

  private tooLarge(res: ServerResponse): void {
    // Close the connection: the rest of an oversize body is not worth reading.
    res.setHeader('Connection', 'close');
    this.reject(res, 413, `body larger than ${this.options.bodyLimit} bytes`);
  }

  private reject(res: ServerResponse, status: number, message: string, errors: string[] = []): void {
    this.options.onRejected?.(status, message);
    this.respond(res, status, { message, errors });
  }

  private respond(res: ServerResponse, status: number, body: unknown): void {
    if (res.headersSent) return;
    const text = JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
  }
}

function describeListenError(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'EADDRINUSE':
      return 'the port is already in use (another program, or another lis-push-in node)';
    case 'EACCES':
      return 'permission denied (ports below 1024 need administrator rights)';
    case 'EADDRNOTAVAIL':
      return 'the address is not one of this machine\'s';
    default:
      return err.message;
  }
}
