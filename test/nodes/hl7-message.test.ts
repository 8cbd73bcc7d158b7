/**
 * hl7-message in a Node-RED runtime: the Mindray CL manual's query in, the
 * sample out on output 1; the LIS order in, QCK^Q02 (expectAck false) and
 * DSR^Q03 out on output 3 with msg.hl7; a result message through test-mapper
 * and lis-send-results to the loopback LIS stand-in; the site's overrides of
 * its dialect read a capture differently, and overrides that make no usable
 * dialect are refused naming the setting.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { anOrder } from '../support/lis-stub';
import { useLisStub } from '../support/lifecycle';
import { ALL_LIS_NODES, collect, helper, lastStatus, nodeModules, waitUntil } from '../support/red';
import { loadHl7Fixture } from '../support/hl7-fixtures';

const ctx = useLisStub();

const MAPPING = [
  { lisTestId: 'T-TBIL', lisCode: 'TBIL', lisName: 'Bilirubin', instrumentCode: '2' },
  { lisTestId: 'T-ALT', lisCode: 'ALT', lisName: 'ALT', instrumentCode: '5' },
  { lisTestId: 'T-AST', lisCode: 'AST', lisName: 'AST', instrumentCode: '6' },
];

async function load(): Promise<void> {
  const flow = [
    { id: 'lisCfg', type: 'lis-config', resultApiUrl: ctx.stub.url('/results'), timeout: 2000 },
    { id: 'm', type: 'hl7-message', dialect: 'mindray-cl-hl7', timeZone: 'Europe/Berlin', wires: [['hQuery'], ['mapper', 'hResults'], ['hSend'], ['hOther']] },
    { id: 'hQuery', type: 'helper' },
    { id: 'hResults', type: 'helper' },
    { id: 'hSend', type: 'helper' },
    { id: 'hOther', type: 'helper' },
    { id: 'mapper', type: 'test-mapper', direction: 'toLis', unmapped: 'warn', mapping: MAPPING, wires: [['sender'], ['hUnmapped']] },
    { id: 'hUnmapped', type: 'helper' },
    { id: 'sender', type: 'lis-send-results', lis: 'lisCfg', wires: [['hOut']] },
    { id: 'hOut', type: 'helper' },
  ];
  await helper.load(nodeModules(...ALL_LIS_NODES) as never, flow as never, { lisCfg: { bearerToken: 'hl7-test-token' } } as never);
}

const received = (name: string) => ({ topic: 'hl7:message', payload: loadHl7Fixture(name).messages[0]!.bytes, hl7: { link: 'l1' } });

describe('hl7-message', () => {
  it('emits the queried sample, then answers with QCK^Q02 (no ACK expected) and DSR^Q03 on output 3', async () => {
    await load();
    const queries = collect('hQuery');
    const sent = collect('hSend');
    helper.getNode('m').receive(received('mindray-cl2000i-qry-q02.txt') as never);
    await waitUntil(() => queries.length === 1);
    assert.equal(queries[0]!.payload, '0019');
    helper.getNode('m').receive({ ...queries[0], payload: { ...anOrder('0019'), instrumentTests: ['1', '2', '5'] } } as never);
    await waitUntil(() => sent.length === 2);
    assert.deepEqual(sent.map((m) => m.topic), ['hl7:send', 'hl7:send']);
    const texts = sent.map((m) => (m.payload as Buffer).toString('latin1'));
    assert.match(texts[0]!, /\|QCK\^Q02\|4\|/);
    assert.match(texts[1]!, /\|DSR\^Q03\|4\|[\s\S]*\rDSP\|21\|\|0019\|\|\|\r[\s\S]*\rDSP\|29\|\|1\^\^\^\|\|\|\r/);
    assert.deepEqual(sent.map((m) => (m.hl7 as Record<string, unknown>).expectAck), [false, undefined]);
    assert.deepEqual(sent.map((m) => (m.hl7 as Record<string, unknown>).link), ['l1', 'l1']);
  });

  it('sends the manual result message to the LIS through test-mapper and lis-send-results', async () => {
    await load();
    const results = collect('hResults');
    helper.getNode('m').receive(received('mindray-cl2000i-oru-r01-result.txt') as never);
    await waitUntil(() => results.length === 1);
    assert.deepEqual((results[0]!.payload as Array<Record<string, unknown>>).map((r) => [r.SampleNumber, r.instrumentCode, r.Result, r.units]), [
      ['12345678', '2', '100', 'umol/L'],
      ['12345678', '5', '98.2', 'umol/L'],
      ['12345678', '6', '26.4', 'umol/L'],
    ]);
    await waitUntil(() => ctx.stub.requests.some((r) => r.path.endsWith('/results')));
    assert.deepEqual(ctx.stub.requests.find((r) => r.path.endsWith('/results'))!.json, {
      results: [
        { SampleNumber: '12345678', TestCode: 'TBIL', Result: '100' },
        { SampleNumber: '12345678', TestCode: 'ALT', Result: '98.2' },
        { SampleNumber: '12345678', TestCode: 'AST', Result: '26.4' },
      ],
    });
  });

  it('reads with the site\'s overrides of its dialect: the EDAN i15 codes from OBX-4 instead of the generic OBX-3', async () => {
    await loadSite('generic-oru');
    const before = collect('results');
    helper.getNode('m').receive(received('edan-i15-oru-r01.txt') as never);
    await waitUntil(() => before.length === 1);
    // OBX-3 of the EDAN is its result group, the same for every analyte.
    assert.deepEqual(codesOf(before[0]!).slice(0, 3), ['0', '0', '0']);
    await helper.unload();

    await loadSite('generic-oru', JSON.stringify({ results: { code: { segment: 'OBX', field: 4 } } }));
    const after = collect('results');
    helper.getNode('m').receive(received('edan-i15-oru-r01.txt') as never);
    await waitUntil(() => after.length === 1);
    assert.deepEqual(codesOf(after[0]!).slice(0, 3), ['pH', 'pO2', 'pCO2']);
    assert.equal(lastStatus(helper.getNode('m'))?.fill === 'red', false);
  });

  it('refuses overrides that do not make a usable dialect: a red status and an error to Catch naming the setting', async () => {
    await loadSite('generic-oru', JSON.stringify({ results: { code: { segment: 'OBX', field: 0 } } }));
    const node = helper.getNode('m');
    assert.equal(lastStatus(node)?.fill, 'red');
    assert.equal(lastStatus(node)?.text, 'set dialectOverrides.results.code.field');
    const caught = collect('caught');
    await waitUntil(() => caught.length === 1);
    node.receive(received('edan-i15-oru-r01.txt') as never);
    await waitUntil(() => caught.length === 2);
    const error = caught[1]!.error as Record<string, unknown>;
    assert.equal(error.code, 'NOT_CONFIGURED');
    assert.match(String(error.message), /dialect overrides: results\.code\.field must be a positive integer, got 0/);
  });
});

async function loadSite(dialect: string, dialectOverrides = ''): Promise<void> {
  const flow = [
    { id: 'm', type: 'hl7-message', dialect, dialectOverrides, timeZone: 'UTC', wires: [[], ['results'], [], []] },
    { id: 'results', type: 'helper' },
    { id: 'catcher', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', type: 'helper' },
  ];
  await helper.load(nodeModules('hl7-message') as never, flow as never);
}

const codesOf = (msg: Record<string, unknown>) => (msg.payload as Array<Record<string, unknown>>).map((r) => r.instrumentCode);
