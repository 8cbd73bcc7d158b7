// Which analyzer connection a message goes to, and what a closed connection does to the link.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LINE, SessionBook, type Route } from '../../lib/link/session-book';
import { tcpConnectionEvent, tcpSessionKey } from '../../lib/link/tcp-status';
import { messageSender, onlyQueries } from '../../lib/protocols/astm/records/peek';
import { AstmLink, buildFrame, type LinkAction } from '../../lib/protocols/astm/link';
import { UnframedLink } from '../../lib/protocols/astm/unframed-link';
import { ACK, ENQ } from '../../lib/protocols/astm/control';

const keyOf = (r: Route): string => {
  assert.ok('key' in r, `expected a route, got ${JSON.stringify(r)}`);
  return r.key;
};
const codeOf = (r: Route): string => {
  assert.ok('code' in r, `expected a refusal, got ${JSON.stringify(r)}`);
  return r.code;
};

describe('SessionBook', () => {
  it('serial: everything goes on the one line, whatever session a message carries', () => {
    const book = new SessionBook('serial');
    book.received('s1', { address: '10.0.0.1' }, 1);
    assert.equal(keyOf(book.route({})), LINE);
    assert.equal(keyOf(book.route({ session: 's1' })), LINE);
    assert.equal(book.tcp, false);
  });

  it('auto: serial until a TCP session is seen, then TCP', () => {
    const book = new SessionBook('auto');
    assert.equal(keyOf(book.route({})), LINE);
    book.received('s1', {}, 1);
    assert.equal(book.tcp, true);
    assert.equal(keyOf(book.route({})), 's1');
  });

  it('tcp, nobody connected: NOT_CONNECTED', () => {
    assert.equal(codeOf(new SessionBook('tcp').route({})), 'NOT_CONNECTED');
  });

  it('tcp, one connection (Node-RED as client, or a server with one analyzer): an order with no session goes to it', () => {
    const book = new SessionBook('tcp');
    book.opened('c1', {}, 1);
    assert.equal(keyOf(book.route({})), 'c1');
  });

  it('a message that answers a session goes back on it, also with others connected', () => {
    const book = new SessionBook('tcp');
    book.opened('a', { address: '10.0.0.1', port: 4000 }, 1);
    book.opened('b', { address: '10.0.0.2', port: 4000 }, 1);
    assert.equal(keyOf(book.route({ session: 'b' })), 'b');
  });

  it('several connections and no name: AMBIGUOUS_ANALYZER naming them, never a guess', () => {
    const book = new SessionBook('tcp');
    book.opened('a', { address: '10.0.0.1', port: 4000 }, 1);
    book.opened('b', { address: '10.0.0.2', port: 4001 }, 1);
    book.identified('a', 'CL-2000i^1.0^SN1', 'CL-2000i');
    const r = book.route({});
    assert.equal(codeOf(r), 'AMBIGUOUS_ANALYZER');
    assert.match((r as { message: string }).message, /"CL-2000i\^1\.0\^SN1" at 10\.0\.0\.1:4000/);
    assert.match((r as { message: string }).message, /sent nothing yet at 10\.0\.0\.2:4001/);
    assert.match((r as { message: string }).message, /msg\.analyzer/);
  });

  it('msg.analyzer picks by sender name (whole or first component, any case) or by address', () => {
    const book = new SessionBook('tcp');
    book.opened('a', { address: '10.0.0.1', port: 4000 }, 1);
    book.opened('b', { address: '10.0.0.2', port: 4001 }, 1);
    book.identified('a', 'CL-2000i^1.0^SN1', 'CL-2000i');
    book.identified('b', 'e411^1', 'e411');
    assert.equal(keyOf(book.route({ analyzer: 'cl-2000i' })), 'a');
    assert.equal(keyOf(book.route({ analyzer: 'e411^1' })), 'b');
    assert.equal(keyOf(book.route({ analyzer: '10.0.0.2' })), 'b');
    assert.equal(keyOf(book.route({ analyzer: '10.0.0.1:4000' })), 'a');
    assert.equal(codeOf(book.route({ analyzer: 'XN-550' })), 'UNKNOWN_ANALYZER');
  });

  it('keeps a sender name of any length capped (256 characters), and still routes by it and names it in errors', () => {
    const book = new SessionBook('tcp');
    book.opened('a', { address: '10.0.0.1', port: 4000 }, 1);
    book.opened('b', { address: '10.0.0.2', port: 4001 }, 1);
    const long = 'N'.repeat(1_000_000);
    book.identified('a', `${long}^2`, long);
    const kept = book.list().find((v) => v.key === 'a')!;
    assert.equal(kept.sender!.length, 256);
    assert.equal(kept.name!.length, 256);
    assert.equal(keyOf(book.route({ analyzer: long })), 'a');
    const r = book.route({});
    assert.ok((r as { message: string }).message.length < 1_000, 'the error does not carry the whole field');
  });

  it('two connections that give the same name: AMBIGUOUS_ANALYZER, and the address still tells them apart', () => {
    const book = new SessionBook('tcp');
    book.opened('a', { address: '10.0.0.1', port: 4000 }, 1);
    book.opened('b', { address: '10.0.0.1', port: 4001 }, 1);
    book.identified('a', 'Mindray', 'Mindray');
    book.identified('b', 'Mindray', 'Mindray');
    assert.equal(codeOf(book.route({ analyzer: 'Mindray' })), 'AMBIGUOUS_ANALYZER');
    assert.equal(keyOf(book.route({ analyzer: '10.0.0.1:4001' })), 'b');
  });

  it('a closed connection is no longer a target, and an answer to it is refused, not sent elsewhere', () => {
    const book = new SessionBook('tcp');
    book.opened('a', {}, 1);
    book.opened('b', {}, 1);
    assert.equal(book.closed('a'), true);
    assert.equal(keyOf(book.route({})), 'b', 'one connection left');
    assert.equal(codeOf(book.route({ session: 'a' })), 'CONNECTION_CLOSED');
    book.received('a', {}, 2); // a read queued before the close report
    assert.equal(codeOf(book.route({ session: 'a' })), 'CONNECTION_CLOSED', 'bytes after the close do not reopen it');
    assert.deepEqual(book.list().map((s) => s.key), ['b']);
  });

  it('remembers a bounded number of closed sessions', () => {
    const book = new SessionBook('tcp', { maxClosed: 2 });
    for (const k of ['a', 'b', 'c']) book.closed(k);
    assert.equal(keyOf(book.route({ session: 'a' })), 'a', 'the oldest is forgotten');
    assert.equal(codeOf(book.route({ session: 'c' })), 'CONNECTION_CLOSED');
  });

  it('a forgotten (evicted) session is no longer a target', () => {
    const book = new SessionBook('tcp');
    book.received('a', {}, 1);
    book.forget('a');
    assert.equal(codeOf(book.route({})), 'NOT_CONNECTED');
  });
});

