/**
 * Held results in the journal: written in one line per batch, read back after
 * a restart, ended by a person (sent: its batch `hold:<id>`; dismissed, with
 * who and why), never two holds for one batch translated twice, and never
 * dropped by compaction while open.
 */
import { describe, it, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ResultJournal } from '../../lib/journal/journal';
import { batchOrigin } from '../../lib/journal/held';
import type { NewHold } from '../../lib/journal/holds';

const DAY = 24 * 60 * 60_000;
let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'journal-holds-'));
  file = join(dir, 'journal.jsonl');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const open = (now = () => Date.now()) => ResultJournal.open({ file, retentionMs: 7 * DAY, now });
const result = (sample: string, code: string) => ({ SampleNumber: sample, instrumentCode: code, Result: '7.1' });

/** Batch m1#0: UREAL for two samples and a bare K with no LIS test. */
function holdOf(endsPart: boolean): NewHold {
  return {
    node: 'mapper',
    link: 'L',
    message: 'm1',
    part: 0,
    endsPart,
    msg: { topic: 'results' },
    holds: [
      { id: 'm1#0:UREAL', kind: 'unmapped', code: 'UREAL', results: [{ result: result('S1', 'UREAL'), reason: 'no LIS test is mapped to instrument test UREAL' }, { result: result('S2', 'UREAL'), reason: 'no LIS test is mapped to instrument test UREAL' }] },
      { id: 'm1#0:K', kind: 'unmapped', code: 'K', results: [{ result: result('S1', 'K'), reason: 'no LIS test is mapped to instrument test K' }] },
    ],
  };
}

