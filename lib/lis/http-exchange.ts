/**
 * One HTTP POST to the LIS through axios, its answer read whole as text: all
 * the LIS client needs of an HTTP client. Each LisClient has one HttpExchange
 * (one axios instance, its own kept-alive agents, and the proxy its lis-config
 * names, if any).
 *
 * axios sends the request and hands back the answer as a stream, undecoded;
 * the body is read here, because the rules for it are the bridge's own:
 * - redirects are never followed (postJson reports a 3xx with its Location);
 * - no proxy is taken from the environment: only a proxy the lis-config names
 *   carries LIS traffic, so a proxy meant for the internet never sees patient
 *   data bound for the LIS. An http:// LIS is reached through it by forwarding
 *   (the request line holds the whole address); an https:// one through a
 *   CONNECT tunnel, so the proxy sees the host name and nothing else;
 * - the answer is refused beyond maxBytes as it arrives, without reading the
 *   rest, and again after decompression, so a compressed bomb is refused too;
 * - an answer compressed although `Accept-Encoding: identity` was sent (a
 *   proxy's doing) is decompressed (gzip, deflate raw or wrapped, br), and a
 *   leading byte-order mark is dropped;
 * - the signal ends the exchange until the whole answer is in (the request is
 *   destroyed, so an answer half read breaks off);
 * - the Bearer token is the Authorization sent, even when the address carries
 *   user:password (axios would send those as Basic instead).
 * A whole answer whose body cannot be read (not decompressible, in an unknown
 * coding) comes back as `unreadable` beside its status, as a body that is not
 * JSON does. An answer cut off in the middle is a failure (ERR_BAD_RESPONSE),
 * never half a body taken for the whole; a connection that closes before any
 * answer is one too (ECONNRESET).
 */
import http from 'node:http';
import https from 'node:https';
import zlib from 'node:zlib';
import axios, { AxiosHeaders, type AxiosProxyConfig, type AxiosRequestConfig, type InternalAxiosRequestConfig } from 'axios';
import { HttpsProxyAgent } from 'https-proxy-agent';

export interface ExchangeRequest {
  url: string;
  body: Buffer;
  /** Every header to send but Content-Length; Accept-Encoding and User-Agent are added to this object. */
  headers: Record<string, string>;
  signal: Cancellation;
  maxBytes: number;
  /** The LisClient's exchange (its agents and proxy); a shared direct one when absent. */
  via?: HttpExchange | undefined;
}

export interface Exchanged {
  status: number;
  statusText: string;
  headers: http.IncomingHttpHeaders;
  /** The body as UTF-8 text ('' when unreadable). */
  text: string;
  /** Why the body could not be read, when it could not (the status still stands). */
  unreadable?: string;
  /** The answer is the proxy's refusal of the CONNECT tunnel (an https:// LIS): nothing reached the LIS. */
  tunnelRefused?: boolean;
}

/** A proxy for LIS requests, as lis-config gives it: an http:// address without credentials, and the credentials apart. */
export interface ProxySettings {
  /** `http://host:port`. */
  url: string;
  username?: string | undefined;
  password?: string | undefined;
}

/**
 * What ends an exchange early: an AbortSignal, or a Cutoff. A listener added
 * is called once, at the abort.
 */
export interface Cancellation {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * An abort signal and its controller in one plain object, for the deadline of
 * each request and for each message a LIS node handles: an AbortController
 * costs about 20 us to make in Node 20 (its signal is an EventTarget), on a
 * path that makes two per host query (docs/design-notes.md).
 */
export class Cutoff implements Cancellation {
  aborted = false;
  private listeners: Array<() => void> = [];

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) listener();
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    if (!this.aborted) this.listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const i = this.listeners.indexOf(listener);
    if (i >= 0) this.listeners.splice(i, 1);
  }
}

/** An answer larger than maxBytes: the rest of it is not read. */
export class UnreadableAnswerError extends Error {
  readonly code = 'UNREADABLE_ANSWER';
}

/** Names the client in the LIS's access log (and in a proxy's). */
const USER_AGENT = '@lis-bridge/node-red-lis-bridge';

/**
 * How the LIS client's agents keep connections: alive, but an idle one is
 * closed after 5 s, or 1 s before the LIS's own `Keep-Alive: timeout=` hint
 * (Node's agent reads it only when a timeout is set). Left open until the LIS
 * closes it, a connection can be reused in the instant the LIS drops it, and
 * the request fails with ECONNRESET: for results, a batch held as uncertain.
 * The same settings as Node's global agent. TCP keep-alive probes after 60 s
 * idle, the delay axios sets on each request's socket: with the agent's own
 * 1 s, each request set the socket option twice (a system call each way).
 */
export const KEPT_ALIVE: http.AgentOptions = { keepAlive: true, keepAliveMsecs: 60_000, timeout: 5_000 };

/**
 * Node's request, as axios calls it (its `transport` option), with one
 * addition: a request that ends without an answer or an error (a 101 to a
 * POST) fails at once. axios waits for one of the two, and would wait until
 * the deadline.
 */
