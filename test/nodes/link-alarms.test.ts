/**
 * Link alarms in a real Node-RED: an astm-link and an hl7-link with limits of
 * about a second and a check every second, a Catch node for the alarm and a Status node for
 * the clear, as a flow that notifies someone would wire them. A quiet line
 * (bytes fed to the node) and a TCP server with no analyzer connected (Node-RED's
 * own tcp in, a real loopback client connecting later).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { collect, helper, nodeModules, waitUntil, useTcpNodeTests } from '../support/red';
import { freePort } from '../support/ports';

const tcpNodes = require(require.resolve('@node-red/nodes/core/network/31-tcpin.js'));

const sockets = useTcpNodeTests();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** About 1.2 s. */
const LIMIT_MINUTES = '0.02';

/** A Catch node for the alarms and a Status node for the clears. */
function watchers(): Array<Record<string, unknown>> {
  return [
    { id: 'catcher', type: 'catch', scope: ['link'], uncaught: false, wires: [['caught']] },
    { id: 'caught', type: 'helper' },
    { id: 'watch', type: 'status', scope: ['link'], wires: [['seen']] },
    { id: 'seen', type: 'helper' },
  ];
}

const codes = (caught: Array<Record<string, unknown>>) => caught.map((m) => (m.error as { code?: string }).code);
const fills = (seen: Array<Record<string, unknown>>) => seen.map((m) => (m.status as { fill?: string }).fill);
/** The alarms GET /lis-bridge/links (the Lab sidebar's route) shows on the link. */
async function alarmsShown(): Promise<string[] | undefined> {
  const res = await helper.request().get('/lis-bridge/links').expect(200);
  return (res.body as { links: Array<{ node: string; alarms: Array<{ code: string }> }> }).links.find((l) => l.node === 'link')?.alarms.map((a) => a.code);
}
/** Polls until the clear shows on the Status node and the route. */
async function cleared(seen: Array<Record<string, unknown>>): Promise<void> {
  const started = Date.now();
  while (!(fills(seen).at(-1) === 'green' && (await alarmsShown())?.length === 0)) {
    if (Date.now() - started > 5000) throw new Error('timed out waiting for the clear');
    await sleep(50);
  }
}

/** A line that stays quiet on each link type, and the bytes of a message that ends the silence. */
const QUIET_LINKS = [
  { type: 'astm-link', name: 'bench 3', settings: { framing: 'unframed' }, message: 'H|\\^&|||ANALYZER-7\rL|1|N\r' },
  { type: 'hl7-link', name: 'bench 5', settings: {}, message: '\x0bMSH|^~\\&|ANALYZER-9|LAB|LIS|LAB|20240506093000||OUL^R22^OUL_R22|M1|P|2.5.1\r\x1c\r' },
];

describe('link alarms', () => {
  for (const quiet of QUIET_LINKS) {
    it(`${quiet.type} LINK_QUIET: raised once to a Catch node with what to check, shown on the status and the board; cleared by a message (the Status node sees green)`, async () => {
      const flow = [
        { id: 'link', type: quiet.type, name: quiet.name, transport: 'serial', ...quiet.settings, journal: false, trace: false, quietMinutes: LIMIT_MINUTES, quietDays: '', quietFrom: '', quietTo: '', alarmCheckSeconds: '1', wires: [[], ['out'], []] },
        { id: 'out', type: 'helper' },
        ...watchers(),
      ];
      // The same node set in every load of this file (the helper registers catch and status once per set).
      await helper.load([tcpNodes, ...nodeModules('astm-link', 'hl7-link')] as never, flow as never);
      const caught = collect('caught');
      const seen = collect('seen');
      await waitUntil(() => caught.length > 0, 10_000, 'LINK_QUIET');
      const alarm = caught[0]!;
      assert.deepEqual(codes(caught), ['LINK_QUIET']);
      assert.equal(alarm.topic, 'lis:alarm');
      const payload = alarm.payload as Record<string, unknown>;
      assert.deepEqual([payload.code, payload.link, payload.name, payload.analyzer], ['LINK_QUIET', 'link', quiet.name, 'not named yet']);
      assert.match((alarm.error as { message: string }).message, new RegExp(`^${quiet.name} \\(analyzer not named yet\\) has received no message since .+: check that the analyzer is on`));
      assert.deepEqual(await alarmsShown(), ['LINK_QUIET']);
      await waitUntil(() => fills(seen).includes('yellow'), 5000, 'the yellow ring');
      // Two more checks while still quiet: raised once.
      await sleep(2200);
      assert.deepEqual(codes(caught), ['LINK_QUIET']);

      helper.getNode('link').receive({ payload: Buffer.from(quiet.message, 'latin1') } as never);
      await cleared(seen);
      assert.deepEqual(codes(caught), ['LINK_QUIET']);
    });
  }

  it('LINK_DOWN: a TCP server with no analyzer connected past the limit is raised once, and clears when the analyzer connects', async () => {
    const port = await freePort();
    const flow = [
      { id: 'tcpin', type: 'tcp in', server: 'server', host: '', port: String(port), datamode: 'stream', datatype: 'buffer', newline: '', topic: '', wires: [['link']] },
      { id: 'link', type: 'astm-link', name: 'bench 4', transport: 'tcp', journal: false, trace: false, downMinutes: LIMIT_MINUTES, alarmCheckSeconds: '1', wires: [[], [], []] },
      // The link's health hears tcp in's connections from the runtime's status events: no Status node needed for that.
      ...watchers(),
    ];
    await helper.load([tcpNodes, ...nodeModules('astm-link', 'hl7-link')] as never, flow as never);
    const caught = collect('caught');
    const seen = collect('seen');
    await waitUntil(() => caught.length > 0, 10_000, 'LINK_DOWN');
    assert.deepEqual(codes(caught), ['LINK_DOWN']);
    assert.equal((caught[0]!.payload as { transport?: string }).transport, 'listening');
    assert.match((caught[0]!.error as { message: string }).message, /^bench 4 \(analyzer not named yet\) has been listening since .+: check the cable or network/);
    await waitUntil(() => fills(seen).includes('red'), 5000, 'the red ring');
    assert.deepEqual(await alarmsShown(), ['LINK_DOWN']);

    const socket = net.connect(port, '127.0.0.1');
    sockets.push(socket);
    await cleared(seen);
    assert.deepEqual(codes(caught), ['LINK_DOWN']);
  });
});
