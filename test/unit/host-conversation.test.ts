// The host conversation driven tick by tick: every call carries an explicit `now`, and the writer is a stand-in
// (the conversation is the same for every protocol; only what is written differs).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HostConversation, type ConversationAction, type ConversationRules } from '../../lib/conversation/host-conversation';
import type { LabOrder, QueriedSample } from '../../lib/lab/types';

const RULES: ConversationRules = { id: 'test', label: 'Test analyzer', queryDeadlineMs: 10_000, acceptsUnsolicitedOrders: false, canDownload: true, anonymousNoInformation: false };

function conversation(rules: Partial<ConversationRules> = {}) {
  return new HostConversation<string>({ ...RULES, ...rules }, {
    order: (o, at) => `ORDER ${o.SampleNumber} ${at.queried ? `answering ${at.query.sampleNumber}` : 'unsolicited'}`,
    noInformation: (s, at) => `NOINFO ${s} answering ${at.query.sampleNumber}`,
  });
}

const q = (sampleNumber: string): QueriedSample => ({ sampleNumber, instrumentTests: [], range: ['', sampleNumber], record: 1 });
const query = (...samples: string[]) => ({ samples: samples.map(q), cancel: false });
const cancel = (...samples: string[]) => ({ samples: samples.map(q), cancel: true });
const order = (sample: string, tests = ['T-GLU']): LabOrder => ({ SampleNumber: sample, SampleType: 'Serum', Tests: tests, instrumentTests: ['GLU'], patient: { ID: 'P1', Name: 'Roe, Jane', Sex: 'F' } });

/** The actions as short lines, so a sequence reads at a glance. */
const lines = (actions: ConversationAction<string>[]) =>
  actions.map((a) => {
    switch (a.type) {
      case 'ask':
        return `ask ${a.sample.sampleNumber} (${a.context})`;
      case 'send':
        return `send ${a.text} (${a.context})`;
      case 'refused':
        return `refused ${a.sampleNumber}`;
      case 'unanswerable':
        return `unanswerable ${a.samples.map((s) => s.sampleNumber).join(',')}`;
      case 'warn':
        return `warn`;
    }
  });

