/**
 * Two analyzer tabs left on one serial device (an "Import copy" keeps the
 * example's ANALYZER_PORT): node-red-node-serialport opens the device once and
 * hands every byte to each serial in node on its path, so both links would
 * answer the analyzer and pass each result on. One link keeps the device (the
 * first in the flows), the other refuses the line, says so, and raises
 * PORT_SHARED once; redeployed on its own device it works.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ptyPair, type PtyPair } from '../../demo/pty';
import { AnalyzerPeer, openRawPeer, type RawPeer } from '../support/analyzer-peer';
import { LisStub } from '../support/lis-stub';
import { ALL_LIS_NODES, collect, helper, lastStatus, nodeModules, waitUntil } from '../support/red';
import { serialNodesModule, serialPortConfig } from '../support/serial-flow';

const MAPPING = [{ lisTestId: 'T-GLU', lisCode: 'GLU', lisName: 'Glucose', instrumentCode: 'GLUC' }];
const ACK = 0x06;
const result = (sample: string) => `H|\\^&|||ANALYZER^1|||||LIS||P|LIS2-A2|20261121093000\rP|1\rO|1|${sample}||^^^GLUC|R\rR|1|^^^GLUC|5.4|mmol/L||N||F\rL|1|N\r`;

/** One analyzer tab as the example makes it: serial in -> link -> astm-message -> test-mapper -> lis-send-results. */
function tab(p: string, serial: string): Array<Record<string, unknown>> {
  return [
    { id: `in-${p}`, type: 'serial in', serial, wires: [[`link-${p}`]] },
    { id: `link-${p}`, type: 'astm-link', name: `analyzer ${p}`, wires: [[`out-${p}`], [`astm-${p}`], []] },
    { id: `out-${p}`, type: 'serial out', serial },
    { id: `astm-${p}`, type: 'astm-message', dialect: 'generic-lis2a2', timeZone: 'Europe/Berlin', wires: [[], [`map-${p}`], [`link-${p}`], []] },
    { id: `map-${p}`, type: 'test-mapper', lis: 'cfg', direction: 'toLis', mapping: MAPPING, wires: [[`send-${p}`], []] },
    { id: `send-${p}`, type: 'lis-send-results', lis: 'cfg', wires: [['delivered']] },
  ];
}

let stub: LisStub;
let ptys: PtyPair[] = [];
let peers: Array<AnalyzerPeer | RawPeer> = [];