describe('tcp status reports', () => {
  it('reads a tcp in server\'s connect and disconnect events', () => {
    assert.deepEqual(tcpConnectionEvent({ text: '1 connection', event: 'connect', ip: '127.0.0.1', port: 5123, _session: { type: 'tcp', id: 'x1' } }), {
      kind: 'opened',
      key: 'x1',
      peer: { address: '127.0.0.1', port: 5123 },
    });
    assert.equal(tcpConnectionEvent({ text: '0 connections', event: 'disconnect', _session: { type: 'tcp', id: 'x1' } })?.kind, 'closed');
  });

  it('reads a tcp in client\'s connected and disconnected texts', () => {
    assert.equal(tcpConnectionEvent({ fill: 'green', text: 'common.status.connected', _session: { type: 'tcp', id: 'c' } })?.kind, 'opened');
    assert.equal(tcpConnectionEvent({ fill: 'red', text: 'common.status.disconnected', _session: { type: 'tcp', id: 'c' } })?.kind, 'closed');
  });

  it('ignores every other status', () => {
    assert.equal(tcpConnectionEvent({ fill: 'grey', text: 'common.status.connecting' }), undefined);
    assert.equal(tcpConnectionEvent({ text: 'common.status.connected' }), undefined, 'no session');
    assert.equal(tcpConnectionEvent({ text: 'common.status.connected', _session: { type: 'websocket', id: 'w' } }), undefined);
    assert.equal(tcpConnectionEvent('connected'), undefined);
    assert.equal(tcpConnectionEvent(undefined), undefined);
  });

  it('takes only TCP sessions', () => {
    assert.equal(tcpSessionKey({ type: 'tcp', id: 'abc' }), 'abc');
    assert.equal(tcpSessionKey({ type: 'websocket', id: 'abc' }), undefined);
    assert.equal(tcpSessionKey({ id: 'made-by-hand' }), 'made-by-hand');
    assert.equal(tcpSessionKey({ type: 'tcp' }), undefined);
    assert.equal(tcpSessionKey(null), undefined);
  });
});

