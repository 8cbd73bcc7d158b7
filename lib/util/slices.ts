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

export function runAtOnce<T>(steps: Steps<T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done === true) return next.value;
  }
}

/** When the slice of the turn of the event loop now running ends: shared by every parse that runs in it. */
let sliceEnds: number | undefined;

/**
 * The end of this turn's slice, opened if none is: a parse that starts where
 * another ended, in the same turn (an `await` chains them), or an answer sent
 * once its parse is done, gets what is left of the slice, not one of its own.
 */
export function sliceEnd(sliceMs = SLICE_MS): number {
  const now = performance.now();
  if (sliceEnds === undefined) {
    sliceEnds = now + sliceMs;
    // Scheduled before any parse's own next turn, so it runs first: after it, a slice is new.
    setImmediate(() => {
      sliceEnds = undefined;
    });
  }
  return Math.min(sliceEnds, now + sliceMs);
}

/** Runs the steps in slices of about `sliceMs`; `signal` abandons them between two slices (the generator is closed). */
export async function runInSlices<T>(steps: Steps<T>, options: { sliceMs?: number; signal?: AbortSignal } = {}): Promise<T> {
  const sliceMs = options.sliceMs ?? SLICE_MS;
  try {
    if (performance.now() >= sliceEnd(sliceMs)) {
      await nextTurn();
      options.signal?.throwIfAborted();
    }
    for (;;) {
      const until = sliceEnd(sliceMs);
      // At least one step a slice, however little is left of it: every parse gets on.
      for (;;) {
        const next = steps.next();
        if (next.done === true) return next.value;
        // The clock at every checkpoint: one is a few hundred rows (tens of microseconds), so reading it costs
        // nothing, and a slice in which a collection lands ends at the next checkpoint, not sixteen later.
        if (performance.now() >= until) break;
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
