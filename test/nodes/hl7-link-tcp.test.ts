/**
 * hl7-link in a real Node-RED between its core tcp in / tcp out (and a status
 * node on tcp in), over loopback, with plain sockets playing the analyzers:
 * Node-RED as server of two analyzers and as client of one; a message split
 * over reads; its AA only once the journal stored it (AE when it cannot be);
 * a resent MSH-10 not passed on twice; the host's sends answered AE reaching
 * Catch with the analyzer's text, and never answered failing after the
 * attempts.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { blockJournalForNextLoads, bridgeSettingsForTests, collect, helper, journalDir, nodeModules, waitUntil, useTcpNodeTests } from '../support/red';
import { freePort } from '../support/ports';
import { readJournalFile } from '../support/journal-file';
import { MllpDeframer, frameMllp, parseHl7 } from '../../lib/protocols/hl7';

const tcpNodes = require(require.resolve('@node-red/nodes/core/network/31-tcpin.js'));

const servers: net.Server[] = [];
const sockets = useTcpNodeTests(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  bridgeSettingsForTests({});
});

type TcpIn = { server: 'server'; port: number } | { server: 'client'; host: string; port: number };

/** tcp in -> hl7-link -> tcp out (reply), a status node on tcp in, helpers on the outputs (and on what goes to tcp out), a catch. */
async function load(tcpIn: TcpIn, link: Record<string, unknown> = {}): Promise<void> {
  const flow = [
    { id: 'tcpin', type: 'tcp in', datamode: 'stream', datatype: 'buffer', newline: '', topic: '', host: '', ...tcpIn, port: String(tcpIn.port), wires: [['link']] },
    { id: 'tcpstatus', type: 'status', scope: ['tcpin'], wires: [['link']] },
    { id: 'link', type: 'hl7-link', transport: 'tcp', ...link, wires: [['tcpout', 'writes'], ['messages'], ['sent']] },
    { id: 'tcpout', type: 'tcp out', host: '', port: '', beserver: 'reply', base64: false, end: false },
    { id: 'writes', type: 'helper' },
    { id: 'messages', type: 'helper' },
    { id: 'sent', type: 'helper' },
    { id: 'catcher', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', type: 'helper' },
  ];
  await helper.load([tcpNodes, ...nodeModules('hl7-link')] as never, flow as never);
}

/** One analyzer's socket: what it writes, and the messages it got back. */
class Peer {
  readonly got: string[] = [];
  private readonly deframer = new MllpDeframer();

  constructor(readonly socket: net.Socket) {
    sockets.push(socket);
    socket.on('data', (d: Buffer) => {
      for (const e of this.deframer.push(d)) if (e.kind === 'frame') this.got.push(e.message.toString('latin1'));
    });
  }

  static connect(port: number): Promise<Peer> {
    const socket = net.connect(port, '127.0.0.1');
    return new Promise((resolve, reject) => {
      socket.once('connect', () => resolve(new Peer(socket)));
      socket.once('error', reject);
    });
  }

  /** Writes one message framed, cut into the given number of writes with a pause between them. */
  async send(text: string, writes = 1): Promise<void> {
    const wire = frameMllp(Buffer.from(text, 'latin1'));
    const size = Math.ceil(wire.length / writes);
    for (let i = 0; i < wire.length; i += size) {
      this.socket.write(wire.subarray(i, i + size));
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** The MSA-1 of each acknowledgement this peer got for control ID `id`. */
  acks(id: string): string[] {
    return this.got.map((m) => parseHl7(m)).filter((m) => m.segment('MSA')?.field(2) === id).map((m) => m.segment('MSA')!.field(1));
  }

  ack(to: string, code: string, extra = ''): void {
    this.socket.write(frameMllp(Buffer.from(`MSH|^~\\&|${this.name}||HOST||20240501||ACK^O33^ACK|A-${to}|P|2.5.1\rMSA|${code}|${to}\r${extra}`, 'latin1')));
  }

  name = 'LAB1';
}

const oru = (sender: string, id: string, sample: string) =>
  `MSH|^~\\&|${sender}|FAC|HOST|HFAC|20240501101010||ORU^R01^ORU_R01|${id}|P|2.5.1\rPID|1||P1\rOBR|1|${sample}\rOBX|1|NM|GLU||5.5|mmol/L|||||F\r`;
const order = (id: string) => `MSH|^~\\&|HOST||LAB||20240501||OML^O33^OML_O33|${id}|P|2.5.1\rSPM|1|S-9\r`;

const codes = (caught: Array<Record<string, unknown>>) => caught.map((m) => (m.error as { code?: string }).code);
const hl7Of = (m: Record<string, unknown>) => m.hl7 as Record<string, unknown>;

describe('hl7-link over TCP in a real Node-RED', () => {
  it('as server of two analyzers: each message, split over reads, stored and acknowledged on its own connection; a send goes to the analyzer it names', async () => {
    const port = await freePort();
    await load({ server: 'server', port });
    const messages = collect('messages');
    const sent = collect('sent');
    const caught = collect('caught');
    const a = await Peer.connect(port);
    const b = await Peer.connect(port);
    b.name = 'LAB2';
    await Promise.all([a.send(oru('LAB1', 'A-1', 'S-A'), 4), b.send(oru('LAB2', 'B-1', 'S-B'), 3)]);
    await waitUntil(() => a.got.length === 1 && b.got.length === 1 && messages.length === 2, 5000, 'both acknowledged');
    assert.deepEqual(a.acks('A-1'), ['AA']);
    assert.deepEqual(b.acks('B-1'), ['AA']);
    assert.equal(parseHl7(a.got[0]!).msh.field(9, 1, 2), 'R01');
    assert.equal(parseHl7(a.got[0]!).msh.field(5), 'LAB1', 'sender and receiver swapped');
    // Stored before it was passed on: the journal holds the exact bytes under the id the flow got.
    const stored = readJournalFile(journalDir()).messages;
    for (const m of messages) {
      assert.equal(m.topic, 'hl7:message');
      const rx = stored.get(String(hl7Of(m).journalId));
      assert.ok(rx, 'in the journal');
      assert.equal(rx.data.toString('latin1'), Buffer.from(m.payload as Buffer).toString('latin1'));
    }
    assert.deepEqual(messages.map((m) => /OBR\|1\|(S-\w)/.exec(Buffer.from(m.payload as Buffer).toString('latin1'))![1]).sort(), ['S-A', 'S-B']);

    helper.getNode('link').receive({ topic: 'hl7:send', payload: order('ORD-1'), analyzer: 'lab2' } as never);
    await waitUntil(() => b.got.length === 2, 5000, 'the order at LAB2');
    assert.equal(parseHl7(b.got[1]!).msh.field(10), 'ORD-1');
    b.ack('ORD-1', 'AA');
    await waitUntil(() => sent.length === 1, 5000, 'the order acknowledged');
    assert.equal(hl7Of(sent[0]!).sent, true);
    assert.equal(a.got.length, 1, 'nothing went to LAB1');
    assert.deepEqual(codes(caught), []);
    // The trace has one line per message, MLLP bytes by name; its lines are appended after the bytes went out.
    const traceDir = join(journalDir(), 'trace');
    const inLine = / in \[[^\]]+\] <VT>MSH\|\^~\\&\|LAB1\|.*<CR>OBX\|1\|NM\|GLU.*<CR><FS><CR>\n/;
    const outLine = / out \[[^\]]+\] <VT>MSH\|.*ACK\^R01\^ACK.*<CR>MSA\|AA\|A-1<CR><FS><CR>\n/;
    let trace = '';
    await waitUntil(
      () => {
        trace = readdirSync(traceDir).map((f) => readFileSync(join(traceDir, f), 'latin1')).join('');
        return inLine.test(trace) && outLine.test(trace);
      },
      5000,
      () => `the trace to hold LAB1's message and its ACK (it holds ${JSON.stringify(trace)})`,
    );
  });

  it('as client of one analyzer: its message stored and acknowledged', async () => {
    const server = net.createServer();
    servers.push(server);
    const peers: Peer[] = [];
    server.on('connection', (s) => peers.push(new Peer(s)));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    await load({ server: 'client', host: '127.0.0.1', port: (server.address() as net.AddressInfo).port });
    const messages = collect('messages');
    await waitUntil(() => peers.length === 1, 5000, 'Node-RED connected');
    await peers[0]!.send(oru('LAB1', 'C-1', 'S-C'), 2);
    await waitUntil(() => peers[0]!.got.length === 1, 5000, 'the ACK');
    assert.deepEqual(peers[0]!.acks('C-1'), ['AA']);
    assert.equal(messages.length, 1);
  });

  it('answers AE, not AA, when the journal cannot store the message, and passes nothing on', async (t) => {
    const { blocker } = blockJournalForNextLoads();
    t.after(() => rmSync(blocker, { recursive: true, force: true }));
    const port = await freePort();
    await load({ server: 'server', port }, { trace: false });
    const messages = collect('messages');
    const caught = collect('caught');
    const a = await Peer.connect(port);
    await a.send(oru('LAB1', 'J-1', 'S-J'));
    await waitUntil(() => a.got.length === 1, 5000, 'the answer');
    assert.deepEqual(a.acks('J-1'), ['AE']);
    assert.match(parseHl7(a.got[0]!).segment('ERR')!.field(8), /could not be stored/);
    await waitUntil(() => caught.some((m) => /could not be stored/.test(String((m.error as { message: string }).message))), 5000, 'JOURNAL at Catch');
    assert.ok(codes(caught).every((c) => c === 'JOURNAL'));
    assert.equal(messages.length, 0);
  });

  it('acknowledges a resent MSH-10 again without passing the message on twice', async () => {
    const port = await freePort();
    await load({ server: 'server', port });
    const messages = collect('messages');
    const a = await Peer.connect(port);
    await a.send(oru('LAB1', 'R-1', 'S-R'));
    await waitUntil(() => a.got.length === 1, 5000, 'the first AA');
    // The analyzer did not hear it: it sends the message again, on a new connection.
    a.socket.destroy();
    const again = await Peer.connect(port);
    await again.send(oru('LAB1', 'R-1', 'S-R'), 2);
    await waitUntil(() => again.got.length === 1, 5000, 'the second AA');
    assert.deepEqual(again.acks('R-1'), ['AA']);
    assert.equal(messages.length, 1, 'passed on once');
  });

  it('a send the analyzer answers AE reaches Catch with the analyzer\'s text; one never answered fails after the attempts', async () => {
    const port = await freePort();
    await load({ server: 'server', port }, { journal: false, trace: false, ackTimeoutMs: 150, sendAttempts: 2 });
    const caught = collect('caught');
    const sent = collect('sent');
    const a = await Peer.connect(port);
    await a.send(oru('LAB1', 'S-1', 'S-S'));
    await waitUntil(() => a.got.length === 1, 5000, 'the analyzer known');

    helper.getNode('link').receive({ topic: 'hl7:send', payload: order('ORD-AE') } as never);
    await waitUntil(() => a.got.length === 2, 5000, 'the order at the analyzer');
    a.ack('ORD-AE', 'AE', 'ERR||SPM^1^2|204^Unknown key identifier^HL70357|E||||sample S-9 is unknown here\r');
    await waitUntil(() => caught.length === 1, 5000, 'the refusal at Catch');
    assert.deepEqual(codes(caught), ['SEND_FAILED']);
    assert.match(String((caught[0]!.error as { message: string }).message), /answered AE to message ORD-AE: sample S-9 is unknown here/);
    assert.match(String(caught[0]!.payload), /ORD-AE/, 'the hl7:send message itself');

    helper.getNode('link').receive({ topic: 'hl7:send', payload: order('ORD-SILENT') } as never);
    await waitUntil(() => caught.length === 2, 5000, 'the unanswered order failed');
    assert.equal(codes(caught)[1], 'SEND_FAILED');
    assert.match(String((caught[1]!.error as { message: string }).message), /no ACK to message ORD-SILENT after 2 attempts/);
    assert.equal(a.got.filter((m) => parseHl7(m).msh.field(10) === 'ORD-SILENT').length, 2, 'written twice, unchanged');
    assert.equal(sent.length, 0);
  });

  it('writes an answer of several messages made in one turn (QCK^Q02, then DSR^Q03) as one, so the second never waits on Nagle', async () => {
    const port = await freePort();
    await load({ server: 'server', port }, { journal: false, trace: false });
    const writes = collect('writes');
    const sent = collect('sent');
    const a = await Peer.connect(port);
    await a.send(oru('LAB1', 'N-1', 'S-N'));
    await waitUntil(() => a.got.length === 1, 5000, 'the analyzer known');
    const before = writes.length;

    // As hl7-message sends them: the acknowledgement of the query (no ACK expected), then the answer, one right after the other.
    const qck = 'MSH|^~\\&|HOST||LAB1||20240501||QCK^Q02|Q-1|P|2.3.1\rMSA|AA|Q-0\rQAK|SR|OK\r';
    const dsr = 'MSH|^~\\&|HOST||LAB1||20240501||DSR^Q03|D-1|P|2.3.1\rMSA|AA|Q-0\rDSP|1||S-N\r';
    const link = helper.getNode('link');
    link.receive({ topic: 'hl7:send', payload: qck, hl7: { expectAck: false } } as never);
    link.receive({ topic: 'hl7:send', payload: dsr } as never);
    await waitUntil(() => a.got.length === 3, 5000, 'both at the analyzer');
    assert.equal(writes.length - before, 1, 'one write for both messages');
    const wire = Buffer.from(writes.at(-1)!.payload as Buffer).toString('latin1');
    assert.deepEqual([...wire.matchAll(/\x0bMSH\|[^\r]*\|(Q-1|D-1)\|/g)].map((m) => m[1]), ['Q-1', 'D-1'], 'in the order they were sent, each framed');
    assert.deepEqual(a.got.slice(1).map((m) => parseHl7(m).msh.field(10)), ['Q-1', 'D-1']);
    a.ack('D-1', 'AA');
    await waitUntil(() => sent.length === 2, 5000, 'both reported sent');
  });
});

describe('hl7-link names its analyzer', () => {
  /** The link row GET /lis-bridge/links (the Lab sidebar's route) shows, with its connections. */
  const linkRow = async () => {
    const res = await helper.request().get('/lis-bridge/links').expect(200);
    return (res.body as { links: Array<{ node: string; analyzer?: string; connections: Array<{ analyzer?: string }> }> }).links.find((l) => l.node === 'link');
  };

  it('from MSH-3 (or MSH-4 when MSH-3 is empty) of the messages it receives, in the health the Lab sidebar shows', async () => {
    const port = await freePort();
    await load({ server: 'server', port });
    const messages = collect('messages');
    assert.equal((await linkRow())?.analyzer, undefined, 'not named before it spoke');
    const a = await Peer.connect(port);
    await a.send(oru('CL-2000i^1.0', 'N-1', 'S-N'));
    await waitUntil(() => messages.length === 1 && a.got.length === 1, 5000, 'the message acknowledged');
    await waitUntil(() => a.got.length === 1, 5000);
    const named = await linkRow();
    assert.equal(named?.analyzer, 'CL-2000i');
  });

  it('as client of an analyzer that leaves MSH-3 empty and names itself in MSH-4 (the Mindray CL)', async () => {
    const server = net.createServer();
    servers.push(server);
    const peers: Peer[] = [];
    server.on('connection', (s) => peers.push(new Peer(s)));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    await load({ server: 'client', host: '127.0.0.1', port: (server.address() as net.AddressInfo).port });
    await waitUntil(() => peers.length === 1, 5000, 'Node-RED connected');
    await peers[0]!.send(oru('', 'C-1', 'S-C').replace('||FAC|', '||CL-1200i^MINDRAY|'));
    await waitUntil(() => peers[0]!.got.length === 1, 5000, 'the ACK');
    const row = await linkRow();
    assert.equal(row?.analyzer, 'CL-1200i', JSON.stringify(row));
  });
});
