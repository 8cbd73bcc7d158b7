/**
 * Entries by key, dropped oldest change first: by age, and beyond a count.
 * What the query book and the memory of downloaded orders keep for every
 * sample an analyzer asks about (thousands a day on a busy line).
 *
 * Not a Map whose entry is deleted and set again on each change to keep it in
 * change order, pruned by iterating from its start: V8 leaves a deleted
 * entry's slot in the table until the table is rebuilt, and every iteration
 * from the start walks over those slots again. With a few thousand samples
 * remembered, each query and each order paid for thousands of them (14 us a
 * query and order in a loop with 5,000 samples, 26 us with 10,000; under 2 us
 * this way). Here the Map is only read and written by key, and the change
 * order is a queue of (key, version) that pruning takes from the front,
 * skipping the versions a later change replaced. A replaced version's record
 * stays in the queue until pruning reaches it: the queue holds at most the
 * changes made since the oldest entry kept (two a query in the query book).
 */
interface Version<V> {
  value: V;
  at: number;
}

export class RecentEntries<V> {
  private readonly map = new Map<string, Version<V>>();
  /** Every change in order; a record whose version is no longer the key's current one is skipped. */
  private changes: Array<{ key: string; version: Version<V> }> = [];
  private head = 0;

  get size(): number {
    return this.map.size;
  }

  get(key: string): V | undefined {
    return this.map.get(key)?.value;
  }

  /** Sets the key's value, changed at `at` (ms): it becomes the newest change. */
  set(key: string, value: V, at: number): void {
    const version = { value, at };
    this.map.set(key, version);
    this.changes.push({ key, version });
  }

  /**
   * Drops the entries changed more than `retainMs` before `now`, oldest change
   * first, up to the first one that is not that old; then the oldest ones
   * while more than `maxEntries` are left.
   */
  prune(now: number, retainMs: number, maxEntries: number): void {
    for (let c = this.oldest(); c !== undefined && now - c.version.at > retainMs; c = this.oldest()) this.dropOldest(c.key);
    for (let c = this.oldest(); c !== undefined && this.map.size > maxEntries; c = this.oldest()) this.dropOldest(c.key);
    // The records before head are spent: let them go once they are most of the queue.
    if (this.head > 64 && this.head * 2 > this.changes.length) {
      this.changes = this.changes.slice(this.head);
      this.head = 0;
    }
  }

  /** The change record of the entry changed longest ago (stale records before it skipped). */
  private oldest(): { key: string; version: Version<V> } | undefined {
    while (this.head < this.changes.length) {
      const c = this.changes[this.head]!;
      if (this.map.get(c.key) === c.version) return c;
      this.head++;
    }
    return undefined;
  }

  private dropOldest(key: string): void {
    this.map.delete(key);
    this.head++;
  }
}
