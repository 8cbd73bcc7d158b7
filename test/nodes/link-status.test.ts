/**
 * What an operator must act on stays on the node's status until it is
 * resolved, whatever traffic follows (issue 22): an astm-link's stuck
 * messages, a lis-send-results node's held batches. Real Node-RED runtime,
 * real journal on disk, loopback LIS.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useLisStub } from '../support/lifecycle';
import { FAST } from '../support/lis-flow';
import { ALL_LIS_NODES, collect, helper, journalDir, keepJournalForNextLoad, nodeModules, waitUntil } from '../support/red';
import { statusOf, statusesOf } from '../support/node-spies';
import { writeJournal } from '../support/journal-file';
import { buildFrames } from '../../lib/protocols/astm/link';
import { resultMessage } from '../support/result-message';

const ctx = useLisStub();

const ENQ = Buffer.from([0x05]);
const EOT = Buffer.from([0x04]);
const MAPPING = [
  { lisTestId: 'T-GLU', lisCode: 'GLU', lisName: 'Glucose', instrumentCode: 'GLU' },
  { lisTestId: 'T-CREA', lisCode: 'CREA', lisName: 'Creatinine', instrumentCode: 'CREA' },
];

async function loadChain(): Promise<void> {
  const flow = [
    { id: 'lisCfg', type: 'lis-config', resultApiUrl: ctx.stub.url('/results'), ...FAST },
    { id: 'lnk', type: 'astm-link', wires: [['hLine'], ['msgr'], []] },
    { id: 'hLine', type: 'helper' },
    { id: 'msgr', type: 'astm-message', dialect: 'generic-lis2a2', timeZone: 'Europe/Berlin', wires: [[], ['mapper'], [], []] },
    { id: 'mapper', type: 'test-mapper', direction: 'toLis', unmapped: 'warn', mapping: MAPPING, wires: [['sender'], []] },
    { id: 'sender', type: 'lis-send-results', lis: 'lisCfg', wires: [['hOut']] },
    { id: 'hOut', type: 'helper' },
  ];
  await helper.load(nodeModules(...ALL_LIS_NODES) as never, flow as never, { lisCfg: { bearerToken: 'status-test-token' } } as never);
}

/** A journal as a previous run left it (written with the runtime stopped), then Node-RED started on it. */
async function startWith(write: Parameters<typeof writeJournal>[1]): Promise<void> {
  await loadChain();
  const dir = journalDir();
  await helper.unload();
  await writeJournal(dir, write);
  keepJournalForNextLoad();
  await loadChain();
}

/** One message from the analyzer over the framed line, each step after astm-link's reply to the one before. */
async function analyzerSends(text: string): Promise<void> {
  const line = collect('hLine');
  const link = helper.getNode('lnk');
  const step = async (bytes: Buffer, what: string) => {
    const want = line.length + 1;
    link.receive({ payload: bytes } as never);
    await waitUntil(() => line.length >= want, 3000, what);
  };
  await step(ENQ, 'the ACK of ENQ');
  for (const [i, frame] of buildFrames(Buffer.from(text, 'latin1'), { frameTextMax: 60 }).entries()) await step(frame, `the reply to frame ${i + 1}`);
  link.receive({ payload: EOT } as never);
}

const text = (id: string): string => String(statusOf(id)?.text ?? '');

describe('statuses an operator must act on', () => {
  it('astm-link keeps "n stuck" in red through further traffic, and shows the link again once each stuck message is dismissed or replayed through', async () => {
    ctx.stub.reply('/results', { body: { status: 'success' } });
    await startWith(async (j) => {
      for (const id of ['rx-stuck-1', 'rx-stuck-2']) {
        await j.received('lnk', id, Buffer.from(resultMessage(`S-${id}`), 'latin1'), 'terminator');
        await j.replayed(id);
        await j.markStuck(id, 'its tests were not mapped');
      }
    });
    await waitUntil(() => /^2 stuck/.test(text('lnk')), 3000, 'the stuck status');
    assert.equal(statusOf('lnk')?.fill, 'red');
    const from = statusesOf('lnk').length;

    // Traffic: a new message goes through to the LIS; the link goes busy and idle again.
    const out = collect('hOut');
    await analyzerSends(resultMessage('S-NEW'));
    await waitUntil(() => out.length === 1, 3000, 'the new results at the LIS');
    const during = statusesOf('lnk').slice(from);
    assert.deepEqual(
      during.filter((s) => !/^2 stuck/.test(String(s.text)) || s.fill !== 'red'),
      [],
      'every status written during the traffic still says 2 stuck, in red',
    );
    assert.match(text('lnk'), /^2 stuck/);

    await helper.request().post('/lis-bridge/stuck/rx-stuck-1/dismiss').expect(200);
    await waitUntil(() => /^1 stuck/.test(text('lnk')), 2000, 'one stuck left');
    await helper.request().post('/lis-bridge/stuck/rx-stuck-2/replay').expect(200);
    await waitUntil(() => out.length === 2, 3000, 'the replayed results at the LIS');
    await waitUntil(() => statusOf('lnk')?.fill === 'green', 2000, 'the link green again');
    assert.match(text('lnk'), /^idle/);
  });

  it('lis-send-results keeps "n held" through further sends, until the batch is resent', async () => {
    ctx.stub.reply('/results', { body: { status: 'success' } });
    await startWith(async (j) => {
      await j.beginSend({ key: 'held-batch', node: 'sender', samples: ['S-HELD'], body: [{ SampleNumber: 'S-HELD', TestCode: 'GLU', Result: '5.4' }], msg: {} });
      await j.settle('held-batch', 'failed', { error: { code: 'HTTP_STATUS', message: 'LIS ResultAPI answered 500', status: 500 } });
    });
    await waitUntil(() => /^1 held/.test(text('sender')), 3000, 'the held status');
    const from = statusesOf('sender').length;

    const out = collect('hOut');
    await analyzerSends(resultMessage('S-NEW'));
    await waitUntil(() => out.length === 1, 3000, 'the new results at the LIS');
    assert.deepEqual(
      statusesOf('sender').slice(from).filter((s) => !/^1 held/.test(String(s.text))),
      [],
      'every status written during the send still says 1 held',
    );

    await helper.request().post('/lis-bridge/held/held-batch/resend').expect(200);
    await waitUntil(() => statusOf('sender')?.fill === 'green', 3000, 'the held status cleared');
    assert.equal(text('sender'), 'none held');
  });
});
