/**
 * The whole analyzer <-> LIS workflow over a real serial line: an analyzer on
 * the far end of a socat pty pair (framing by the standard) scans barcodes,
 * receives order downloads and uploads results, through Node-RED's serial nodes,
 * astm-link, astm-message, lis-get-order, test-mapper and lis-send-results, to a
 * loopback LIS stand-in.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ptyPair, type PtyPair } from '../../demo/pty';
import { AnalyzerPeer } from '../support/analyzer-peer';
import { LisStub, anOrder } from '../support/lis-stub';
import { ALL_LIS_NODES, collect, helper, nodeModules, waitUntil } from '../support/red';
import { serialNodesModule, serialPortConfig } from '../support/serial-flow';
import { decodeMessage } from '../../lib/protocols/astm/records';

const MAPPING = [
  { lisTestId: 'T-GLU', lisCode: 'GLU', lisName: 'Glucose', instrumentCode: 'GLUC' },
  { lisTestId: 'T-CREA', lisCode: 'CREA', lisName: 'Creatinine', instrumentCode: 'CREA' },
];

let pty: PtyPair;
let peer: AnalyzerPeer;
let stub: LisStub;

before(async () => {
  pty = await ptyPair();
  stub = await new LisStub().start();
  stub.handle('/orders', (req) => {
    const sample = (req.json as { SampleNumber: string }).SampleNumber;
    if (sample.startsWith('NOORDER')) return { body: { status: 'not found' } };
    return { body: { status: 'success', order: anOrder(sample, { Tests: ['T-GLU', 'T-CREA'], patient: { ID: `P-${sample}`, Name: 'Roe, Jane', Sex: 'F', DateOfBirth: '19800229' } }) } };
  });
  stub.reply('/results', { body: { status: 'success' } });
  await helper.startServer();
  const flow = [
    serialPortConfig('sp', pty.host),
    { id: 'cfg', type: 'lis-config', transactionInfoApiUrl: stub.url('/orders'), resultApiUrl: stub.url('/results'), timeout: 3000 },
    { id: 'in', type: 'serial in', serial: 'sp', wires: [['link']] },
    { id: 'link', type: 'astm-link', wires: [['out'], ['astm'], []] },
    { id: 'out', type: 'serial out', serial: 'sp' },
    { id: 'astm', type: 'astm-message', dialect: 'generic-lis2a2', timeZone: 'Europe/Berlin', wires: [['getOrder'], ['mapToLis'], ['link'], ['other']] },
    { id: 'getOrder', type: 'lis-get-order', lis: 'cfg', wires: [['mapToAnalyzer'], ['astm']] },
    { id: 'mapToAnalyzer', type: 'test-mapper', lis: 'cfg', direction: 'toInstrument', mapping: MAPPING, wires: [['astm'], []] },
    { id: 'mapToLis', type: 'test-mapper', lis: 'cfg', direction: 'toLis', mapping: MAPPING, wires: [['send'], ['unmapped']] },
    { id: 'send', type: 'lis-send-results', lis: 'cfg', wires: [['delivered']] },
    { id: 'delivered', type: 'helper' },
    { id: 'unmapped', type: 'helper' },
    { id: 'other', type: 'helper' },
    { id: 'catcher', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', type: 'helper' },
  ];
  await helper.load([serialNodesModule(), ...nodeModules(...ALL_LIS_NODES)] as never, flow as never);
  peer = await AnalyzerPeer.open(pty.analyzer);
});

after(async () => {
  await peer?.close();
  await helper.unload();
  await helper.stopServer();
  await pty?.stop();
  await stub?.stop();
});

describe('analyzer <-> LIS over a serial line', () => {
  it('answers a host query with the order download of the right sample and patient', async () => {
    await peer.send('H|\\^&|||ANALYZER^1|||||LIS||P|LIS2-A2|20261121093000\rQ|1|^S-501||ALL||||||||O\rL|1|N\r');
    const download = decodeMessage(await peer.next());
    const order = download.records.find((r) => r.type === 'O') as unknown as Record<string, unknown>;
    const patient = download.records.find((r) => r.type === 'P') as unknown as Record<string, unknown>;
    assert.equal(order.specimenId, 'S-501');
    assert.deepEqual(order.universalTestId, [['', '', '', 'GLUC'], ['', '', '', 'CREA']]);
    assert.equal(order.reportType, 'Q', 'an answer to the query');
    assert.equal(patient.practicePatientId, 'P-S-501');
    assert.deepEqual(patient.name, ['Roe', 'Jane']);
    const [req] = stub.to('/orders');
    assert.equal(req!.headers['x-expected-sample'], 'S-501');
  });

  it('uploads results mapped to LIS codes for the right sample', async () => {
    const delivered = collect('delivered');
    await peer.send('H|\\^&|||ANALYZER^1|||||LIS||P|LIS2-A2|20261121094500\rP|1||P-S-501\rO|1|S-501||^^^GLUC\\^^^CREA|R\rR|1|^^^GLUC|5.4|mmol/L|3.9-6.1|N||F||||20261121094400\rR|2|^^^CREA|88|umol/L|45-90|N||F||||20261121094400\rL|1|N\r');
    await waitUntil(() => delivered.length === 1, 10000, 'results at the LIS');
    const [req] = stub.to('/results');
    assert.deepEqual(req!.json, {
      results: [
        { SampleNumber: 'S-501', TestCode: 'GLU', Result: '5.4' },
        { SampleNumber: 'S-501', TestCode: 'CREA', Result: '88' },
      ],
    });
    assert.deepEqual(delivered[0]!.processed, [{ SampleNumber: 'S-501', Tests: ['T-GLU', 'T-CREA'] }]);
  });

  it('answers "no information" when the LIS has no order for the sample', async () => {
    await peer.send('H|\\^&|||ANALYZER^1|||||LIS||P|LIS2-A2|20261121095000\rQ|1|^NOORDER-7||ALL||||||||O\rL|1|N\r');
    const answer = decodeMessage(await peer.next());
    const last = answer.records.at(-1) as unknown as Record<string, unknown>;
    assert.equal(last.type, 'L');
    assert.equal(last.terminationCode, 'I');
  });
});
