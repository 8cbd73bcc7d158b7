/**
 * Operator replays (lib/replay) without Node-RED: what a route body asks, what
 * lis-send-results decides per result batch against the journal, how a
 * replay's report fills in and settles, and the trace lines of a time range.
 */
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ResultJournal } from '../../lib/journal/journal';
import { resultKey } from '../../lib/journal/result-key';
import { decideReplay, resentCount } from '../../lib/replay/decision';
import { isReplayMark, readReplayRequest } from '../../lib/replay/request';
import { ReplayRun } from '../../lib/replay/run';
import { traceRange } from '../../lib/trace/trace-range';
import type { ResultItem } from '../../lib/lis/schemas';

const DAY = 24 * 60 * 60_000;
const item = (sample: string, test: string, value: string, sub?: string): ResultItem => ({ SampleNumber: sample, TestCode: test, Result: value, ...(sub ? { SubTestCode: sub } : {}) });

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'replay-unit-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('replay request', () => {
  it('is a dry run unless a send mode is asked for, from a paste or a trace range', () => {
    assert.deepEqual(readReplayRequest({ text: 'H|\\^&\rL|1\r' }).request, { source: { kind: 'paste', text: 'H|\\^&\rL|1\r' }, send: 'none' });
    const range = readReplayRequest({ from: '2026-11-21T09:00:00Z', to: '2026-11-21T10:00:00.000+01:00', send: 'new' }).request;
    assert.deepEqual(range, { source: { kind: 'trace', from: Date.parse('2026-11-21T09:00:00Z'), to: Date.parse('2026-11-21T09:00:00Z') }, send: 'new' });
  });

  it('names each thing wrong with a body', () => {
    assert.match(readReplayRequest({}).problems.join('\n'), /nothing to replay/);
    assert.match(readReplayRequest({ text: 'x', from: '2026-11-21T09:00:00Z' }).problems.join('\n'), /either text .* or from\/to/);
    assert.match(readReplayRequest({ text: 'x', send: 'some' }).problems.join('\n'), /send must be one of "none", "new", "all"/);
    assert.match(readReplayRequest({ from: 'yesterday' }).problems.join('\n'), /from must be an ISO time/);
    assert.match(readReplayRequest({ from: '2026-11-21T10:00:00Z', to: '2026-11-21T09:00:00Z' }).problems.join('\n'), /from must not be after to/);
  });

  it('tells an operator replay\'s mark from the journal\'s replay after a restart (replay: true)', () => {
    assert.equal(isReplayMark({ id: 'r1', mode: 'none', message: 1 }), true);
    assert.equal(isReplayMark(true), false);
    assert.equal(isReplayMark({ id: 'r1', mode: 'twice', message: 1 }), false);
  });
});

describe('replay decision per result batch', () => {
  const atLis = new Set([resultKey(item('S1', 'GLU', '5.4'))]);
  const held = new Set([resultKey(item('S1', 'K', '4.1'))]);
  const seen = (i: ResultItem) => (atLis.has(resultKey(i)) ? 'delivered' : held.has(resultKey(i)) ? 'held' : undefined);
  const items = [item('S1', 'GLU', '5.4'), item('S1', 'CREA', '88'), item('S1', 'K', '4.1')];

  it('dry run: sends nothing, and tells what "new" would send', () => {
    const d = decideReplay(items, seen, 'none');
    assert.deepEqual(d.send, []);
    assert.deepEqual(d.fresh, [item('S1', 'CREA', '88')]);
    assert.deepEqual(d.delivered, [item('S1', 'GLU', '5.4')]);
    assert.deepEqual(d.held, [item('S1', 'K', '4.1')]);
    assert.equal(resentCount(d), 0);
  });

  it('"new": only what the LIS never got (nor holds in a held batch)', () => {
    assert.deepEqual(decideReplay(items, seen, 'new').send, [item('S1', 'CREA', '88')]);
    assert.deepEqual(decideReplay([item('S1', 'GLU', '5.4')], seen, 'new').send, []);
  });

  it('"all": everything, counting what the LIS held as resent', () => {
    const d = decideReplay(items, seen, 'all');
    assert.deepEqual(d.send, items);
    assert.equal(resentCount(d), 2);
  });

  it('a result in a batch on its way to the LIS: at the LIS for every mode, sent by none', () => {
    const inFlight = (i: ResultItem) => (resultKey(i) === resultKey(item('S1', 'CREA', '88')) ? 'sending' : seen(i));
    for (const mode of ['none', 'new', 'all'] as const) {
      const d = decideReplay(items, inFlight, mode);
      assert.deepEqual(d.inFlight, [item('S1', 'CREA', '88')], mode);
      assert.ok(!d.send.some((i) => i.TestCode === 'CREA'), mode);
    }
    assert.deepEqual(decideReplay(items, inFlight, 'all').send, [item('S1', 'GLU', '5.4'), item('S1', 'K', '4.1')]);
  });

  it('a result is the same only with the same sample, LIS test, sub-test and value', () => {
    assert.equal(resultKey(item('S1', 'GLU', '5.4')), resultKey({ SampleNumber: 'S1', TestCode: 'GLU', SubTestCode: null, Result: '5.4' }));
    for (const other of [item('S2', 'GLU', '5.4'), item('S1', 'GLUC', '5.4'), item('S1', 'GLU', '5.5'), item('S1', 'GLU', '5.4', 'A')]) {
      assert.notEqual(resultKey(other), resultKey(item('S1', 'GLU', '5.4')));
    }
  });
});

