// The links of one link node: bytes placed by connection, messages routed, connections closing.
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AstmLink, buildFrames } from '../../lib/protocols/astm/link';
import { messageSender } from '../../lib/protocols/astm/records/peek';
import { LinkSessions, type LinkSessionEvents, type SessionLink } from '../../lib/link/link-sessions';
import type { TransportMode } from '../../lib/link/session-book';
import { LisError } from '../../lib/errors';

const ENQ = Buffer.from([0x05]);
const EOT = Buffer.from([0x04]);
const ACK = Buffer.from([0x06]);
const message = (sender: string) => `H|\\^&|||${sender}^1.0\rP|1\rO|1|S1||^^^GLU\rR|1|^^^GLU|5.4\rL|1|N\r`;
const ORDER = Buffer.from('H|\\^&\rP|1\rO|1|S9||^^^GLU\rL|1|N\r', 'latin1');

let open: LinkSessions<string>[] = [];
afterEach(() => {
  for (const l of open) l.close();
  open = [];
});

function sessions(mode: TransportMode, maxLinks?: number) {
  const log: string[] = [];
  const writes: Array<{ key: string; bytes: Buffer }> = [];
  const events: LinkSessionEvents<string> = {
    write: (link, bytes) => writes.push({ key: link.key, bytes }),
    message: (link, m) => log.push(`message on ${link.key}: ${m.bytes.length} bytes`),
    sent: (link, ctx) => log.push(`sent ${ctx} on ${link.key}`),
    failed: (link, ctx, err) => log.push(`failed ${ctx} on ${link.key}: ${err.code}`),
    discarded: (link) => log.push(`discarded on ${link.key}`),
    warning: () => undefined,
    state: () => undefined,
  };
  const links = new LinkSessions<string>({ mode, machine: () => new AstmLink(), identify: messageSender, idPrefix: 'n', ...(maxLinks ? { maxLinks } : {}) }, events);
  open.push(links);
  /** An analyzer on `session` sends a whole message. */
  const upload = (session: unknown, text: string, peer = {}) => {
    const link = links.place(session, peer, 0) as SessionLink;
    for (const piece of [ENQ, ...buildFrames(Buffer.from(text, 'latin1')), EOT]) link.driver.receive(piece);
    return link;
  };
  return { links, log, writes, upload };
}

const tcp = (id: string) => ({ type: 'tcp', id });

describe('LinkSessions', () => {
  it('keeps one link per TCP connection and answers each on its own', () => {
    const s = sessions('tcp');
    s.upload(tcp('a'), message('ALPHA'));
    s.upload(tcp('b'), message('BETA'));
    assert.deepEqual(s.log, [`message on a: ${message('ALPHA').length} bytes`, `message on b: ${message('BETA').length} bytes`]);
    assert.deepEqual([...new Set(s.writes.map((w) => w.key))].sort(), ['a', 'b']);
  });

  it('routes a message with no session to the analyzer it names, and refuses one that names none', () => {
    const s = sessions('tcp');
    s.upload(tcp('a'), message('ALPHA'));
    s.upload(tcp('b'), message('BETA'));
    s.writes.length = 0;
    const refused = s.links.send(undefined, undefined, ORDER, 'order-1');
    assert.ok(refused instanceof LisError);
    assert.equal(refused.code, 'AMBIGUOUS_ANALYZER');
    const link = s.links.send(undefined, 'beta', ORDER, 'order-2') as SessionLink;
    assert.equal(link.key, 'b');
    assert.deepEqual(link.tcpSession, { type: 'tcp', id: 'b' });
    assert.deepEqual(s.writes, [{ key: 'b', bytes: ENQ }], 'the ENQ goes on BETA\'s connection only');
    link.driver.receive(ACK);
    link.driver.receive(ACK);
    assert.ok(s.log.includes('sent order-2 on b'));
  });

  it('a connection reported closed fails its transfer and its queue at once, and refuses a late answer to it', () => {
    const s = sessions('tcp');
    s.links.report({ event: 'connect', _session: tcp('a'), ip: '10.0.0.1', port: 4000 }, 0);
    s.links.send(undefined, undefined, ORDER, 'first');
    s.links.send(undefined, undefined, ORDER, 'second');
    s.links.report({ event: 'disconnect', _session: tcp('a') }, 1);
    assert.deepEqual(s.log, ['failed first on a: CONNECTION_CLOSED', 'failed second on a: CONNECTION_CLOSED']);
    const late = s.links.send(tcp('a'), undefined, ORDER, 'late');
    assert.ok(late instanceof LisError && late.code === 'CONNECTION_CLOSED');
    const none = s.links.send(undefined, undefined, ORDER, 'pushed');
    assert.ok(none instanceof LisError && none.code === 'NOT_CONNECTED');
  });

  it('TCP: bytes without a session are refused (NO_SESSION); serial: bytes with one are refused (TRANSPORT_MISMATCH), and so is every send after', () => {
    const t = sessions('tcp');
    const refused = t.links.place(undefined, {}, 0);
    assert.ok(refused instanceof LisError && refused.code === 'NO_SESSION');
    const s = sessions('serial');
    assert.equal((s.links.send(undefined, undefined, ORDER, 'o') as SessionLink).key, 'line', 'a serial line sends');
    const mismatch = s.links.place(tcp('x'), {}, 0);
    assert.ok(mismatch instanceof LisError && mismatch.code === 'TRANSPORT_MISMATCH');
    assert.match(mismatch.message, /set Transport to TCP/);
    // Its writes carry no session: tcp out would write them to every connection.
    const send = s.links.send(tcp('x'), undefined, ORDER, 'o2');
    assert.ok(send instanceof LisError && send.code === 'TRANSPORT_MISMATCH');
    assert.ok(s.links.send(undefined, undefined, ORDER, 'o3') instanceof LisError);
    // A connection reported by a Status node is the same mistake, said once.
    const r = sessions('serial');
    const reported = r.links.report({ fill: 'green', shape: 'dot', text: 'common.status.connected', _session: { type: 'tcp', id: 'c1' } }, 0);
    assert.equal(reported?.code, 'TRANSPORT_MISMATCH');
    assert.equal(r.links.report({ fill: 'red', shape: 'ring', text: 'common.status.disconnected', _session: { type: 'tcp', id: 'c1' } }, 0), undefined);
  });

  it('keeps at most maxLinks links, dropping idle ones first, and no longer routes to a dropped one', () => {
    const s = sessions('tcp', 2);
    s.upload(tcp('a'), message('A'));
    s.upload(tcp('b'), message('B'));
    s.upload(tcp('c'), message('C'));
    const dropped = s.links.send(undefined, 'A', ORDER, 'o');
    assert.ok(dropped instanceof LisError && dropped.code === 'UNKNOWN_ANALYZER');
  });

  it('close() stops every link and returns what was never sent', () => {
    const s = sessions('serial');
    s.links.send(undefined, undefined, ORDER, 'o1');
    s.links.send(undefined, undefined, ORDER, 'o2');
    assert.deepEqual(s.links.close(), ['o1', 'o2']);
  });
});
