/**
 * Sends one order to a lis-push-in server (spec 4.6) the way a LIS would:
 * POST { order } with the traceability headers of spec 5 and, when set, the
 * bearer token the push server was configured with.
 */
import { randomUUID } from 'node:crypto';

export interface PushOutcome {
  /** True when the push server answered 2xx. */
  ok: boolean;
  /** Its HTTP status, null when it could not be reached. */
  status: number | null;
  /** Its answer: parsed JSON, the raw text, or null when empty. */
  body: unknown;
  /** Why it failed, null on success. */
  error: string | null;
  requestId: string;
}

export async function pushOrder(url: string, order: unknown, token: string | undefined, timeoutMs: number): Promise<PushOutcome> {
  const requestId = randomUUID();
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    Accept: 'application/json',
    'X-Request-ID': requestId,
    'X-Request-Timestamp': new Date().toISOString(),
  };
  if (token) headers.Authorization = `Bearer ${token}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ order }),
      // A redirect would send patient data somewhere nobody configured.
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    return { ok: false, status: null, body: null, error: `cannot reach ${url}: ${describeFetchError(err)}`, requestId };
  }
  const text = await response.text().catch(() => '');
  let body: unknown = text === '' ? null : text;
  try {
    if (text !== '') body = JSON.parse(text);
  } catch {
    // Not JSON: keep the text, it is still the best explanation there is.
  }
  const ok = response.status >= 200 && response.status < 300;
  const message = ok ? null : errorMessageOf(body) ?? `answered HTTP ${response.status}`;
  return { ok, status: response.status, body, error: message, requestId };
}

function errorMessageOf(body: unknown): string | null {
  if (typeof body === 'object' && body !== null && 'message' in body && typeof body.message === 'string') return body.message;
  return null;
}

/** fetch wraps the useful part (ECONNREFUSED, a time-out) in `cause`. */
function describeFetchError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  if (err.name === 'TimeoutError') return 'no answer in time';
  const cause: unknown = err.cause;
  if (cause instanceof Error) {
    const code = (cause as NodeJS.ErrnoException).code;
    return code ? `${code} (${cause.message})` : cause.message;
  }
  return err.message;
}
