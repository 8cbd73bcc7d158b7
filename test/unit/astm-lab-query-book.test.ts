/**
 * QueryBook: the deadline, cancels, unsolicited downloads and bounded memory.
 * Times are plain milliseconds; the book has no clock of its own.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeMessage } from '../../lib/protocols/astm/records';
import { GENERIC_LIS2A2, MINDRAY_CL, ROCHE_COBAS_E411, ROCHE_COBAS_E411_ELECSYS } from '../../lib/protocols/astm/dialects';
import { QueryBook, toLabEvents, type LabEvent, type QueriedSample } from '../../lib/protocols/astm/lab';
import { fixtureText, loadFixture } from '../support/fixtures';

type QueryEvent = Extract<LabEvent, { type: 'query' }>;

function sample(sampleNumber: string): QueriedSample {
  return { sampleNumber, instrumentTests: [], range: ['', sampleNumber], record: 2 };
}

function query(cancel: boolean, ...samples: string[]): QueryEvent {
  return { type: 'query', samples: samples.map(sample), cancel };
}

/** A query event read from a fixture, the way the node gets it. */
function fixtureQuery(name: string, profile = ROCHE_COBAS_E411_ELECSYS): QueryEvent {
  const e = toLabEvents(decodeMessage(fixtureText(loadFixture(name))), profile, { timeZone: 'Europe/Berlin' })[0];
  assert.ok(e?.type === 'query');
  return e;
}

