/**
 * The runtime's periodic checks (a lis-send-results node's age warning and
 * auto-resend, a link's alarms, a link's stuck messages), each on its own
 * interval, and all of them on demand: `runChecksNow()` runs every check
 * registered in this process at once and resolves when they are done, with
 * the `now` they are to take (a test's "a check 61 s from now" without
 * waiting 61 s). A check takes its time from its caller, never from
 * Date.now(), and two runs of one check never overlap: a run asked for while
 * one is in flight waits for it; a tick of the interval while one is in
 * flight is skipped.
 *
 * No Node-RED here: the nodes pass in their interval (settings.js's
 * lisBridge.checkEveryMs, for tests, replaces it: nodes/shared/journal.ts).
 */

/** One round of a check, at `now` (ms). */
export type Check = (now: number) => void | Promise<void>;

export interface PeriodicOptions {
  /** The interval (ms); the timer is unref'd, so it keeps no process alive. */
  everyMs: number;
  /** A check that throws or rejects on a tick of its interval (a run asked for rejects to whoever asked instead). */
  onError: (err: unknown) => void;
}

export interface Periodic {
  /** Runs the check at `now` (when it starts: Date.now()) once the run in flight, if any, is done. */
  run(now?: number): Promise<void>;
  /** Clears the interval and leaves runChecksNow; a run in flight finishes, none queued starts. */
  stop(): void;
}

const registered = new Set<Periodic>();

/** Schedules `check` every `everyMs` and registers it for runChecksNow until stopped. */
export function periodic(check: Check, options: PeriodicOptions): Periodic {
  if (!(Number.isFinite(options.everyMs) && options.everyMs > 0)) throw new RangeError(`a check's interval must be a positive number of ms, not ${options.everyMs}`);
  let last: Promise<void> = Promise.resolve();
  let inFlight = 0;
  let stopped = false;
  const self: Periodic = {
    run(now) {
      inFlight++;
      const round = last.then(async () => {
        if (!stopped) await check(now ?? Date.now());
      });
      last = round.then(
        () => void inFlight--,
        () => void inFlight--,
      );
      return round;
    },
    stop() {
      stopped = true;
      clearInterval(timer);
      registered.delete(self);
    },
  };
  const timer = setInterval(() => {
    if (inFlight === 0) self.run().catch(options.onError);
  }, options.everyMs);
  timer.unref();
  registered.add(self);
  return self;
}

/**
 * Runs every registered check once, all at once, at `now` (default: Date.now()
 * as each starts), and resolves when all are done. A check already running
 * finishes first. Rejects with the error of a check that failed (an
 * AggregateError when several did), after all have finished.
 */
export async function runChecksNow(options: { now?: number } = {}): Promise<void> {
  const rounds = await Promise.allSettled([...registered].map((p) => p.run(options.now)));
  const errors = rounds.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, `${errors.length} checks failed`);
}
