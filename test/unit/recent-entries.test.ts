/**
 * RecentEntries (the query book's and the downloaded orders' memory): entries
 * leave oldest change first, by age and beyond a count, and a key changed
 * again counts from its latest change, not its first.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RecentEntries } from '../../lib/conversation/recent-entries';

const keys = (r: RecentEntries<number>, all: string[]): string[] => all.filter((k) => r.get(k) !== undefined);

describe('RecentEntries', () => {
  it('drops what changed longer ago than the retention, oldest first, up to the first entry that is recent', () => {
    const r = new RecentEntries<number>();
    r.set('a', 1, 0);
    r.set('b', 2, 10);
    r.set('c', 3, 20);
    r.prune(105, 100, 10);
    assert.deepEqual(keys(r, ['a', 'b', 'c']), ['b', 'c']);
    r.prune(121, 100, 10);
    assert.deepEqual(keys(r, ['a', 'b', 'c']), []);
    assert.equal(r.size, 0);
  });

  it('counts a key changed again from its latest change: its first change no longer ages it out', () => {
    const r = new RecentEntries<number>();
    r.set('a', 1, 0);
    r.set('b', 2, 10);
    r.set('a', 3, 50);
    r.prune(115, 100, 10);
    assert.deepEqual(keys(r, ['a', 'b']), ['a']);
    assert.equal(r.get('a'), 3);
    r.prune(151, 100, 10);
    assert.equal(r.size, 0);
  });

  it('keeps at most maxEntries, dropping the least recently changed', () => {
    const r = new RecentEntries<number>();
    for (const [i, k] of ['a', 'b', 'c', 'd'].entries()) r.set(k, i, i);
    r.set('a', 9, 10); // now the newest
    r.prune(10, 1000, 2);
    assert.deepEqual(keys(r, ['a', 'b', 'c', 'd']), ['a', 'd']);
  });

  it('stays right over many changes of few keys (its queue of changes is compacted)', () => {
    const r = new RecentEntries<number>();
    for (let t = 0; t < 10_000; t++) {
      r.set(`k${t % 7}`, t, t);
      r.prune(t, 20, 5);
    }
    assert.equal(r.size, 5);
    assert.deepEqual(['k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6'].map((k) => r.get(k)), [9996, 9997, 9998, 9999, undefined, undefined, 9995]);
  });
});
