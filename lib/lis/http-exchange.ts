/**
 * One HTTP POST through Node's own http and https modules, its answer read
 * whole as text: all the LIS client needs of an HTTP client.
 *
 * It was axios until the host-query bench (npm run bench, section 4) showed
 * axios's request pipeline (config merging, header normalisation, its adapter)
 * as a fifth of the time from a scanned barcode to the order's first byte;
 * docs/design-notes.md "The LIS client speaks node:http" has the figures.
 * What axios did for us is kept, here:
 * - redirects are never followed (postJson reports a 3xx with its Location);
 * - no proxy is taken from the environment: only the agents passed in (or
 *   this module's own) carry the request, so a proxy meant for the internet
 *   never sees patient data bound for the LIS;
 * - the answer is refused beyond maxBytes as it arrives, without reading the
 *   rest, counted after decompression so a compressed bomb is refused too;
 * - an answer compressed although `Accept-Encoding: identity` was sent (a
 *   proxy's doing) is decompressed (gzip, deflate, br);
 * - the signal ends the exchange at any point.
 */
import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';

export interface ExchangeRequest {
  url: string;
  body: Buffer;
  headers: Record<string, string>;
  signal: AbortSignal;
  maxBytes: number;
  /** For http:// addresses; this module's own kept-alive agent when absent. */
  httpAgent?: http.Agent | undefined;
  /** For https:// addresses; Node's default agent when absent. */
  httpsAgent?: https.Agent | undefined;
}

export interface Exchanged {
  status: number;
  statusText: string;
  headers: http.IncomingHttpHeaders;
  /** The body as UTF-8 text. */
  text: string;
}

/** An answer that came but cannot be taken: larger than maxBytes (the rest is not read), or not decodable. */
export class UnreadableAnswerError extends Error {
  readonly code = 'UNREADABLE_ANSWER';
}

/** Names the client in the LIS's access log (axios named itself there before). */
const USER_AGENT = 'node-red-contrib-lis-bridge';

/**
 * How the LIS client's agents keep connections: alive, but an idle one is
 * closed after 5 s, or 1 s before the LIS's own `Keep-Alive: timeout=` hint
 * (Node's agent reads it only when a timeout is set). Left open until the LIS
 * closes it, a connection can be reused in the instant the LIS drops it, and
 * the request fails with ECONNRESET: for results, a batch held as uncertain.
 * The same settings as Node's global agent, which the client used before it
 * had agents of its own.
 */
export const KEPT_ALIVE: http.AgentOptions = { keepAlive: true, timeout: 5_000 };

/** Kept-alive connections for callers that pass no agent of their own. */
const sharedHttpAgent = new http.Agent(KEPT_ALIVE);

export function postExchange(req: ExchangeRequest): Promise<Exchanged> {
  return new Promise<Exchanged>((resolve, reject) => {
    const secure = req.url.startsWith('https:');
    const options: http.RequestOptions = {
      method: 'POST',
      // identity: the LIS has no reason to compress a few hundred bytes; decoded() copes when it does anyway.
      headers: { ...req.headers, 'Content-Length': String(req.body.length), 'Accept-Encoding': 'identity', 'User-Agent': USER_AGENT },
      signal: req.signal,
      agent: secure ? (req.httpsAgent ?? https.globalAgent) : (req.httpAgent ?? sharedHttpAgent),
    };
    const onAnswer = (res: http.IncomingMessage): void => {
      let body: Readable;
      try {
        body = decoded(res);
      } catch (err) {
        res.destroy();
        reject(err);
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      body.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > req.maxBytes) {
          res.destroy();
          if (body !== res) body.destroy();
          reject(new UnreadableAnswerError(`answer larger than ${req.maxBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      if (body !== res) body.once('error', (err: Error) => reject(new UnreadableAnswerError(`answer could not be decompressed (${err.message})`)));
      res.once('error', reject);
      // A connection cut in the middle of the body: an error, never half a body taken for the whole.
      res.once('close', () => {
        if (!res.complete) reject(Object.assign(new Error('the LIS closed the connection in the middle of its answer'), { code: 'ECONNRESET' }));
      });
      body.once('end', () =>
        resolve({ status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', headers: res.headers, text: Buffer.concat(chunks, size).toString('utf8') }),
      );
    };
    try {
      const request = (secure ? https : http).request(req.url, options, onAnswer);
      request.once('error', reject);
      request.end(req.body);
    } catch (err) {
      // An address http.request cannot take (ERR_INVALID_URL) is thrown, not emitted.
      reject(err);
    }
  });
}

/** The body as sent, decompressed when the LIS (or a proxy) compressed it. */
function decoded(res: http.IncomingMessage): Readable {
  const coding = String(res.headers['content-encoding'] ?? '').trim().toLowerCase();
  switch (coding) {
    case '':
    case 'identity':
      return res;
    case 'gzip':
    case 'x-gzip':
      return res.pipe(zlib.createGunzip());
    case 'deflate':
      return res.pipe(zlib.createInflate());
    case 'br':
      return res.pipe(zlib.createBrotliDecompress());
    default:
      throw new UnreadableAnswerError(`answer in Content-Encoding ${JSON.stringify(coding)}, which this client cannot read (it asks for identity)`);
  }
}