describe('the journal knows which results the LIS holds', () => {
  const file = () => join(dir, 'journal.jsonl');
  const tx = (key: string, body: ResultItem[]) => ({ key, node: 'sender', samples: [...new Set(body.map((b) => b.SampleNumber))], body, msg: {} });

  it('delivered results, across a restart; held ones as held; discarded ones not at all', async () => {
    let j = await ResultJournal.open({ file: file(), retentionMs: 30 * DAY });
    await j.beginSend(tx('b1', [item('S1', 'GLU', '5.4')]));
    await j.settle('b1', 'delivered');
    await j.beginSend(tx('b2', [item('S2', 'GLU', '6.0')]));
    await j.settle('b2', 'uncertain');
    await j.beginSend(tx('b3', [item('S3', 'GLU', '7.0')]));
    await j.settle('b3', 'discarded');
    await j.beginSend({ ...tx('replay:r1:1#0', [item('S1', 'GLU', '5.4')]), replay: { id: 'r1', mode: 'all', resent: 1 } });
    await j.settle('replay:r1:1#0', 'delivered');
    const check = (jj: ResultJournal) => {
      assert.equal(jj.resultSeen(resultKey(item('S1', 'GLU', '5.4'))), 'delivered');
      assert.equal(jj.resultSeen(resultKey(item('S2', 'GLU', '6.0'))), 'held');
      assert.equal(jj.resultSeen(resultKey(item('S3', 'GLU', '7.0'))), undefined);
      assert.deepEqual(jj.batch('replay:r1:1#0')?.replay, { id: 'r1', mode: 'all', resent: 1 });
    };
    check(j);
    await j.close();
    j = await ResultJournal.open({ file: file(), retentionMs: 30 * DAY });
    check(j);
    await j.close();
  });

  it('results in a batch whose request is under way (from the moment it is written, and while resent): sending', async () => {
    const j = await ResultJournal.open({ file: file(), retentionMs: 30 * DAY });
    const glu = resultKey(item('S4', 'GLU', '5.0'));
    const written = j.beginSend(tx('b4', [item('S4', 'GLU', '5.0')]));
    assert.equal(j.resultSeen(glu), 'sending', 'in the same tick as beginSend, before the line is on disk');
    await written;
    await j.settle('b4', 'uncertain');
    assert.equal(j.resultSeen(glu), 'held');
    await j.resending('b4', 'operator');
    assert.equal(j.resultSeen(glu), 'sending');
    await j.settle('b4', 'delivered');
    assert.equal(j.resultSeen(glu), 'delivered');
    await j.beginSend(tx('b5', [item('S5', 'GLU', '5.1')]));
    await j.settle('b5', 'failed');
    await j.settle('b5', 'discarded');
    assert.equal(j.resultSeen(resultKey(item('S5', 'GLU', '5.1'))), undefined);
    await j.close();
  });

  it('forgets delivered results past the retention time', async () => {
    let now = Date.parse('2026-11-01T00:00:00Z');
    const j = await ResultJournal.open({ file: file(), retentionMs: DAY, now: () => now });
    await j.beginSend(tx('b1', [item('S1', 'GLU', '5.4')]));
    await j.settle('b1', 'delivered');
    now += 2 * DAY;
    assert.equal(await j.compact(), true);
    assert.equal(j.resultSeen(resultKey(item('S1', 'GLU', '5.4'))), undefined);
    await j.close();
  });
});

