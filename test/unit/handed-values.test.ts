/**
 * The journal's record of values a file link handed on: it survives a restart (the journal reopened), a message
 * translated again writes no second line, a sent correction's values become the record, and compaction drops lines
 * past the retention time but those of a message still kept. And the file protocol's sifting over it: a file that
 * starts with an earlier file's bytes is its grown version whatever its name, and replicates are compared in order.
 */
import { describe, it, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { ResultJournal } from '../../lib/journal/journal';
import { siftFileResults } from '../../lib/protocols/file/corrections';
import type { ReadMessage } from '../../lib/conversation/message-host';
import type { InstrumentResult } from '../../lib/lab/types';

const DAY = 24 * 60 * 60_000;
let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'handed-values-'));
  file = join(dir, 'journal.jsonl');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const open = (now = () => Date.now()) => ResultJournal.open({ file, retentionMs: 7 * DAY, now });
const lines = () => readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
const result = (sample: string, value: string): InstrumentResult => ({ SampleNumber: sample, instrumentCode: 'GLU', Result: value, sequence: { patient: 0, order: 0, result: 0 }, record: 1 });
const readOf = (...batches: InstrumentResult[][]): ReadMessage<unknown> => ({ outputs: batches.map((results, part) => ({ type: 'results' as const, results, problems: [], orderedTests: [], part })), parts: batches.length, samples: batches.map((b) => b[0]!.SampleNumber) });
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('handed values', () => {
  it('survive a restart, are written once per batch, and a sent correction becomes the record', async () => {
    let j = await open();
    assert.equal(await j.handed({ link: 'L', message: 'm1', name: 'run.csv', part: 0, via: 'file', values: [{ sample: 'S1', code: 'GLU', n: 0, value: '5.4' }] }), true);
    assert.equal(await j.handed({ link: 'L', message: 'm1', name: 'run.csv', part: 0, via: 'file', values: [{ sample: 'S1', code: 'GLU', n: 0, value: '5.4' }] }), false, 'the same batch translated again');
    await j.close();

    j = await open();
    const r = j.handedValue('L', { sample: 'S1', code: 'GLU', n: 0 });
    assert.deepEqual({ value: r?.value, name: r?.name, message: r?.message, via: r?.via }, { value: '5.4', name: 'run.csv', message: 'm1', via: 'file' });
    assert.equal(j.handedValue('other link', { sample: 'S1', code: 'GLU', n: 0 }), undefined, 'per link');
    assert.equal(j.handedValue('L', { sample: 'S1', code: 'GLU', n: 1 }), undefined, 'per replicate');

    // A correction held for m2's new value, sent by a person.
    await j.hold({ node: 'fm', link: 'L', message: 'm2', part: 0, endsPart: true, msg: {}, holds: [{ id: 'm2#0:correction:GLU', kind: 'correction', code: 'GLU', results: [{ result: result('S1', '5.9'), reason: 'changed', correction: { was: '5.4', wasFile: 'run.csv', wasAt: r!.at, file: 'run.csv', n: 0 } }] }] });
    await j.actOnHold('m2#0:correction:GLU', 'send', 'ann');
    await j.close();

    j = await open();
    const now = j.handedValue('L', { sample: 'S1', code: 'GLU', n: 0 });
    assert.deepEqual({ value: now?.value, message: now?.message, via: now?.via }, { value: '5.9', message: 'm2', via: 'correction' });
    assert.deepEqual(lines().filter((l) => l.e === 'val').map((l) => [l.via, l.hold ?? null]), [['file', null], ['correction', 'm2#0:correction:GLU']]);
    await j.close();
  });

  it('a batch whose values all went before counts as handed on, so its file settles', async () => {
    const j = await open();
    await j.received('L', 'm1', Buffer.from('x'), 'file');
    await j.handed({ link: 'L', message: 'm1', name: 'run.csv', part: 0, endsPart: true, via: 'file', values: [], repeated: [{ sample: 'S1', code: 'GLU', n: 0, value: '5.4', reason: 'already delivered from run.csv' }] });
    await j.planned('m1', 1);
    assert.equal(j.message('m1')?.handed.has(0), true);
    await j.close();
    const again = await open();
    assert.equal(again.message('m1')?.handed.has(0), true, 'after a restart too');
    await again.close();
  });

  it('leave at compaction past the retention time, but not while their message is kept', async () => {
    let t = 0;
    const j = await open(() => t);
    await j.received('L', 'open', Buffer.from('x'), 'file');
    await j.handed({ link: 'L', message: 'old', name: 'a.csv', part: 0, via: 'file', values: [{ sample: 'S1', code: 'GLU', n: 0, value: '1' }] });
    await j.handed({ link: 'L', message: 'open', name: 'b.csv', part: 0, via: 'file', values: [{ sample: 'S2', code: 'GLU', n: 0, value: '2' }] });
    t = 8 * DAY;
    await j.handed({ link: 'L', message: 'new', name: 'c.csv', part: 0, via: 'file', values: [{ sample: 'S3', code: 'GLU', n: 0, value: '3' }] });
    assert.equal(await j.compact(), true);
    assert.equal(j.handedValue('L', { sample: 'S1', code: 'GLU', n: 0 }), undefined);
    assert.equal(j.handedValue('L', { sample: 'S2', code: 'GLU', n: 0 })?.value, '2', 'its message is not settled: kept');
    assert.equal(j.handedValue('L', { sample: 'S3', code: 'GLU', n: 0 })?.value, '3');
    assert.deepEqual(lines().filter((l) => l.e === 'val').map((l) => l.message), ['open', 'new']);
    await j.close();
  });
});

