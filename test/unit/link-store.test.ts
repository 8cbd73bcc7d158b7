/**
 * LinkStore alone, against a real journal in a temporary directory and a
 * stand-in for the link driver's held ACK: the order disk -> ACK -> flow, the
 * NAK when the disk fails, replays, and repeats of unacknowledged messages.
 */
import { describe, it, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { ResultJournal } from '../../lib/journal/journal';
import { LinkStore, type HeldAck, type PassedOn } from '../../lib/journal/link-store';

let dir: string;
let journal: ResultJournal;
const open = () => ResultJournal.open({ file: join(dir, 'journal.jsonl'), retentionMs: 86_400_000 });

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'link-store-'));
  journal = await open();
});
afterEach(async () => {
  await journal.close().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

/** The driver's held ACK, recording what the store asked of it, and what the file held at that moment. */
class Port implements HeldAck {
  closedForGood = false;
  awaiting = new Set<string>();
  calls: Array<{ call: string; id: string; rxLines: number }> = [];
  awaitsStored(id: string): boolean {
    return this.awaiting.has(id);
  }
  confirmStored(id: string): void {
    this.calls.push({ call: 'confirm', id, rxLines: rxLines() });
    this.awaiting.delete(id);
  }
  rejectStored(id: string): void {
    this.calls.push({ call: 'reject', id, rxLines: rxLines() });
    this.awaiting.delete(id);
  }
}

function rxLines(): number {
  return readFileSync(join(dir, 'journal.jsonl'), 'utf8').split('\n').filter((l) => l.includes('"e":"rx"')).length;
}

const MSG = (value: string) => Buffer.from(`H|\\^&|||A|||||||P||20261121100000\rP|1\rO|1|S1\rR|1|^^^GLU|${value}\rL|1|N\r`, 'latin1');

function harness(link = `link-${randomUUID()}`) {
  const warnings: string[] = [];
  const failures: string[] = [];
  const store = new LinkStore(Promise.resolve(journal), link, { warn: (t) => warnings.push(t), failed: (e) => failures.push(e.code) });
  const passed: PassedOn[] = [];
  return { store, link, warnings, failures, passed, passOn: (m: PassedOn) => passed.push(m) };
}

describe('LinkStore', () => {
  it('ACKs the final frame only once the message is in the file, then passes it on with its journal id', async () => {
    const h = harness();
    const port = new Port();
    port.awaiting.add('m1');
    h.store.store('line', port, { id: 'm1', bytes: MSG('5.4'), end: 'terminator', held: true }, h.passOn);
    assert.equal(port.calls.length, 0, 'nothing before the disk');
    await h.store.settled();
    assert.deepEqual(port.calls, [{ call: 'confirm', id: 'm1', rxLines: 1 }]);
    assert.equal(h.passed.length, 1);
    assert.ok(journal.message(h.passed[0]!.astm.journalId!));
  });

  it('NAKs (rejectStored) and passes nothing on when the message cannot be stored', async () => {
    const h = harness();
    await journal.close();
    const port = new Port();
    port.awaiting.add('m1');
    h.store.store('line', port, { id: 'm1', bytes: MSG('5.4'), end: 'terminator', held: true }, h.passOn);
    await h.store.settled();
    assert.deepEqual(port.calls.map((c) => c.call), ['reject']);
    assert.deepEqual(h.failures, ['JOURNAL']);
    assert.equal(h.passed.length, 0);
  });

  it('passes on a message whose final ACK can no longer go out, and not its repeat on the same line', async () => {
    const h = harness();
    const port = new Port(); // the analyzer ended the transfer: nothing awaits m1 any more
    h.store.store('line', port, { id: 'm1', bytes: MSG('5.4'), end: 'terminator', held: true }, h.passOn);
    await h.store.settled();
    assert.equal(h.passed.length, 1, 'nothing lost if the analyzer never repeats it');
    port.awaiting.add('m2');
    h.store.store('line', port, { id: 'm2', bytes: MSG('5.4'), end: 'terminator', held: true }, h.passOn);
    await h.store.settled();
    assert.equal(h.passed.length, 1, 'the repeat is not passed on');
    assert.deepEqual(port.calls.map((c) => c.call), ['confirm'], 'but it is acknowledged');
    port.awaiting.add('m3');
    h.store.store('other-session', port, { id: 'm3', bytes: MSG('5.4'), end: 'terminator', held: true }, h.passOn);
    await h.store.settled();
    assert.equal(h.passed.length, 2, "another session's identical message is its own");
  });

  it('replays, once, a stored message never handed on, and recognises the analyzer repeating it', async () => {
    const link = `link-${randomUUID()}`;
    await journal.received(link, 'old', MSG('7.7'), 'terminator');
    await journal.close();
    journal = await open(); // a restart
    const h = harness(link);
    assert.equal(await h.store.replay(h.passOn), 1);
    assert.equal(h.passed[0]!.astm.replay, true);
    assert.equal(h.passed[0]!.bytes.toString('latin1'), MSG('7.7').toString('latin1'));
    assert.equal(await h.store.replay(h.passOn), 0, 'once');
    const port = new Port();
    port.awaiting.add('again');
    h.store.store('new-tcp-session', port, { id: 'again', bytes: MSG('7.7'), end: 'terminator', held: true }, h.passOn);
    await h.store.settled();
    assert.equal(h.passed.length, 1, 'the repeat of a replayed message, even on a new connection, is not passed on');
  });
});