describe('replay report', () => {
  const start = (messages: number) => new ReplayRun({ id: 'r1', link: 'lnk', mode: 'none', source: 'paste', messages, notes: [], problems: [], now: 0, limitBytes: 1_000_000 });

  it('settles once every message was read and each of its batches came to an end', () => {
    const run = start(2);
    assert.equal(run.settled, false);
    run.messageRead(1, ['1#0', '1#1']);
    run.messageRead(2, []);
    assert.equal(run.settled, false);
    // A batch may end before its read is noted: still counted as ended.
    run.mapped('1#1', 0, [{ result: { SampleNumber: 'S1', instrumentCode: 'NA', Result: '140' }, reason: 'no LIS test is mapped to instrument test NA' }]);
    const decision = decideReplay([item('S1', 'GLU', '5.4')], () => undefined, 'none');
    run.decided('1#0', decision, false);
    assert.equal(run.settled, true);
    const report = run.toJSON();
    assert.deepEqual(report.samples, [
      { sampleNumber: 'S1', sent: [], wouldSend: [item('S1', 'GLU', '5.4')], atLis: [], held: [], unmapped: [{ instrumentCode: 'NA', value: '140', reason: 'no LIS test is mapped to instrument test NA' }] },
    ]);
  });

  it('reports unassigned results, QC and a failing node, which ends its message or batch', () => {
    const run = start(2);
    run.aside(1, 'unassigned', [{ record: 3, reason: 'no sample number in O-3', instrumentCode: 'GLU', Result: '5' }]);
    run.aside(1, 'qc', [{}, {}]);
    run.messageRead(1, ['1#0']);
    run.failed('lis-send-results sender', 'LIS said no', { batch: '1#0' });
    run.failed('astm-message m', 'not an ASTM message', { message: 2 });
    const r = run.toJSON();
    assert.equal(r.settled, true);
    assert.deepEqual(r.unassigned, [{ message: 1, record: 3, reason: 'no sample number in O-3', instrumentCode: 'GLU', value: '5' }]);
    assert.deepEqual(r.qc, [{ message: 1, results: 2 }]);
    assert.equal(r.errors.length, 2);
  });
});

describe('trace range', () => {
  it('keeps the lines recorded between from and to, rotated files included', async () => {
    const line = (at: string, text: string) => `${at} in ${text}`;
    writeFileSync(join(dir, 'lnk.20261121T090500Z.log'), [line('2026-11-21T09:00:00.000Z', '<ENQ>'), line('2026-11-21T09:04:00.000Z', '<EOT>')].join('\n') + '\n');
    writeFileSync(join(dir, 'lnk.20261120T090500Z.log'), line('2026-11-20T09:00:00.000Z', '<ENQ>') + '\n');
    writeFileSync(join(dir, 'lnk.log'), [line('2026-11-21T09:06:00.000Z', '<ENQ>'), line('2026-11-21T11:00:00.000Z', '<ENQ>'), 'not a trace line'].join('\n') + '\n');
    const text = await traceRange(join(dir, 'lnk.log'), Date.parse('2026-11-21T08:00:00Z'), Date.parse('2026-11-21T10:00:00Z'));
    assert.deepEqual(text.split('\n'), [line('2026-11-21T09:00:00.000Z', '<ENQ>'), line('2026-11-21T09:04:00.000Z', '<EOT>'), line('2026-11-21T09:06:00.000Z', '<ENQ>')]);
    await assert.rejects(traceRange(join(dir, 'lnk.log'), 0, Date.parse('2026-11-22T00:00:00Z'), 40), /more than 0 MiB .* shorter range/);
  });

  it('is empty when the link has recorded nothing yet', async () => {
    assert.equal(await traceRange(join(dir, 'nothing', 'lnk.log'), 0, Date.now()), '');
  });
});
