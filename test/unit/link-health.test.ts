// The link health model: events in, snapshots out; what an operator's sidebar and the metrics read.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LinkHealthBoard, type LinkHealth } from '../../lib/health/link-health';
import { capText } from '../../lib/health/labels';
import { queuesByLink } from '../../lib/health/queues';
import { transportReport } from '../../lib/health/transport-status';

const HOUR = 3_600_000;
/** Days start at multiples of 24 h in this test's own zone. */
const startOfDay = (now: number) => Math.floor(now / (24 * HOUR)) * 24 * HOUR;
const T0 = 100 * 24 * HOUR + 8 * HOUR; // 08:00 on day 100

function board() {
  const b = new LinkHealthBoard({ startOfDay, maxClosed: 2 });
  const changes: string[] = [];
  b.onChange((node) => changes.push(node));
  const link = (node: string, now = T0): LinkHealth => {
    const found = b.snapshot(now, true).links.find((l) => l.node === node);
    assert.ok(found, `no link ${node}`);
    return found;
  };
  return { b, changes, link };
}

describe('LinkHealthBoard', () => {
  it('counts a serial line: state from the first byte, messages both ways, queries, results, NAKs, errors and how results ended, today and in all', () => {
    const { b, link } = board();
    b.add('L1', { name: 'bench 1', protocol: 'astm' }, T0);
    assert.equal(link('L1').transport, 'unknown');
    b.received('L1', undefined, T0 + 1);
    b.identified('L1', undefined, { text: 'XN-550^00-18^11001', name: 'XN-550' }, T0 + 1);
    b.read('L1', undefined, { queries: 1, results: 0, dialect: 'sysmex-xn' }, T0 + 1);
    b.sent('L1', undefined, T0 + 2);
    b.received('L1', undefined, T0 + 3);
    b.read('L1', undefined, { queries: 0, results: 5, notForLis: 2, dialect: 'sysmex-xn' }, T0 + 3);
    b.ended('L1', 'delivered', 4, T0 + 3);
    b.ended('L1', 'heldForPerson', 1, T0 + 3);
    b.ended('L1', 'dismissed', 1, T0 + 4);
    b.ended('L1', 'discarded', 0, T0 + 4);
    b.ended('L1', 'released', 0, T0 + 4);
    b.ended('L1', 'delivered', 0, T0 + 4);
    b.nak('L1', undefined, 'sent', T0 + 3);
    b.nak('L1', undefined, 'received', T0 + 4);
    b.error('L1', undefined, T0 + 4);
    const l = link('L1');
    assert.equal(l.transport, 'connected', 'bytes on a line nothing reported on: it works');
    assert.equal(l.analyzer, 'XN-550');
    assert.equal(l.sender, 'XN-550^00-18^11001');
    assert.equal(l.dialect, 'sysmex-xn');
    assert.deepEqual(l.today, { received: 2, sent: 1, queries: 1, results: 5, naksSent: 1, naksReceived: 1, errors: 1, delivered: 4, heldForPerson: 1, discarded: 0, notForLis: 2, released: 0, dismissed: 1, evaluated: 0 });
    assert.equal(l.lastReceived, T0 + 3);
    assert.equal(l.lastSent, T0 + 2);
    // The first message came before the analyzer named itself in this test: it counts under ''.
    assert.deepEqual(l.totals.get('')?.received, 1);
    assert.deepEqual({ ...l.totals.get('XN-550') }, { received: 1, sent: 1, queries: 1, results: 5, naksSent: 1, naksReceived: 1, errors: 1, delivered: 4, heldForPerson: 1, discarded: 0, notForLis: 2, released: 0, dismissed: 1, evaluated: 0, lastReceived: T0 + 3, lastSent: T0 + 2 });
  });

  it('starts a new day at midnight for today, and keeps the totals', () => {
    const { b, link } = board();
    b.add('L1', { name: 'L1', protocol: 'astm' }, T0);
    b.received('L1', undefined, T0);
    b.received('L1', undefined, T0 + 15 * HOUR); // 23:00
    assert.equal(link('L1', T0 + 15 * HOUR).today.received, 2);
    b.received('L1', undefined, T0 + 17 * HOUR); // 01:00 the next day
    const next = link('L1', T0 + 17 * HOUR);
    assert.equal(next.today.received, 1);
    assert.equal(next.totals.get('')?.received, 3);
    assert.equal(link('L1', T0 + 41 * HOUR).today.received, 0, 'a quiet day reads as nothing today');
  });

  it('a TCP server: listening with no analyzer, each connection its own row, the link connected while any is open', () => {
    const { b, link } = board();
    b.add('T', { name: 'tcp', protocol: 'astm' }, T0);
    b.transport('T', undefined, 'listening', T0);
    assert.equal(link('T').transport, 'listening');
    b.transport('T', 's1', 'connected', T0 + 1, '10.0.0.5:40001');
    b.transport('T', 's2', 'connected', T0 + 1, '10.0.0.6:40002');
    b.received('T', 's1', T0 + 2);
    b.identified('T', 's1', { text: 'CL-2000i^1.0', name: 'CL-2000i' }, T0 + 2);
    b.received('T', 's2', T0 + 3);
    b.identified('T', 's2', { text: 'BS-480', name: 'BS-480' }, T0 + 3);
    b.received('T', 's2', T0 + 4);
    let l = link('T');
    assert.equal(l.transport, 'connected');
    assert.deepEqual(
      l.connections.map((c) => [c.session, c.peer, c.analyzer, c.transport, c.today.received]),
      [
        ['s1', '10.0.0.5:40001', 'CL-2000i', 'connected', 1],
        ['s2', '10.0.0.6:40002', 'BS-480', 'connected', 2],
      ],
    );
    assert.equal(l.today.received, 3, 'the link row adds its connections up');
    assert.equal(l.totals.get('BS-480')?.received, 1, 'the message before BS-480 named itself counts under ""');
    b.transport('T', 's1', 'disconnected', T0 + 5);
    b.transport('T', 's2', 'disconnected', T0 + 6);
    l = link('T');
    assert.equal(l.transport, 'listening', 'no analyzer left: back to listening');
    assert.deepEqual(
      l.connections.map((c) => [c.session, c.transport, c.transportSince]),
      [
        ['s1', 'disconnected', T0 + 5],
        ['s2', 'disconnected', T0 + 6],
      ],
    );
  });

  it('gives a reconnecting analyzer (same address, new port and session) its row back, and forgets the oldest closed rows beyond the limit', () => {
    const { b, link } = board();
    b.add('T', { name: 'tcp', protocol: 'astm' }, T0);
    b.transport('T', 's1', 'connected', T0, '10.0.0.5:40001');
    b.received('T', 's1', T0);
    b.identified('T', 's1', { text: 'CL-2000i', name: 'CL-2000i' }, T0);
    b.transport('T', 's1', 'disconnected', T0 + 1);
    b.transport('T', 's9', 'connected', T0 + 2, '10.0.0.5:40777');
    let l = link('T');
    assert.deepEqual(
      l.connections.map((c) => [c.session, c.peer, c.analyzer, c.today.received, c.transport]),
      [['s9', '10.0.0.5:40777', 'CL-2000i', 1, 'connected']],
    );
    for (const [s, ip] of [
      ['a', '10.0.1.1'],
      ['c', '10.0.1.2'],
      ['d', '10.0.1.3'],
    ] as const) {
      b.transport('T', s, 'connected', T0 + 3, `${ip}:1`);
      b.transport('T', s, 'disconnected', T0 + 4);
    }
    l = link('T');
    assert.deepEqual(
      l.connections.map((c) => c.session),
      ['s9', 'c', 'd'],
      'two closed rows at most (maxClosed), the open one first',
    );
  });

  it('never brings a closed connection back as open: events after its close (a frame\'s discarded rest) count on the link', () => {
    const { b, link } = board();
    b.add('L1', { name: 'hl7', protocol: 'hl7' }, T0);
    b.transport('L1', undefined, 'listening', T0);
    for (let i = 0; i < 50; i++) {
      const session = `s${i}`;
      b.transport('L1', session, 'connected', T0 + i, `10.0.0.${i}:4000`);
      b.transport('L1', session, 'disconnected', T0 + i);
      // What the link reports once the close reaches it, past the closed rows the board keeps (maxClosed 2).
      b.error('L1', session, T0 + i);
      b.received('L1', session, T0 + i);
    }
    const l = link('L1');
    assert.deepEqual(l.connections.filter((c) => c.transport === 'connected'), []);
    assert.ok(l.connections.length <= 2, `${l.connections.length} rows`);
    assert.equal(l.transport, 'listening');
    assert.equal(l.today.errors, 50, 'counted on the link all the same');
    assert.equal(l.today.received, 50);
    // The transport itself saying it is open again is believed.
    b.transport('L1', 's49', 'connected', T0 + 60, '10.0.0.49:4000');
    assert.equal(link('L1').transport, 'connected');
  });

  it('a TCP client (no peer address) that reconnects keeps one row; a serial port reported missing reads port-missing', () => {
    const { b, link } = board();
    b.add('C', { name: 'client', protocol: 'astm' }, T0);
    b.transport('C', undefined, 'disconnected', T0);
    b.transport('C', 'x1', 'connected', T0 + 1);
    b.transport('C', 'x1', 'disconnected', T0 + 2);
    b.transport('C', 'x2', 'connected', T0 + 3);
    assert.deepEqual(
      link('C').connections.map((c) => c.session),
      ['x2'],
    );
    b.add('S', { name: 'serial', protocol: 'astm' }, T0);
    b.transport('S', undefined, 'port-missing', T0 + 4);
    assert.equal(link('S').transport, 'port-missing');
    assert.equal(link('S').transportSince, T0 + 4);
  });

  it('keeps totals over a redeploy (counters must not go down), forgets a link removed from the flows, and hides stopped ones unless asked', () => {
    const { b, changes } = board();
    b.add('L1', { name: 'a', protocol: 'astm' }, T0);
    b.received('L1', undefined, T0);
    b.remove('L1', false);
    assert.deepEqual(b.snapshot(T0).links, [], 'stopped: not listed for the operator');
    assert.equal(b.snapshot(T0, true).links[0]?.deployed, false);
    b.add('L1', { name: 'renamed', protocol: 'astm' }, T0 + 1);
    const l = b.snapshot(T0 + 1).links[0]!;
    assert.equal(l.name, 'renamed');
    assert.equal(l.totals.get('')?.received, 1);
    assert.equal(l.transport, 'unknown', 'a new deploy knows nothing of the line yet');
    b.remove('L1', true);
    assert.deepEqual(b.snapshot(T0, true).links, []);
    assert.deepEqual(b.nodes(), []);
    assert.ok(changes.length >= 5);
  });

  it('ignores events for links it does not know, tells subscribers of each change, and sets held and stuck counts only when they change', () => {
    const { b, changes } = board();
    b.received('nobody', undefined, T0);
    b.transport('nobody', 's', 'connected', T0);
    assert.deepEqual(changes, []);
    b.add('L1', { name: 'a', protocol: 'astm' }, T0);
    b.queues('L1', { held: 2, stuck: 1, waiting: 3 });
    b.queues('L1', { held: 2, stuck: 1, waiting: 3 });
    assert.deepEqual(changes, ['L1', 'L1']);
    const l = b.snapshot(T0).links[0]!;
    assert.deepEqual([l.held, l.stuck, l.waiting], [2, 1, 3]);
    assert.equal(b.watched, true);
  });

  it('cuts what an analyzer says of itself: its name to 64 characters, the whole field to 256, an ellipsis marking the cut', () => {
    const { b, link } = board();
    b.add('L1', { name: 'hl7', protocol: 'hl7' }, T0);
    const long = 'X'.repeat(100_000);
    b.identified('L1', 's1', { text: `${long}^2`, name: long }, T0);
    const l = link('L1');
    assert.equal(l.analyzer, `${'X'.repeat(63)}…`);
    assert.equal(l.sender!.length, 256);
    assert.deepEqual([...l.totals.keys()].sort(), ['', `${'X'.repeat(63)}…`]);
    assert.equal(capText('short'), 'short');
    assert.equal(capText('x'.repeat(64)), 'x'.repeat(64));
    assert.equal(capText(`${'x'.repeat(62)}😀tail`), `${'x'.repeat(62)}…`, 'a surrogate pair is not split');
  });

  it('counts results of analyzers past the limit of distinct names together', () => {
    const b = new LinkHealthBoard({ startOfDay, maxAnalyzers: 2 });
    b.add('T', { name: 't', protocol: 'astm' }, T0);
    for (const name of ['A', 'B', 'C']) {
      b.transport('T', name, 'connected', T0, `10.0.0.${name.charCodeAt(0)}:1`);
      b.identified('T', name, { text: name, name }, T0);
      b.received('T', name, T0);
    }
    assert.deepEqual([...b.snapshot(T0).links[0]!.totals.keys()], ['', 'A', '(other)']);
  });
});