describe('sifting a file against what its link handed on', () => {
  const sift = (j: ResultJournal, message: string, name: string, bytes: Buffer, read: ReadMessage<unknown>) => siftFileResults(j, read, { link: 'L', message, name, bytes, node: 'fm', context: {} });
  const kept = (read: ReadMessage<unknown>) => read.outputs.flatMap((o) => (o.type === 'results' ? o.results.map((r) => `${r.SampleNumber} ${r.Result}`) : []));
  const aside = (read: ReadMessage<unknown>, topic: string) => read.outputs.flatMap((o) => (o.type === 'aside' && o.topic === topic ? (o.payload as InstrumentResult[]).map((r) => `${r.SampleNumber} ${r.Result}`) : []));

  it('a file that starts with an earlier file of the link is its grown version, whatever its name; one that does not is a new run', async () => {
    const j = await open();
    const first = Buffer.from('S1,5.4\n');
    await j.received('L', 'm1', first, 'file', undefined, { name: 'day-1.csv', size: first.length, hash: sha(first) });
    assert.deepEqual(kept(await sift(j, 'm1', 'day-1.csv', first, readOf([result('S1', '5.4')]))), ['S1 5.4']);
    const grown = Buffer.from('S1,5.4\nS2,6.1\n');
    const read = await sift(j, 'm2', 'day-1-b.csv', grown, readOf([result('S1', '5.4')], [result('S2', '6.1')]));
    assert.deepEqual(kept(read), ['S2 6.1']);
    assert.deepEqual(aside(read, 'repeated'), ['S1 5.4']);
    const other = Buffer.from('S1,5.4 again\n');
    assert.deepEqual(kept(await sift(j, 'm3', 'rerun.csv', other, readOf([result('S1', '5.4')]))), ['S1 5.4'], 'a new run');
    await j.close();
  });

  it('compares replicates in their order: the same first two, a changed third, a new fourth', async () => {
    const j = await open();
    await sift(j, 'm1', 'run.csv', Buffer.from('1'), readOf([result('S1', '25.7'), result('S1', '25.5'), result('S1', '25.6')]));
    const read = await sift(j, 'm2', 'run.csv', Buffer.from('2'), readOf([result('S1', '25.7'), result('S1', '25.5'), result('S1', '26.0'), result('S1', '25.9')]));
    assert.deepEqual(kept(read), ['S1 25.9']);
    assert.deepEqual(aside(read, 'repeated'), ['S1 25.7', 'S1 25.5']);
    assert.deepEqual(aside(read, 'correction'), ['S1 26.0']);
    const [hold] = j.holds();
    assert.deepEqual(hold?.results.map((r) => [r.correction?.was, (r.result as InstrumentResult).Result, r.correction?.n]), [['25.6', '26.0', 2]]);
    // The same file again after a restart: nothing held twice, nothing written twice.
    const before = lines().length;
    await sift(j, 'm2', 'run.csv', Buffer.from('2'), readOf([result('S1', '25.7'), result('S1', '25.5'), result('S1', '26.0'), result('S1', '25.9')]));
    assert.equal(j.holds().length, 1);
    assert.equal(lines().length, before);
    // Another version bringing the held value again holds no second correction.
    const third = await sift(j, 'm3', 'run.csv', Buffer.from('3'), readOf([result('S1', '25.7'), result('S1', '25.5'), result('S1', '26.0')]));
    assert.deepEqual(aside(third, 'correction'), []);
    assert.equal(j.holds().length, 1);
    await j.close();
  });

  it('sifts two big files started at once in turn: the second is set against every value the first handed on', async () => {
    // 20,000 results: sifting pauses for the event loop many times. The second names its samples in the other order,
    // so were the two interleaved, each would look up values the other has not handed on yet.
    const j = await open();
    const batches = () => Array.from({ length: 500 }, (_, s) => Array.from({ length: 40 }, (_, t) => ({ ...result(`S${s}`, '5.4'), instrumentCode: `T${t}` })));
    const [first, second] = await Promise.all([sift(j, 'm1', 'run.csv', Buffer.from('1'), readOf(...batches())), sift(j, 'm2', 'run.csv', Buffer.from('2'), readOf(...batches().reverse()))]);
    assert.equal(kept(first).length, 20_000);
    assert.equal(kept(second).length, 0);
    assert.equal(aside(second, 'repeated').length, 20_000);
    await j.close();
  });
});
