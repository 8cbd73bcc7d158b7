// A test's QC rule configuration: Westgard's default sets by the number of
// control measurements per run, a list of rules, and refusals that say what to set.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createQcEvaluator, defaultRuleSet, parseQcRules, ruleSetLabel, type RuleSet } from '../../lib/qc';
import { rows } from '../support/qc-points';

function set(candidate: unknown): RuleSet {
  const parsed = parseQcRules(candidate, 'GLU');
  if ('error' in parsed) throw parsed.error;
  return parsed.set;
}

function refusal(candidate: unknown): string[] {
  const parsed = parseQcRules(candidate, 'GLU');
  assert.ok('error' in parsed, `expected ${JSON.stringify(candidate)} to be refused`);
  assert.equal(parsed.error.code, 'INVALID_INPUT');
  assert.match(parsed.error.message, /^GLU QC rules are invalid: /);
  return parsed.error.errors ?? [];
}

describe('default rule sets by controls per run', () => {
  it('pairs (2 or 4): 1-3s/2-2s/R-4s/4-1s with 8x, or 10x or 12x; 1-2s as a warning', () => {
    for (const n of [2, 4]) {
      assert.deepEqual(set({ controlsPerRun: n }), { rules: ['1-2s', '1-3s', '2-2s', 'R-4s', '4-1s', '8x'], r4s: 'range' });
    }
    assert.deepEqual(set({ controlsPerRun: 2, meanRule: '12x', warning: false }).rules, ['1-3s', '2-2s', 'R-4s', '4-1s', '12x']);
    assert.equal(ruleSetLabel(set({ controlsPerRun: 4, meanRule: '10x' })), '1-3s/2-2s/R-4s/4-1s/10x (1-2s warning)');
  });

  it('threes (3 or 6): 1-3s/2of3-2s/R-4s/3-1s with 6x, or 9x or 12x', () => {
    for (const n of [3, 6]) assert.deepEqual(set({ controlsPerRun: n }).rules, ['1-2s', '1-3s', '2of3-2s', 'R-4s', '3-1s', '6x']);
    assert.equal(ruleSetLabel(set({ controlsPerRun: 3, meanRule: '9x', warning: false, r4s: 'limits' })), '1-3s/2of3-2s/R-4s/3-1s/9x');
    assert.equal(set({ controlsPerRun: 3, r4s: 'limits' }).r4s, 'limits');
    assert.deepEqual(defaultRuleSet(6, '12x'), { rules: ['1-2s', '1-3s', '2of3-2s', 'R-4s', '3-1s', '12x'], r4s: 'range' });
  });

  it('a list of rules, kept in the table\'s order whatever order it was typed in', () => {
    assert.deepEqual(set({ rules: ['10x', '1-3s', 'R-4s'] }), { rules: ['1-3s', 'R-4s', '10x'], r4s: 'range' });
  });

  it('the set in force is what the evaluator applies', () => {
    // Two runs of three levels all beyond +1 SD: 3-1s (N of 3) rejects at run 1, 4-1s (N of 2) only at run 2.
    const points = rows([[1.2, 1.3, 1.1], [1.4, 1.2, 1.5]]);
    const first = (s: RuleSet) => {
      const ev = createQcEvaluator({ rules: () => s, target: () => ({ mean: 100, sd: 10 }) });
      const runs = points.flatMap((p) => ev.add(p).runs).filter((r) => r.state === 'rejected');
      return runs[0]?.run;
    };
    assert.equal(first(set({ controlsPerRun: 3 })), 'r1');
    assert.equal(first(set({ controlsPerRun: 2 })), 'r2');
  });
});

describe('refusals name what was wrong and what to set', () => {
  it('a number of controls per run with no Westgard set', () => {
    assert.deepEqual(refusal({ controlsPerRun: 5 }), [
      "qc.controlsPerRun: must be 2 or 4 (controls run in pairs) or 3 or 6 (in threes): it picks Westgard's rule set for that many",
    ]);
  });

  it('a mean rule that does not go with the number of controls', () => {
    assert.deepEqual(refusal({ controlsPerRun: 2, meanRule: '6x' }), [
      'qc.meanRule: "6x" does not go with 2 controls per run: set "8x", "10x", "12x" (or leave it out for "8x")',
    ]);
    assert.deepEqual(refusal({ controlsPerRun: 3, meanRule: '10x' }), [
      'qc.meanRule: "10x" does not go with 3 controls per run: set "6x", "9x", "12x" (or leave it out for "6x")',
    ]);
  });

  it('both a set and a list, or neither', () => {
    assert.deepEqual(refusal({ controlsPerRun: 2, rules: ['1-3s'] }), [
      "qc: set controlsPerRun (Westgard's set for that many controls per run) or rules (a list of your own), not both",
    ]);
    assert.deepEqual(refusal({}), ["qc: set controlsPerRun (2, 3, 4 or 6) for Westgard's set, or rules for a list of your own"]);
    assert.deepEqual(refusal('N2'), ["qc: must be an object: { controlsPerRun } for Westgard's set, or { rules } for a list of your own"]);
  });

  it('unknown, repeated or missing rules, and settings that go with the other form', () => {
    const unknown = refusal({ rules: ['1-3s', '7T'] });
    assert.equal(unknown.length, 1);
    assert.match(unknown[0]!, /^qc\.rules\[1\]: must be one of "1-2s", "1-3s", .*"12x"$/);
    assert.deepEqual(refusal({ rules: ['1-3s', '2-2s', '1-3s'] }), ['qc.rules[2]: "1-3s" is listed twice: list each rule once']);
    assert.deepEqual(refusal({ rules: [] }), ['qc.rules: list at least one rule, or set controlsPerRun instead']);
    assert.deepEqual(refusal({ rules: ['1-3s'], meanRule: '8x' }), ['qc.meanRule: goes with controlsPerRun; with a list of rules, put the rule in rules instead']);
  });

  it('an unknown setting, and a wrong type for a known one', () => {
    assert.deepEqual(refusal({ controlsPerRun: 2, westgard: true }), [
      'qc: unknown setting "westgard": the settings are controlsPerRun, meanRule, warning, rules and r4s',
    ]);
    assert.deepEqual(refusal({ controlsPerRun: 2, warning: 'yes', r4s: 'wide' }), [
      'qc.warning: must be true (1-2s reported as a warning) or false (no 1-2s)',
      'qc.r4s: must be "range" (two points 4 SD apart) or "limits" (one beyond +2 SD, one beyond -2 SD)',
    ]);
  });
});
