/**
 * One analyzer's QC as the nodes run it: the settings refused by name, a
 * control identified from the message or the table (never guessed), points
 * grouped into runs, the gate that holds a test's patient results from a
 * rejected run until a person accepts it, the review list of results sent
 * since the last good control, and what a restart keeps.
 */
import { describe, it, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InstrumentResult } from '../../lib/lab';
import { openQcStore, type QcStore } from '../../lib/qc';
import { controlValue, identifyControl } from '../../lib/qc/identify';
import { QcMonitor, type QcInput } from '../../lib/qc/monitor';
import { ReviewBook } from '../../lib/qc/review';
import { parseQcSetup, type QcSetup } from '../../lib/qc/setup';

const T0 = Date.UTC(2026, 10, 2, 8);
const H = 3600_000;
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'qc-monitor-unit-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const setupOf = (over: Record<string, unknown> = {}): QcSetup => {
  const r = parseQcSetup(
    {
      analyzer: 'AU 480',
      controls: [
        { code: 'QUAL2-L1', material: 'L1', lot: 'LOT-A', expiry: '2030-12-31' },
        { code: 'QUAL2-L2', material: 'L2', lot: 'LOT-A', expiry: '2030-12-31' },
      ],
      ...over,
    },
    'lis-qc "AU 480"',
  );
  if ('error' in r) throw r.error;
  return r.setup;
};

const result = (code: string, value: string, at: number, extra: Partial<InstrumentResult> = {}): InstrumentResult => ({
  SampleNumber: code,
  instrumentCode: 'GLU',
  Result: value,
  completedAt: new Date(at).toISOString(),
  sequence: { patient: 1, order: 1, result: 1 },
  record: 1,
  ...extra,
});

let n = 0;
const input = (r: InstrumentResult): QcInput => ({ result: r, id: `m${++n}:1:${r.instrumentCode}`, receivedAt: r.completedAt ? Date.parse(r.completedAt) : T0 });

interface Rig {
  store: QcStore;
  review: ReviewBook;
  monitor: QcMonitor;
}

async function open(setup = setupOf()): Promise<Rig> {
  const store = await openQcStore(join(dir, 'qc'));
  const review = new ReviewBook(join(dir, 'qc'));
  await review.open();
  const { monitor, written } = QcMonitor.open(store, review, setup);
  await written;
  return { store, review, monitor };
}

async function close(r: Rig): Promise<void> {
  await r.store.close();
  await r.review.close();
}

/** A run of both levels at `z` SD from a target of 5.0 ± 0.1. */
async function run(r: Rig, at: number, z1: number, z2 = z1) {
  const out = r.monitor.record([input(result('QUAL2-L1', (5 + 0.1 * z1).toFixed(2), at)), input(result('QUAL2-L2', (10 + 0.2 * z2).toFixed(2), at + 60_000))]);
  await out.written;
  return out;
}

async function withTargets(r: Rig): Promise<void> {
  await r.store.setTarget({ analyzer: 'AU 480', test: 'GLU', material: 'L1', lot: 'LOT-A', mean: 5, sd: 0.1, source: 'entered', by: 'alice' });
  await r.store.setTarget({ analyzer: 'AU 480', test: 'GLU', material: 'L2', lot: 'LOT-A', mean: 10, sd: 0.2, source: 'entered', by: 'alice' });
}

