// The Westgard rules from their definitions: Westgard's own worked answers
// replayed, then each rule on small hand-worked series for two and three
// levels, within a run, across runs and across materials.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { evaluateSeries, type ControlPoint } from '../../lib/qc';
import { judge, options, pt, rows, states } from '../support/qc-points';

/** Values of one material, mean 47, SD 3, one measurement a run (ids L1#n, runs rn). */
function series(values: readonly number[], material = 'L1'): ControlPoint[] {
  return values.map((v, i) => pt(i + 1, material, 0, { value: v }));
}

describe('Westgard worked answers', () => {
  // westgard.com/break-all-rules-answers1.htm (Sten Westgard, "Break All the Rules! Answers to Part One", 2015):
  // one control, mean 47, SD 3, judged with 1:3s, 2:2s, 4:1s, 8:x and 10:x. The page marks a pattern at its
  // first point; this engine reports it at the run that completes it, so each mark moves to the pattern's end.
  // Runs 1-57 (the page's later runs are not all in the copy we read).
  const ONE_CONTROL = [
    42.5, 55.1, 46.4, 47.0, 43.1, 56.9, 41.3, 44.9, 45.5, 41.3, 47.0, 37.7, 41.6, 53.3, 55.4, 44.6, 47.3, 48.2, 41.3,
    42.8, 44.3, 47.6, 44.3, 45.8, 47.6, 39.8, 39.8, 50.9, 49.7, 45.5, 45.2, 47.3, 47.9, 44.3, 40.1, 48.2, 40.7, 41.9,
    43.4, 43.7, 49.7, 42.2, 52.1, 44.6, 45.2, 45.8, 41.6, 41.3, 44.9, 43.7, 45.2, 50.6, 50.3, 51.2, 51.5, 44.3, 41.6,
  ];

  it('one control: 1-3s at runs 6 and 12, 2-2s at 15 and 27, 4-1s at 40 and 55, 8x at 51, nothing else', () => {
    const ids = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `L1#${from + i}`).join(',');
    assert.deepEqual(judge(series(ONE_CONTROL), ['1-3s', '2-2s', '4-1s', '8x', '10x'], { L1: { mean: 47, sd: 3 } }), {
      r6: ['1-3s run L1#6'],
      r12: ['1-3s run L1#12'],
      r15: ['2-2s material L1#14,L1#15'],
      r27: ['2-2s material L1#26,L1#27'],
      r40: [`4-1s material ${ids(37, 40)}`],
      r51: [`8x material ${ids(44, 51)}`],
      r55: [`4-1s material ${ids(52, 55)}`],
    });
  });

  // westgard.com "Break All the Rules! Answers to Part Two" (November 2015, read at
  // westgard.com/?catid=76&id=708:break-all-rules-answers2&view=article): low control mean 47 SD 3, high control
  // mean 71 SD 8, one of each a run. Its column: 2:2s on both (run 2), 1:3s (8), 1:3s and R:4s (10), 2:2s on 1 (13),
  // "R:4s by calc" (14: -2.33 and +1.9, 4.23 SD apart, neither straddling both limits), 2:2s on 2 (17), 4:1s and
  // 2:2s on 1 (22: its second point is exactly +2 SD), R:4s (26).
  const LOW = [51.5, 38.9, 47.6, 46.0, 50.9, 53.9, 52.7, 49.1, 48.5, 37.0, 47.0, 54.0, 53.3, 40.0, 55.4, 49.4, 46.7, 45.8, 52.7, 51.1, 54.0, 53.0, 49.7, 48.2, 46.4, 54.2];
  const HIGH = [82.2, 51, 74.2, 91.8, 74.2, 69.0, 58.2, 95.5, 65.4, 90.0, 63.0, 82.2, 65.4, 86.2, 70.2, 88.6, 87.8, 85.0, 76.6, 65.4, 86.2, 71.0, 81.4, 90.2, 80.6, 54.0];
  const twoControls = () => LOW.flatMap((v, i) => [pt(i + 1, 'L1', 0, { value: v }), pt(i + 1, 'L2', 0, { value: HIGH[i]! })]);
  const TARGETS = { L1: { mean: 47, sd: 3 }, L2: { mean: 71, sd: 8 } };
  const RULES = ['1-3s', '2-2s', 'R-4s', '4-1s', '10x'] as const;
  const EXPECTED: Record<string, string[]> = {
    r2: ['2-2s run L1#2,L2#2'],
    r8: ['1-3s run L2#8'],
    r10: ['1-3s run L1#10', 'R-4s run L1#10,L2#10'],
    r13: ['2-2s material L1#12,L1#13'],
    r14: ['R-4s run L1#14,L2#14'],
    r17: ['2-2s material L2#16,L2#17'],
    r22: ['2-2s material L1#21,L1#22', '4-1s material L1#19,L1#20,L1#21,L1#22'],
    r26: ['R-4s run L1#26,L2#26'],
  };

  it('two controls, R-4s read as a range: every run Westgard marks, and only those', () => {
    assert.deepEqual(judge(twoControls(), RULES, TARGETS, 'range'), EXPECTED);
  });

  it('two controls, R-4s read as straddling ±2 SD: run 14 (-2.33 and +1.9) is no longer rejected', () => {
    const { r14: _, ...rest } = EXPECTED;
    assert.deepEqual(judge(twoControls(), RULES, TARGETS, 'limits'), rest);
  });

  it('the same runs arriving two at a time out of order end with the same verdicts', () => {
    const points = twoControls();
    // Runs 5/6, 12/13 and 21/22 arrive swapped: the earlier run of each pair comes late.
    const swapped = [...points];
    for (const r of [5, 12, 21]) {
      const a = swapped.slice((r - 1) * 2, r * 2);
      const b = swapped.slice(r * 2, (r + 1) * 2);
      swapped.splice((r - 1) * 2, 4, ...b, ...a);
    }
    const byRun = (pts: ControlPoint[]) =>
      Object.fromEntries(evaluateSeries(pts, options(RULES, TARGETS)).map((r) => [r.run, r]));
    assert.notDeepEqual(swapped.map((p) => p.id), points.map((p) => p.id));
    assert.deepEqual(byRun(swapped), byRun(points));
  });
});