const TUNNEL_REFUSED = Symbol('tunnelRefused');
type TaggedRequest = http.ClientRequest & { [TUNNEL_REFUSED]?: boolean };

function openRequest(options: https.RequestOptions, onAnswer: (res: http.IncomingMessage) => void): http.ClientRequest {
  const request = (/^https:?$/i.test(options.protocol ?? '') ? https : http).request(options, onAnswer);
  let answered = false;
  request.once('response', () => (answered = true));
  // https-proxy-agent hands a refused CONNECT's answer on as if the LIS had given it.
  request.once('proxyConnect', (connect: { statusCode: number }) => {
    if (connect.statusCode !== 200) (request as TaggedRequest)[TUNNEL_REFUSED] = true;
  });
  request.once('close', () => {
    if (!answered) request.emit('error', Object.assign(new Error('the connection closed before the LIS answered'), { code: 'ECONNRESET' }));
  });
  return request;
}

/**
 * axios's HTTP adapter: the part of axios that makes the request (URL and
 * proxy handling, agents, Node's request, errors as AxiosError). It is called
 * with a config built once per exchange, not through `instance.request()`:
 * that path merged the config with the defaults, normalised and flattened the
 * headers and ran the (empty) interceptor chain and request transforms on
 * every request, 0.1 ms of JavaScript a request on loopback (docs/design-notes.md).
 */
const httpAdapter = axios.getAdapter('http');

export class HttpExchange {
  readonly httpAgent: http.Agent;
  /** https:// addresses: TLS to the LIS, through the proxy's CONNECT tunnel when there is one. */
  readonly httpsAgent: http.Agent;
  /** The request config of an http:// and of an https:// address, shared by every request (each gets its own on top). */
  private readonly plainConfig: AxiosRequestConfig;
  private readonly secureConfig: AxiosRequestConfig;

  /** `tls`: the agent options for the LIS's certificate (CA file, verification); `proxy`: none means direct. */
  constructor(options: { tls?: https.AgentOptions; proxy?: ProxySettings | undefined } = {}) {
    const tlsOptions = { ...KEPT_ALIVE, ...options.tls };
    this.httpAgent = new http.Agent(KEPT_ALIVE);
    const proxy = options.proxy;
    // axios's own `proxy` option tunnels too, but through https-proxy-agent 5, which opens a new CONNECT and TLS
    // handshake for every request and takes none of these agents' settings (kept alive, idle time-out, close()).
    this.httpsAgent = proxy ? new TunnellingAgent(withCredentials(proxy), tlsOptions) : new https.Agent(tlsOptions);
    const shared: AxiosRequestConfig = {
      method: 'post',
      maxRedirects: 0,
      // The body is read here (cap, decompression, truncation); axios hands over the bytes as they came.
      responseType: 'stream',
      decompress: false,
      validateStatus: null,
      httpAgent: this.httpAgent,
      httpsAgent: this.httpsAgent,
      // Never from the environment.
      proxy: false,
    };
    // http:// LIS addresses are forwarded through the configured proxy by axios; https:// ones go through the
    // tunnelling agent, never through axios's proxy handling.
    this.plainConfig = proxy ? { ...shared, proxy: forwardingProxy(proxy) } : shared;
    this.secureConfig = shared;
  }

  post(req: ExchangeRequest): Promise<Exchanged> {
    const { signal } = req;
    // What axios.request() would have refused before sending anything.
    if (signal.aborted) return Promise.reject(new axios.CanceledError());
    // The caller's headers set every header sent; axios adds Content-Length only.
    const headers = req.headers;
    headers['Accept-Encoding'] = 'identity';
    headers['User-Agent'] = USER_AGENT;
    const config: AxiosRequestConfig = Object.create(/^https:/i.test(req.url) ? this.secureConfig : this.plainConfig);
    config.url = headers.Authorization !== undefined ? withoutUserInfo(req.url) : req.url;
    config.data = req.body;
    // Handed over as AxiosHeaders: axios takes an instance as it is, where it would copy a plain object through
    // its set() first (each name compared with every other, lower-cased, each value sanitised), before its
    // normalize() and its byte-string copy do the same once more each.
    config.headers = Object.assign(new AxiosHeaders(), headers);
    // The signal ends the request itself rather than through axios's `signal` option, which would add listeners
    // to it (and take an AbortSignal): destroyed, the request fails (ERR_CANCELED), or its answer breaks off.
    let request: http.ClientRequest | undefined;
    const cancel = (): void => {
      request?.destroy(Object.assign(new Error('the request was cancelled'), { code: 'ERR_CANCELED' }));
    };
    config.transport = {
      request: (options: https.RequestOptions, onAnswer: (res: http.IncomingMessage) => void) => {
        request = openRequest(options, onAnswer);
        if (signal.aborted) cancel();
        return request;
      },
    };
    signal.addEventListener('abort', cancel);
    return httpAdapter(config as InternalAxiosRequestConfig)
      .then(
        (res) => readAnswer(res.data as http.IncomingMessage, req.maxBytes),
        (err: unknown) => {
          throw plainFailure(err);
        },
      )
      .finally(() => signal.removeEventListener('abort', cancel));
  }

