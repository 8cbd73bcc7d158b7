/**
 * The simulator's control runs: the model's draws (seeded, with the mean and
 * SD it claims; bias, drift and imprecision as given), each QC-capable
 * dialect's control messages read back as QC by the package's own readers,
 * the Westgard rules of lib/qc tripped by a shift and quiet without one, and
 * both simulators' schedules (every n samples, every m ms, on demand).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PROFILES } from '../../lib/protocols/astm/dialects';
import { toLabEvents } from '../../lib/protocols/astm/lab';
import { decodeMessage } from '../../lib/protocols/astm/records';
import { HL7_PROFILES, findHl7Profile } from '../../lib/protocols/hl7/dialects';
import { hl7LabEventsOf } from '../../lib/protocols/hl7/lab';
import { evaluateSeries, parseQcRules, type ControlPoint, type RuleName, type RuleSet } from '../../lib/qc';
import type { InstrumentResult, LabEvent } from '../../lib/lab/types';
import { AnalyzerSimulator, ControlModel, Hl7AnalyzerSimulator, MemoryTransport, buildControlMessages, buildHl7ControlMessages, type ControlRun, type QcOptions } from '../../lib/sim';
import { Hl7TestHost } from './support/hl7-host';
import { labOrder } from './support/test-host';
import { waitUntil } from '../support/wait';
import { NOW, clock, rig } from './support/setup';

const TZ = 'Europe/Berlin';
const model = (o: Partial<QcOptions> = {}, seed = '1') => new ControlModel({ control: 'QUAL2', tests: ['GLU'], ...o }, seed, ['GLU', 'CREA']);

function meanSd(xs: number[]): { mean: number; sd: number } {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1));
  return { mean, sd };
}

/** The z-scores of one level over runs from..to. */
function zs(m: ControlModel, level: string, from: number, to: number): number[] {
  const out: number[] = [];
  for (let k = from; k <= to; k++) out.push(m.runAt(k).values.find((v) => v.material.level === level)!.z);
  return out;
}

