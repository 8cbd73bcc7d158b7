/**
 * A storm of connections that close mid-message, over real TCP through
 * Node-RED's tcp in / tcp out into hl7-link and astm-link (issue 23: after
 * about 50 of them hl7-link showed `connected` with ~980 connection rows,
 * every socket closed). The discarded rest of each message is reported after
 * its connection closed; it must count as an error on the link and never
 * bring the closed connection back as open: no open connection row, the link
 * listening, lisbridge_link_connections 0.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { collect, helper, nodeModules, waitUntil, useTcpNodeTests } from '../support/red';
import { freePort } from '../support/ports';
import { parseSamples, sum } from '../support/prometheus';
import { buildFrames } from '../../lib/protocols/astm/link';

const tcpNodes = require(require.resolve('@node-red/nodes/core/network/31-tcpin.js'));
const STORM = 50;

const sockets = useTcpNodeTests();

async function load(type: 'hl7-link' | 'astm-link', port: number): Promise<void> {
  const flow = [
    { id: 'tcpin', type: 'tcp in', server: 'server', host: '', port: String(port), datamode: 'stream', datatype: 'buffer', newline: '', topic: '', wires: [['link']] },
    { id: 'tcpstatus', type: 'status', scope: ['tcpin'], wires: [['link']] },
    { id: 'link', type, transport: 'tcp', journal: false, trace: false, wires: [['tcpout'], [], []] },
    { id: 'tcpout', type: 'tcp out', host: '', port: '', beserver: 'reply', base64: false, end: false },
    { id: 'catcher', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', type: 'helper' },
  ];
  // astm-link's module installs the links and metrics routes (in a real Node-RED every module of the package is loaded).
  await helper.load([tcpNodes, ...nodeModules('hl7-link', 'astm-link')] as never, flow as never);
}

/** A connection that has written `bytes` (and, for ASTM, had each part acknowledged): the analyzer then hangs up mid-message. */
async function halfMessage(port: number, parts: Buffer[], acked: boolean): Promise<net.Socket> {
  const socket = net.connect(port, '127.0.0.1');
  sockets.push(socket);
  let acks = 0;
  socket.on('data', (d: Buffer) => (acks += d.filter((b) => b === 0x06).length));
  socket.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  for (const [i, part] of parts.entries()) {
    socket.write(part);
    if (acked) await waitUntil(() => acks > i, 5000, 'the ACK of each part');
  }
  return socket;
}

type Link = { node: string; transport: string; connections: Array<{ transport: string }>; today: { errors: number } };
const linkHealth = async (): Promise<Link> => ((await helper.request().get('/lis-bridge/links').expect(200)).body.links as Link[]).find((l) => l.node === 'link')!;

async function storm(type: 'hl7-link' | 'astm-link', parts: Buffer[], acked: boolean): Promise<void> {
  const port = await freePort();
  await load(type, port);
  const caught = collect('caught');
  const open = await Promise.all(Array.from({ length: STORM }, () => halfMessage(port, parts, acked)));
  await waitUntil(async () => (await linkHealth()).connections.filter((c) => c.transport === 'connected').length === STORM, 10_000, `${STORM} connections open`);
  // All hang up at once (FIN: half-closed, then closed by tcp in).
  for (const s of open) s.end();
  await waitUntil(async () => (await linkHealth()).today.errors >= STORM, 10_000, 'each discarded message counted');
  const link = await linkHealth();
  assert.deepEqual(link.connections.filter((c) => c.transport === 'connected'), [], 'no closed connection shown open');
  assert.equal(link.transport, 'listening');
  assert.ok(link.connections.length <= 8, `${link.connections.length} connection rows (closed ones, a few at most)`);
  const metrics = parseSamples((await helper.request().get('/lis-bridge/metrics').expect(200)).text);
  assert.equal(sum(metrics, 'lisbridge_link_connections', { link: 'link' }), 0);
  assert.equal(sum(metrics, 'lisbridge_link_up', { link: 'link' }), 0);
  assert.deepEqual(caught, [], 'a discarded message is a warning, not an error for Catch');
}

describe('connections that close mid-message leave no phantom connection', () => {
  it('hl7-link: 50 MLLP frames cut off by the analyzer hanging up', async () => {
    await storm('hl7-link', [Buffer.from('\x0bMSH|^~\\&|LAB|FAC|HOST|HFAC|20240501101010||ORU^R01^ORU_R01|C-1|P|2.5.1\rPID|1||P1\r', 'latin1')], false);
  });

  it('astm-link: 50 transfers cut off after an intermediate frame', async () => {
    const text = 'H|\\^&|||ANALYZER^1|||||LIS||P|LIS2-A2\rP|1||P-1\rO|1|S-1||^^^GLU|R\rR|1|^^^GLU|5.4|mmol/L||N||F\rL|1|N\r';
    const [first] = buildFrames(Buffer.from(text, 'latin1'), { frameTextMax: 40 });
    await storm('astm-link', [Buffer.of(0x05), first!], true);
  });
});
