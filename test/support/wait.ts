/**
 * The suite's one vocabulary for time. A test waits for a condition, never for
 * a guessed delay: `waitUntil` polls until the condition holds and fails, after
 * a bound, naming what never happened. `sleep` is only for a test that proves
 * that nothing happens (no second request in 300 ms), never to let something
 * finish. `withTimeout` bounds a promise that could otherwise never settle.
 */

/** A condition's account of itself for the failure message: a fixed phrase, or one built when it is needed. */
export type What = string | (() => string | Promise<string>);

export function sleep(ms: number): Promise<void> {
  return new Promise<void>((resolve) => setTimeout(resolve, ms));
}

/**
 * Resolves once `check()` holds; rejects after `timeoutMs` with
 * "timed out after N ms waiting for <what>". A check that throws fails the wait
 * at once. `everyMs` is the pause between two checks.
 */
export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs = 5000, what: What = 'condition', everyMs = 10): Promise<void> {
  const started = Date.now();
  for (;;) {
    if (await check()) return;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${await describe(what)}`);
    await sleep(everyMs);
  }
}

/** `p`, or a failure naming `what` after `ms`: a wait that can never end must fail its test, not hold the suite. */
export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([p, limit]).finally(() => clearTimeout(timer));
}

async function describe(what: What): Promise<string> {
  if (typeof what === 'string') return what;
  try {
    return await what();
  } catch (err) {
    return `(its description failed: ${(err as Error).message})`;
  }
}
