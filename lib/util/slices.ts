/**
 * Long parses written once as generators that `yield` now and then (a
 * checkpoint, every few hundred rows), and run either to the end at once
 * (`runAtOnce`: the pasted text of a test, a small file) or in slices
 * (`runInSlices`): each slice runs until its time is up, then the event loop
 * gets its turn (setImmediate) before the next. Both give the same result,
 * since they run the same code; only where the pauses fall differs.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/** A parse that pauses at its checkpoints and returns its result. */
export type Steps<T> = Generator<void, T, void>;

/** How long one slice may hold the event loop: well under the 50 ms a request or a timer may wait. */
export const SLICE_MS = 10;

/** Checkpoints between clock readings: reading the clock at every one would cost more than the work between them. */
const CHECKS_PER_READING = 16;

export function runAtOnce<T>(steps: Steps<T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done === true) return next.value;
  }
}

/** Runs the steps in slices of about `sliceMs`; `signal` abandons them between two slices (the generator is closed). */
export async function runInSlices<T>(steps: Steps<T>, options: { sliceMs?: number; signal?: AbortSignal } = {}): Promise<T> {
  const sliceMs = options.sliceMs ?? SLICE_MS;
  try {
    for (;;) {
      const until = performance.now() + sliceMs;
      let checks = 0;
      for (;;) {
        const next = steps.next();
        if (next.done === true) return next.value;
        if (++checks % CHECKS_PER_READING === 0 && performance.now() >= until) break;
      }
      await nextTurn();
      options.signal?.throwIfAborted();
    }
  } finally {
    steps.return(undefined as never);
  }
}

/** A checkpoint every `every` calls: `if (tick()) yield;` in a loop. */
export function checkpoints(every = 256): () => boolean {
  let n = 0;
  return () => ++n % every === 0;
}
