/**
 * What operator replays may keep in memory (lib/replay/report-budget): one
 * report lists entries while its JSON fits its limit and then only counts
 * them, saying so; the reports kept together stay within a byte budget, the
 * oldest settled going first, and the newest always kept.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decideReplay } from '../../lib/replay/decision';
import { jsonBytes, KeptReports, ReportBudget, sizeText } from '../../lib/replay/report-budget';
import { ReplayRun } from '../../lib/replay/run';
import type { ResultItem } from '../../lib/lis/schemas';

const item = (sample: string, value: string): ResultItem => ({ SampleNumber: sample, TestCode: 'GLU', Result: value });

describe('one report\'s byte account', () => {
  it('counts each entry by its JSON bytes plus a separator, and refuses what would pass the limit', () => {
    const entry = { SampleNumber: 'S1', TestCode: 'GLU', Result: 'ü' };
    assert.equal(jsonBytes(entry), Buffer.byteLength(JSON.stringify(entry)));
    const budget = new ReportBudget(2 * (jsonBytes(entry) + 1));
    assert.equal(budget.admit(entry), true);
    assert.equal(budget.admit(entry), true);
    assert.equal(budget.bytes, 2 * (jsonBytes(entry) + 1));
    assert.equal(budget.admit({ a: 1 }), false, 'full: not even a small one');
    assert.equal(budget.bytes, 2 * (jsonBytes(entry) + 1));
    assert.equal(budget.omitted, 1);
    assert.match(budget.note()!, /limit of .*: 1 further entry is not listed/);
  });

  it('says nothing while every entry is listed', () => {
    assert.equal(new ReportBudget(100).note(), undefined);
  });

  it('writes sizes as an operator reads them', () => {
    assert.equal(sizeText(2 * 1024 * 1024), '2 MiB');
    assert.equal(sizeText(1536), '1.5 KiB');
    assert.equal(sizeText(12), '12 bytes');
  });
});

describe('a replay report at its limit', () => {
  it('stops listing results past its limit, counts them, settles all the same, and its JSON stays near the limit', () => {
    const limit = 4096;
    const run = new ReplayRun({ id: 'big', link: 'lnk', mode: 'none', source: 'paste', messages: 1, notes: ['n'.repeat(10_000)], problems: [], now: 0, limitBytes: limit });
    run.messageRead(1, ['1#0']);
    const items = Array.from({ length: 1000 }, (_, i) => item(`S${i}`, String(i)));
    run.decided('1#0', decideReplay(items, () => undefined, 'none'), false);
    const report = run.toJSON();
    assert.equal(report.settled, true);
    assert.ok(report.samples.length > 0 && report.samples.length < 1000, `${report.samples.length} samples listed`);
    assert.deepEqual(report.notes, [], 'a note longer than the whole limit is left out too');
    assert.match(report.truncated ?? '', /limit of 4 KiB: \d+ further entries are not listed/);
    assert.ok(run.bytes <= limit);
    // The account is close to what the report's JSON really takes.
    assert.ok(jsonBytes(report) <= limit + 1024, `${jsonBytes(report)} bytes of JSON`);
  });
});

interface Fake {
  id: string;
  settled: boolean;
  bytes: number;
}

describe('the reports kept', () => {
  it('drop the oldest settled report first, then the oldest under way, to stay within the byte budget', () => {
    const dropped: string[] = [];
    const kept = new KeptReports<Fake>({ totalBytes: 100, maxKept: 50 }, (r) => dropped.push(r.id));
    const a = { id: 'a', settled: false, bytes: 40 };
    const b = { id: 'b', settled: true, bytes: 40 };
    kept.keep(a);
    kept.keep(b);
    assert.equal(kept.totalBytes, 80);
    kept.keep({ id: 'c', settled: true, bytes: 30 });
    assert.deepEqual(dropped, ['b'], 'b is settled: it goes before a, which is older but under way');
    a.bytes = 90; // a report grows as its messages go through the flow
    kept.fit();
    assert.deepEqual(dropped, ['b', 'a']);
    assert.equal(kept.get('c')?.id, 'c');
    assert.equal(kept.totalBytes, 30);
  });

  it('always keep the newest report, even alone over the budget (it is bounded on its own)', () => {
    const kept = new KeptReports<Fake>({ totalBytes: 100, maxKept: 50 });
    kept.keep({ id: 'old', settled: true, bytes: 10 });
    kept.keep({ id: 'huge', settled: true, bytes: 500 });
    assert.equal(kept.get('old'), undefined);
    assert.equal(kept.get('huge')?.bytes, 500);
    assert.equal(kept.size, 1);
  });

  it('keep no more than their count', () => {
    const kept = new KeptReports<Fake>({ totalBytes: 1e9, maxKept: 3 });
    for (const id of ['1', '2', '3', '4', '5']) kept.keep({ id, settled: true, bytes: 1 });
    assert.deepEqual(['1', '2', '3', '4', '5'].filter((id) => kept.get(id)), ['3', '4', '5']);
  });
});
