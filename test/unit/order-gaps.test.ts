// Orders sent to an analyzer without some of their tests, as the Lab sidebar lists them: newest first, for a day, at most 100, each copy its own.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { OrderGaps } from '../../lib/health/order-gaps';

const HOUR = 60 * 60_000;

describe('orders sent without some tests', () => {
  it('lists them newest first for a day, and tells its listener of each', () => {
    const gaps = new OrderGaps();
    let told = 0;
    gaps.onChange(() => told++);
    const t0 = 1_000_000_000;
    const tests = ['T-UREA'];
    gaps.add({ sample: 'S1', tests, node: 'm', at: t0 });
    tests.push('T-ALT');
    gaps.add({ sample: 'S2', tests: ['T-K'], node: 'm', at: t0 + HOUR });
    assert.equal(told, 2);
    assert.deepEqual(gaps.list(t0 + 2 * HOUR).map((g) => [g.sample, g.tests]), [['S2', ['T-K']], ['S1', ['T-UREA']]], 'a copy of what was given');
    assert.deepEqual(gaps.list(t0 + 24 * HOUR + 1).map((g) => g.sample), ['S2'], 'a day old: gone');
  });

  it('keeps the newest 100', () => {
    const gaps = new OrderGaps();
    for (let i = 0; i < 130; i++) gaps.add({ sample: `S${i}`, tests: ['T'], node: 'm', at: 5000 + i });
    const listed = gaps.list(6000);
    assert.equal(listed.length, 100);
    assert.deepEqual([listed[0]!.sample, listed[99]!.sample], ['S129', 'S30']);
  });
});
