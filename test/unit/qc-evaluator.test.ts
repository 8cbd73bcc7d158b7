// The evaluator's edge cases: a value exactly at a limit, a missing level, a
// lot change in the middle of a series, controls arriving out of order, an
// excluded point, a point with no target, and input it refuses.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createQcEvaluator, evaluateSeries, type ControlPoint, type EvaluatorOptions, type RunResult } from '../../lib/qc';
import { judge, options, pt, rows, states, verdicts } from '../support/qc-points';

const line = (r: RunResult) => `${r.run} ${r.state}${r.violations.map((v) => ` ${v.rule}:${v.points.join(',')}`).join('')}`;

describe('a value exactly at a limit counts as beyond it', () => {
  const WESTGARD = { L1: { mean: 47, sd: 3 } };

  it('at +2 SD is a 1-2s warning, a hair inside is not; at -3 SD is a 1-3s rejection', () => {
    const points = [pt(1, 'L1', 0, { value: 53 }), pt(2, 'L1', 0, { value: 52.99 }), pt(3, 'L1', 0, { value: 38 })];
    const results = evaluateSeries(points, options(['1-2s', '1-3s'], WESTGARD));
    assert.deepEqual(states(results), { r1: 'warning', r2: 'in-control', r3: 'rejected' });
    assert.deepEqual(verdicts(results).r3, ['1-2s run L1#3', '1-3s run L1#3']);
  });

  it('two values exactly at -2 SD are a 2-2s', () => {
    assert.deepEqual(judge([pt(1, 'L1', 0, { value: 41 }), pt(2, 'L1', 0, { value: 41 })], ['2-2s'], WESTGARD), {
      r2: ['2-2s material L1#1,L1#2'],
    });
  });

  it('a value written at mean + 2 SD that binary floating point puts a hair short still counts', () => {
    // (0.3 - 0.1) / 0.1 is 1.9999999999999998.
    const results = evaluateSeries([pt(1, 'L1', 0, { value: 0.3 })], options(['1-2s'], { L1: { mean: 0.1, sd: 0.1 } }));
    assert.equal(results[0]!.state, 'warning');
  });
});

describe('a missing level', () => {
  it('rules that need two points of the run do not fire; a material\'s series runs on over the gap', () => {
    const points = rows([
      [2.5, 0.3],
      [null, 2.2], // L1 missing: no within-run 2-2s or R-4s with one point
      [2.3, -2.2], // L1's 2-2s over runs 1 and 3; R-4s within the run
      [-2.6, null], // L2 missing: -2.2 (L2, run 3) and -2.6 (L1, run 4) are two runs apart in materials: no rule
    ]);
    assert.deepEqual(judge(points, ['1-3s', '2-2s', 'R-4s', '4-1s', '8x']), {
      r3: ['2-2s material L1#1,L1#3', 'R-4s run L1#3,L2#3'],
    });
  });

  it('a run of one level reads in control when its point is', () => {
    const results = evaluateSeries(rows([[null, 0.4]]), options(['1-3s', 'R-4s']));
    assert.deepEqual(results.map(line), ['r1 in-control']);
  });
});

