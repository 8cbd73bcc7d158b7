/**
 * One HTTP POST to a LIS endpoint, with the spec's headers (section 5), and
 * the outcome classified into a LisError the retry policy can read. Retrying
 * is not done here: each call is exactly one request.
 */
import { X509Certificate, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import tls from 'node:tls';
import { LisError } from '../errors';
import { Cutoff, KEPT_ALIVE, type Cancellation, UnreadableAnswerError, postExchange, type Exchanged, type HttpExchange } from './http-exchange';
import { ErrorBodySchema } from './schemas';
import type { EndpointName } from './endpoints';

export interface PostRequest {
  endpoint: EndpointName;
  url: string;
  body: unknown;
  /** Sent as `Authorization: Bearer <token>` when non-empty; no header at all otherwise (spec 5.2). */
  bearerToken?: string | undefined;
  /** Extra headers, e.g. X-Expected-Sample on order requests (spec 4.2). */
  headers?: Record<string, string>;
  timeoutMs: number;
  maxResponseBytes: number;
  signal?: Cancellation | undefined;
  /** The LisClient's exchange: its axios instance, kept-alive agents, TLS settings and proxy. A shared direct one when absent. */
  exchange?: HttpExchange | undefined;
}

export interface PostResponse {
  status: number;
  statusText: string;
  /** The body parsed as JSON; undefined when the body was empty or not JSON (see jsonError). */
  json: unknown;
  /** Why the body could not be read as JSON, when it was not empty. */
  jsonError?: string;
  /** The body as received, for answers whose shape the spec does not show. */
  text: string;
  contentType: string;
  requestId: string;
  elapsedMs: number;
}

/** Headers every request carries (spec 5). A new X-Request-ID per HTTP request, retries included. */
export function requestHeaders(bearerToken: string | undefined, extra: Record<string, string> = {}): Record<string, string> {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    Accept: 'application/json',
    'X-Request-ID': randomUUID(),
    // ISO 8601 in UTC with milliseconds and a Z: the spec says only "UTC timestamp" (4.5).
    'X-Request-Timestamp': new Date().toISOString(),
    ...extra,
  };
  const token = bearerToken?.trim();
  if (token) headers.Authorization = `Bearer ${token}`;
  return headers;
}

/** Network error codes after which the request may be sent again (orders and processed only). */
/** Failures before any byte of the request could reach the LIS. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);
const TRANSIENT_NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'ETIMEDOUT', 'ECONNABORTED']);

export async function postJson(req: PostRequest): Promise<PostResponse> {
  const headers = requestHeaders(req.bearerToken, req.headers);
  const requestId = headers['X-Request-ID']!;
  const where = `LIS ${req.endpoint}`;
  const started = performance.now();

  // A deadline for the whole exchange (a socket idle timer would never trip on
  // a LIS trickling bytes). The caller's signal (a stopping node) ends it too:
  // one listener, cheaper than AbortSignal.any on a path that makes a request
  // per query, and a Cutoff rather than an AbortController (http-exchange.ts).
  // Which of the two ended it is told by the caller's signal (classifyFailure).
  const deadline = new Cutoff();
  const stop = () => deadline.abort();
  const timer = setTimeout(stop, req.timeoutMs);
  req.signal?.addEventListener('abort', stop);
  if (req.signal?.aborted) stop();

  let res: Exchanged;
  try {
    res = await postExchange({
      url: req.url,
      body: Buffer.from(JSON.stringify(req.body), 'utf8'),
      headers,
      signal: deadline,
      maxBytes: req.maxResponseBytes,
      via: req.exchange,
    });
  } catch (err) {
    throw classifyFailure(err, { where, requestId, deadlineHit: deadline.aborted, req });
  } finally {
    clearTimeout(timer);
    req.signal?.removeEventListener('abort', stop);
  }

  const elapsedMs = Math.round(performance.now() - started);
  const text = res.text;
  const contentType = String(res.headers['content-type'] ?? '');
  const status = res.status;
  const statusText = res.statusText || '';
  const statusLine = `${status}${statusText ? ` ${statusText}` : ''}`;

  if (res.tunnelRefused) {
    // The proxy's answer, not the LIS's: a 502 or 503 is the proxy failing to reach the LIS, and may pass.
    throw new LisError(`${where}: the proxy refused the tunnel to the LIS (${statusLine})${status === 407 ? PROXY_CREDENTIALS : ''}; nothing reached the LIS`, {
      code: 'NETWORK',
      status,
      requestId,
      notSent: true,
      ...(status >= 500 || status === 408 ? { retry: 'transient' as const } : {}),
    });
  }
  if (status >= 300 && status < 400) {
    const location = res.headers.location;
    throw new LisError(
      `${where} answered ${statusLine}${location ? ` redirecting to ${String(location)}` : ' without a Location'}; redirects are not followed: configure the final address`,
      { code: 'REDIRECT', status, requestId },
    );
  }
  if (status < 200 || status >= 300) {
    const transient = status >= 500 || status === 408;
    const { detail, errors } = res.unreadable ? { detail: ` (its ${res.unreadable})`, errors: [] } : readErrorBody(text);
    throw new LisError(`${where} answered ${statusLine}${detail}${status === 407 ? PROXY_CREDENTIALS : ''}`, {
      code: 'HTTP_STATUS',
      status,
      errors,
      requestId,
      ...(transient ? { retry: 'transient' as const } : {}),
    });
  }

  const out: PostResponse = { status, statusText, json: undefined, text, contentType, requestId, elapsedMs };
  // The status stands (a 2xx was acted on); only the body is unknown.
  if (res.unreadable) out.jsonError = res.unreadable;
  else if (text.trim() !== '') {
    try {
      out.json = JSON.parse(text);
    } catch {
      out.jsonError = `body is not JSON (Content-Type ${contentType || 'none'}): ${snippet(text)}`;
    }
  }
  return out;
}

/** 407 comes from a proxy (Proxy Authentication Required), never from the LIS. */
const PROXY_CREDENTIALS = ': the proxy asks for credentials: set "Proxy user" and "Proxy password" in the LIS config';

