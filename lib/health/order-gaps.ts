/**
 * Orders that went to an analyzer without some of their LIS tests (no
 * instrument code mapped for them): the sample would come back without those
 * results, and nothing at the analyzer says so. Kept for the Lab sidebar for a
 * day, at most MAX of them, newest first; in memory only (they are not results:
 * nothing is owed to the LIS, the lab has to order those tests again).
 */
export interface OrderGap {
  sample: string;
  /** The LIS test IDs not sent, with no instrument code. */
  tests: string[];
  /** The test-mapper that sent the order on. */
  node: string;
  at: number;
}

const KEEP_MS = 24 * 60 * 60_000;
const MAX = 100;

export class OrderGaps {
  private gaps: OrderGap[] = [];
  private readonly listeners = new Set<() => void>();

  add(gap: OrderGap): void {
    this.gaps.unshift({ ...gap, tests: [...gap.tests] });
    if (this.gaps.length > MAX) this.gaps.length = MAX;
    for (const l of this.listeners) l();
  }

  /** The gaps of the last day, newest first. */
  list(now: number): OrderGap[] {
    this.gaps = this.gaps.filter((g) => now - g.at < KEEP_MS);
    return this.gaps.map((g) => ({ ...g, tests: [...g.tests] }));
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