describe('a lot change starts a new series', () => {
  // Lot B of L1 has targets of its own; z uses the point's lot.
  const byLot: EvaluatorOptions = {
    rules: () => ({ rules: ['4-1s'], r4s: 'range' }),
    target: (p) => (p.lot === 'B' ? { mean: 200, sd: 20 } : { mean: 100, sd: 10 }),
  };
  const at = (run: number, lot: string, z: number, material = 'L1') =>
    pt(run, material, 0, { lot, value: lot === 'B' ? 200 + 20 * z : 100 + 10 * z });

  it('within a material: four runs beyond +1 SD over the change are not a 4-1s; four of the new lot are', () => {
    const changed = [at(1, 'A', 1.5), at(2, 'A', 1.5), at(3, 'A', 1.5), at(4, 'B', 1.5), at(5, 'B', 1.2), at(6, 'B', 1.1), at(7, 'B', 1.4)];
    assert.deepEqual(verdicts(evaluateSeries(changed, byLot)), { r7: ['4-1s material L1#4,L1#5,L1#6,L1#7'] });
    const unchanged = changed.map((p) => at(Number(p.run.slice(1)), 'A', 1.5));
    assert.deepEqual(Object.keys(verdicts(evaluateSeries(unchanged, byLot))), ['r4', 'r5', 'r6', 'r7']);
  });

  it('across materials: the old lot\'s points leave the stream too', () => {
    const changed = [at(1, 'A', 1.5), at(1, 'A', 1.5, 'L2'), at(2, 'B', 1.5), at(2, 'A', 1.5, 'L2')];
    assert.deepEqual(verdicts(evaluateSeries(changed, byLot)), {});
    const unchanged = [at(1, 'A', 1.5), at(1, 'A', 1.5, 'L2'), at(2, 'A', 1.5), at(2, 'A', 1.5, 'L2')];
    assert.deepEqual(verdicts(evaluateSeries(unchanged, byLot)), { r2: ['4-1s across L1#1,L2#1,L1#2,L2#2'] });
  });
});

describe('a control arriving out of order', () => {
  const one = (run: number, z: number, extra = {}) => pt(run, 'L1', z, extra);

  it('is placed in time order: a late point completing a 2-2s is reported at its own run', () => {
    const ev = createQcEvaluator(options(['2-2s']));
    for (const p of [one(1, 0), one(2, 2.2), one(4, 0.1)]) assert.equal(ev.add(p).placement, 'in-order');
    const late = ev.add(one(3, 2.4));
    assert.equal(late.placement, 'reordered');
    assert.deepEqual(late.runs.map(line), ['r3 rejected 2-2s:L1#2,L1#3'], 'run 4 is unchanged, so not listed');
  });

  it('re-judges the later runs: a late point between two 2-2s points takes that violation back', () => {
    const ev = createQcEvaluator(options(['2-2s']));
    ev.add(one(1, 0));
    ev.add(one(2, 2.2));
    assert.deepEqual(ev.add(one(4, 2.3)).runs.map(line), ['r4 rejected 2-2s:L1#2,L1#4']);
    assert.deepEqual(ev.add(one(3, 0)).runs.map(line), ['r3 in-control', 'r4 in-control']);
  });

  it('re-judges the later runs: a late point can make a later run the one that completes a 4-1s', () => {
    const ev = createQcEvaluator(options(['4-1s']));
    for (const p of [one(1, 1.2), one(2, 1.3), one(4, 1.1), one(5, 0)]) ev.add(p);
    assert.deepEqual(ev.add(one(3, 1.4)).runs.map(line), ['r3 in-control', 'r4 rejected 4-1s:L1#1,L1#2,L1#3,L1#4']);
  });

  it('behind the last 12 points it is judged by the one-point rules alone', () => {
    const later = [one(2, 2.2), ...Array.from({ length: 12 }, (_, i) => one(i + 3, 0))];
    const ev = createQcEvaluator(options(['1-3s', '2-2s']));
    later.forEach((p) => ev.add(p));
    const late = ev.add(one(1, 3.5));
    assert.equal(late.placement, 'outside-window');
    assert.deepEqual(late.runs.map(line), ['r1 rejected 1-3s:L1#1'], 'its 2-2s with run 2 is not seen');
    // With 11 points after it, it is still placed: its 2-2s with run 2 is reported at run 2, which completes it.
    const ev2 = createQcEvaluator(options(['1-3s', '2-2s']));
    later.slice(0, 11).forEach((p) => ev2.add(p));
    const placed = ev2.add(one(1, 3.5));
    assert.equal(placed.placement, 'reordered');
    assert.deepEqual(placed.runs.map(line), ['r1 rejected 1-3s:L1#1', 'r2 rejected 2-2s:L1#1,L1#2']);
  });

  it('of a lot no longer in use, it is judged by the one-point rules alone', () => {
    const ev = createQcEvaluator(options(['1-3s', '2-2s']));
    ev.add(one(1, 2.5, { lot: 'A' }));
    ev.add(one(3, 2.5, { lot: 'B' }));
    const late = ev.add(one(2, 2.6, { lot: 'A' }));
    assert.equal(late.placement, 'outside-window');
    assert.deepEqual(late.runs.map(line), ['r2 in-control']);
  });

  it('equal result times keep their arrival order, and are not late', () => {
    const ev = createQcEvaluator(options(['2-2s']));
    ev.add(one(1, 2.1, { at: 5 }));
    const same = ev.add(pt(1, 'L2', 2.2, { at: 5 }));
    assert.equal(same.placement, 'in-order');
    assert.deepEqual(same.runs.map(line), ['r1 rejected 2-2s:L1#1,L2#1']);
  });
});

