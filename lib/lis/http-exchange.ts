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
 *   rest, and again after decompression, so a compressed bomb is refused too;
 * - an answer compressed although `Accept-Encoding: identity` was sent (a
 *   proxy's doing) is decompressed (gzip, deflate raw or wrapped, br), and a
 *   leading byte-order mark is dropped;
 * - the signal ends the exchange until the answer is in.
 * A whole answer whose body cannot be read (not decompressible, in an unknown
 * coding) comes back as `unreadable` beside its status, as a body that is not
 * JSON does. An answer cut off in the middle is a failure (ERR_BAD_RESPONSE),
 * never half a body taken for the whole; a connection that closes before any
 * answer is one too (ECONNRESET).
 */
import http from 'node:http';
import https from 'node:https';
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
  /** The body as UTF-8 text ('' when unreadable). */
  text: string;
  /** Why the body could not be read, when it could not (the status still stands). */
  unreadable?: string;
}

/** An answer larger than maxBytes: the rest of it is not read. */
export class UnreadableAnswerError extends Error {
  readonly code = 'UNREADABLE_ANSWER';
}

/** Names the client in the LIS's access log (axios named itself there before). */
const USER_AGENT = '@lis-bridge/node-red-lis-bridge';

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
    let settled = false;
    const fail = (err: unknown): void => {
      if (settled) return;
      settled = true;
      reject(err);
    };
    const succeed = (answer: Exchanged): void => {
      if (settled) return;
      settled = true;
      resolve(answer);
    };
    const secure = /^https:/i.test(req.url);
    const options: http.RequestOptions = {
      method: 'POST',
      // identity: the LIS has no reason to compress a few hundred bytes; decode() copes when it does anyway.
      headers: { ...req.headers, 'Content-Length': String(req.body.length), 'Accept-Encoding': 'identity', 'User-Agent': USER_AGENT },
      signal: req.signal,
      agent: secure ? (req.httpsAgent ?? https.globalAgent) : (req.httpAgent ?? sharedHttpAgent),
    };
    let answered = false;
    // The body broke off: the caller's deadline or stop (told apart by its signal), or the LIS's doing. Either way
    // the LIS's verdict (a results answer's "status") is unknown: a failure, not retried (the LIS acted on it).
    const brokeOff = (): void => fail(Object.assign(new Error('the LIS aborted its answer: the connection closed in the middle of it'), { code: 'ERR_BAD_RESPONSE' }));
    const onAnswer = (res: http.IncomingMessage): void => {
      answered = true;
      const status = { status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', headers: res.headers };
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > req.maxBytes) {
          res.destroy();
          fail(new UnreadableAnswerError(`answer larger than ${req.maxBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      res.once('error', brokeOff);
      res.once('close', () => {
        if (!res.complete) brokeOff();
      });
      res.once('end', () => {
        const read = decode(Buffer.concat(chunks, size), res, req.maxBytes);
        if (read instanceof UnreadableAnswerError) fail(read);
        else succeed({ ...status, ...read });
      });
    };
    try {
      const request = (secure ? https : http).request(req.url, options, onAnswer);
      // Once an answer began, an error of the request is its body breaking off.
      request.once('error', (err) => (answered ? brokeOff() : fail(err)));
      // A 101 (or anything else that ends the request without an answer or an error) must not leave the caller waiting.
      request.once('close', () => {
        if (!answered) fail(Object.assign(new Error('the connection closed before the LIS answered'), { code: 'ECONNRESET' }));
      });
      request.end(req.body);
    } catch (err) {
      // An address http.request cannot take (ERR_INVALID_URL, ERR_INVALID_PROTOCOL) is thrown, not emitted.
      fail(err);
    }
  });
}

/** The body as text: decompressed when the LIS (or a proxy) compressed it, a byte-order mark dropped. */
function decode(raw: Buffer, res: http.IncomingMessage, maxBytes: number): { text: string; unreadable?: string } | UnreadableAnswerError {
  const coding = String(res.headers['content-encoding'] ?? '').trim().toLowerCase();
  let bytes = raw;
  // A 204, a 304 or an empty body carries nothing to decompress, whatever its headers say.
  if (raw.length > 0 && coding !== '' && coding !== 'identity') {
    const limit = { maxOutputLength: maxBytes + 1 };
    try {
      if (coding === 'gzip' || coding === 'x-gzip') bytes = zlib.gunzipSync(raw, limit);
      else if (coding === 'br') bytes = zlib.brotliDecompressSync(raw, limit);
      else if (coding === 'deflate') bytes = inflateEither(raw, limit);
      else return { text: '', unreadable: `body is in Content-Encoding ${JSON.stringify(coding)}, which this client cannot read (it asks for identity)` };
    } catch (err) {
      if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return new UnreadableAnswerError(`answer larger than ${maxBytes} bytes`);
      return { text: '', unreadable: `body could not be decompressed (${(err as Error).message})` };
    }
    if (bytes.length > maxBytes) return new UnreadableAnswerError(`answer larger than ${maxBytes} bytes`);
  }
  const text = bytes.toString('utf8');
  return { text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text };
}

/** "deflate" is meant to be zlib-wrapped, and some servers send it raw: either is read. */
function inflateEither(raw: Buffer, limit: zlib.ZlibOptions): Buffer {
  try {
    return zlib.inflateSync(raw, limit);
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw err;
    return zlib.inflateRawSync(raw, limit);
  }
}