describe('HostConversation', () => {
  it('a query: one ask per sample, carrying the query\'s context', () => {
    const c = conversation();
    assert.deepEqual(lines(c.query('L', query('S1', 'S2'), 0, 'q-msg')), ['ask S1 (q-msg)', 'ask S2 (q-msg)']);
    assert.equal(c.counts.queries, 2);
  });

  it('the LIS answers within the deadline: the order goes as the answer to the query', () => {
    const c = conversation();
    c.query('L', query('S1'), 0, 'q');
    assert.deepEqual(lines(c.order('L', order('S1'), 10_000, 'o')), ['send ORDER S1 answering S1 (o)']);
    assert.equal(c.counts.orders, 1);
  });

  it('the LIS answers after the deadline: refused where the analyzer takes no unsolicited orders, an unsolicited download where it does', () => {
    const strict = conversation();
    strict.query('L', query('S1'), 0, 'q');
    assert.deepEqual(lines(strict.order('L', order('S1'), 10_001, 'o')), ['refused S1']);
    const lenient = conversation({ acceptsUnsolicitedOrders: true });
    lenient.query('L', query('S1'), 0, 'q');
    assert.deepEqual(lines(lenient.order('L', order('S1'), 10_001, 'o')), ['warn', 'send ORDER S1 unsolicited (o)']);
  });

  it('an order nobody asked for: downloaded only where the analyzer takes unsolicited orders', () => {
    assert.deepEqual(lines(conversation().order('L', order('P1'), 0, 'o')), ['refused P1']);
    assert.deepEqual(lines(conversation({ acceptsUnsolicitedOrders: true }).order('L', order('P1'), 0, 'o')), ['send ORDER P1 unsolicited (o)']);
  });

  it('the LIS never answers: nothing is sent, and a "no information" answer after the deadline is not sent either', () => {
    const c = conversation();
    c.query('L', query('S1'), 0, 'q');
    assert.equal(c.nextDeadline(5_000), undefined, 'nothing held, nothing to wake for');
    assert.deepEqual(lines(c.noOrder('L', 'S1', 10_001, 'n')), ['warn']);
  });

  it('a cancelled query: its order is refused, even where unsolicited orders are taken, until the sample is queried again', () => {
    const c = conversation({ acceptsUnsolicitedOrders: true });
    c.query('L', query('S1'), 0, 'q');
    assert.deepEqual(lines(c.query('L', cancel('S1'), 1_000, 'c')), ['warn']);
    assert.deepEqual(lines(c.order('L', order('S1'), 2_000, 'o')), ['refused S1']);
    c.query('L', query('S1'), 3_000, 'q2');
    assert.deepEqual(lines(c.order('L', order('S1'), 4_000, 'o2')), ['send ORDER S1 answering S1 (o2)']);
  });

  it('a "no information" answer that names no sample waits until its query is the oldest open one: it never overtakes an earlier query\'s order', () => {
    const c = conversation({ anonymousNoInformation: true });
    c.query('L', query('A'), 0, 'qa');
    c.query('L', query('B'), 100, 'qb');
    assert.deepEqual(lines(c.noOrder('L', 'B', 200, 'nb')), [], 'held: A is still open');
    assert.equal(c.nextDeadline(200), 10_001, 'wakes when A\'s deadline has passed');
    assert.deepEqual(lines(c.order('L', order('A'), 300, 'oa')), ['send ORDER A answering A (oa)', 'send NOINFO B answering B (nb)'], 'A first, then B');
    assert.equal(c.nextDeadline(300), undefined);
  });

  it('a held "no information" leaves when the earlier query expires, or is dropped when its own expires first', () => {
    const c = conversation({ anonymousNoInformation: true });
    c.query('L', query('A'), 0, 'qa');
    c.query('L', query('B'), 5_000, 'qb');
    c.noOrder('L', 'B', 6_000, 'nb');
    assert.deepEqual(lines(c.tick(9_999)), [], 'A still open');
    assert.deepEqual(lines(c.tick(c.nextDeadline(9_999)!)), ['send NOINFO B answering B (nb)']);

    const d = conversation({ anonymousNoInformation: true });
    d.query('L', query('A', 'B'), 0, 'q');
    d.noOrder('L', 'B', 1_000, 'nb');
    // A and B share a deadline: when A expires, B has expired with it.
    assert.deepEqual(lines(d.tick(10_001)), ['warn']);
  });

  it('a cancel of the earlier query lets a held "no information" leave at once', () => {
    const c = conversation({ anonymousNoInformation: true });
    c.query('L', query('A'), 0, 'qa');
    c.query('L', query('B'), 100, 'qb');
    c.noOrder('L', 'B', 200, 'nb');
    assert.deepEqual(lines(c.query('L', cancel('A'), 300, 'ca')), ['warn', 'send NOINFO B answering B (nb)']);
  });

  it('several sessions at once: each link has its own oldest query', () => {
    const c = conversation({ anonymousNoInformation: true });
    c.query('link-1', query('A'), 0, 'qa');
    c.query('link-2', query('B'), 100, 'qb');
    assert.deepEqual(lines(c.noOrder('link-2', 'B', 200, 'nb')), ['send NOINFO B answering B (nb)'], 'A on another link does not hold B');
    assert.deepEqual(lines(c.order('link-1', order('A'), 300, 'oa')), ['send ORDER A answering A (oa)']);
  });

  it('a sample-naming "no information" leaves at once, whatever else is open', () => {
    const c = conversation();
    c.query('L', query('A'), 0, 'qa');
    c.query('L', query('B'), 100, 'qb');
    assert.deepEqual(lines(c.noOrder('L', 'B', 200, 'nb')), ['send NOINFO B answering B (nb)']);
  });

  it('a query from a replayed message is not answered, and a dialect with no download passes the query on untouched', () => {
    assert.deepEqual(lines(conversation().query('L', query('S1'), 0, 'q', true)), ['warn']);
    assert.deepEqual(lines(conversation({ canDownload: false }).query('L', query('S1'), 0, 'q')), ['warn', 'unanswerable S1']);
  });

  it('remembers the LIS tests of downloaded orders for their results, for a day', () => {
    const c = conversation({ acceptsUnsolicitedOrders: true });
    c.order('L', order('S1', ['T-GLU', 'T-CREA']), 0, 'o');
    assert.deepEqual(c.orderedTests(['S1', 'S2'], 1_000), ['T-GLU', 'T-CREA']);
    assert.deepEqual(c.orderedTests(['S1'], 24 * 60 * 60_000 + 1), []);
  });

  it('close() drops held answers', () => {
    const c = conversation({ anonymousNoInformation: true });
    c.query('L', query('A', 'B'), 0, 'q');
    c.noOrder('L', 'B', 10, 'nb');
    c.close();
    assert.equal(c.nextDeadline(20), undefined);
    assert.deepEqual(lines(c.order('L', order('A'), 30, 'oa')), ['send ORDER A answering A (oa)']);
  });
});
