/** A small seeded random stream (mulberry32): the same seed gives the same run, so a failing crash run can be repeated. */
export class Seeded {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0 || 0x9e3779b9;
  }

  /** In [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** `n` distinct items of `from`, in a random order. */
  pick<T>(from: readonly T[], n: number): T[] {
    const pool = [...from];
    const out: T[] = [];
    while (out.length < n && pool.length > 0) out.push(pool.splice(this.int(0, pool.length - 1), 1)[0]!);
    return out;
  }
}

/** The same stream as a fuzzer's picker: a number in [0, 1), a whole number below `n`, one item of a list. */
export function prng(seed: number): { next: () => number; int: (n: number) => number; pick: <T>(xs: readonly T[]) => T } {
  const s = new Seeded(seed);
  const next = () => s.next();
  const int = (n: number) => Math.floor(next() * n);
  return { next, int, pick: (xs) => xs[int(xs.length)]! };
}

/** Splits each read at random points (the fuzz tests of both links): a link must not care where reads end. */
export function splitReads(reads: Buffer[], r: ReturnType<typeof prng>): Buffer[] {
  const out: Buffer[] = [];
  for (const read of reads) {
    let i = 0;
    while (i < read.length) {
      const n = r.next() < 0.3 ? read.length - i : 1 + r.int(Math.max(1, read.length - i));
      out.push(read.subarray(i, i + n));
      i += n;
    }
  }
  return out;
}