describe('the control model', () => {
  it('has two or three levels of one control, each its own material, with plausible targets per analyte', () => {
    const m = model({ levels: 3, tests: ['GLU', 'NA', 'TSH'], lot: 'L2607', expiry: '20271130' });
    assert.deepEqual(m.materials.map((x) => [x.id, x.name, x.level, x.lot, x.expiry]), [
      ['QUAL2-L1', 'QUAL2', 'L1', 'L2607', '20271130'],
      ['QUAL2-L2', 'QUAL2', 'L2', 'L2607', '20271130'],
      ['QUAL2-L3', 'QUAL2', 'L3', 'L2607', '20271130'],
    ]);
    // Glucose 3.9-6.1 mmol/L: level 1 inside the interval, the others above it, a few percent CV.
    const glu = ['L1', 'L2', 'L3'].map((l) => m.target('GLU', l));
    assert.ok(glu[0]!.mean > 3.9 && glu[0]!.mean < 6.1, JSON.stringify(glu));
    assert.ok(glu[1]!.mean > 6.1 && glu[2]!.mean > glu[1]!.mean, JSON.stringify(glu));
    for (const t of glu) assert.ok(t.sd / t.mean > 0.02 && t.sd / t.mean < 0.05, JSON.stringify(t));
    assert.equal(glu[0]!.units, 'mmol/L');
    // Reported finely enough that a 1 SD shift shows: at least ten steps per SD.
    for (const test of ['GLU', 'NA', 'TSH']) {
      const t = m.target(test, 'L1');
      assert.ok(t.sd * 10 ** t.decimals >= 10, `${test}: ${JSON.stringify(t)}`);
    }
    assert.equal(m.runAt(1).values.length, 9, 'one value per level and test');
    assert.throws(() => model({ levels: 4 }), /qc\.levels must be 2 or 3, got 4/);
    assert.throws(() => model({ imprecision: 0 }), /qc\.imprecision must be a factor > 0/);
    assert.throws(() => model({ from: 0 }), /qc\.from must be a run number >= 1/);
  });

  it('is deterministic under the seed, whatever order runs are asked for, and differs between seeds', () => {
    const a = model();
    const b = model();
    const forward = [a.next(), a.next(), a.next()];
    assert.deepEqual([b.runAt(3), b.runAt(1), b.runAt(2)].sort((x, y) => x.run - y.run), forward);
    assert.notDeepEqual(model({}, '2').runAt(1).values.map((v) => v.value), forward[0]!.values.map((v) => v.value));
  });

  it('draws with the target mean and SD: 4000 runs within tolerance, z-scores against the target', () => {
    const m = model();
    const t = m.target('GLU', 'L1');
    const values: number[] = [];
    for (let k = 1; k <= 4000; k++) {
      const v = m.runAt(k).values[0]!;
      values.push(Number(v.value));
      assert.ok(Math.abs(v.z - (Number(v.value) - t.mean) / t.sd) < 1e-12);
    }
    const got = meanSd(values);
    // Standard errors: sd/sqrt(n) = 0.016 SD for the mean, about 0.011 SD for the SD.
    assert.ok(Math.abs(got.mean - t.mean) < 0.06 * t.sd, `mean ${got.mean} against ${t.mean}`);
    assert.ok(Math.abs(got.sd / t.sd - 1) < 0.05, `sd ${got.sd} against ${t.sd}`);
  });

  it('imprecision widens the SD by its factor, around the same mean', () => {
    const got = meanSd(zs(model({ imprecision: 2 }), 'L1', 1, 4000));
    assert.ok(Math.abs(got.sd - 2) < 0.1, `sd ${got.sd} SD`);
    assert.ok(Math.abs(got.mean) < 0.12, `mean ${got.mean} SD`);
  });

  it('a bias shifts the mean by that many SD from the run given, not before', () => {
    const m = model({ bias: 1.5, from: 11 });
    const plain = model();
    assert.equal(m.shiftAt(10), 0);
    assert.equal(m.shiftAt(11), 1.5);
    // The same draws, moved: runs before 11 are the unbiased model's, runs from 11 on 1.5 SD higher.
    assert.deepEqual(m.runAt(10), plain.runAt(10));
    for (let k = 11; k <= 40; k++) assert.ok(Math.abs(zs(m, 'L1', k, k)[0]! - zs(plain, 'L1', k, k)[0]! - 1.5) < 0.05, `run ${k}`);
    const before = meanSd(zs(m, 'L1', 1, 10));
    const after = meanSd(zs(m, 'L1', 11, 3010));
    assert.ok(Math.abs(after.mean - 1.5) < 0.07, `mean from run 11 on: ${after.mean} SD`);
    assert.ok(Math.abs(before.mean) < 1, `before: ${before.mean} SD`);
  });

  it('a drift grows linearly: 0.25 SD per run from run 5 on', () => {
    const m = model({ drift: 0.25, from: 5 });
    assert.deepEqual([1, 4, 5, 6, 12].map((k) => m.shiftAt(k)), [0, 0, 0.25, 0.5, 2]);
    const plain = model();
    for (let k = 5; k <= 20; k++) {
      const d = zs(m, 'L2', k, k)[0]! - zs(plain, 'L2', k, k)[0]!;
      assert.ok(Math.abs(d - 0.25 * (k - 4)) < 0.05, `run ${k}: moved ${d} SD`);
    }
  });
});

// ----- written by the simulator, read back by the package -----

const ASTM_QC = PROFILES.filter((p) => p.qc.length > 0);
const HL7_QC = HL7_PROFILES.filter((p) => p.qc.length > 0);

function qcOf(events: readonly { type: string }[], text: string): InstrumentResult[] {
  const other = events.filter((e) => e.type !== 'qc');
  assert.deepEqual(other, [], `nothing but QC:\n${text}`);
  return (events as LabEvent[]).flatMap((e) => (e.type === 'qc' ? e.results : []));
}

/** What the package must have read: control (the sample it files QC under), level where the dialect says, test, value. */
function expectedOf(run: ControlRun, controlFields: boolean) {
  return run.values.map((v) => ({ sample: controlFields ? v.material.name : v.material.id, level: controlFields ? v.material.level : undefined, test: v.test, value: v.value }));
}
function readOf(r: InstrumentResult) {
  return { sample: r.SampleNumber, level: r.control?.level, test: r.instrumentCode, value: r.Result };
}
const byKey = (a: { sample: string; level?: string | undefined; test: string }) => `${a.sample}|${a.level ?? ''}|${a.test}`;
const sorted = <T extends { sample: string; level?: string | undefined; test: string }>(xs: T[]) => [...xs].sort((a, b) => byKey(a).localeCompare(byKey(b)));

