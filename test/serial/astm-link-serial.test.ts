/**
 * astm-link between Node-RED's real serial nodes and an analyzer on the far end
 * of a socat pty pair: bytes cross a real (pseudo) serial line both ways.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ptyPair, type PtyPair } from '../../demo/pty';
import { AnalyzerPeer } from '../support/analyzer-peer';
import { collect, helper, nodeModules, waitUntil } from '../support/red';
import { serialNodesModule, serialPortConfig } from '../support/serial-flow';

const RESULT = 'H|\\^&|||cobas^1|||||host|RSUPL^REAL|P|1\rP|1\rO|1|S-100||^^^GLU|R\rR|1|^^^GLU|5.4|mmol/L||N||F\rL|1|N\r';
const ORDER = 'H|\\^&|||host|||||cobas|TSDWN^REPLY|P|1\rP|1||P-1||Roe^Jane\rO|1|S-200||^^^GLU\\^^^CREA|R\rL|1|N\r';

let pty: PtyPair;
let peer: AnalyzerPeer;

before(async () => {
  pty = await ptyPair();
  await helper.startServer();
  const flow = [
    serialPortConfig('sp', pty.host),
    { id: 'in', type: 'serial in', serial: 'sp', wires: [['link']] },
    { id: 'link', type: 'astm-link', name: 'analyzer', wires: [['out'], ['messages'], ['sent']] },
    { id: 'out', type: 'serial out', serial: 'sp' },
    { id: 'messages', type: 'helper' },
    { id: 'sent', type: 'helper' },
  ];
  await helper.load([serialNodesModule(), ...nodeModules('astm-link')] as never, flow as never);
  peer = await AnalyzerPeer.open(pty.analyzer);
});

after(async () => {
  await peer?.close();
  await helper.unload();
  await helper.stopServer();
  await pty?.stop();
});

describe('astm-link over a real serial line', () => {
  it('receives a framed message the analyzer sends, ACKing each frame', async () => {
    const messages = collect('messages');
    await peer.send(RESULT);
    await waitUntil(() => messages.length === 1, 10000, 'the message');
    assert.equal((messages[0]!.payload as Buffer).toString('latin1'), RESULT);
    assert.equal(messages[0]!.topic, 'astm:message');
  });

  it('sends a message to the analyzer and reports it once acknowledged', async () => {
    const sent = collect('sent');
    helper.getNode('link').receive({ topic: 'astm:send', payload: ORDER, _msgid: 'order-1' } as never);
    assert.equal(await peer.next(), ORDER);
    await waitUntil(() => sent.length === 1, 10000, 'the sent report');
    assert.equal((sent[0]!.astm as Record<string, unknown>).sent, true);
  });

  it('carries a message longer than one frame (240 characters) byte for byte', async () => {
    const messages = collect('messages');
    const long = `H|\\^&\rP|1||P-9||M\u00fcller^J\u00fcrgen\rO|1|S-300||^^^CBC|R\r${Array.from({ length: 12 }, (_, i) => `R|${i + 1}|^^^T${i}|${(i * 1.37).toFixed(2)}|10*3/uL|4.0-10.0|N||F`).join('\r')}\rL|1|N\r`;
    assert.ok(long.length > 500);
    await peer.send(long);
    await waitUntil(() => messages.length === 1, 10000, 'the long message');
    assert.equal((messages[0]!.payload as Buffer).toString('latin1'), long);
  });
});