describe('QC settings', () => {
  it('refuses each wrong setting by name, saying what to set', () => {
    const r = parseQcSetup({ analyzer: '', controls: [{ code: 'C1', material: 'L1' }, { code: 'C1', material: 'L1', lot: 'X' }, { code: 'C1', material: 'L2', lot: 'Y' }], establishing: 'maybe', runMinutes: 0, colour: 'red' }, 'lis-qc "x"');
    assert.ok('error' in r);
    assert.match(r.error.message, /unknown setting "colour"/);
    const r2 = parseQcSetup({ analyzer: 'A', controls: [{ code: 'C1', material: 'L1' }], establishing: 'maybe', runMinutes: 0 }, 'lis-qc "x"');
    assert.ok('error' in r2);
    assert.match(r2.error.message, /qc\.controls\[0\]\.lot: must be the lot number/);
    assert.match(r2.error.message, /qc\.establishing: must be "hold"/);
    assert.match(r2.error.message, /qc\.runMinutes: must be at least 1 minute/);
    const r3 = parseQcSetup({ analyzer: 'A', controls: [{ code: 'C1', material: 'L1', lot: 'X' }, { code: 'C1', material: 'L2', lot: 'Y' }], byTest: { GLU: { controlsPerRun: 5 } } }, 'lis-qc "x"');
    assert.ok('error' in r3);
    assert.match(r3.error.message, /control "C1" is in row 1 already/);
    assert.match(r3.error.message, /test GLU QC rules are invalid|controlsPerRun: must be 2 or 4/);
  });

  it('defaults to Westgard\'s set for two controls per run, patient results held while establishing, runs of 60 minutes', () => {
    const s = setupOf();
    assert.deepEqual(s.rules.rules, ['1-2s', '1-3s', '2-2s', 'R-4s', '4-1s', '8x']);
    assert.equal(s.establishing, 'hold');
    assert.equal(s.runMinutes, 60);
  });
});

describe('control identity', () => {
  const rows = setupOf().controls;
  it('reads the material and lot the message sends, and its target', () => {
    const r = result('QC1', '5.1', T0, { control: { id: 'QC1', level: 'L3', lot: 'LOT-9', expiry: '20261001', mean: '5.0', sd: '0.1' } });
    const id = identifyControl(r, rows, 'AU 480');
    assert.ok('identified' in id);
    assert.deepEqual(id.identified, { material: 'L3', lot: 'LOT-9', code: 'QC1', expiry: '2026-10-01', expired: true, target: { mean: 5, sd: 0.1 } });
  });
  it('finds the table row by what the analyzer writes in the sample\'s place; a row for the test wins over one for every test', () => {
    const table = [...rows, { code: 'QUAL2-L1', test: 'GLU', material: 'L1-GLU', lot: 'LOT-G' }];
    const id = identifyControl(result('QUAL2-L1', '5', T0), table, 'AU 480');
    assert.ok('identified' in id);
    assert.equal(id.identified.material, 'L1-GLU');
    const other = identifyControl(result('QUAL2-L1', '5', T0, { instrumentCode: 'CREA' }), table, 'AU 480');
    assert.ok('identified' in other);
    assert.equal(other.identified.material, 'L1');
    assert.equal(other.identified.expired, false);
  });
  it('never guesses: a control neither names is unidentified, with what to do', () => {
    const id = identifyControl(result('LIQ-9', '5', T0), rows, 'AU 480');
    assert.ok('unidentified' in id);
    assert.equal(id.code, 'LIQ-9');
    assert.match(id.unidentified, /control "LIQ-9" of GLU: the message names no material \(level\) and lot and the control table of AU 480 has no row for it; add it .* in the lis-qc node, deploy, then Evaluate/);
    const half = identifyControl(result('QC1', '5', T0, { control: { id: 'QC1', level: 'L1' } }), rows, 'AU 480');
    assert.ok('unidentified' in half);
    assert.match(half.unidentified, /names no lot/);
  });
  it('judges numbers only', () => {
    assert.equal(controlValue(result('C', ' 5,25 ', T0)), 5.25);
    assert.match(String(controlValue(result('C', 'POS', T0))), /"POS" of control C GLU is not a number/);
  });
});