describe('control runs read back as QC by the package', () => {
  const run = model({ levels: 3, tests: ['GLU', 'CREA'], lot: 'L2607', expiry: '20271130' }).runAt(1);

  for (const profile of ASTM_QC) {
    it(`ASTM ${profile.id}: every level and test is QC, under its control, with its value${profile.qcInOrder ? ', level, lot and target' : ''}`, () => {
      const texts = buildControlMessages(profile, run, { tube: { sequence: 1, rack: 1, position: 1 }, completedAt: NOW, timeZone: TZ, seed: '1' });
      assert.equal(texts.length, profile.qcInOrder ? 1 : 3);
      const read = texts.flatMap((text) => qcOf(toLabEvents(decodeMessage(text), profile, { timeZone: TZ }), text));
      assert.deepEqual(sorted(read.map(readOf)), sorted(expectedOf(run, profile.qcInOrder !== undefined)), texts.join('\n'));
      if (profile.qcInOrder) {
        const v = run.values[0]!;
        const r = read.find((x) => x.control?.level === v.material.level && x.instrumentCode === v.test)!;
        assert.deepEqual(r.control, { id: v.material.id, name: 'QUAL2', lot: 'L2607', level: v.material.level, expiry: '20271130', mean: String(v.mean), sd: String(v.sd) });
      }
    });
  }

  for (const profile of HL7_QC) {
    it(`HL7 ${profile.id}: every level and test is QC, under its control, with its value${profile.qcInRequest ? ', level, lot and target' : ''}`, () => {
      let id = 0;
      const messages = buildHl7ControlMessages(profile, run, NOW, { now: NOW, timeZone: TZ }, () => String(++id));
      assert.equal(messages.length, profile.qcInRequest ? 1 : 3);
      const read = messages.flatMap((m) => qcOf(hl7LabEventsOf(Buffer.from(m.text, 'utf8'), profile, TZ), m.text));
      assert.deepEqual(sorted(read.map(readOf)), sorted(expectedOf(run, profile.qcInRequest !== undefined)), messages.map((m) => m.text).join('\n'));
      if (profile.qcInRequest) {
        const v = run.values[0]!;
        const r = read.find((x) => x.control?.level === v.material.level && x.instrumentCode === v.test)!;
        assert.deepEqual(r.control, { id: v.material.id, name: 'QUAL2', lot: 'L2607', level: v.material.level, expiry: '20271130', mean: String(v.mean), sd: String(v.sd) });
      }
    });
  }

  it('the HL7 dialects without a QC marker are refused, by name', () => {
    const none = HL7_PROFILES.filter((p) => p.qc.length === 0);
    assert.ok(none.length > 0);
    for (const p of none) {
      assert.throws(() => buildHl7ControlMessages(p, run, NOW, { now: NOW, timeZone: TZ }, () => '1'), new RegExp(`dialect ${p.id} has no QC marker`));
      assert.throws(() => new Hl7AnalyzerSimulator({ dialect: p.id, transport: MemoryTransport.pair()[0], qc: { control: 'QUAL2' } }), new RegExp(`dialect ${p.id} has no QC marker`));
    }
  });

  it('an ASTM profile without a QC marker is refused, by name', () => {
    const bare = { ...PROFILES[0]!, id: 'site-no-qc', qc: [] };
    assert.throws(() => buildControlMessages(bare, run, { tube: { sequence: 1, rack: 1, position: 1 }, completedAt: NOW, timeZone: TZ, seed: '1' }), /dialect site-no-qc has no QC marker/);
    assert.throws(() => new AnalyzerSimulator({ dialect: bare, transport: MemoryTransport.pair()[0], qc: { control: 'QUAL2' } }), /dialect site-no-qc has no QC marker/);
  });
});

// ----- Westgard's rules on the model's series -----

const ANALYZER = 'sim';