describe('each rule on two levels', () => {
  it('1-2s is a warning only, at 2 SD and beyond; 1-3s rejects at 3 SD and beyond', () => {
    const points = rows([[2, 0], [-1.99, 0], [0, -2.5], [3, 0], [0, -3.2]]);
    const results = evaluateSeries(points, options(['1-2s', '1-3s']));
    assert.deepEqual(states(results), { r1: 'warning', r2: 'in-control', r3: 'warning', r4: 'rejected', r5: 'rejected' });
    assert.deepEqual(judge(points, ['1-2s', '1-3s']), {
      r1: ['1-2s run L1#1'],
      r3: ['1-2s run L2#3'],
      r4: ['1-2s run L1#4', '1-3s run L1#4'],
      r5: ['1-2s run L2#5', '1-3s run L2#5'],
    });
  });

  it('2-2s within a run across the two materials, and within a material across runs', () => {
    assert.deepEqual(judge(rows([[2.1, 2.4], [0, 0], [-2.2, 0.5], [-2.0, 1], [0.3, -2.1], [1, 2.1]]), ['2-2s']), {
      r1: ['2-2s run L1#1,L2#1'],
      r4: ['2-2s material L1#3,L1#4'],
    });
  });

  it('2-2s is not read across materials and runs together, nor across opposite limits', () => {
    // L2 of run 1 and L1 of run 2 are consecutive in time, both beyond +2 SD: no 2-2s. Run 3 straddles.
    assert.deepEqual(judge(rows([[0, 2.2], [2.3, 0], [-2.5, 2.5]]), ['2-2s']), {});
  });

  it('R-4s within a run only: two levels of one run 4 SD apart, never two runs', () => {
    const points = rows([[2.5, 0], [-2.5, 0], [0, 0], [2.1, -1.9], [1.1, -2.9], [-2.2, 2.2]]);
    assert.deepEqual(judge(points, ['R-4s']), {
      r4: ['R-4s run L1#4,L2#4'],
      r5: ['R-4s run L1#5,L2#5'],
      r6: ['R-4s run L1#6,L2#6'],
    });
    assert.deepEqual(judge(points, ['R-4s'], {}, 'limits'), { r6: ['R-4s run L1#6,L2#6'] });
  });

  it('4-1s within a material across runs, and across materials over two runs', () => {
    assert.deepEqual(judge(rows([[1.5, -0.5], [1.2, 0.2], [1.1, -1.4], [1.0, 0.3]]), ['4-1s']), {
      r4: ['4-1s material L1#1,L1#2,L1#3,L1#4'],
    });
    assert.deepEqual(judge(rows([[0, 1.2], [1.5, 1.1], [1.3, 0.4], [-1.2, -1.1], [-1.4, -1.6]]), ['4-1s']), {
      r3: ['4-1s across L2#1,L1#2,L2#2,L1#3'],
      r5: ['4-1s across L1#4,L2#4,L1#5,L2#5'],
    });
  });

  it('8x across materials over four runs, then within each material as the shift goes on', () => {
    const shifted = Array.from({ length: 8 }, () => [0.5, 0.3]);
    const found = judge(rows(shifted), ['8x']);
    const l = (m: string, from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `${m}#${from + i}`);
    const mixed = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => [`L1#${from + i}`, `L2#${from + i}`]).flat();
    assert.deepEqual(found.r4, [`8x across ${mixed(1, 4).join(',')}`]);
    // From run 5 on, the last eight points of the stream end at both levels: one violation over their union.
    assert.deepEqual(found.r5, [`8x across ${mixed(1, 5).slice(1).join(',')}`]);
    // At run 8 each level's own eight points make a violation of their own, apart from the stream's.
    assert.deepEqual(found.r8, [
      `8x material ${l('L1', 1, 8).join(',')}`,
      `8x material ${l('L2', 1, 8).join(',')}`,
      `8x across ${mixed(4, 8).slice(1).join(',')}`,
    ]);
    assert.equal(found.r3, undefined);
  });

  it('10x and 12x across materials after five and six runs on one side', () => {
    const below = rows(Array.from({ length: 6 }, () => [-0.4, -0.9]));
    const first = Object.keys(judge(below, ['10x']))[0];
    assert.equal(first, 'r5');
    assert.equal(Object.keys(judge(below, ['12x']))[0], 'r6');
    assert.deepEqual(judge(below, ['12x']).r6, [`12x across ${below.map((p) => p.id).join(',')}`]);
  });

  it('a point exactly on the mean is on neither side: it breaks a mean rule\'s series', () => {
    const broken = rows([[0.5], [0.5], [0.5], [0.5], [0.5], [0], [0.5], [0.5], [0.5], [0.5], [0.5]]);
    assert.deepEqual(judge(broken, ['6x']), {});
    const whole = rows([[0.5], [0.5], [0.5], [0.5], [0.5], [0.01], [0.5]]);
    assert.deepEqual(Object.keys(judge(whole, ['6x'])), ['r6', 'r7']);
  });
});

