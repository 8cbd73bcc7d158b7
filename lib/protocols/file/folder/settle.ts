/**
 * When a file in the folder is complete: its size and modification time
 * unchanged for the settle time, as this process observed them (the share's
 * clock and the instrument's may differ from ours: only our own clock counts),
 * or its marker file present. Pure: the watcher passes observations and the
 * time in.
 */

export interface Observed {
  size: number;
  mtimeMs: number;
}

interface Seen extends Observed {
  /** When this size and mtime were first seen. */
  since: number;
}

export class SettleTracker {
  private readonly seen = new Map<string, Seen>();

  /** Records what `name` looks like now; returns whether it has looked so for at least `settleMs`. */
  observe(name: string, now: Observed, at: number, settleMs: number): boolean {
    const known = this.seen.get(name);
    if (!known || known.size !== now.size || known.mtimeMs !== now.mtimeMs) {
      this.seen.set(name, { size: now.size, mtimeMs: now.mtimeMs, since: at });
      // A file seen for the first time has not been seen to stay as it is, whatever the settle time.
      return false;
    }
    return at - known.since >= settleMs;
  }

  /** The file changed while it was read, or was taken: it starts again from its next observation. */
  forget(name: string): void {
    this.seen.delete(name);
  }

  /** Names seen but gone from the folder are forgotten (a file renamed away mid-write). */
  keepOnly(names: ReadonlySet<string>): void {
    for (const name of this.seen.keys()) if (!names.has(name)) this.seen.delete(name);
  }

  /** Files seen and not yet complete. */
  get size(): number {
    return this.seen.size;
  }
}

/** Whether two looks at a file agree: the file did not change in between. */
export function sameLook(a: Observed, b: Observed): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs;
}
