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
import { carriesResults } from '../../lib/protocols/astm/records/peek';

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
  const store = new LinkStore(Promise.resolve(journal), link, { warn: (t) => warnings.push(t), failed: (e) => failures.push(e.code) }, { carriesResults });
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

/**
 * The windows two crashes in a row open. A "crash" here is the journal closed
 * with nothing else done, and a "start" a fresh journal and LinkStore on the
 * same file, as a restarted Node-RED has.
 */
describe('LinkStore across two crashes', () => {
  const restart = async () => {
    await journal.close();
    journal = await open();
  };
  const rxLine = (id: string) => readFileSync(join(dir, 'journal.jsonl'), 'utf8').split('\n').filter((l) => l.includes(`"id":"${id}"`));

  it('writes a repeat as a repeat in its own journal line, before its ACK, so a crash after it cannot make it a message of its own', async () => {
    const link = `link-${randomUUID()}`;
    await journal.received(link, 'first', MSG('6.6'), 'terminator'); // crash 1: stored, final ACK never sent
    await restart();
    const h = harness(link);
    assert.equal(await h.store.replay(h.passOn), 1);
    const port = new Port();
    port.awaiting.add('again');
    port.confirmStored = (id) => {
      // The repeat's line already says whose repeat it is when its ACK goes out.
      const line = JSON.parse(rxLine(lastRx())[0]!);
      port.calls.push({ call: 'confirm', id, rxLines: rxLines() });
      assert.equal(line.repeatOf, 'first');
    };
    h.store.store('s2', port, { id: 'again', bytes: MSG('6.6'), end: 'terminator', held: true }, h.passOn);
    await h.store.settled();
    assert.equal(h.passed.length, 1, 'only the replay was passed on');
    await restart(); // crash 2, right after the repeat was stored
    const h2 = harness(link);
    const replayed = await h2.store.replay(h2.passOn);
    assert.ok(h2.passed.every((p) => p.astm.journalId === 'first'), 'the repeat is never replayed as a message of its own');
    assert.ok(replayed <= 1);
  });

  it('knows, after a restart, the repeat of a message that was replayed and delivered since', async () => {
    const link = `link-${randomUUID()}`;
    await journal.received(link, 'first', MSG('8.8'), 'terminator');
    await restart();
    const h = harness(link);
    await h.store.replay(h.passOn);
    await journal.planned('first', 0); // its results reached the LIS
    await restart();
    const h2 = harness(link);
    assert.equal(await h2.store.replay(h2.passOn), 0, 'settled: nothing to replay');
    const port = new Port();
    port.awaiting.add('third-copy');
    h2.store.store('s3', port, { id: 'third-copy', bytes: MSG('8.8'), end: 'terminator', held: true }, h2.passOn);
    await h2.store.settled();
    assert.equal(h2.passed.length, 0, 'the analyzer\'s repeat of a delivered message is not processed again');
    assert.deepEqual(port.calls.map((c) => c.call), ['confirm'], 'but it is acknowledged');
  });

  it('after a repeat was stored and its ACK lost to a crash, knows the next repeat too', async () => {
    const link = `link-${randomUUID()}`;
    await journal.received(link, 'first', MSG('9.1'), 'terminator');
    await journal.planned('first', 0);
    await journal.received(link, 'second', MSG('9.1'), 'terminator', 'first');
    await journal.replayed('first');
    await restart();
    const h = harness(link);
    const port = new Port();
    port.awaiting.add('third');
    h.store.store('s', port, { id: 'third', bytes: MSG('9.1'), end: 'terminator', held: true }, h.passOn);
    await h.store.settled();
    assert.equal(h.passed.length, 0);
    assert.equal(JSON.parse(rxLine(lastRx())[0]!).repeatOf, 'first');
  });

  it('hands a replayed message on before marking it, and replays it again after a crash in between', async () => {
    const link = `link-${randomUUID()}`;
    await journal.received(link, 'm', MSG('4.2'), 'terminator');
    await restart();
    const h = harness(link);
    const marksAtHandOver: number[] = [];
    await h.store.replay((m) => {
      marksAtHandOver.push(rxLine('m').filter((l) => l.includes('"replayed":true')).length);
      h.passOn(m);
    });
    assert.deepEqual(marksAtHandOver, [0], 'not marked before it was handed on');
    assert.equal(rxLine('m').filter((l) => l.includes('"replayed":true')).length, 1, 'marked after');
    assert.equal(await h.store.replay(h.passOn), 0, 'not twice in one start');
    await restart(); // crash before its batches reached the LIS sender
    const h2 = harness(link);
    assert.equal(await h2.store.replay(h2.passOn), 1, 'a replay a crash interrupted is replayed again');
    assert.deepEqual(journal.stuck().filter((m) => m.stuck !== undefined), []);
  });

  it('gives up on a replay still unsettled a minute later, or when the flow stops: stuck, with its samples, not replayed again', async () => {
    const slowLink = `link-${randomUUID()}`;
    const stoppedLink = `link-${randomUUID()}`;
    await journal.received(slowLink, 'slow', MSG('1.1'), 'terminator');
    await journal.received(stoppedLink, 'stopped', MSG('2.2'), 'terminator');
    await restart();
    const slow = harness(slowLink);
    const stopped = harness(stoppedLink);
    await slow.store.replay(slow.passOn, 1_000);
    await stopped.store.replay(stopped.passOn, 1_000);
    await journal.planned('slow', 1, undefined, ['S1']); // translated, its batch never reached the sender
    assert.deepEqual(await slow.store.giveUp(60_999, 60_000, 'late'), []);
    const late = await slow.store.giveUp(61_000, 60_000, 'late');
    assert.deepEqual(late.map((m) => [m.id, m.samples, m.stuck]), [['slow', ['S1'], 'late']]);
    const atClose = await stopped.store.close(2_000);
    assert.deepEqual(atClose.map((m) => m.id), ['stopped']);
    await restart();
    for (const link of [slowLink, stoppedLink]) {
      const h = harness(link);
      assert.equal(await h.store.replay(h.passOn), 0, 'stuck messages wait for an operator');
    }
    assert.deepEqual(journal.stuck().map((m) => m.id).sort(), ['slow', 'stopped']);
  });

  it('processes a repeated query again: only results must not be processed twice', async () => {
    const h = harness();
    const query = Buffer.from('H|\\^&\rQ|1|^S1||ALL\rL|1|N\r', 'latin1');
    const port = new Port(); // the transfer ended before the ACK
    h.store.store('line', port, { id: 'q1', bytes: query, end: 'terminator', held: true }, h.passOn);
    await h.store.settled();
    port.awaiting.add('q2');
    h.store.store('line', port, { id: 'q2', bytes: query, end: 'terminator', held: true }, h.passOn);
    await h.store.settled();
    assert.equal(h.passed.length, 2);
  });

  it('remembers across a restart a message whose final ACK never went out, and on a new connection when its own closed', async () => {
    const link = `link-${randomUUID()}`;
    const h = harness(link);
    const closed = new Port();
    closed.closedForGood = true; // the TCP connection closed while the message was being stored
    h.store.store('s-old', closed, { id: 'm1', bytes: MSG('3.3'), end: 'terminator', held: true }, h.passOn);
    await h.store.settled();
    assert.equal(h.passed.length, 1, 'passed on: nothing lost if it never comes again');
    const port = new Port();
    port.awaiting.add('m2');
    h.store.store('s-new', port, { id: 'm2', bytes: MSG('3.3'), end: 'terminator', held: true }, h.passOn);
    await h.store.settled();
    assert.equal(h.passed.length, 1, 'its repeat on the new connection is not');
    const ended = new Port(); // the analyzer ended the transfer before the ACK
    h.store.store('line', ended, { id: 'm3', bytes: MSG('3.4'), end: 'terminator', held: true }, h.passOn);
    await h.store.settled();
    await journal.planned(h.passed.at(-1)!.astm.journalId!, 0);
    await restart();
    const h2 = harness(link);
    const again = new Port();
    again.awaiting.add('m4');
    h2.store.store('line', again, { id: 'm4', bytes: MSG('3.4'), end: 'terminator', held: true }, h2.passOn);
    await h2.store.settled();
    assert.equal(h2.passed.length, 0, 'the journal remembered it was never ACKed');
  });
});

function lastRx(): string {
  const lines = readFileSync(join(dir, 'journal.jsonl'), 'utf8').split('\n').filter((l) => l.includes('"e":"rx"'));
  return JSON.parse(lines.at(-1)!).id as string;
}