describe('each rule on three levels', () => {
  const N3 = ['1-3s', '2of3-2s', 'R-4s', '3-1s', '6x'] as const;

  it('2of3-2s within a run: two of the three levels beyond the same 2 SD limit', () => {
    // Run 4's two points beyond 2 SD are on opposite sides: no 2of3-2s.
    assert.deepEqual(judge(rows([[0.3, 2.1, 2.4], [0, 0, 0], [0, 0, 0], [2.2, -2.2, 0]]), ['2of3-2s']), {
      r1: ['2of3-2s run L2#1,L3#1'],
    });
  });

  it('2of3-2s within a material across runs, and across materials over two runs', () => {
    assert.deepEqual(judge(rows([[2.2, 0, 0], [0.1, 0, 0], [2.5, 0, 0]]), ['2of3-2s']), {
      r3: ['2of3-2s material L1#1,L1#3'],
    });
    assert.deepEqual(judge(rows([[0, 0, 2.2], [2.3, 0, 0]]), ['2of3-2s']), { r2: ['2of3-2s across L3#1,L1#2'] });
  });

  it('3-1s within a run, within a material, and across materials', () => {
    assert.deepEqual(judge(rows([[1.2, 1.5, 1.1]]), ['3-1s']), { r1: ['3-1s run L1#1,L2#1,L3#1'] });
    assert.deepEqual(judge(rows([[-1.2, 0, 0], [-1.1, 0.5, 0], [-1.6, 0.2, 0.1]]), ['3-1s']), {
      r3: ['3-1s material L1#1,L1#2,L1#3'],
    });
    assert.deepEqual(judge(rows([[0, 1.3, 1.4], [1.2, 0, 0]]), ['3-1s']), { r2: ['3-1s across L2#1,L3#1,L1#2'] });
  });

  it('6x, 9x and 12x: two, three and four runs of three levels on one side', () => {
    const points = rows(Array.from({ length: 4 }, () => [0.2, 0.6, 0.4]));
    assert.equal(Object.keys(judge(points, ['6x']))[0], 'r2');
    assert.equal(Object.keys(judge(points, ['9x']))[0], 'r3');
    assert.deepEqual(Object.keys(judge(points, ['12x'])), ['r4']);
    assert.deepEqual(judge(points, ['6x']).r2, ['6x across L1#1,L2#1,L3#1,L1#2,L2#2,L3#2']);
  });

  it('R-4s between any two of three levels in the run', () => {
    assert.deepEqual(judge(rows([[2.5, 0, -1.6], [0.5, 2.1, -2.0]]), ['R-4s']), {
      r1: ['R-4s run L1#1,L3#1'],
      r2: ['R-4s run L2#2,L3#2'],
    });
  });

  it('the N-of-3 set over a worked series: the run each violation completes in', () => {
    const points = rows([
      [0.5, -0.3, 0.8], // r1 in control
      [1.1, 2.3, 1.4], // r2 3-1s within the run (all beyond +1 SD)
      [-0.2, 2.6, 0.1], // r3 2of3-2s on L2 (runs 2 and 3)
      [-3.1, 0.4, -0.9], // r4 1-3s (below, so not a 2of3-2s with L2 of run 3)
      [0.3, 0.2, 0.6], // r5
      [0.7, 0.9, 0.1], // r6 6x across r5 and r6
    ]);
    assert.deepEqual(judge(points, N3), {
      r2: ['3-1s run L1#2,L2#2,L3#2'],
      r3: ['2of3-2s material L2#2,L2#3'],
      r4: ['1-3s run L1#4'],
      r6: ['6x across L1#5,L2#5,L3#5,L1#6,L2#6,L3#6'],
    });
  });
});
