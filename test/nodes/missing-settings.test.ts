/**
 * An integrator's first deploy with settings missing (issue 22): every node
 * whose setting is unset or invalid shows a red status naming the variable or
 * setting to set, and a Catch node hears it at deploy, before any message. A
 * link whose transport is down never shows green "idle".
 */
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { ptyPair, type PtyPair } from '../../demo/pty';
import { ALL_LIS_NODES, collect, helper, lastStatus, nodeModules, statuses, waitUntil } from '../support/red';
import { freePort } from '../support/ports';
import { serialNodesModule, serialPortConfig } from '../support/serial-flow';

const tcpNodes = require(require.resolve('@node-red/nodes/core/network/31-tcpin.js'));
const MODULES = [tcpNodes, serialNodesModule(), ...nodeModules(...ALL_LIS_NODES, 'hl7-link')];

const ptys: PtyPair[] = [];
const servers: net.Server[] = [];
beforeEach(() => helper.startServer());
afterEach(async () => {
  await helper.unload();
  await helper.stopServer();
  for (const s of servers.splice(0)) s.close();
  await Promise.all(ptys.splice(0).map((p) => p.stop()));
});

const CATCH = [
  { id: 'catcher', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
  { id: 'caught', type: 'helper' },
];

async function load(flow: Array<Record<string, unknown>>): Promise<Array<Record<string, unknown>>> {
  await helper.load(MODULES as never, [...flow, ...CATCH] as never);
  return collect('caught');
}

const errorOf = (m: Record<string, unknown>) => m.error as { message: string; code?: string };
const status = (id: string) => lastStatus(helper.getNode(id));

/** Red, naming the variable; a Catch error at deploy with what to set. */
async function expectNamed(caught: Array<Record<string, unknown>>, id: string, text: string, variable: string): Promise<void> {
  await waitUntil(() => caught.length > 0, 5000, `the Catch error of ${id}`);
  assert.deepEqual([status(id)?.fill, status(id)?.text], ['red', text]);
  const err = errorOf(caught[0]!);
  assert.equal(err.code, 'NOT_CONFIGURED');
  assert.match(err.message, new RegExp(`set ${variable}`));
  assert.deepEqual((caught[0]!._error as { code?: string }).code, 'NOT_CONFIGURED', 'msg.error = { message, code }');
}

describe('a setting left as an unset ${VAR} is named, at deploy', () => {
  it('lis-push-in: its port', async () => {
    const caught = await load([{ id: 'n', type: 'lis-push-in', localApiAddress: '127.0.0.1', localApiPort: '${LIS_PUSH_PORT_UNSET_T}', wires: [[]] }]);
    await expectNamed(caught, 'n', 'set LIS_PUSH_PORT_UNSET_T (localApiPort)', 'LIS_PUSH_PORT_UNSET_T');
  });

  it('lis-push-in: a port that is not a number names the setting (no RangeError)', async () => {
    const caught = await load([{ id: 'n', type: 'lis-push-in', localApiAddress: '127.0.0.1', localApiPort: 'eighty', wires: [[]] }]);
    await waitUntil(() => caught.length > 0, 5000, 'the Catch error');
    assert.deepEqual([status('n')?.fill, status('n')?.text], ['red', 'set localApiPort']);
    assert.match(errorOf(caught[0]!).message, /localApiPort must be a whole number from 0 to 65535, not "eighty"/);
    assert.doesNotMatch(errorOf(caught[0]!).message, /RangeError|NaN/);
  });

  for (const [type, setting, label] of [
    ['lis-get-order', 'transactionInfoApiUrl', 'TransactionInfoAPI URL'],
    ['lis-get-tests', 'labTestsApiUrl', 'LabTestsAPI URL'],
    ['lis-send-results', 'resultApiUrl', 'ResultAPI URL'],
  ] as const) {
    it(`${type}: the endpoint of its lis-config`, async () => {
      const config = { id: 'cfg', type: 'lis-config', labTestsApiUrl: 'http://127.0.0.1:1/t', transactionInfoApiUrl: 'http://127.0.0.1:1/o', resultApiUrl: 'http://127.0.0.1:1/r', [setting]: '${LIS_URL_UNSET_T}' };
      const caught = await load([config, { id: 'n', type, lis: 'cfg', wires: [[], []] }]);
      await expectNamed(caught, 'n', `set LIS_URL_UNSET_T (${label})`, 'LIS_URL_UNSET_T');
    });
  }

  it('lis-mark-processed: its optional endpoint is off, and says which variable would turn it on', async () => {
    await load([
      { id: 'cfg', type: 'lis-config', labTestsApiUrl: 'http://127.0.0.1:1/t', transactionInfoApiUrl: 'http://127.0.0.1:1/o', resultApiUrl: 'http://127.0.0.1:1/r', orderCompletedApiUrl: '${LIS_PROCESSED_UNSET_T}' },
      { id: 'n', type: 'lis-mark-processed', lis: 'cfg', wires: [['out']] },
      { id: 'out', type: 'helper' },
    ]);
    assert.deepEqual([status('n')?.fill, status('n')?.text], ['grey', 'off: set LIS_PROCESSED_UNSET_T']);
    // A message passed on untouched keeps naming the variable (it read plain "disabled" after the first message).
    const out = collect('out');
    helper.getNode('n').receive({ payload: { SampleNumber: 'S1' } } as never);
    await waitUntil(() => out.length === 1, 3000, 'the message passed on');
    assert.deepEqual(out[0]!.payload, { SampleNumber: 'S1' });
    assert.deepEqual([status('n')?.fill, status('n')?.text], ['grey', 'off: set LIS_PROCESSED_UNSET_T']);
  });

  for (const [type, setting] of [
    ['astm-link', 'receiveTimeoutMs'],
    ['hl7-link', 'ackTimeoutMs'],
  ] as const) {
    it(`${type}: a numeric setting`, async () => {
      const caught = await load([{ id: 'n', type, journal: false, trace: false, [setting]: '${LINK_TIMER_UNSET_T}', wires: [[], [], []] }]);
      await expectNamed(caught, 'n', `set LINK_TIMER_UNSET_T (${setting})`, 'LINK_TIMER_UNSET_T');
    });
  }

  for (const type of ['astm-message', 'hl7-message']) {
    it(`${type}: its time zone`, async () => {
      const caught = await load([{ id: 'n', type, timeZone: '${SITE_TZ_UNSET_T}', wires: [[], [], [], []] }]);
      await expectNamed(caught, 'n', 'set SITE_TZ_UNSET_T (timeZone)', 'SITE_TZ_UNSET_T');
    });
  }

  it("astm-link: its serial port configuration's device", async () => {
    const caught = await load([
      serialPortConfig('sp', '${ANALYZER_PORT_UNSET_T}'),
      { id: 'in', type: 'serial in', serial: 'sp', wires: [['n']] },
      { id: 'n', type: 'astm-link', transport: 'serial', journal: false, trace: false, wires: [['out'], [], []] },
      { id: 'out', type: 'serial out', serial: 'sp' },
    ]);
    await expectNamed(caught, 'n', 'set ANALYZER_PORT_UNSET_T (serial port)', 'ANALYZER_PORT_UNSET_T');
    assert.ok(!statuses(helper.getNode('n')).some((s) => s.fill === 'green'), 'never green');
  });

  it("astm-link: its serial port configuration's speed (which the serial node would silently read as 57600)", async () => {
    const pty = await ptyPair();
    ptys.push(pty);
    const caught = await load([
      { ...serialPortConfig('sp', pty.host), serialbaud: '${ANALYZER_BAUD_UNSET_T}' },
      { id: 'in', type: 'serial in', serial: 'sp', wires: [['n']] },
      { id: 'n', type: 'astm-link', transport: 'serial', journal: false, trace: false, wires: [['out'], [], []] },
      { id: 'out', type: 'serial out', serial: 'sp' },
    ]);
    await expectNamed(caught, 'n', 'set ANALYZER_BAUD_UNSET_T (baud rate)', 'ANALYZER_BAUD_UNSET_T');
    // The port opens (at the wrong speed): the status stays on the setting.
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual([status('n')?.fill, status('n')?.text], ['red', 'set ANALYZER_BAUD_UNSET_T (baud rate)']);
  });

  it("hl7-link: tcp in's port", async () => {
    const caught = await load([
      { id: 'in', type: 'tcp in', server: 'client', host: '127.0.0.1', port: '${ANALYZER_TCP_PORT_UNSET_T}', datamode: 'stream', datatype: 'buffer', newline: '', topic: '', wires: [['n']] },
      { id: 'n', type: 'hl7-link', transport: 'tcp', journal: false, trace: false, wires: [['out'], [], []] },
      { id: 'out', type: 'tcp out', host: '', port: '', beserver: 'reply', base64: false, end: false },
    ]);
    await expectNamed(caught, 'n', 'set ANALYZER_TCP_PORT_UNSET_T (port)', 'ANALYZER_TCP_PORT_UNSET_T');
  });
});

describe('a link whose transport is down is never green', () => {
  const serialFlow = (path: string) => [
    serialPortConfig('sp', path),
    { id: 'in', type: 'serial in', serial: 'sp', wires: [['n']] },
    { id: 'n', type: 'astm-link', transport: 'serial', journal: false, trace: false, wires: [['out'], [], []] },
    { id: 'out', type: 'serial out', serial: 'sp' },
  ];

  it('astm-link behind a serial port that does not exist: red, naming the port, and a Catch error (PORT_MISSING)', async () => {
    const path = '/dev/lis-bridge-no-such-port';
    const caught = await load(serialFlow(path));
    await waitUntil(() => caught.length > 0, 5000, 'PORT_MISSING');
    assert.equal(errorOf(caught[0]!).code, 'PORT_MISSING');
    assert.match(errorOf(caught[0]!).message, new RegExp(path));
    assert.deepEqual([status('n')?.fill, status('n')?.text], ['red', `no port ${path}`]);
    assert.ok(!statuses(helper.getNode('n')).some((s) => s.fill === 'green'), 'never green');
  });

  it('astm-link on a serial port that opens is green; when the device goes away it turns red', async () => {
    const pty = await ptyPair();
    ptys.push(pty);
    await load(serialFlow(pty.host));
    await waitUntil(() => status('n')?.fill === 'green', 10_000, 'green once the port is open');
    assert.match(String(status('n')?.text), /^idle/);
    await pty.stop();
    // A failure names every status the link showed: a port opened again (a pty number reused) reads green once more.
    await waitUntil(() => status('n')?.fill === 'red', 10_000, () => `red once the port is gone (it showed ${JSON.stringify(statuses(helper.getNode('n')))})`);
  });

  it('hl7-link behind tcp in: green while connected, red once the analyzer is gone', async () => {
    const sockets: net.Socket[] = [];
    const server = net.createServer((s) => sockets.push(s));
    servers.push(server);
    const port = await new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)));
    await load([
      { id: 'in', type: 'tcp in', server: 'client', host: '127.0.0.1', port: String(port), datamode: 'stream', datatype: 'buffer', newline: '', topic: '', wires: [['n']] },
      { id: 'n', type: 'hl7-link', transport: 'tcp', journal: false, trace: false, wires: [['out'], [], []] },
      { id: 'out', type: 'tcp out', host: '', port: '', beserver: 'reply', base64: false, end: false },
    ]);
    await waitUntil(() => status('n')?.fill === 'green', 5000, 'green once connected');
    server.close();
    for (const s of sockets) s.destroy();
    await waitUntil(() => status('n')?.fill === 'red', 5000, 'red once the analyzer is gone');
    assert.equal(status('n')?.text, `nothing answers at 127.0.0.1:${port}`);
  });

  it("a line set from its tab's variables says which to set while it is down: a device that does not exist, an address nothing answers at", async () => {
    const closed = await freePort();
    const path = '/dev/lis-bridge-no-such-port-9';
    const env = [
      { name: 'ANALYZER_PORT', value: path, type: 'str' },
      { name: 'ANALYZER_HOST', value: '127.0.0.1', type: 'str' },
      { name: 'ANALYZER_TCP_PORT', value: String(closed), type: 'str' },
    ];
    await load([
      { id: 'tab', type: 'tab', label: 'analyzer', env },
      { ...serialPortConfig('sp', '${ANALYZER_PORT}'), z: 'tab' },
      { id: 'in', type: 'serial in', z: 'tab', serial: 'sp', wires: [['n']] },
      { id: 'n', type: 'astm-link', z: 'tab', transport: 'serial', journal: false, trace: false, wires: [['out'], [], []] },
      { id: 'out', type: 'serial out', z: 'tab', serial: 'sp' },
      { id: 'tin', type: 'tcp in', z: 'tab', server: 'client', host: '${ANALYZER_HOST}', port: '${ANALYZER_TCP_PORT}', datamode: 'stream', datatype: 'buffer', newline: '', topic: '', wires: [['h']] },
      { id: 'h', type: 'hl7-link', z: 'tab', transport: 'tcp', journal: false, trace: false, wires: [['tout'], [], []] },
      { id: 'tout', type: 'tcp out', z: 'tab', host: '', port: '', beserver: 'reply', base64: false, end: false },
    ]);
    await waitUntil(() => status('n')?.text === `${path} does not exist: set ANALYZER_PORT on this tab`, 5000, () => `the serial link's status (${JSON.stringify(status('n'))})`);
    assert.equal(status('n')?.fill, 'red');
    await waitUntil(() => status('h')?.text === `nothing answers at 127.0.0.1:${closed}: set ANALYZER_HOST, ANALYZER_TCP_PORT on this tab`, 5000, () => `the TCP link's status (${JSON.stringify(status('h'))})`);
  });

  it('astm-link as a TCP server: yellow with no analyzer connected, green while one is, yellow again when it leaves', async () => {
    const port = await freePort();
    await load([
      { id: 'in', type: 'tcp in', server: 'server', host: '', port: String(port), datamode: 'stream', datatype: 'buffer', newline: '', topic: '', wires: [['n']] },
      { id: 'n', type: 'astm-link', transport: 'tcp', journal: false, trace: false, wires: [['out'], [], []] },
      { id: 'out', type: 'tcp out', host: '', port: '', beserver: 'reply', base64: false, end: false },
    ]);
    assert.deepEqual([status('n')?.fill, status('n')?.text], ['yellow', 'waiting for the analyzer']);
    const analyzer = net.connect(port, '127.0.0.1');
    await waitUntil(() => status('n')?.fill === 'green', 5000, 'green once an analyzer connected');
    analyzer.destroy();
    await waitUntil(() => status('n')?.fill === 'yellow', 5000, 'yellow once it left');
  });
});