describe('transportReport', () => {
  it('reads tcp in as a server: connections opened and closed with the peer, and its connection count as listening', () => {
    assert.deepEqual(transportReport('tcp in', { text: '1 connection', event: 'connect', ip: '10.0.0.5', port: 4001, _session: { type: 'tcp', id: 'ab' } }), { session: 'ab', state: 'connected', peer: '10.0.0.5:4001' });
    assert.deepEqual(transportReport('tcp in', { text: '0 connections', event: 'disconnect', ip: '10.0.0.5', port: 4001, _session: { type: 'tcp', id: 'ab' } }), { session: 'ab', state: 'disconnected', peer: '10.0.0.5:4001' });
    assert.deepEqual(transportReport('tcp in', { text: '0 connections' }), { session: undefined, state: 'listening' });
  });

  it('reads tcp in as a client, and serial nodes (their catalog keys with or without namespace)', () => {
    assert.deepEqual(transportReport('tcp in', { fill: 'grey', text: 'common.status.connecting' }), { session: undefined, state: 'disconnected' });
    assert.deepEqual(transportReport('tcp in', { text: 'common.status.connected', _session: { type: 'tcp', id: 'c1' } }), { session: 'c1', state: 'connected' });
    assert.equal(transportReport('tcp in', {}), undefined);
    assert.deepEqual(transportReport('serial in', { text: 'node-red:common.status.connected' }), { session: undefined, state: 'connected' });
    assert.deepEqual(transportReport('serial out', { text: 'node-red:common.status.not-connected' }), { session: undefined, state: 'disconnected', serialClosed: true });
    assert.deepEqual(transportReport('serial in', { text: 'serial.status.stopped' }), { session: undefined, state: 'disconnected', serialClosed: true });
    assert.equal(transportReport('serial request', { text: 'serial.status.waiting' }), undefined);
    assert.equal(transportReport('debug', { text: 'common.status.connected' }), undefined);
  });
});