describe('held results in the journal', () => {
  it('holds a batch\'s results in one line, lists them oldest first with their samples, and reads them back after a restart', async () => {
    const j = await open();
    await j.received('L', 'm1', Buffer.from('x'), 'terminator');
    await j.planned('m1', 1);
    assert.equal(await j.hold(holdOf(true)), true);
    assert.equal(readFileSync(file, 'utf8').trim().split('\n').filter((l) => l.includes('"e":"hold"')).length, 1, 'one line');
    assert.deepEqual(j.holds().map((h) => [h.id, h.kind, h.code, h.samples, h.state]), [
      ['m1#0:UREAL', 'unmapped', 'UREAL', ['S1', 'S2'], 'open'],
      ['m1#0:K', 'unmapped', 'K', ['S1'], 'open'],
    ]);
    assert.equal(j.toReplay('L').length, 0, 'the batch ended in holds: the message is settled');
    await j.close();
    const again = await open();
    assert.deepEqual(again.holds().map((h) => h.id), ['m1#0:UREAL', 'm1#0:K']);
    assert.deepEqual(again.heldResults('m1#0:UREAL')!.results.map((r) => (r.result as { SampleNumber: string }).SampleNumber), ['S1', 'S2']);
    assert.equal(again.toReplay('L').length, 0);
    await again.close();
  });

  it('a batch that also sent results on leaves its message to be settled by that batch: a crash between the two replays it', async () => {
    const j = await open();
    await j.received('L', 'm1', Buffer.from('x'), 'terminator');
    await j.planned('m1', 1);
    await j.hold(holdOf(false));
    assert.equal(j.toReplay('L').length, 1, 'not settled by the holds alone');
    await j.close();
    // After the crash the batch is translated again: the same holds are not written twice.
    const again = await open();
    assert.equal(await again.hold(holdOf(false)), false);
    assert.equal(readFileSync(file, 'utf8').trim().split('\n').filter((l) => l.includes('"e":"hold"')).length, 1);
    await again.beginSend({ key: 'm1#0', node: 'sender', message: 'm1', part: 0, samples: ['S1'], body: [], msg: {} });
    assert.equal(again.toReplay('L').length, 0);
    await again.close();
  });

  it('a hold sent by a person ends when its batch is written: a send that never got there is open again after a restart', async () => {
    const j = await open();
    await j.hold(holdOf(true));
    await j.actOnHold('m1#0:UREAL', 'send', 'tech1');
    assert.equal(j.heldResults('m1#0:UREAL')!.state, 'sending');
    await assert.rejects(j.actOnHold('m1#0:UREAL', 'send', 'tech2'), /being sent already/);
    await j.close();

    const again = await open();
    assert.equal(again.heldResults('m1#0:UREAL')!.state, 'open', 'the crash came before its batch');
    await again.actOnHold('m1#0:UREAL', 'send', 'tech1');
    const origin = batchOrigin({ hold: 'm1#0:UREAL', message: 'm1', part: 0 }, 'sender', () => 'x');
    assert.deepEqual(origin, { key: 'hold:m1#0:UREAL' });
    await again.beginSend({ ...origin, node: 'sender', samples: ['S1', 'S2'], body: [], msg: {} });
    assert.deepEqual(again.holds().map((h) => h.id), ['m1#0:K'], 'sent: no longer waiting');
    await again.close();

    const third = await open();
    assert.equal(third.heldResults('m1#0:UREAL')!.state, 'sent');
    assert.equal(third.heldResults('m1#0:UREAL')!.by, 'tech1');
    await third.close();
  });

  it('a dismissed hold says who, when and why, and is not listed any more', async () => {
    let now = 1_000_000;
    const j = await open(() => now);
    await j.hold(holdOf(true));
    now += 5000;
    await j.actOnHold('m1#0:K', 'dismiss', 'tech1', 'potassium is not reported from this analyzer');
    await j.close();
    const again = await open(() => now);
    const k = again.heldResults('m1#0:K')!;
    assert.deepEqual([k.state, k.by, k.note, k.updatedAt], ['dismissed', 'tech1', 'potassium is not reported from this analyzer', 1_005_000]);
    assert.deepEqual(again.holds().map((h) => h.id), ['m1#0:UREAL']);
    await assert.rejects(again.actOnHold('m1#0:K', 'send', 'tech2'), /dismissed already/);
    await assert.rejects(again.actOnHold('nope', 'send', 'tech2'), /no held results nope/);
    await again.close();
  });

  it('compaction keeps open holds whatever their age, and drops ended ones past the retention time', async () => {
    let now = Date.now();
    const j = await open(() => now);
    await j.received('L', 'm1', Buffer.from('x'), 'terminator');
    await j.planned('m1', 1);
    await j.hold(holdOf(true));
    await j.actOnHold('m1#0:K', 'dismiss', 'tech1', 'not reported');
    now += 8 * DAY;
    assert.equal(await j.compact(), true, 'the settled message goes');
    let text = readFileSync(file, 'utf8');
    assert.doesNotMatch(text, /"e":"rx"/);
    assert.match(text, /m1#0:UREAL/, 'the line stays while one of its holds is open');
    await j.close();
    // The ended hold of that line stays ended: read back, the line must not bring it back open.
    const reread = await open(() => now);
    assert.deepEqual([reread.heldResults('m1#0:K')!.state, reread.heldResults('m1#0:K')!.note], ['dismissed', 'not reported']);
    assert.deepEqual(reread.holds().map((h) => h.id), ['m1#0:UREAL']);
    await reread.close();
    const j2 = await open(() => now);
    await j2.actOnHold('m1#0:UREAL', 'dismiss', 'tech1', 'measured again');
    now += 8 * DAY;
    assert.equal(await j2.compact(), true);
    text = readFileSync(file, 'utf8');
    assert.doesNotMatch(text, /m1#0/);
    await j2.close();
  });

  it('counts what has not reached its end for the sidebar\'s verdict: messages on their way, and messages not understood', async () => {
    const j = await open();
    await j.received('L', 'on-way', Buffer.from('a'), 'terminator');
    await j.received('L', 'garbled', Buffer.from('b'), 'terminator');
    await j.planned('garbled', 0, 'not understood: no H record');
    await j.received('L', 'query', Buffer.from('c'), 'terminator');
    await j.planned('query', 0);
    await j.received('L', 'stuck', Buffer.from('d'), 'terminator');
    await j.planned('stuck', 1);
    await j.markStuck('stuck', 'its replay did not get through');
    assert.deepEqual(j.unfinished(), { onTheirWay: 1, notUnderstood: 1 }, 'the stuck one is counted as stuck, elsewhere');
    await j.close();
  });

  it('tells its listeners of results as they end (delivered, held for a person, discarded) and as people resolve held ones (released, dismissed), with their link, never of what it reads back', async () => {
    const j = await open();
    const seen: unknown[] = [];
    j.onEnding((e) => seen.push(e));
    await j.received('L', 'm1', Buffer.from('x'), 'terminator');
    await j.planned('m1', 1);
    await j.hold(holdOf(false));
    await j.beginSend({ key: 'm1#0', node: 'sender', message: 'm1', part: 0, samples: ['S1'], body: [{ SampleNumber: 'S1', TestCode: 'GLU', Result: '5' }, { SampleNumber: 'S1', TestCode: 'CREA', Result: '80' }], msg: {} });
    await j.settle('m1#0', 'delivered');
    await j.actOnHold('m1#0:K', 'dismiss', 'tech1', 'not reported');
    await j.actOnHold('m1#0:UREAL', 'send', 'tech1');
    await j.beginSend({ key: 'hold:m1#0:UREAL', node: 'sender', samples: ['S1', 'S2'], body: [{ SampleNumber: 'S1', TestCode: 'UREA', Result: '7.1' }, { SampleNumber: 'S2', TestCode: 'UREA', Result: '7.1' }], msg: {} });
    await j.settle('hold:m1#0:UREAL', 'delivered');
    // A batch the LIS refused, discarded by a person: its results end there.
    await j.received('L', 'm2', Buffer.from('y'), 'terminator');
    await j.planned('m2', 1);
    await j.beginSend({ key: 'm2#0', node: 'sender', message: 'm2', part: 0, samples: ['S3'], body: [{ SampleNumber: 'S3', TestCode: 'GLU', Result: '4' }], msg: {} });
    await j.settle('m2#0', 'failed', { error: { code: 'INVALID_INPUT', message: 'refused', status: 400 } });
    await j.settle('m2#0', 'discarded', { by: 'tech1' });
    assert.deepEqual(seen, [
      { ending: 'heldForPerson', link: 'L', results: 2 },
      { ending: 'heldForPerson', link: 'L', results: 1 },
      { ending: 'delivered', link: 'L', results: 2 },
      { ending: 'dismissed', link: 'L', results: 1 },
      { ending: 'released', link: 'L', results: 2 },
      { ending: 'discarded', link: 'L', results: 1 },
    ]);
    await j.close();
    const again = await open();
    const reread: unknown[] = [];
    again.onEnding((e) => reread.push(e));
    assert.deepEqual(reread, []);
    await again.close();
  });
});
