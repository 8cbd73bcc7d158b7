/**
 * Orders nobody asked for (pushed by the LIS) reaching analyzers over TCP, in
 * every topology, through Node-RED's own tcp in / tcp out / status nodes and
 * real loopback connections, with the analyzer simulator on the other end:
 * Node-RED as client of one analyzer, as server of one, and as server of
 * several (where the order must reach the one it names, and is refused when it
 * names none). And a connection that closes mid-transfer fails the transfer
 * at once.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { collect, helper, lastStatus, nodeModules, statuses, waitUntil, useTcpNodeTests } from '../support/red';
import { freePort } from '../support/ports';
import { anOrder } from '../support/lis-stub';
import { AnalyzerSimulator, TcpClientTransport, TcpServerTransport } from '../../lib/sim';
import type { DownloadedOrder } from '../../lib/sim';

const tcpNodes = require(require.resolve('@node-red/nodes/core/network/31-tcpin.js'));

const sims: AnalyzerSimulator[] = [];
const sockets = useTcpNodeTests(() => Promise.allSettled(sims.splice(0).map((s) => s.stop())));

type TcpIn = { server: 'server'; port: number } | { server: 'client'; host: string; port: number };

/** tcp in -> astm-link -> tcp out (reply), a status node on tcp in, astm-message for the orders, a catch. */
async function load(tcpIn: TcpIn, link: Record<string, unknown> = {}): Promise<void> {
  const flow = [
    { id: 'tcpin', type: 'tcp in', datamode: 'stream', datatype: 'buffer', newline: '', topic: '', host: '', ...tcpIn, port: String(tcpIn.port), wires: [['link']] },
    { id: 'tcpstatus', type: 'status', scope: ['tcpin'], wires: [['link']] },
    { id: 'link', type: 'astm-link', transport: 'tcp', journal: false, trace: false, ...link, wires: [['tcpout'], ['m'], ['sent']] },
    { id: 'tcpout', type: 'tcp out', host: '', port: '', beserver: 'reply', base64: false, end: false },
    { id: 'm', type: 'astm-message', dialect: 'generic-lis2a2', timeZone: 'UTC', wires: [['queries'], ['results'], ['link'], ['other']] },
    { id: 'queries', type: 'helper' },
    { id: 'results', type: 'helper' },
    { id: 'other', type: 'helper' },
    { id: 'sent', type: 'helper' },
    { id: 'catcher', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', type: 'helper' },
  ];
  await helper.load([tcpNodes, ...nodeModules('astm-link', 'astm-message')] as never, flow as never);
}

/** An order as it leaves test-mapper (LIS -> instrument), pushed by the LIS: no TCP session. */
function push(sample: string, extra: Record<string, unknown> = {}): void {
  helper.getNode('m').receive({ payload: { ...anOrder(sample), instrumentTests: ['GLU'] }, ...extra } as never);
}

function simulator(transport: TcpClientTransport | TcpServerTransport, senderName?: string): { sim: AnalyzerSimulator; orders: DownloadedOrder[] } {
  const sim = new AnalyzerSimulator({ dialect: 'generic-lis2a2', transport, timeZone: 'UTC', ...(senderName === undefined ? {} : { senderName }) });
  sims.push(sim);
  const orders: DownloadedOrder[] = [];
  sim.on('order', (o: DownloadedOrder) => orders.push(o));
  return { sim, orders };
}

const codes = (caught: Array<Record<string, unknown>>) => caught.map((m) => (m.error as { code?: string }).code);

describe('orders to TCP analyzers', () => {
  it('Node-RED as client of one analyzer: a pushed order reaches it before the analyzer has sent anything', async () => {
    const transport = new TcpServerTransport(0, '127.0.0.1');
    const { sim, orders } = simulator(transport);
    await sim.start();
    await load({ server: 'client', host: '127.0.0.1', port: transport.boundPort });
    const sent = collect('sent');
    const caught = collect('caught');
    await sim.waitConnected();
    // The status node reports the connection a moment after it is made.
    await new Promise((r) => setTimeout(r, 200));
    push('CLI-1');
    await waitUntil(() => orders.length === 1 || caught.length > 0, 10_000, 'the order at the analyzer');
    assert.deepEqual(codes(caught), []);
    assert.equal(orders[0]!.sampleNumber, 'CLI-1');
    await waitUntil(() => sent.length === 1, 5000, 'the order acknowledged');
  });

  it('Node-RED as server of one analyzer: a pushed order reaches it', async () => {
    const port = await freePort();
    await load({ server: 'server', port });
    const caught = collect('caught');
    const { sim, orders } = simulator(new TcpClientTransport('127.0.0.1', port));
    await sim.start();
    await sim.waitConnected();
    await new Promise((r) => setTimeout(r, 200));
    push('SRV-1');
    await waitUntil(() => orders.length === 1 || caught.length > 0, 10_000, 'the order at the analyzer');
    assert.deepEqual(codes(caught), []);
    assert.equal(orders[0]!.sampleNumber, 'SRV-1');
  });

  it('Node-RED as server of several: an order goes to the analyzer msg.analyzer names, and is refused when it names none or an unknown one', async () => {
    const port = await freePort();
    await load({ server: 'server', port });
    const caught = collect('caught');
    const results = collect('results');
    const alpha = simulator(new TcpClientTransport('127.0.0.1', port), 'ALPHA');
    const beta = simulator(new TcpClientTransport('127.0.0.1', port), 'BETA');
    await Promise.all([alpha.sim.start(), beta.sim.start()]);
    await Promise.all([alpha.sim.waitConnected(), beta.sim.waitConnected()]);
    // Each analyzer names itself in the H record of what it sends.
    await Promise.all([alpha.sim.sendResults('A-0', ['GLU']), beta.sim.sendResults('B-0', ['GLU'])]);
    await waitUntil(() => results.length === 2, 5000, 'both analyzers heard from');

    push('NONAME-1');
    await waitUntil(() => caught.length === 1, 5000, 'the refusal');
    assert.deepEqual(codes(caught), ['AMBIGUOUS_ANALYZER']);
    const text = String((caught[0]!.error as { message: string }).message);
    assert.match(text, /ALPHA/);
    assert.match(text, /BETA/);

    push('GAMMA-1', { analyzer: 'GAMMA' });
    await waitUntil(() => caught.length === 2, 5000, 'the second refusal');
    assert.equal(codes(caught)[1], 'UNKNOWN_ANALYZER');

    push('BETA-1', { analyzer: 'beta' });
    await waitUntil(() => beta.orders.length === 1, 10_000, 'the order at BETA');
    assert.equal(beta.orders[0]!.sampleNumber, 'BETA-1');
    // Nothing went to ALPHA: not this order, not the refused ones.
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(alpha.orders.map((o) => o.sampleNumber), []);
    assert.deepEqual(beta.orders.map((o) => o.sampleNumber), ['BETA-1']);
    assert.equal(caught.length, 2);
  });

  it('a connection that closes mid-transfer fails the transfer at once, and an answer to it is not sent elsewhere', async () => {
    const port = await freePort();
    // Reply time-outs far longer than the wait below: only the close can end the transfer in time.
    await load({ server: 'server', port }, { replyTimeoutMs: 120_000 });
    const caught = collect('caught');
    const peer = net.connect(port, '127.0.0.1');
    sockets.push(peer);
    const got: Buffer[] = [];
    peer.on('data', (d: Buffer) => got.push(d));
    await new Promise<void>((resolve) => peer.once('connect', () => resolve()));
    await new Promise((r) => setTimeout(r, 200));
    push('GONE-1');
    await waitUntil(() => Buffer.concat(got).includes(0x05), 5000, 'the ENQ at the analyzer');
    const sessionOfPeer = await sessionSeenBy('link');
    peer.destroy();
    await waitUntil(() => caught.length === 1, 10_000, 'the transfer failed');
    assert.deepEqual(codes(caught), ['CONNECTION_CLOSED']);
    assert.match(Buffer.from(caught[0]!.payload as Buffer).toString('latin1'), /\|GONE-1\|/, 'the order download itself reaches Catch');

    helper.getNode('link').receive({ topic: 'astm:send', payload: 'H|\\^&\rL|1|I\r', _session: { type: 'tcp', id: sessionOfPeer } } as never);
    await waitUntil(() => caught.length === 2, 5000, 'the late answer refused');
    assert.equal(codes(caught)[1], 'CONNECTION_CLOSED');
  });
});

describe('a link left set to serial behind tcp in', () => {
  it('refuses TCP loudly: red, TRANSPORT_MISMATCH to Catch, no ACK for either analyzer, and an order reaches neither', async () => {
    const port = await freePort();
    await load({ server: 'server', port }, { transport: 'serial' });
    const caught = collect('caught');
    const results = collect('results');
    const link = helper.getNode('link');
    // At deploy: tcp in feeds a serial link.
    await waitUntil(() => caught.length === 1, 5000, 'the mismatch at deploy');
    assert.deepEqual(codes(caught), ['TRANSPORT_MISMATCH']);
    assert.match((caught[0]!.error as { message: string }).message, /set Transport to TCP/);
    assert.deepEqual([lastStatus(link)?.fill, lastStatus(link)?.text], ['red', 'TCP input: set Transport to TCP']);

    const received: Buffer[][] = [[], []];
    const analyzers = [0, 1].map((i) => {
      const s = net.connect(port, '127.0.0.1');
      sockets.push(s);
      s.on('data', (d: Buffer) => received[i]!.push(d));
      return new Promise<net.Socket>((resolve) => s.once('connect', () => resolve(s)));
    });
    const [alpha, beta] = await Promise.all(analyzers);
    // Both ask to send: a serial link would take the one ENQ on its single line and answer on every connection.
    alpha!.write(Buffer.from([0x05]));
    beta!.write(Buffer.from([0x05]));
    await waitUntil(() => caught.filter((c) => (c.error as { code?: string }).code === 'TRANSPORT_MISMATCH').length >= 3, 5000, 'both ENQs refused');
    // An order the LIS pushes, for one of them.
    push('MIS-1', { analyzer: 'ALPHA' });
    await waitUntil(() => caught.length >= 4, 5000, 'the order refused');
    assert.ok(codes(caught).every((c) => c === 'TRANSPORT_MISMATCH'), codes(caught).join(', '));
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(received.map((r) => Buffer.concat(r).length), [0, 0], 'neither analyzer got a byte: no ACK, no order');
    assert.equal(results.length, 0);
    assert.ok(!statuses(link).some((s) => s.fill === 'green'), 'never green');
    assert.deepEqual([lastStatus(link)?.fill, lastStatus(link)?.text], ['red', 'TCP input: set Transport to TCP']);
  });
});

/** The one TCP session astm-link wrote on (its output 1 carries it to tcp out). */
async function sessionSeenBy(linkId: string): Promise<string> {
  const writes: Array<Record<string, unknown>> = [];
  const node = helper.getNode(linkId) as unknown as { send: { args: unknown[][] } };
  for (const args of node.send.args) {
    const outs = args[0] as Array<Record<string, unknown> | null>;
    if (Array.isArray(outs) && outs[0]) writes.push(outs[0]);
  }
  const ids = new Set(writes.map((w) => String((w._session as { id: string }).id)));
  assert.equal(ids.size, 1, `one session written to, got ${[...ids].join(', ')}`);
  return [...ids][0]!;
}