describe('an excluded point', () => {
  it('takes no part: not judged, not in any window', () => {
    const points = [pt(1, 'L1', 2.2), pt(2, 'L1', 3.5, { excluded: 'clotted sample' }), pt(3, 'L1', 2.3)];
    const ev = createQcEvaluator(options(['1-3s', '2-2s']));
    assert.equal(ev.add(points[0]!).placement, 'in-order');
    assert.deepEqual(ev.add(points[1]!), { placement: 'excluded', runs: [] });
    assert.deepEqual(ev.add(points[2]!).runs.map(line), ['r3 rejected 2-2s:L1#1,L1#3']);
  });
});

describe('a point with no target', () => {
  it('is not judged and makes its run read establishing, unless the run is rejected', () => {
    const points = rows([[0.5, 9], [3.5, 0], [null, -9]]);
    const opts = options(['1-3s', '2-2s', 'R-4s'], { L2: undefined });
    const ev = createQcEvaluator(opts);
    const placements = points.map((p) => ev.add(p).placement);
    assert.deepEqual(placements, ['in-order', 'no-target', 'in-order', 'no-target', 'no-target']);
    assert.deepEqual(evaluateSeries(points, opts).map(line), ['r1 establishing', 'r2 rejected 1-3s:L1#2', 'r3 establishing']);
  });
});

describe('separate streams', () => {
  it('keeps each analyzer × test apart', () => {
    const other = (p: ControlPoint, change: Partial<ControlPoint>): ControlPoint => ({ ...p, ...change });
    const points = [pt(1, 'L1', 2.2), other(pt(2, 'L1', 2.3), { analyzer: 'an2' }), other(pt(3, 'L1', 2.4), { test: 'NA' })];
    assert.deepEqual(judge(points, ['2-2s']), {});
  });
});

describe('two measurements of a material in one run (N of 4)', () => {
  it('reads 2-2s and R-4s between the run\'s replicates', () => {
    const rep = (id: string, material: string, z: number, at: number): ControlPoint => ({ ...pt(1, material, z, { at }), id });
    const points = [rep('L1a', 'L1', 2.1, 1), rep('L1b', 'L1', 2.2, 2), rep('L2a', 'L2', 0, 3), rep('L2b', 'L2', -1.9, 4)];
    assert.deepEqual(judge(points, ['2-2s', 'R-4s']), { r1: ['2-2s run L1a,L1b', 'R-4s run L1b,L2b'] });
  });
});

describe('input it refuses', () => {
  it('a point whose value or time is not a number, or a target whose SD is not above 0, names the field', () => {
    const ev = createQcEvaluator(options(['1-3s'], { L2: { mean: 10, sd: 0 } }));
    assert.throws(() => ev.add({ ...pt(1, 'L1', 0), value: Number.NaN }), (e: Error & { code?: string }) => e.code === 'INVALID_INPUT' && /value: must be a finite number/.test(e.message));
    assert.throws(() => ev.add({ ...pt(1, 'L1', 0), run: '' }), /run: must be a non-empty string/);
    assert.throws(() => ev.add(pt(1, 'L2', 0)), /target of an1 GLU lot A L2 is unusable: sd: must be a number above 0/);
  });
});
