/** astm-link in a Node-RED runtime, fed bytes directly: sessions, NAKs, time-outs, sending. */
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { collect, helper, journalDir, nodeModules, waitUntil } from '../support/red';
import { buildFrames } from '../../lib/protocols/astm/link';

beforeEach(() => helper.startServer());
afterEach(async () => {
  await helper.unload();
  await helper.stopServer();
});

const MSG = 'H|\\^&\rP|1\rO|1|S1||^^^GLU\rR|1|^^^GLU|5.4\rL|1|N\r';
const ENQ = Buffer.from([0x05]);
const EOT = Buffer.from([0x04]);
const ACK = 0x06;
const NAK = 0x15;

async function load(props: Record<string, unknown> = {}): Promise<void> {
  const flow = [
    { id: 'link', type: 'astm-link', wires: [['line'], ['messages'], ['sent']], ...props },
    { id: 'line', type: 'helper' },
    { id: 'messages', type: 'helper' },
    { id: 'sent', type: 'helper' },
    { id: 'catcher', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', type: 'helper' },
  ];
  await helper.load(nodeModules('astm-link') as never, flow as never);
}

const feed = (bytes: Buffer, session?: { id: string }) => helper.getNode('link').receive({ payload: bytes, ...(session ? { _session: session } : {}) } as never);
const frames = (text: string) => buildFrames(Buffer.from(text, 'latin1'), { frameTextMax: 240 });

describe('astm-link node', () => {
  it('keeps one link per TCP session and answers each on its own session', async () => {
    await load();
    const line = collect('line');
    const messages = collect('messages');
    const a = { id: 'conn-a' };
    const b = { id: 'conn-b' };
    feed(ENQ, a);
    feed(ENQ, b);
    for (const f of frames(MSG)) {
      feed(f, a);
      feed(f, b);
    }
    feed(EOT, a);
    feed(EOT, b);
    await waitUntil(() => messages.length === 2);
    assert.deepEqual(messages.map((m) => (m._session as { id: string }).id).sort(), ['conn-a', 'conn-b']);
    assert.ok(messages.every((m) => (m.payload as Buffer).toString('latin1') === MSG));
    assert.ok(line.every((m) => (m.payload as Buffer)[0] === ACK), 'every reply an ACK');
    assert.equal(line.filter((m) => (m._session as { id: string }).id === 'conn-a').length, line.length / 2);
  });

  it('NAKs a frame with a bad checksum and delivers the message once after the resend', async () => {
    await load();
    const line = collect('line');
    const messages = collect('messages');
    const [frame] = frames(MSG);
    const bad = Buffer.from(frame!);
    bad[bad.length - 3] = bad[bad.length - 3] === 0x30 ? 0x31 : 0x30; // one checksum digit off
    feed(ENQ);
    feed(bad);
    await waitUntil(() => line.length === 2);
    assert.equal((line[1]!.payload as Buffer)[0], NAK);
    feed(frame!);
    feed(EOT);
    await waitUntil(() => messages.length === 1);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(messages.length, 1);
  });

  it('discards a half-received message on the receive time-out, with a warning, and never delivers it', async () => {
    await load({ receiveTimeoutMs: 100 });
    const messages = collect('messages');
    const long = frames(`H|\\^&\rP|1\rO|1|S1||^^^GLU\r${'C|1|I|'.padEnd(400, 'x')}\rL|1|N\r`);
    assert.ok(long.length > 1);
    feed(ENQ);
    feed(long[0]!);
    const warn = (helper.getNode('link') as unknown as { warn: { args: unknown[][] } }).warn;
    await waitUntil(() => warn.args.some((a) => /discarded/.test(String(a[0]))), 3000, 'the discard warning');
    assert.equal(messages.length, 0);
  });

  it('NAKs a message past Largest message (maxMessageBytes) and never delivers a part of it', async () => {
    await load({ maxMessageBytes: '2048', journal: false });
    const line = collect('line');
    const messages = collect('messages');
    const big = frames(`H|\\^&\rP|1\rO|1|S1||^^^GLU\r${'C|1|I|'.padEnd(4000, 'x')}\rL|1|N\r`);
    feed(ENQ);
    for (const f of big) feed(f);
    feed(EOT);
    await waitUntil(() => line.some((m) => (m.payload as Buffer)[0] === NAK));
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(messages.length, 0);
    // A message within the limit still goes through.
    feed(ENQ);
    for (const f of frames(MSG)) feed(f);
    feed(EOT);
    await waitUntil(() => messages.length === 1);
  });

  it('sends an astm:send message frame by frame and reports it on output 3', async () => {
    await load();
    const line = collect('line');
    const sent = collect('sent');
    helper.getNode('link').receive({ topic: 'astm:send', payload: MSG, tag: 'order-1' } as never);
    await waitUntil(() => line.length === 1);
    assert.deepEqual([...(line[0]!.payload as Buffer)], [0x05], 'ENQ first');
    feed(Buffer.from([ACK]));
    await waitUntil(() => line.length === 2);
    feed(Buffer.from([ACK]));
    await waitUntil(() => line.length === 3);
    assert.deepEqual([...(line[2]!.payload as Buffer)], [0x04], 'EOT last');
    await waitUntil(() => sent.length === 1);
    assert.equal(sent[0]!.tag, 'order-1');
  });

  it('refuses a bad timer value by name instead of running with a default', async () => {
    await load({ receiveTimeoutMs: 'soon' });
    const caught = collect('caught');
    // At deploy, before any byte, and again for each input.
    await waitUntil(() => caught.length === 1);
    feed(ENQ);
    await waitUntil(() => caught.length === 2);
    assert.equal((caught[1]!.error as Record<string, unknown>).code, 'NOT_CONFIGURED');
    assert.equal((caught[0]!.error as Record<string, unknown>).code, 'NOT_CONFIGURED');
    assert.match(String((caught[0]!._error as Record<string, unknown>).message), /receiveTimeoutMs must be a whole number of at least 1, not "soon"/);
  });

  it('reports a message the analyzer never accepts to Catch nodes (SEND_FAILED)', async () => {
    await load({ replyTimeoutMs: 30, retryDelayMs: 20 });
    const caught = collect('caught');
    const link = helper.getNode('link') as unknown as { receive(m: unknown): void };
    link.receive({ topic: 'astm:send', payload: MSG });
    await waitUntil(() => caught.length === 1, 5000, 'SEND_FAILED');
    assert.equal((caught[0]!.error as Record<string, unknown>).code, 'SEND_FAILED');
  });

  it('traces every unit in and out with its time, in an owner-only file, blanking patient data when asked', async () => {
    const patient = 'H|\\^&\rP|1||PID7||Doe^Jane||19800101|F\rO|1|S1||^^^GLU\rR|1|^^^GLU|5.4\rL|1|N\r';
    for (const redact of [false, true]) {
      await helper.unload();
      await load({ traceRedact: redact });
      const messages = collect('messages');
      const line = collect('line');
      const sent = frames(patient);
      feed(ENQ);
      for (const f of sent) feed(f);
      // As an analyzer does: EOT only after the last frame's ACK (which waits for the journal).
      await waitUntil(() => line.length === sent.length + 1, 5000, 'the final ACK');
      feed(EOT);
      await waitUntil(() => messages.length === 1);
      await helper.unload(); // closing the node flushes its trace
      const file = join(journalDir(), 'trace', 'link.trace.log');
      const lines = readFileSync(file, 'latin1').trim().split('\n');
      assert.match(lines[0]!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z in <ENQ>$/);
      assert.match(lines[1]!, /Z out <ACK>$/);
      assert.ok(lines.some((l) => / in <STX>1H\|/.test(l)), 'the frame, byte for byte');
      assert.match(lines.at(-1)!, /Z in <EOT>$/);
      const text = lines.join('\n');
      if (redact) {
        assert.doesNotMatch(text, /Doe|Jane|19800101/);
        assert.match(text, /\*\*\*.*\[redacted\]/);
        assert.match(text, /PID7/, 'only the name and birth date are blanked');
      } else {
        assert.match(text, /Doe\^Jane\|\|19800101/);
      }
      assert.equal(statSync(file).mode & 0o777, 0o600);
      await load();
    }
  });

  it('writes no trace when tracing is off', async () => {
    await load({ trace: false });
    const messages = collect('messages');
    feed(ENQ);
    for (const f of frames(MSG.replace('5.4', '6.1'))) feed(f);
    feed(EOT);
    await waitUntil(() => messages.length === 1);
    await helper.unload();
    assert.throws(() => statSync(join(journalDir(), 'trace', 'link.trace.log')), /ENOENT/);
    await load();
  });
});