describe('messageSender', () => {
  const msg = (text: string) => Buffer.from(text, 'latin1');

  it('reads H-5 with the delimiters the header declares', () => {
    assert.deepEqual(messageSender(msg('H|\\^&|||CL-2000i^1.0^SN42|||||||PR|1394-97\rL|1\r')), { text: 'CL-2000i^1.0^SN42', name: 'CL-2000i' });
    assert.deepEqual(messageSender(msg('H|@^\\|||GeneXpert^4.8\rL|1\r')), { text: 'GeneXpert^4.8', name: 'GeneXpert' });
    // Fewer delimiters declared: what is not declared is plain text.
    assert.deepEqual(messageSender(msg('H|\\^|||IMMULITE^R&D\rL|1\r')), { text: 'IMMULITE^R&D', name: 'IMMULITE' });
    assert.deepEqual(messageSender(msg('H||||LIAISON^XL\rL|1\r')), { text: 'LIAISON^XL', name: 'LIAISON^XL' });
  });

  it('resolves escapes and trims the name', () => {
    assert.deepEqual(messageSender(msg('H|\\^&|||A&F&B ^x\r')), { text: 'A|B ^x', name: 'A|B' });
  });

  it('gives nothing for a message with no H record, no sender or a broken header', () => {
    assert.equal(messageSender(msg('P|1\rL|1\r')), undefined);
    assert.equal(messageSender(msg('H|\\^&\rL|1\r')), undefined);
    assert.equal(messageSender(msg('H|\\^&||| \r')), undefined);
    assert.equal(messageSender(msg('H|AB|||X\r')), undefined);
  });
});

describe('onlyQueries', () => {
  const msg = (text: string) => Buffer.from(text, 'latin1');

  it('is true for Q records with only H, C and L around them, in the delimiters the header declares', () => {
    assert.equal(onlyQueries(msg('H|\\^&|||LIS\rQ|1|^S1||ALL\rL|1|N\r')), true);
    assert.equal(onlyQueries(msg('H|\\^&\rQ|1|^S1\rC|1|I|note\rQ|2|^S2\rL|1\r')), true);
    assert.equal(onlyQueries(msg('H@\\^&\rQ@1@^S1\rL@1')), true);
  });

  it('is false for anything that may carry data: P, O, R, M, S records, no Q at all, or lines it cannot tell', () => {
    for (const text of [
      'H|\\^&\rP|1\rO|1|S1\rR|1|^^^GLU|5\rL|1\r',
      'H|\\^&\rQ|1|^S1\rR|1|^^^GLU|5\rL|1\r',
      'H|\\^&\rQ|1|^S1\rM|1|x\rL|1\r',
      'H|\\^&\rQ|1|^S1\rS|1|x\rL|1\r',
      'H|\\^&\rQ|1|^S1\rP|1\rL|1\r',
      'H|\\^&\rL|1\r',
      'H|\\^&\r\nQ|1|^S1\r\nL|1\r',
      'H|\\^&\r\rQ|1|^S1\rL|1\r',
      'Q1|^S1\rL|1\r',
      '',
    ]) assert.equal(onlyQueries(msg(text)), false, JSON.stringify(text));
  });
});

describe('a link whose connection closed', () => {
  const only = <T extends LinkAction['type']>(out: LinkAction[], type: T) => out.filter((a) => a.type === type) as Extract<LinkAction, { type: T }>[];

  it('fails the message in transfer and every queued one at once, with the reason', () => {
    const link = new AstmLink();
    const first = link.send(Buffer.from('H|\\^&\rL|1\r', 'latin1'), 'm1', 0);
    assert.deepEqual(first.find((a) => a.type === 'write'), { type: 'write', bytes: Buffer.from([ENQ]) });
    link.send(Buffer.from('H|\\^&\rL|1\r', 'latin1'), 'm2', 1);
    const out = link.disconnect(2, 'the TCP connection closed');
    assert.deepEqual(only(out, 'sendFailed').map((a) => [a.id, a.reason]), [
      ['m1', 'the TCP connection closed'],
      ['m2', 'the TCP connection closed'],
    ]);
    assert.equal(only(out, 'write').length, 0, 'nothing is written to a closed connection');
    assert.equal(link.queueLength, 0);
    assert.equal(link.state, 'idle');
    assert.equal(link.nextDeadline(), null, 'no time-out left to run');
  });

  it('discards a partial received message', () => {
    const link = new AstmLink();
    link.receive(Buffer.from([ENQ]), 0);
    link.receive(buildFrame(1, Buffer.from('H|\\^&\rP|1\r', 'latin1'), 'ETB'), 1);
    const out = link.disconnect(2, 'closed');
    assert.equal(only(out, 'discarded').length, 1);
    assert.equal(only(out, 'message').length, 0);
  });

  it('has nothing to fail when idle', () => {
    const link = new AstmLink();
    link.receive(Buffer.from([ACK]), 0);
    assert.deepEqual(only(link.disconnect(1, 'closed'), 'sendFailed'), []);
  });

  it('records only: a partial message is discarded', () => {
    const link = new UnframedLink();
    link.receive(Buffer.from('H|\\^&\rP|1\r', 'latin1'), 0);
    assert.equal(only(link.disconnect(1, 'closed'), 'discarded').length, 1);
    assert.deepEqual(link.disconnect(2, 'closed'), []);
  });
});
