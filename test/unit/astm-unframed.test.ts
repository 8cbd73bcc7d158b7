import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { UnframedLink } from '../../lib/protocols/astm/unframed-link';
import { LinkDriver } from '../../lib/link/driver';
import { AstmLink } from '../../lib/protocols/astm/link';
import type { LinkAction } from '../../lib/link/actions';

const MSG = 'H|\\^&\rP|1\rO|1|S1||^^^GLU\rR|1|^^^GLU|5.4\rL|1|N\r';
const messages = (actions: LinkAction[]) => actions.filter((a) => a.type === 'message').map((a) => (a.type === 'message' ? a.bytes.toString('latin1') : ''));

describe('records without framing', () => {
  it('delivers each message at its L record, whatever the chunking, and ignores LF after CR', () => {
    const link = new UnframedLink();
    const twice = MSG + MSG.replace(/\r/g, '\r\n');
    const out: string[] = [];
    for (let i = 0; i < twice.length; i += 3) out.push(...messages(link.receive(Buffer.from(twice.slice(i, i + 3), 'latin1'), i)));
    assert.deepEqual(out, [MSG, MSG]);
  });

  it('does not mistake an L inside a field for the terminator', () => {
    const link = new UnframedLink();
    assert.deepEqual(messages(link.receive(Buffer.from('H|\\^&\rP|1||L-1\rC|1|L|note\r'), 0)), []);
    assert.deepEqual(messages(link.receive(Buffer.from('L|1|N\r'), 1)), ['H|\\^&\rP|1||L-1\rC|1|L|note\rL|1|N\r']);
  });

  it('discards a partial message after the receive time-out, never delivering half', () => {
    const link = new UnframedLink({ receiveTimeoutMs: 100 });
    link.receive(Buffer.from('H|\\^&\rP|1\r'), 0);
    assert.equal(link.nextDeadline(), 100);
    const actions = link.tick(100);
    assert.equal(actions[0]?.type, 'discarded');
    assert.deepEqual(messages(link.receive(Buffer.from(MSG), 200)), [MSG]);
  });

  it('sends by writing the message as it is', () => {
    const actions = new UnframedLink().send(Buffer.from(MSG), 'x');
    assert.deepEqual(actions.map((a) => a.type), ['write', 'sent']);
  });
});

describe('link driver', () => {
  it('fires the link timers in real time: a silent peer makes our send fail, not hang', async () => {
    const seen: LinkAction[] = [];
    const driver = new LinkDriver(new AstmLink({ replyTimeoutMs: 20, retryDelayMs: 10, maxSendAttempts: 2 }), (a) => seen.push(a));
    driver.send(Buffer.from(MSG), 'm1');
    await new Promise((r) => setTimeout(r, 300));
    driver.close();
    const writes = seen.filter((a) => a.type === 'write').map((a) => (a.type === 'write' ? a.bytes.toString('latin1') : ''));
    assert.deepEqual(writes, ['\x05', '\x04', '\x05', '\x04'], 'ENQ, time-out EOT, retry ENQ, EOT');
    assert.ok(seen.some((a) => a.type === 'sendFailed' && a.id === 'm1'));
  });

  it('stops driving once closed', async () => {
    const seen: LinkAction[] = [];
    const driver = new LinkDriver(new AstmLink({ replyTimeoutMs: 20 }), (a) => seen.push(a));
    driver.send(Buffer.from(MSG), 'm1');
    driver.close();
    const before = seen.length;
    await new Promise((r) => setTimeout(r, 80));
    assert.equal(seen.length, before);
  });
});
