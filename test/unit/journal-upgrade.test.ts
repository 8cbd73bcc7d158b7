/**
 * A journal written by the version before held results, read by this one with
 * nothing lost: what was delivered stays delivered (never sent again), what was
 * held, stuck or never translated is still so, and the file takes the new
 * entries (holds) beside the old ones across a restart.
 */
import { describe, it, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ResultJournal } from '../../lib/journal/journal';
import { resultKey } from '../../lib/journal/result-key';

const FIXTURE = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'journal', 'written-before-holds.jsonl');
let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'journal-upgrade-'));
  file = join(dir, 'journal.jsonl');
  copyFileSync(FIXTURE, file);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const open = () => ResultJournal.open({ file, retentionMs: 3650 * 24 * 60 * 60_000 });

describe('a journal written before held results', () => {
  it('is read with nothing lost: delivered, held (failed and uncertain), stuck and never translated, each as it was', async () => {
    const j = await open();
    assert.deepEqual(j.damaged, { torn: 0, invalid: 0 });
    assert.deepEqual(
      ['rx-delivered', 'rx-refused', 'rx-stuck', 'rx-unsettled', 'rx-uncertain'].map((id) => j.message(id)?.samples ?? j.message(id)?.id),
      [['S-DELIVERED'], ['S-REFUSED'], ['S-STUCK'], 'rx-unsettled', ['S-UNCERTAIN']],
    );
    assert.equal(j.resultSeen(resultKey({ SampleNumber: 'S-DELIVERED', TestCode: 'GLU', Result: '5.4' })), 'delivered', 'never sent again');
    assert.deepEqual(j.held().map((b) => [b.key, b.state, b.error?.status]), [['rx-refused#0', 'failed', 500], ['rx-uncertain#0', 'uncertain', undefined]]);
    assert.deepEqual(j.stuck().map((m) => [m.id, m.stuck]), [['rx-stuck', 'none of its 1 results mapped to a LIS test (no LIS test is mapped to instrument test GLU)']]);
    assert.deepEqual(j.toReplay('link1').map((m) => m.id), ['rx-unsettled']);
    assert.equal(j.message('rx-unsettled')!.data!.toString('latin1').includes('S-UNSETTLED'), true, 'its bytes, for the replay');
    assert.deepEqual(j.holds(), []);
    await j.close();
  });

  it('takes held results beside the old entries, and reads both back after a restart', async () => {
    const before = readFileSync(file, 'utf8');
    const j = await open();
    await j.received('link1', 'rx-new', Buffer.from('new'), 'terminator');
    await j.planned('rx-new', 1, undefined, ['S-NEW']);
    await j.hold({ node: 'mapper', link: 'link1', message: 'rx-new', part: 0, endsPart: true, msg: {}, holds: [{ id: 'rx-new#0:unmapped:UREAL', kind: 'unmapped', code: 'UREAL', results: [{ result: { SampleNumber: 'S-NEW', instrumentCode: 'UREAL', Result: '7' }, reason: 'no LIS test is mapped to instrument test UREAL' }] }] });
    await j.close();
    assert.ok(readFileSync(file, 'utf8').startsWith(before), 'the old lines stay as they were');
    const again = await open();
    assert.deepEqual(again.holds().map((h) => h.id), ['rx-new#0:unmapped:UREAL']);
    assert.deepEqual(again.held().map((b) => b.key), ['rx-refused#0', 'rx-uncertain#0']);
    assert.deepEqual(again.stuck().map((m) => m.id), ['rx-stuck']);
    assert.deepEqual(again.toReplay('link1').map((m) => m.id), ['rx-unsettled']);
    await again.close();
  });
});