/** The model's runs 1..n as the rule engine's points, one per level, a minute apart. */
function points(m: ControlModel, runs: number): ControlPoint[] {
  const out: ControlPoint[] = [];
  for (let k = 1; k <= runs; k++) {
    for (const v of m.runAt(k).values) {
      out.push({ id: `${v.material.level}#${k}`, analyzer: ANALYZER, test: v.test, material: v.material.level, lot: v.material.lot, value: Number(v.value), at: k * 60_000, run: String(k) });
    }
  }
  return out;
}

function ruleSet(config: unknown): RuleSet {
  const parsed = parseQcRules(config, 'test');
  assert.ok('set' in parsed, JSON.stringify(parsed));
  return parsed.set;
}

/** For each rule, the first run that reports it. */
function firstRuns(m: ControlModel, runs: number, set: RuleSet): Map<RuleName, number> {
  const results = evaluateSeries(points(m, runs), { rules: () => set, target: (p) => m.target(p.test, p.material) });
  const first = new Map<RuleName, number>();
  for (const r of [...results].sort((a, b) => Number(a.run) - Number(b.run))) {
    for (const v of r.violations) if (!first.has(v.rule)) first.set(v.rule, Number(r.run));
  }
  return first;
}

describe('the model against lib/qc', () => {
  // Two levels, Westgard's set for N of 2 with 10x as its mean rule.
  const set = ruleSet({ controlsPerRun: 2, meanRule: '10x' });
  // Seed 31 is one whose 30 unbiased runs stay in control (seed 1 has a 1-3s at run 4: 60 points, a 0.3 % tail each).
  const SEED = '31';

  it('a bias of 1.5 SD from run 1 trips 4-1s within a few runs and 10x within about 10', () => {
    const first = firstRuns(model({ bias: 1.5 }, SEED), 30, set);
    // Two levels a run: four points beyond +1 SD take two runs at the least, ten on one side five.
    assert.ok((first.get('4-1s') ?? Infinity) <= 4, `4-1s first at run ${first.get('4-1s')}`);
    assert.ok((first.get('10x') ?? Infinity) <= 10, `10x first at run ${first.get('10x')}`);
  });

  it('over 100 seeds, a bias of 1.5 SD trips 4-1s by run 4 and 10x by run 10 in most series', () => {
    const f41: number[] = [];
    const f10: number[] = [];
    for (let seed = 1; seed <= 100; seed++) {
      const first = firstRuns(model({ bias: 1.5 }, String(seed)), 20, set);
      f41.push(first.get('4-1s') ?? Infinity);
      f10.push(first.get('10x') ?? Infinity);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length / 2]!;
    assert.ok(median(f41) <= 4, `4-1s median run ${median(f41)}`);
    assert.ok(median(f10) <= 10, `10x median run ${median(f10)}`);
    assert.ok(f10.filter((r) => r <= 12).length >= 85, `10x by run 12 in ${f10.filter((r) => r <= 12).length} of 100`);
  });

  it('a bias of 1.5 SD from run 11: nothing before it, 4-1s and 10x soon after', () => {
    const first = firstRuns(model({ bias: 1.5, from: 11 }, SEED), 40, set);
    for (const [rule, run] of first) assert.ok(run >= 11 || rule === '1-2s', `${rule} at run ${run}, before the shift`);
    assert.ok((first.get('4-1s') ?? Infinity) <= 15, `4-1s first at run ${first.get('4-1s')}`);
    assert.ok((first.get('10x') ?? Infinity) <= 20, `10x first at run ${first.get('10x')}`);
  });

  it('unbiased, seed 31: 30 runs of two levels stay in control, no rejecting rule', () => {
    const m = model({}, SEED);
    const results = evaluateSeries(points(m, 30), { rules: () => set, target: (p) => m.target(p.test, p.material) });
    assert.equal(results.length, 30);
    const rejected = results.filter((r) => r.state === 'rejected');
    assert.deepEqual(rejected.map((r) => `${r.run}: ${r.violations.map((v) => v.rule).join(',')}`), []);
    // The same check on the same seed with the shift finds rejections: it can fail.
    const biased = model({ bias: 1.5 }, SEED);
    assert.ok(evaluateSeries(points(biased, 30), { rules: () => set, target: (p) => biased.target(p.test, p.material) }).some((r) => r.state === 'rejected'));
  });
});