  /**
   * Closes idle kept-alive connections and keeps none from now on. Requests in
   * flight finish (a redeploy lets lis-send-results drain them: cut off, a
   * batch of results would become uncertain); the exchange still works afterwards.
   */
  close(): void {
    for (const agent of [this.httpAgent, this.httpsAgent]) {
      (agent as unknown as { keepSocketAlive: () => boolean }).keepSocketAlive = () => false;
      for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
    }
  }
}

/**
 * https:// through the proxy's CONNECT tunnel, with the TLS settings of a
 * direct connection. HttpsProxyAgent keeps none of the options it is given for
 * the connection to the LIS (it resets them): the CA file, the verification
 * switch and the idle time-out (see KEPT_ALIVE) are put back, where Node's
 * agent merges them into each connection's options and reads the time-out.
 */
class TunnellingAgent extends HttpsProxyAgent<string> {
  constructor(proxy: URL, tls: https.AgentOptions) {
    super(proxy, { keepAlive: true });
    const kept: https.AgentOptions = { timeout: tls.timeout };
    if (tls.ca !== undefined) kept.ca = tls.ca;
    if (tls.rejectUnauthorized !== undefined) kept.rejectUnauthorized = tls.rejectUnauthorized;
    Object.assign((this as unknown as { options: https.AgentOptions }).options, kept);
  }
}

let shared: HttpExchange | undefined;

/** One POST, through the caller's exchange or a shared direct one. */
export function postExchange(req: ExchangeRequest): Promise<Exchanged> {
  return (req.via ?? (shared ??= new HttpExchange())).post(req);
}

/** The answer's body, read whole within maxBytes; a body that breaks off is a failure. */
function readAnswer(res: http.IncomingMessage, maxBytes: number): Promise<Exchanged> {
  return new Promise<Exchanged>((resolve, reject) => {
    let settled = false;
    const fail = (err: unknown): void => {
      if (settled) return;
      settled = true;
      reject(err);
    };
    // The body broke off: the caller's deadline or stop (told apart by its signal), or the LIS's doing. Either way
    // the LIS's verdict (a results answer's "status") is unknown: a failure, not retried (the LIS acted on it).
    const brokeOff = (): void => fail(Object.assign(new Error('the LIS aborted its answer: the connection closed in the middle of it'), { code: 'ERR_BAD_RESPONSE' }));
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        res.destroy();
        fail(new UnreadableAnswerError(`answer larger than ${maxBytes} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    res.once('error', brokeOff);
    res.once('close', () => {
      if (!res.complete) brokeOff();
    });
    res.once('end', () => {
      if (settled) return;
      const read = decode(Buffer.concat(chunks, size), res, maxBytes);
      if (read instanceof UnreadableAnswerError) return fail(read);
      settled = true;
      const answer: Exchanged = { status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', headers: res.headers, ...read };
      if ((res as { req?: TaggedRequest }).req?.[TUNNEL_REFUSED]) answer.tunnelRefused = true;
      resolve(answer);
    });
  });
}

/**
 * axios's error, with the code of what it wraps when axios put its own on top:
 * an address Node refuses (ERR_INVALID_URL, ERR_INVALID_PROTOCOL, ERR_INVALID_CHAR)
 * comes back as ERR_BAD_REQUEST around it, and transport.ts reads the code.
 */
function plainFailure(err: unknown): unknown {
  const e = err as { code?: string; cause?: { code?: unknown } };
  const inner = typeof e.cause?.code === 'string' ? e.cause.code : undefined;
  if (inner && e.code !== inner && e.code === 'ERR_BAD_REQUEST') e.code = inner;
  return err;
}

/** The address without user:password, which axios would send as Basic credentials in place of the Bearer token. */
function withoutUserInfo(url: string): string {
  if (!url.includes('@')) return url;
  try {
    const parsed = new URL(url);
    if (parsed.username === '' && parsed.password === '') return url;
    parsed.username = '';
    parsed.password = '';
    return parsed.href;
  } catch {
    return url; // refused where it is sent, as INVALID_URL
  }
}

/** The proxy as axios takes it for forwarding http:// requests; its credentials go as Proxy-Authorization. */
function forwardingProxy(proxy: ProxySettings): AxiosProxyConfig {
  const url = new URL(proxy.url);
  return {
    protocol: 'http',
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: Number(url.port || 80),
    ...(proxy.username || proxy.password ? { auth: { username: proxy.username ?? '', password: proxy.password ?? '' } } : {}),
  };
}

/** The proxy's address with its credentials, as https-proxy-agent takes them (Proxy-Authorization on the CONNECT only). */
function withCredentials(proxy: ProxySettings): URL {
  const url = new URL(proxy.url);
  if (proxy.username) url.username = encodeURIComponent(proxy.username);
  if (proxy.password) url.password = encodeURIComponent(proxy.password);
  return url;
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
