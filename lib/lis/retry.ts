/**
 * The retry rules of spec 7 and 8, as one loop.
 *
 * - transient failures (5xx, 408, time-out, refused connection): additional
 *   retry n waits 2^n x transientBackoffMs (2 s then 4 s with the defaults),
 *   at most transientRetries of them;
 * - an order for another sample (spec 4.2 rule 1): wait mismatchBackoffMs x the
 *   number of the attempt that failed (100 ms, 200 ms with the defaults);
 * - anything else fails at once;
 * - never more than maxAttempts attempts in all.
 */
import { LisError } from '../errors';
import type { Cancellation } from './http-exchange';

export interface RetryPolicy {
  maxAttempts: number;
  transientRetries: number;
  transientBackoffMs: number;
  mismatchBackoffMs: number;
}

export interface RetryNotice {
  /** The attempt that just failed, 1-based. */
  attempt: number;
  maxAttempts: number;
  delayMs: number;
  error: LisError;
}

export interface AttemptHooks {
  signal?: Cancellation | undefined;
  onRetry?: ((notice: RetryNotice) => void) | undefined;
}

export function transientDelayMs(retryNumber: number, baseMs: number): number {
  return 2 ** retryNumber * baseMs;
}

export function mismatchDelayMs(failedAttempt: number, baseMs: number): number {
  return failedAttempt * baseMs;
}

/**
 * Runs `attempt` until it succeeds or the policy says stop. The error thrown at
 * the end carries how many attempts were made and every X-Request-ID used.
 */
export async function withRetries<T>(
  policy: RetryPolicy,
  hooks: AttemptHooks,
  attempt: (n: number) => Promise<{ value: T; requestId: string }>,
): Promise<{ value: T; attempts: number; requestIds: string[] }> {
  const requestIds: string[] = [];
  let transientUsed = 0;
  for (let n = 1; ; n++) {
    try {
      const { value, requestId } = await attempt(n);
      requestIds.push(requestId);
      return { value, attempts: n, requestIds };
    } catch (err) {
      const error = err instanceof LisError ? err : new LisError(String(err), { code: 'NETWORK' });
      if (error.requestId && !requestIds.includes(error.requestId)) requestIds.push(error.requestId);
      let delayMs: number | undefined;
      if (n < policy.maxAttempts && !hooks.signal?.aborted) {
        if (error.retry === 'transient' && transientUsed < policy.transientRetries) {
          transientUsed++;
          delayMs = transientDelayMs(transientUsed, policy.transientBackoffMs);
        } else if (error.retry === 'mismatch') {
          delayMs = mismatchDelayMs(n, policy.mismatchBackoffMs);
        }
      }
      if (delayMs === undefined) {
        error.attempts = n;
        error.requestIds = requestIds;
        throw error;
      }
      hooks.onRetry?.({ attempt: n, maxAttempts: policy.maxAttempts, delayMs, error });
      await sleep(delayMs, hooks.signal);
    }
  }
}

/** setTimeout as a promise that a stopping node can cut short. */
export function sleep(ms: number, signal?: Cancellation): Promise<void> {
  return new Promise((resolve, reject) => {
    const cancelled = () => new LisError('request cancelled (node stopped) while waiting to retry', { code: 'CANCELLED' });
    if (signal?.aborted) return reject(cancelled());
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(cancelled());
    };
    signal?.addEventListener('abort', onAbort);
  });
}