function flow(configs: Array<Record<string, unknown>>, serialA: string, serialB: string): Array<Record<string, unknown>> {
  return [
    ...configs,
    { id: 'cfg', type: 'lis-config', resultApiUrl: stub.url('/results'), timeout: 3000 },
    ...tab('A', serialA),
    ...tab('B', serialB),
    { id: 'delivered', type: 'helper' },
    { id: 'catcher', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', type: 'helper' },
  ];
}

const resultsFor = (sample: string) => stub.to('/results').filter((r) => JSON.stringify(r.json).includes(sample));
const shared = (caught: Array<Record<string, unknown>>) => caught.filter((m) => (m.error as { code?: string } | undefined)?.code === 'PORT_SHARED');

before(async () => {
  stub = await new LisStub().start();
  stub.reply('/results', { body: { status: 'success' } });
  await helper.startServer();
});

afterEach(async () => {
  for (const peer of peers) await peer.close();
  await helper.unload();
  for (const pty of ptys) await pty.stop();
  peers = [];
  ptys = [];
});

after(async () => {
  await helper.stopServer();
  await stub?.stop();
});

/** `p`: the test's own sample numbers (the LIS stand-in keeps every request). */
async function twoTabsOnOneDevice(oneConfig: boolean, p: string): Promise<void> {
  const pty = await ptyPair();
  ptys.push(pty);
  const configs = oneConfig ? [serialPortConfig('sp-A', pty.host)] : [serialPortConfig('sp-A', pty.host), serialPortConfig('sp-B', pty.host)];
  await helper.load([serialNodesModule(), ...nodeModules(...ALL_LIS_NODES)] as never, flow(configs, 'sp-A', oneConfig ? 'sp-A' : 'sp-B') as never);
  // The refusal is decided one turn after the flows started: after load() returns.
  const delivered = collect('delivered');
  const caught = collect('caught');
  const peer = await AnalyzerPeer.open(pty.analyzer);
  peers.push(peer);

  await peer.send(result(`${p}-1`));
  await peer.send(result(`${p}-2`));
  // Both uploaded by the link that keeps the device; a second link would have uploaded each as well by now (or soon after the second).
  await waitUntil(() => resultsFor(`${p}-2`).length >= 1, 10000, 'the results of the sample 2 at the LIS');
  await waitUntil(() => delivered.length >= 2, 10000, 'two deliveries');
  assert.equal(resultsFor(`${p}-1`).length, 1, 'the LIS got the results of the sample 1 once');
  assert.equal(resultsFor(`${p}-2`).length, 1, 'the LIS got the results of the sample 2 once');
  // ENQ and one frame, acknowledged once each, per message.
  assert.equal(peer.heard.filter((b) => b === ACK).length, 4, 'the analyzer got single ACKs');

  await waitUntil(() => shared(caught).length >= 1, 10000, 'PORT_SHARED raised');
  const error = shared(caught);
  assert.equal(error.length, 1, 'PORT_SHARED raised once');
  assert.equal((error[0]!.error as { source?: { id?: string } }).source?.id, 'link-B');
  assert.match(String((error[0]!.error as { message?: string }).message), new RegExp(`serial port ${pty.host} is read by astm-link "analyzer A" too`));
  const status = lastStatus(helper.getNode('link-B'));
  assert.equal(status?.fill, 'red');
  assert.equal(status?.text, `serial port ${pty.host} is read by astm-link "analyzer A" too: give this tab its own ANALYZER_PORT`);
  assert.notEqual(lastStatus(helper.getNode('link-A'))?.fill, 'red');
  // The Lab sidebar's row: the port shared, not connected.
  assert.equal(await transportOf('link-B'), 'port-shared');
  assert.notEqual(await transportOf('link-A'), 'port-shared');

  // Redeployed with tab B on a device of its own, both links work.
  const own = await ptyPair();
  ptys.push(own);
  await helper.setFlows(flow([serialPortConfig('sp-A', pty.host), serialPortConfig('sp-B', own.host)], 'sp-A', 'sp-B') as never, 'full');
  const deliveredAfter = collect('delivered');
  const caughtAfter = collect('caught');
  const peerB = await AnalyzerPeer.open(own.analyzer);
  peers.push(peerB);
  const before = peer.heard.length;
  await peer.send(result(`${p}-3`));
  await peerB.send(result(`${p}-4`));
  await waitUntil(() => resultsFor(`${p}-3`).length >= 1 && resultsFor(`${p}-4`).length >= 1, 10000, 'the results of the samples 3 and 4 at the LIS');
  await waitUntil(() => deliveredAfter.length >= 2, 10000, 'two deliveries');
  assert.equal(resultsFor(`${p}-3`).length, 1);
  assert.equal(resultsFor(`${p}-4`).length, 1);
  assert.equal(peer.heard.slice(before).filter((b) => b === ACK).length, 2);
  assert.equal(peerB.heard.filter((b) => b === ACK).length, 2);
  assert.equal(shared(caughtAfter).length, 0, 'no PORT_SHARED after the redeploy');
  assert.notEqual(lastStatus(helper.getNode('link-B'))?.fill, 'red');
  assert.notEqual(await transportOf('link-B'), 'port-shared');
}

async function transportOf(link: string): Promise<string | undefined> {
  const res = await helper.request().get('/lis-bridge/links').expect(200);
  return (res.body.links as Array<{ node: string; transport: string }>).find((l) => l.node === link)?.transport;
}

describe('two links on one serial device', () => {
  it('two serial port configurations with the same path (an Import copy): one link keeps it, the other refuses the line', () => twoTabsOnOneDevice(false, 'COPY'));
  it('one serial port configuration shared by both tabs: the same', () => twoTabsOnOneDevice(true, 'ONE'));
});

const MLLP = (text: string) => Buffer.from(`\x0b${text}\x1c\r`, 'latin1');
const oru = (id: string) => MLLP(`MSH|^~\\&|ANALYZER|LAB|LIS|LAB|20261127093000||ORU^R01|${id}|P|2.3.1\rPID|1||P-1\rOBR|1||${id}|GLU\rOBX|1|NM|GLU^Glucose||5.4|mmol/L|||||F\r`);
/** The ACKs the host wrote: one MLLP frame each. */
const acks = (heard: number[]) => heard.filter((b) => b === 0x0b).length;

describe('two hl7-links over serial on one device', () => {
  it('one link keeps it: each message acknowledged and passed on once, the other link red with PORT_SHARED once', async () => {
    const pty = await ptyPair();
    ptys.push(pty);
    const flow = [
      serialPortConfig('sp-A', pty.host),
      serialPortConfig('sp-B', pty.host),
      ...['A', 'B'].flatMap((p) => [
        { id: `in-${p}`, type: 'serial in', serial: `sp-${p}`, wires: [[`link-${p}`]] },
        { id: `link-${p}`, type: 'hl7-link', name: `analyzer ${p}`, transport: 'serial', wires: [[`out-${p}`], ['messages'], []] },
        { id: `out-${p}`, type: 'serial out', serial: `sp-${p}` },
      ]),
      { id: 'messages', type: 'helper' },
      { id: 'catcher', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
      { id: 'caught', type: 'helper' },
    ];
    await helper.load([serialNodesModule(), ...nodeModules('hl7-link')] as never, flow as never);
    const messages = collect('messages');
    const caught = collect('caught');
    const peer = await openRawPeer(pty.analyzer);
    peers.push(peer);
    peer.write(oru('HL7-1'));
    await waitUntil(() => acks(peer.heard) >= 1, 10000, 'the ACK of the first message');
    peer.write(oru('HL7-2'));
    await waitUntil(() => acks(peer.heard) >= 2 && messages.length >= 2, 10000, 'the second message, acknowledged and passed on');
    assert.equal(messages.length, 2, 'each message passed on once');
    assert.deepEqual(messages.map((m) => (m.hl7 as { link?: string }).link), ['link-A', 'link-A']);
    assert.equal(acks(peer.heard), 2, 'each message acknowledged once');
    await waitUntil(() => shared(caught).length >= 1, 10000, 'PORT_SHARED raised');
    assert.equal(shared(caught).length, 1);
    assert.equal(lastStatus(helper.getNode('link-B'))?.text, `serial port ${pty.host} is read by hl7-link "analyzer A" too: give this tab its own ANALYZER_PORT`);
    assert.equal(await transportOf('link-B'), 'port-shared');
  });
});