function readErrorBody(text: string): { detail: string; errors: string[] } {
  if (text.trim() === '') return { detail: '', errors: [] };
  try {
    const parsed = ErrorBodySchema.safeParse(JSON.parse(text));
    if (parsed.success) return { detail: `: ${parsed.data.message}`, errors: parsed.data.errors ?? [] };
  } catch {
    // not JSON: fall through to the snippet
  }
  return { detail: ` (body not in the spec's error format: ${snippet(text)})`, errors: [] };
}

/** A short one-line excerpt of a body for error messages. */
export function snippet(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(flat.length > max ? `${flat.slice(0, max)}…` : flat);
}

export interface TlsSettings {
  /** Path of a PEM file with the certificate(s) of the authority that issued the LIS's certificate. */
  caFile?: string | undefined;
  /** Skip certificate verification altogether. Off unless explicitly set; the config node warns when it is on. */
  allowUntrustedCertificates?: boolean | undefined;
}

/** An https.Agent for LIS requests made directly, with httpsAgentOptions(settings). */
export function createHttpsAgent(settings: TlsSettings): https.Agent {
  return new https.Agent(httpsAgentOptions(settings));
}

/**
 * The TLS options of LIS requests (and keep-alive), for a direct agent or a
 * proxy's tunnel alike. The CA file is read here, once: a file that cannot be
 * read or holds no certificate is a configuration error naming it. Its
 * certificates are added to Node's default authorities, so a LIS with a
 * publicly trusted certificate keeps working when a CA file is set.
 */
export function httpsAgentOptions(settings: TlsSettings): https.AgentOptions {
  const options: https.AgentOptions = { ...KEPT_ALIVE };
  const caFile = settings.caFile?.trim();
  if (caFile) options.ca = [...defaultCertificates(), ...readCaFile(caFile)];
  // Only ever false by the explicit, warned option; never as a fallback.
  if (settings.allowUntrustedCertificates === true) options.rejectUnauthorized = false;
  return options;
}