describe('queuesByLink', () => {
  it('counts held batches under the link their message came over, stuck messages under theirs, and each result waiting for a person under its link', () => {
    const messages: Record<string, { link: string }> = { m1: { link: 'L1' }, m2: { link: 'L2' } };
    const journal = {
      held: () => [{ message: 'm1' }, { message: 'm1' }, { message: 'm2' }, { message: undefined }, { message: 'gone' }],
      stuck: () => [{ link: 'L2' }],
      message: (id: string) => messages[id],
      holds: () => [{ link: 'L1', results: [{}, {}] }, { link: 'L1', results: [{}] }, { link: undefined, results: [{}] }],
    };
    const counts = queuesByLink(journal as never);
    assert.deepEqual(Object.fromEntries(counts), { L1: { held: 2, stuck: 0, waiting: 3 }, L2: { held: 1, stuck: 1, waiting: 0 }, '': { held: 2, stuck: 0, waiting: 1 } });
  });

  it('counts the held batches already warned of (HELD raised), and since when the oldest waits; the board lists them with the link\'s alarms', () => {
    const journal = {
      held: () => [{ message: 'm1', warned: true, at: T0 + 5 }, { message: 'm1', warned: true, at: T0 + 2 }, { message: 'm1', warned: false, at: T0 }],
      stuck: () => [],
      message: () => ({ link: 'L1' }),
      holds: () => [],
    };
    const counts = queuesByLink(journal as never);
    assert.deepEqual(counts.get('L1'), { held: 3, stuck: 0, waiting: 0, overdue: 2, overdueSince: T0 + 2 });
    const b = new LinkHealthBoard({ startOfDay });
    b.add('L1', { name: 'bench', protocol: 'astm' }, T0);
    b.alarms('L1', [{ code: 'LINK_QUIET', since: T0 - HOUR, raisedAt: T0 }]);
    b.queues('L1', counts.get('L1')!);
    assert.deepEqual(b.link('L1', T0)!.alarms, [{ code: 'LINK_QUIET', since: T0 - HOUR }, { code: 'HELD', since: T0 + 2, count: 2 }]);
    b.remove('L1', false);
    b.add('L1', { name: 'bench', protocol: 'astm' }, T0);
    assert.deepEqual(b.link('L1', T0)!.alarms.map((a) => a.code), ['HELD'], 'a redeploy drops the link\'s own alarms (its watch raises them again), not the journal\'s');
  });
});
