/**
 * The result journal alone: durability on disk, what a restart reads back,
 * held batches, compaction with retention, and how failures are classified.
 */
import { describe, it, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppendLog } from '../../lib/journal/append-log';
import { owedSamples, ResultJournal } from '../../lib/journal/journal';
import { heldOutcome } from '../../lib/journal/delivery';
import { UnackedCopies } from '../../lib/journal/unacked-copies';
import { LisError } from '../../lib/errors';

const DAY = 24 * 60 * 60_000;
let dir: string;
let file: string;

beforeEach(() => {
  dir = join(mkdtempSync(join(tmpdir(), 'journal-unit-')), 'private');
  file = join(dir, 'journal.jsonl');
});
afterEach(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

const batch = (key: string, extra: Record<string, unknown> = {}) => ({ key, node: 'sender', samples: ['S1'], body: [{ SampleNumber: 'S1' }], msg: { processed: [] }, ...extra });

describe('AppendLog', () => {
  it('has every appended line in the file when append resolves, in an owner-only file and directory', async () => {
    const log = new AppendLog(file);
    await log.open();
    await log.append('{"a":1}');
    assert.equal(readFileSync(file, 'utf8'), '{"a":1}\n');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    await log.close();
  });

  it('shares one sync among lines that arrive together (group commit), keeping their order', async () => {
    const log = new AppendLog(file);
    await log.open();
    await Promise.all(Array.from({ length: 200 }, (_, i) => log.append(String(i))));
    assert.ok(log.syncs < 20, `200 lines took ${log.syncs} syncs`);
    assert.deepEqual(readFileSync(file, 'utf8').trim().split('\n').map(Number), Array.from({ length: 200 }, (_, i) => i));
    await log.close();
  });

  it('skips and cuts off a torn last line, so the next line starts clean', async () => {
    const first = new AppendLog(file);
    await first.open();
    await first.append('{"whole":true}');
    await first.close();
    appendFileSync(file, '{"torn":');
    const log = new AppendLog(file);
    const read = await log.open();
    assert.deepEqual(read, { lines: ['{"whole":true}'], torn: 1 });
    await log.append('{"next":1}');
    assert.equal(readFileSync(file, 'utf8'), '{"whole":true}\n{"next":1}\n');
    await log.close();
  });

  it('loses no line appended while a compaction replaces the file', async () => {
    const log = new AppendLog(file);
    await log.open();
    await Promise.all(Array.from({ length: 50 }, (_, i) => log.append(`old-${i}`)));
    const compaction = log.compact((line) => !line.endsWith('-0'));
    const during = Array.from({ length: 200 }, (_, i) => log.append(`new-${i}`));
    await Promise.all([compaction, ...during]);
    await log.append('after');
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    for (let i = 0; i < 200; i++) assert.ok(lines.includes(`new-${i}`), `new-${i} lost`);
    assert.ok(lines.includes('after'));
    assert.ok(!lines.includes('old-0'), 'the compaction did drop what it was told to');
    await log.close();
  });

  it('rejects appends after close instead of dropping them silently', async () => {
    const log = new AppendLog(file);
    await log.open();
    await log.close();
    await assert.rejects(log.append('x'), /closed/);
  });

  it('fails to open, naming the path, when the directory cannot be made', async () => {
    const blocker = join(dir, '..', 'a-file');
    writeFileSync(blocker, '');
    await assert.rejects(new AppendLog(join(blocker, 'journal.jsonl')).open(), /a-file/);
  });
});

describe('ResultJournal', () => {
  const open = (now = () => Date.now()) => ResultJournal.open({ file, retentionMs: 7 * DAY, now });

  it('offers as repeat candidates the messages of the window the analyzer may still send again, and lets older ones leave memory', async () => {
    let t = 1_000_000;
    const j = await open(() => t);
    const m = (s: string) => Buffer.from(`H|\\^&\rR|1|^^^GLU|${s}\r`, 'latin1');
    await j.received('L', 'plain', m('1'), 'terminator');
    await j.planned('plain', 0); // settled and ACKed: nothing to expect
    await j.received('L', 'open', m('2'), 'terminator'); // not settled
    await j.received('L', 'replayed', m('3'), 'terminator');
    await j.replayed('replayed');
    await j.planned('replayed', 0);
    await j.received('L', 'repeat', m('3'), 'terminator', 'replayed');
    await j.received('other-link', 'elsewhere', m('4'), 'terminator');
    assert.deepEqual(j.repeatCandidates('L', 0).map((c) => c.original).sort(), ['open', 'replayed', 'replayed']);
    t += 60_000;
    assert.deepEqual(j.repeatCandidates('L', t - 1_000), [], 'past the window: none');
    assert.equal(j.message('replayed')!.data, undefined, 'settled and past the window: its bytes leave memory');
    assert.ok(j.message('open')!.data, 'not settled: kept for its replay');
    await j.close();
  });

  it('offers a stored message for replay until it is settled or given up on', async () => {
    let j = await open();
    await j.received('link-1', 'm1', Buffer.from('H|\\^&\rL|1\r', 'latin1'), 'terminator');
    await j.received('link-1', 'm2', Buffer.from('H|\\^&\rL|1\r', 'latin1'), 'terminator');
    await j.received('link-2', 'm3', Buffer.from('x'), 'eot');
    await j.planned('m2', 0);
    assert.deepEqual(j.toReplay('link-1').map((m) => m.id), ['m1']);
    await j.close();

    j = await open();
    const due = j.toReplay('link-1');
    assert.deepEqual(due.map((m) => m.id), ['m1']);
    assert.equal(due[0]!.data!.toString('latin1'), 'H|\\^&\rL|1\r');
    await j.replayed('m1');
    await j.close();

    j = await open();
    assert.deepEqual(j.toReplay('link-1').map((m) => m.id), ['m1'], 'a replay a crash may have cut short is offered again');
    await j.markStuck('m1', 'not settled a minute after its replay');
    await j.close();

    j = await open();
    assert.deepEqual(j.toReplay('link-1'), [], 'given up on: not replayed in a loop');
    assert.deepEqual(j.stuck().map((m) => [m.id, m.stuck]), [['m1', 'not settled a minute after its replay']], 'listed for an operator');
    await j.close();
  });

  it('settles a message once each of its result batches was handed to the sender', async () => {
    const j = await open();
    await j.received('L', 'm1', Buffer.from('x'), 'terminator');
    await j.planned('m1', 2);
    await j.beginSend(batch('m1#0', { message: 'm1', part: 0 }));
    assert.equal(j.toReplay('L').length, 1, 'one of two batches handed');
    await j.beginSend(batch('m1#1', { message: 'm1', part: 1 }));
    assert.equal(j.toReplay('L').length, 0);
    await j.close();
  });

  it('names what a stuck message still owes the LIS by its batches\' samples, across a restart', async () => {
    let j = await open();
    await j.received('L', 'm1', Buffer.from('x'), 'terminator');
    await j.planned('m1', 3, undefined, ['S-A', 'S-B', 'S-C'], [['S-A'], ['S-B'], ['S-C']]);
    // Part 1 had nothing for the LIS; part 2 is still on its way to the sender; part 0 went on.
    await j.markStuck('m1', 'its 1 result mapped to no LIS test', 1);
    await j.beginSend(batch('m1#0', { message: 'm1', part: 0, samples: ['S-A'] }));
    assert.deepEqual(owedSamples(j.message('m1')!), { owed: ['S-B'], others: ['S-A', 'S-C'] });
    await j.close();
    j = await open();
    assert.deepEqual(owedSamples(j.stuck()[0]!), { owed: ['S-B'], others: ['S-A', 'S-C'] });
    await j.close();
  });

  it('owes every sample not handed on when it is not known which batch made a message stuck, and every sample of an older journal', async () => {
    const j = await open();
    await j.received('L', 'm1', Buffer.from('x'), 'terminator');
    await j.planned('m1', 2, undefined, ['S-A', 'S-B'], [['S-A'], ['S-B']]);
    await j.beginSend(batch('m1#0', { message: 'm1', part: 0, samples: ['S-A'] }));
    assert.deepEqual(owedSamples(j.message('m1')!), { owed: ['S-B'], others: ['S-A'] });
    await j.received('L', 'm2', Buffer.from('y'), 'terminator');
    await j.planned('m2', 1, undefined, ['S-C'], [['S-C']]);
    assert.deepEqual(owedSamples(j.message('m2')!), { owed: ['S-C'], others: [] });
    await j.close();
  });

  it('reads a batch that was sending when the process died back as uncertain, and holds it', async () => {
    let j = await open();
    await j.beginSend(batch('b1'));
    await j.beginSend(batch('b2'));
    await j.settle('b2', 'delivered');
    await j.close();
    j = await open();
    assert.equal(j.batch('b1')!.state, 'uncertain');
    assert.deepEqual(j.held().map((b) => b.key), ['b1']);
    await j.close();
  });

  it('keeps failed batches held with their error and notSent flag across a restart, until discarded', async () => {
    let j = await open();
    await j.beginSend(batch('b1'));
    await j.settle('b1', 'failed', { error: { code: 'NETWORK', message: 'ECONNREFUSED' }, notSent: true });
    await j.close();
    j = await open();
    const [held] = j.held('sender');
    assert.equal(held!.state, 'failed');
    assert.equal(held!.notSent, true);
    assert.equal(held!.error!.code, 'NETWORK');
    assert.deepEqual(j.held('another-node'), []);
    await j.settle('b1', 'discarded', { by: 'test' });
    await j.close();
    j = await open();
    assert.deepEqual(j.held(), []);
    await j.close();
  });

  it('refuses the same batch key twice', async () => {
    const j = await open();
    await j.beginSend(batch('b1'));
    await assert.rejects(j.beginSend(batch('b1')), /already/);
    await j.close();
  });

  it('remembers that the age warning was raised', async () => {
    let j = await open();
    await j.beginSend(batch('b1'));
    await j.settle('b1', 'uncertain');
    await j.warned('b1');
    await j.close();
    j = await open();
    assert.equal(j.batch('b1')!.warned, true);
    await j.close();
  });

  it('skips and counts damaged lines instead of trusting them', async () => {
    let j = await open();
    await j.beginSend(batch('b1'));
    await j.close();
    appendFileSync(file, '{"e":"tx","key":5}\nnot json\n');
    j = await open();
    assert.equal(j.damaged.invalid, 2);
    assert.ok(j.batch('b1'));
    assert.equal(await j.compact(), true, 'damaged lines are a reason to rewrite');
    assert.doesNotMatch(readFileSync(file, 'utf8'), /not json/);
    await j.close();
  });

  it('compacts away finished work past the retention time, and keeps held batches and unsettled messages whatever their age', async () => {
    let now = Date.now();
    const j = await open(() => now);
    await j.received('L', 'old-settled', Buffer.from('a'), 'terminator');
    await j.planned('old-settled', 0);
    await j.received('L', 'old-unsettled', Buffer.from('b'), 'terminator');
    await j.beginSend(batch('old-delivered'));
    await j.settle('old-delivered', 'delivered');
    await j.beginSend(batch('old-held'));
    await j.settle('old-held', 'failed', { error: { code: 'HTTP_STATUS', message: '500' } });
    now += 8 * DAY;
    await j.beginSend(batch('new-delivered'));
    await j.settle('new-delivered', 'delivered');
    assert.equal(await j.compact(), true);
    const text = readFileSync(file, 'utf8');
    assert.doesNotMatch(text, /old-settled|old-delivered/);
    assert.match(text, /old-unsettled/);
    assert.match(text, /old-held/);
    assert.match(text, /new-delivered/);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    await j.close();
    const again = await open(() => now);
    assert.equal(await again.compact(), false, 'nothing more to drop: the file is left alone');
    assert.deepEqual(again.held().map((b) => b.key), ['old-held']);
    assert.deepEqual(again.toReplay('L').map((m) => m.id), ['old-unsettled']);
    await again.close();
  });
});

describe('heldOutcome', () => {
  const cases: Array<[string, LisError, string, boolean]> = [
    ['the LIS answered 500', new LisError('500', { code: 'HTTP_STATUS', status: 500 }), 'failed', false],
    ['the LIS answered 400', new LisError('400', { code: 'HTTP_STATUS', status: 400 }), 'failed', false],
    ['connection refused', new LisError('refused', { code: 'NETWORK', notSent: true }), 'failed', true],
    ['no URL configured', new LisError('no url', { code: 'NOT_CONFIGURED' }), 'failed', true],
    ['connection reset mid-request', new LisError('reset', { code: 'NETWORK' }), 'uncertain', false],
    ['time-out', new LisError('slow', { code: 'TIMEOUT' }), 'uncertain', false],
    ['garbled or oversized 2xx answer', new LisError('big', { code: 'INVALID_RESPONSE' }), 'uncertain', false],
    ['node stopped mid-request', new LisError('stop', { code: 'CANCELLED' }), 'uncertain', false],
  ];
  for (const [what, err, state, notSent] of cases) {
    it(`${what}: ${state}${notSent ? ', provably not sent' : ''}`, () => {
      const got = heldOutcome(err);
      assert.equal(got.state, state);
      assert.equal(got.outcome.notSent === true, notSent);
      assert.equal(got.outcome.error!.code, err.code);
    });
  }
});

describe('UnackedCopies', () => {
  const msg = (stamp: string, value: string) => Buffer.from(`H|\\^&|||A|||||||P||${stamp}\rP|1\rO|1|S1\rR|1|^^^GLU|${value}\rL|1|N\r`, 'latin1');

  it('recognises a repeat, even with a new message time-stamp in its H record, until the repeat is acknowledged', () => {
    const copies = new UnackedCopies();
    copies.remember(msg('20261121100000', '5.4'), 'j1', 0);
    assert.equal(copies.find(msg('20261121100000', '6.1'), 1000), undefined, 'another result is no repeat');
    assert.equal(copies.find(msg('20261121100015', '5.4'), 1000), 'j1');
    assert.equal(copies.find(msg('20261121100030', '5.4'), 1500), 'j1', 'a repeat whose own ACK was lost is followed by another');
    copies.forget(msg('20261121100030', '5.4'));
    assert.equal(copies.find(msg('20261121100045', '5.4'), 2000), undefined, 'once a repeat is acknowledged, no further one is expected');
  });

  it('forgets copies after its window, so a later identical message is processed', () => {
    const copies = new UnackedCopies(60_000);
    copies.remember(msg('20261121100000', '5.4'), 'j1', 0);
    assert.equal(copies.find(msg('20261121100000', '5.4'), 60_001), undefined);
  });
});
