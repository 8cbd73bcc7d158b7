/**
 * Link alarms in a real Node-RED: an astm-link and an hl7-link with a limit of
 * a minute and the default check interval, a Catch node for the alarm and a Status node for
 * the clear, as a flow that notifies someone would wire them. A quiet line
 * (bytes fed to the node) and a TCP server with no analyzer connected (Node-RED's
 * own tcp in, a real loopback client connecting later). The tests run the
 * check rounds themselves (runChecksNow), a minute and more ahead where the
 * limit has to have passed; one proves that settings.js's
 * lisBridge.checkEveryMs replaces the interval.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { bridgeSettingsForTests, allCaught, collect, helper, nodeModules, waitUntil, useTcpNodeTests } from '../support/red';
import { freePort } from '../support/ports';
import { runChecksNow } from '../../nodes/shared/periodic';

const tcpNodes = require(require.resolve('@node-red/nodes/core/network/31-tcpin.js'));

const sockets = useTcpNodeTests(() => bridgeSettingsForTests({}));

const LIMIT_MINUTES = '1';
const MINUTE = 60_000;
/** A check round `ms` from now (ms), as the link's own interval would run it then. */
const checkIn = (ms: number) => runChecksNow({ now: Date.now() + ms });

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
/** Check rounds now (the message or the connection has just come) until the clear shows on the Status node and the route. */
async function cleared(seen: Array<Record<string, unknown>>): Promise<void> {
  await waitUntil(
    async () => {
      await runChecksNow();
      return fills(seen).at(-1) === 'green' && (await alarmsShown())?.length === 0;
    },
    5000,
    'the clear',
  );
}

/** An astm-link as a TCP server (Node-RED's tcp in) with no analyzer connected: down from the start. */
function listeningFlow(port: number, link: Record<string, unknown>): Array<Record<string, unknown>> {
  return [
    { id: 'tcpin', type: 'tcp in', server: 'server', host: '', port: String(port), datamode: 'stream', datatype: 'buffer', newline: '', topic: '', wires: [['link']] },
    { id: 'link', type: 'astm-link', name: 'bench 4', transport: 'tcp', journal: false, trace: false, wires: [[], [], []], ...link },
    // The link's health hears tcp in's connections from the runtime's status events: no Status node needed for that.
    ...watchers(),
  ];
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
        { id: 'link', type: quiet.type, name: quiet.name, transport: 'serial', ...quiet.settings, journal: false, trace: false, quietMinutes: LIMIT_MINUTES, quietDays: '', quietFrom: '', quietTo: '', wires: [[], ['out'], []] },
        { id: 'out', type: 'helper' },
        ...watchers(),
      ];
      // The same node set in every load of this file (the helper registers catch and status once per set).
      await helper.load([tcpNodes, ...nodeModules('astm-link', 'hl7-link')] as never, flow as never);
      const caught = collect('caught');
      const seen = collect('seen');
      // Quiet for less than the minute: nothing (the board is updated within the round).
      await checkIn(MINUTE / 2);
      assert.deepEqual(await alarmsShown(), []);
      await checkIn(MINUTE + 1000);
      await waitUntil(() => caught.length > 0, 2000, 'LINK_QUIET');
      const alarm = caught[0]!;
      assert.deepEqual(codes(caught), ['LINK_QUIET']);
      assert.equal(alarm.topic, 'lis:alarm');
      const payload = alarm.payload as Record<string, unknown>;
      assert.deepEqual([payload.code, payload.link, payload.name, payload.analyzer], ['LINK_QUIET', 'link', quiet.name, 'not named yet']);
      assert.match((alarm.error as { message: string }).message, new RegExp(`^${quiet.name} \\(analyzer not named yet\\) has received no message since .+: check that the analyzer is on`));
      assert.deepEqual(await alarmsShown(), ['LINK_QUIET']);
      await waitUntil(() => fills(seen).includes('yellow'), 5000, 'the yellow ring');
      // Two more checks while still quiet, the last ten minutes on: raised once.
      await checkIn(MINUTE + 2000);
      await checkIn(10 * MINUTE);
      await allCaught('link', caught);
      assert.deepEqual(codes(caught), ['LINK_QUIET']);

      helper.getNode('link').receive({ payload: Buffer.from(quiet.message, 'latin1') } as never);
      await cleared(seen);
      assert.deepEqual(codes(caught), ['LINK_QUIET']);
    });
  }

  it('LINK_DOWN: a TCP server with no analyzer connected past the limit is raised once, and clears when the analyzer connects', async () => {
    const port = await freePort();
    await helper.load([tcpNodes, ...nodeModules('astm-link', 'hl7-link')] as never, listeningFlow(port, { downMinutes: LIMIT_MINUTES }) as never);
    const caught = collect('caught');
    const seen = collect('seen');
    // Rounds a minute on, until the link has heard that tcp in listens (its runtime status event) and the alarm is up.
    await waitUntil(
      async () => {
        await checkIn(MINUTE + 1000);
        return (await alarmsShown())?.includes('LINK_DOWN') === true;
      },
      10_000,
      'LINK_DOWN on the board',
    );
    await waitUntil(() => caught.length > 0, 2000, 'LINK_DOWN at Catch');
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

  it('checks on the interval settings.js\'s lisBridge.checkEveryMs sets, in place of the link\'s own (30 s by default)', async () => {
    bridgeSettingsForTests({ checkEveryMs: 50 });
    const port = await freePort();
    // Down for 60 ms is past the limit: the first tick after that raises it, on its own.
    await helper.load([tcpNodes, ...nodeModules('astm-link', 'hl7-link')] as never, listeningFlow(port, { downMinutes: '0.001' }) as never);
    const caught = collect('caught');
    await waitUntil(() => caught.length > 0, 5000, 'LINK_DOWN from a tick 50 ms apart');
    assert.deepEqual(codes(caught), ['LINK_DOWN']);
  });
});