describe('the QC gate', () => {
  it('lets patient results through while the runs are in control, and holds them from a rejected run until it is accepted', async () => {
    const r = await open();
    await withTargets(r);
    for (let d = 0; d < 3; d++) await run(r, T0 + d * 24 * H, 0.5, -0.5);
    assert.equal(r.monitor.gate('GLU'), undefined);
    assert.equal(r.monitor.gate('CREA'), undefined, 'a test with no QC is not gated');
    const bad = await run(r, T0 + 3 * 24 * H, 3.5, 0.2);
    assert.equal(bad.runs.at(-1)!.state, 'rejected');
    const hold = r.monitor.gate('GLU');
    assert.ok(hold);
    assert.equal(hold.state, 'rejected');
    assert.match(hold.reason, /QC rejected on AU 480: the control run of test GLU at 2026-11-05T08:00:00.000Z violated 1-3s; accept the QC event/);
    await r.monitor.accept({ test: 'GLU', run: hold.run, reason: 'calibration drift', action: 'recalibrated', by: 'alice' });
    assert.equal(r.monitor.gate('GLU'), undefined);
    assert.equal(r.store.decisions('AU 480', 'GLU').at(-1)!.by, 'alice');
    const stateAt = (t: number) => r.monitor.view(t).find((v) => v.test === 'GLU')!.state;
    assert.equal(stateAt(T0 + 3 * 24 * H + H), 'accepted', 'not shown rejected once its event is accepted and results go');
    await run(r, T0 + 4 * 24 * H, 0.1, -0.1);
    assert.equal(stateAt(T0 + 4 * 24 * H + H), 'in-control', 'the next good run decides');
    await close(r);
  });

  it('counts violations by test and rule, each rule once for a run judged again as its levels arrive, none for a replay', async () => {
    const r = await open();
    await withTargets(r);
    for (let d = 0; d < 2; d++) await run(r, T0 + d * 24 * H, 0.5, -0.5);
    assert.deepEqual(r.monitor.violationTotals(), []);
    const at = T0 + 2 * 24 * H;
    const l1 = input(result('QUAL2-L1', '5.35', at));
    await r.monitor.record([l1]).written;
    const counts = () => Object.fromEntries(r.monitor.violationTotals().map((v) => [`${v.test} ${v.rule}`, v.count]));
    assert.deepEqual(counts(), { 'GLU 1-2s': 1, 'GLU 1-3s': 1 }, 'L1 alone: 3.5 SD');
    // L2 at -2.5 SD joins the same run: judged again, its range is 6 SD (R-4s); 1-3s and 1-2s were counted already.
    await r.monitor.record([input(result('QUAL2-L2', '9.50', at + 60_000))]).written;
    assert.deepEqual(counts(), { 'GLU 1-2s': 1, 'GLU 1-3s': 1, 'GLU R-4s': 1 });
    await r.monitor.record([l1]).written;
    assert.deepEqual(counts(), { 'GLU 1-2s': 1, 'GLU 1-3s': 1, 'GLU R-4s': 1 }, 'a replay counts nothing');
    await run(r, T0 + 3 * 24 * H, 3.6, 0);
    assert.equal(counts()['GLU 1-3s'], 2, 'another run, counted again');
    await close(r);
  });

  it('groups the levels of one run, and judges a point once however often its message is read', async () => {
    const r = await open();
    await withTargets(r);
    const inputs = [input(result('QUAL2-L1', '5.00', T0)), input(result('QUAL2-L2', '10.00', T0 + 5 * 60_000))];
    const first = r.monitor.record(inputs);
    await first.written;
    assert.equal(first.recorded.length, 2);
    assert.equal(first.recorded[0]!.run, first.recorded[1]!.run, 'both levels within 60 minutes: one run');
    const again = r.monitor.record(inputs);
    await again.written;
    assert.equal(again.recorded.length, 0, 'a replay records nothing again');
    const later = r.monitor.record([input(result('QUAL2-L1', '5.00', T0 + 2 * H))]);
    assert.notEqual(later.recorded[0]!.run, first.recorded[0]!.run, 'two hours later: a run of its own');
    const same = r.monitor.record([input(result('QUAL2-L1', '5.00', T0 + 2 * H + 60_000))]);
    assert.notEqual(same.recorded[0]!.run, later.recorded[0]!.run, 'the same material again: a new run');
    await Promise.all([later.written, same.written]);
    await close(r);
  });

  it('holds a test\'s patient results while its lot establishes, unless the lab sends them', async () => {
    const held = await open();
    await run(held, T0, 0, 0);
    assert.equal(held.monitor.gate('GLU')?.state, 'establishing');
    assert.match(held.monitor.gate('GLU')!.reason, /no accepted target yet; enter its target or accept the one its first runs give/);
    await close(held);
    rmSync(join(dir, 'qc'), { recursive: true });
    const sent = await open(setupOf({ establishing: 'send' }));
    await run(sent, T0, 0, 0);
    assert.equal(sent.monitor.gate('GLU'), undefined);
    assert.equal(sent.monitor.view(T0 + H)[0]!.state, 'establishing');
    await close(sent);
  });

  it('judges against the target the analyzer sends with the result, from its first point', async () => {
    const r = await open();
    const c = (level: string, value: string, at: number) => result('QC1', value, at, { control: { id: 'QC1', level, lot: 'L-7', mean: '5.0', sd: '0.1' } });
    const out = r.monitor.record([input(c('L1', '5.40', T0))]);
    await out.written;
    assert.equal(out.runs[0]!.state, 'rejected', '4 SD from the target sent');
    assert.equal(r.store.target({ analyzer: 'AU 480', test: 'GLU', material: 'L1', lot: 'L-7' })!.source, 'message');
    await close(r);
  });

  it('lists the results sent since the last good control with the event, and empties the list at a good run', async () => {
    const r = await open();
    await withTargets(r);
    await run(r, T0, 0, 0);
    await r.monitor.passed('GLU', [{ sample: 'S1', key: 'm1#0', at: T0 + H }, { sample: 'S2', key: 'm1#0', at: T0 + H }]);
    await r.monitor.passed('GLU', [{ sample: 'S1', key: 'm1#0', at: T0 + H }]);
    await run(r, T0 + 24 * H, 0.2, 0.1);
    await r.monitor.passed('GLU', [{ sample: 'S3', key: 'm2#0', at: T0 + 25 * H }]);
    await run(r, T0 + 48 * H, -3.2, 0);
    const view = r.monitor.view(T0 + 49 * H).find((v) => v.test === 'GLU')!;
    assert.equal(view.state, 'rejected');
    assert.deepEqual(view.events[0]!.review.items.map((i) => i.sample), ['S3'], 'only what was sent after the last good run');
    await close(r);

    const back = await open();
    assert.equal(back.monitor.gate('GLU')?.state, 'rejected', 'the open event outlives a restart');
    const again = back.monitor.view(T0 + 49 * H).find((v) => v.test === 'GLU')!;
    assert.deepEqual(again.events[0]!.review.items.map((i) => i.sample), ['S3']);
    await back.monitor.accept({ test: 'GLU', run: again.events[0]!.run, reason: 'reran', action: 'rerun-in-control', by: 'bob' });
    assert.deepEqual(back.review.forEvent('AU 480', 'GLU', again.events[0]!.run).items, [], 'reviewed with the acceptance');
    await close(back);
  });

  it('reads no QC today when the latest run is older than a day, and flags an expired lot', async () => {
    const r = await open(setupOf({ controls: [{ code: 'QUAL2-L1', material: 'L1', lot: 'LOT-A', expiry: '2026-01-31' }, { code: 'QUAL2-L2', material: 'L2', lot: 'LOT-A' }] }));
    await withTargets(r);
    const out = await run(r, T0, 0, 0);
    assert.deepEqual(out.expired, ['GLU L1 lot LOT-A expired 2026-01-31']);
    const v = r.monitor.view(T0 + 25 * H)[0]!;
    assert.equal(v.state, 'no-qc-today');
    assert.equal(v.series.find((s) => s.material === 'L1')!.expired, true);
    assert.equal(v.rules, '1-3s/2-2s/R-4s/4-1s/8x (1-2s warning)');
    await close(r);
  });
});