describe('QueryBook', () => {
  it('sends an order as the answer within the deadline, with the query it answers', () => {
    const book = new QueryBook(ROCHE_COBAS_E411_ELECSYS);
    const q = fixtureQuery('roche-e411-query-manual.txt');
    book.onQuery(q, 0);
    const d = book.decide('000004', 15_000);
    assert.deepEqual(d, { send: true, queried: true, query: q.samples[0] });
  });

  it('refuses a late order for an analyzer that takes no unsolicited downloads (cobas e 411: 15 s)', () => {
    const book = new QueryBook(ROCHE_COBAS_E411_ELECSYS);
    book.onQuery(fixtureQuery('roche-e411-query-manual.txt'), 0);
    const d = book.decide('000004', 15_001);
    assert.equal(d.send, false);
    assert.match(d.send ? '' : d.reason, /15001 ms after the query, past the analyzer's 15000 ms, and profile roche-cobas-e411-elecsys takes no unsolicited orders/);
  });

  it('sends a late order as an unsolicited download where the analyzer takes those (Mindray CL)', () => {
    const book = new QueryBook(MINDRAY_CL);
    book.onQuery(query(false, 'SAMPLE123'), new Date(0));
    const d = book.decide('SAMPLE123', new Date(MINDRAY_CL.queryDeadlineMs + 1));
    assert.ok(d.send && !d.queried);
    assert.match(d.note ?? '', /sent as an unsolicited download/);
  });

  it('honours a cancel, even where unsolicited downloads are accepted, until the sample is queried again', () => {
    for (const profile of [ROCHE_COBAS_E411_ELECSYS, MINDRAY_CL, GENERIC_LIS2A2]) {
      const book = new QueryBook(profile);
      book.onQuery(query(false, '000004'), 0);
      book.onQuery(query(true, '000004'), 2_000);
      const d = book.decide('000004', 3_000);
      assert.equal(d.send, false, profile.id);
      assert.match(d.send ? '' : d.reason, /cancelled its query for sample "000004" 1000 ms ago/, profile.id);
      book.onQuery(query(false, '000004'), 4_000);
      assert.deepEqual(book.decide('000004', 5_000), { send: true, queried: true, query: sample('000004') }, profile.id);
    }
  });

  it('takes cancels from the analyzer\'s own messages (cobas e 411 capture, Q-13 "A")', () => {
    const book = new QueryBook(ROCHE_COBAS_E411);
    const cancel = fixtureQuery('roche-e411-query.txt', ROCHE_COBAS_E411);
    assert.equal(cancel.cancel, true);
    book.onQuery(cancel, 0);
    assert.equal(book.decide('0000000387', 1).send, false);
  });

  it('remembers a cancel that comes without an earlier query', () => {
    const book = new QueryBook(MINDRAY_CL);
    book.onCancel('S-9', 0);
    assert.equal(book.decide('S-9', 1).send, false);
  });

  it('sends an order for a sample never queried only where unsolicited downloads are accepted', () => {
    assert.deepEqual(new QueryBook(MINDRAY_CL).decide('S-1', 0), { send: true, queried: false });
    assert.deepEqual(new QueryBook(GENERIC_LIS2A2).decide('S-1', 0), { send: true, queried: false });
    const d = new QueryBook(ROCHE_COBAS_E411).decide('S-1', 0);
    assert.equal(d.send, false);
    assert.match(d.send ? '' : d.reason, /was not queried/);
  });

  it('does not answer one query twice', () => {
    const roche = new QueryBook(ROCHE_COBAS_E411);
    roche.onQuery(query(false, 'S-1'), 0);
    roche.onAnswered('S-1', 1_000);
    const d = roche.decide('S-1', 2_000);
    assert.equal(d.send, false);
    assert.match(d.send ? '' : d.reason, /already answered/);
    const mindray = new QueryBook(MINDRAY_CL);
    mindray.onQuery(query(false, 'S-1'), 0);
    mindray.onAnswered('S-1', 1_000);
    const again = mindray.decide('S-1', 2_000);
    assert.ok(again.send && !again.queried);
    assert.match(again.note ?? '', /already answered/);
  });

  it('does not turn a cancel into an answer', () => {
    const book = new QueryBook(MINDRAY_CL);
    book.onCancel('S-1', 0);
    book.onAnswered('S-1', 1);
    assert.equal(book.decide('S-1', 2).send, false);
  });

  it('keeps several samples of one query apart', () => {
    const book = new QueryBook(ROCHE_COBAS_E411);
    book.onQuery(query(false, 'A', 'B'), 0);
    book.onQuery(query(true, 'B'), 10);
    assert.ok(book.decide('A', 20).send);
    assert.equal(book.decide('B', 20).send, false);
  });

  it('forgets entries after retainMs: a sample then counts as never queried', () => {
    const book = new QueryBook(MINDRAY_CL, { retainMs: 60_000 });
    book.onCancel('S-1', 0);
    book.onQuery(query(false, 'S-2'), 30_000);
    assert.equal(book.size, 2);
    assert.equal(book.decide('S-1', 60_000).send, false, 'still remembered at the limit');
    assert.deepEqual(book.decide('S-1', 60_001), { send: true, queried: false }, 'the cancel is forgotten');
    assert.equal(book.size, 1);
    book.decide('S-2', 90_001);
    assert.equal(book.size, 0);
  });

  it('keeps at most maxEntries samples, forgetting the oldest', () => {
    const book = new QueryBook(ROCHE_COBAS_E411, { maxEntries: 3 });
    for (let i = 1; i <= 5; i++) book.onQuery(query(false, `S-${i}`), i);
    assert.equal(book.size, 3);
    assert.equal(book.decide('S-1', 10).send, false, 'forgotten, so not queried');
    assert.ok(book.decide('S-5', 10).send);
    book.onQuery(query(false, 'S-3'), 11);
    book.onQuery(query(false, 'S-6'), 12);
    assert.ok(book.decide('S-3', 13).send, 'S-3 was refreshed, so S-4 went first');
    assert.equal(book.decide('S-4', 13).send, false);
  });

  it('refuses nonsensical settings and times', () => {
    assert.throws(() => new QueryBook(ROCHE_COBAS_E411, { retainMs: 1_000 }), RangeError);
    assert.throws(() => new QueryBook(ROCHE_COBAS_E411, { maxEntries: 0 }), RangeError);
    assert.throws(() => new QueryBook(ROCHE_COBAS_E411).decide('S-1', new Date('not a date')), RangeError);
  });
});