/** Node's default authorities: the bundled ones, plus system and NODE_EXTRA_CA_CERTS ones where this Node can list them. */
function defaultCertificates(): string[] {
  const get = (tls as unknown as { getCACertificates?: (type?: string) => string[] }).getCACertificates;
  return typeof get === 'function' ? get('default') : [...tls.rootCertificates];
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

function readCaFile(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const e = err as { code?: string; message?: string };
    throw new LisError(`CA file ${JSON.stringify(path)} cannot be read (${e.code ?? e.message ?? 'unknown error'})`, { code: 'NOT_CONFIGURED' });
  }
  const pems = text.match(PEM_CERTIFICATE) ?? [];
  if (pems.length === 0) {
    throw new LisError(`CA file ${JSON.stringify(path)} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`, { code: 'NOT_CONFIGURED' });
  }
  pems.forEach((pem, i) => {
    try {
      new X509Certificate(pem);
    } catch (err) {
      throw new LisError(`CA file ${JSON.stringify(path)}: certificate ${i + 1} is not valid PEM (${(err as Error).message})`, { code: 'NOT_CONFIGURED' });
    }
  });
  return pems;
}

/** Certificate verification failures (OpenSSL's and Node's codes): never transient, and explained. */
const UNTRUSTED_ISSUER_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'INVALID_CA',
  'CERT_CHAIN_TOO_LONG',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
]);
const VALIDITY_CODES = new Set(['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID', 'CERT_REVOKED']);
const HOST_NAME_CODES = new Set(['ERR_TLS_CERT_ALTNAME_INVALID', 'HOSTNAME_MISMATCH']);

function certificateAdvice(code: string): string | undefined {
  if (UNTRUSTED_ISSUER_CODES.has(code)) {
    return 'the LIS certificate was not issued by a trusted certificate authority: if the LIS uses a private (hospital) authority, set "CA file" in the LIS config to that authority\'s PEM certificate';
  }
  if (VALIDITY_CODES.has(code)) {
    return "the LIS certificate is expired, not yet valid or revoked: have the LIS certificate renewed, and check this machine's clock";
  }
  if (HOST_NAME_CODES.has(code)) {
    return 'the LIS certificate is not issued for the host in the configured URL: use the host name the certificate names, or have the certificate reissued for this one';
  }
  return undefined;
}

interface FailureContext {
  where: string;
  requestId: string;
  deadlineHit: boolean;
  req: PostRequest;
}

/** Node's (and axios's) refusals of an address or of what it makes of it, before anything is sent. */
const INVALID_ADDRESS_CODES = new Set(['ERR_INVALID_URL', 'ERR_INVALID_PROTOCOL', 'ERR_BAD_OPTION_VALUE', 'ERR_INVALID_CHAR', 'ERR_UNESCAPED_CHARACTERS', 'ERR_BAD_REQUEST']);

function classifyFailure(err: unknown, ctx: FailureContext): LisError {
  const { where, requestId } = ctx;
  if (ctx.req.signal?.aborted) {
    return new LisError(`${where}: request cancelled (node stopped)`, { code: 'CANCELLED', requestId });
  }
  if (ctx.deadlineHit) {
    return new LisError(`${where}: no answer within ${ctx.req.timeoutMs} ms`, { code: 'TIMEOUT', requestId, retry: 'transient' });
  }
  const e = err as { code?: string; message?: string; cause?: { code?: string } };
  const code = e.code ?? e.cause?.code ?? '';
  if (err instanceof UnreadableAnswerError) return new LisError(`${where}: ${err.message}`, { code: 'INVALID_RESPONSE', requestId });
  if (INVALID_ADDRESS_CODES.has(code)) {
    // Refused before any byte left.
    return new LisError(`${where}: invalid URL`, { code: 'INVALID_URL', requestId, notSent: true });
  }
  const advice = certificateAdvice(code);
  if (advice) {
    // Not transient: the same certificate will fail the same way on every retry.
    return new LisError(`${where}: HTTPS certificate problem ${code}${e.message ? ` (${e.message})` : ''}; ${advice}`, { code: 'NETWORK', requestId, notSent: true });
  }
  const reason = code || 'connection failed';
  const detail = e.message && !e.message.includes(reason) ? `${reason} ${e.message}` : (e.message ?? reason);
  return new LisError(`${where}: ${detail}`, {
    code: 'NETWORK',
    requestId,
    ...(TRANSIENT_NETWORK_CODES.has(code) ? { retry: 'transient' as const } : {}),
    ...(NOT_SENT_CODES.has(code) ? { notSent: true } : {}),
  });
}