// ----- the simulators' schedules -----

describe('control runs from the simulators', () => {
  it('ASTM generic-lis2a2, every 2 samples: each run reaches the host as QC, summary and events tell what was sent', async (t) => {
    const r = await rig(t, 'generic-lis2a2', { orders: ['S1', 'S2', 'S3', 'S4'].map((s) => labOrder(s, ['GLU'])), sim: { qc: { control: 'LYPH', tests: ['GLU'], every: { samples: 2 } } } });
    const events: number[] = [];
    r.sim.on('controlRun', (c) => events.push(c.run));
    const summary = await r.sim.runSamples(['S1', 'S2', 'S3', 'S4']);
    assert.ok(summary.ok, r.trace());
    assert.deepEqual(summary.controlRuns.map((c) => c.run), [1, 2]);
    assert.deepEqual(events, [1, 2]);
    const qc = r.host.events.flatMap((e) => (e.type === 'qc' ? e.results : []));
    assert.deepEqual(
      qc.map((x) => [x.SampleNumber, x.instrumentCode, x.Result]),
      summary.controlRuns.flatMap((c) => c.values.map((v) => [v.material.id, v.test, v.value])),
    );
    assert.equal(r.host.results.filter((x) => x.SampleNumber.startsWith('LYPH')).length, 0, 'no control filed as a patient');
  });

  it('ASTM mindray-cl on demand: sendControlRun() answers with values and z-scores; the host reads the control fields', async (t) => {
    const r = await rig(t, 'mindray-cl', { sim: { qc: { control: 'QC1', levels: 3, tests: ['CA125'], bias: 2 } } });
    const sent = await r.sim.sendControlRun();
    assert.equal(sent.run, 1);
    assert.equal(sent.texts.length, 1);
    assert.deepEqual(sent.values.map((v) => v.material.level), ['L1', 'L2', 'L3']);
    for (const v of sent.values) assert.ok(Math.abs(v.z - (Number(v.value) - v.mean) / v.sd) < 1e-12);
    await waitUntil(() => r.host.events.some((e) => e.type === 'qc'), 3000, () => r.trace());
    const qc = r.host.events.flatMap((e) => (e.type === 'qc' ? e.results : []));
    assert.deepEqual(qc.map((x) => [x.SampleNumber, x.control?.level, x.Result]), sent.values.map((v) => ['QC1', v.material.level, v.value]));
  });

  it('HL7 ihe-law every 40 ms while connected, stopped with the simulator', async (t) => {
    const [analyzerEnd, hostEnd] = MemoryTransport.pair();
    const host = new Hl7TestHost({ profile: findHl7Profile('ihe-law')!, transport: hostEnd, now: clock });
    await host.start();
    const sim = new Hl7AnalyzerSimulator({ dialect: 'ihe-law', transport: analyzerEnd, timeZone: TZ, now: clock, qc: { control: 'QUAL2', tests: ['GLU', 'CREA'], every: { ms: 40 } } });
    t.after(async () => {
      await sim.stop();
      await host.stop();
    });
    await sim.start();
    await waitUntil(() => sim.controlRuns.length >= 3, 5000, () => `${sim.controlRuns.length} control runs`);
    await sim.stop();
    const runs = sim.controlRuns;
    assert.deepEqual(runs.slice(0, 3).map((c) => c.run), [1, 2, 3]);
    assert.deepEqual(
      host.qc.slice(0, 12).map((x) => [x.SampleNumber, x.instrumentCode, x.Result]),
      runs.slice(0, 3).flatMap((c) => c.values.map((v) => [v.material.id, v.test, v.value])),
    );
    const after = runs.length;
    await new Promise((resolve) => setTimeout(resolve, 120));
    assert.equal(sim.controlRuns.length, after, 'no run after stop()');
  });

  it('sendControlRun() without the qc option says which option to give', async (t) => {
    const r = await rig(t, 'generic-lis2a2');
    await assert.rejects(r.sim.sendControlRun(), /no control to run: give the qc option/);
  });
});
