/**
 * Every analyzer message of every HL7 capture (test/fixtures/hl7) through
 * hl7-link in a real Node-RED, bytes in over TCP: the acknowledgement it gets
 * and whether it is passed on to the flow, stated per message (issue 23: the
 * EDAN i15's messages, MSH-10 empty, were all refused, which a test of the
 * codec alone did not show). Each message goes on its own connection,
 * followed by a probe message whose AA marks that everything for the first
 * was written.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { bridgeSettingsForTests, collect, helper, nodeModules, waitUntil, useTcpNodeTests } from '../support/red';
import { freePort } from '../support/ports';
import { allHl7Messages } from '../support/hl7-fixtures';
import { MllpDeframer, frameMllp, parseHl7 } from '../../lib/protocols/hl7';

const tcpNodes = require(require.resolve('@node-red/nodes/core/network/31-tcpin.js'));

/**
 * What each analyzer message gets: its acknowledgement codes (MSA-1, with
 * MSA-2 its MSH-10) and whether the flow gets it. Queries are answered by the
 * host's response, not by the link; an analyzer's ACK to nothing we sent is
 * ignored (with a warning).
 */
const EXPECTED: Record<string, { acks: string[]; passedOn: boolean }> = {
  // ORM^O01 is a hematology analyzer's worklist query, but the link answers it as
  // any message (AA): no ORR^O02 layout is known to answer it with.
  'analyx-panca-orm-o01-query.txt#1': { acks: ['AA'], passedOn: true },
  'analyx-panca-oru-r01.txt#1': { acks: ['AA'], passedOn: true },
  'edan-h30-oru-r01.txt#1': { acks: ['AA'], passedOn: true },
  'mindray-bc5300-orm-o01-query.txt#1': { acks: ['AA'], passedOn: true },
  'mindray-bc5380-oru-r01-manual.txt#1': { acks: ['AA'], passedOn: true },
  'mindray-bc5380-oru-r01-xr-qc-manual.txt#1': { acks: ['AA'], passedOn: true },
  'biosystems-ba200-oul-r22.txt#1': { acks: ['AA'], passedOn: true },
  'biosystems-ba400-qbp-q11.txt#1': { acks: [], passedOn: true },
  'edan-i15-oru-r01.txt#1': { acks: ['AA'], passedOn: true },
  'mindray-bc6200-oru-r01.txt#1': { acks: ['AA'], passedOn: true },
  'mindray-cl2000i-ack-q03.txt#1': { acks: [], passedOn: false },
  'mindray-cl2000i-oru-r01-qc.txt#1': { acks: ['AA'], passedOn: true },
  'mindray-cl2000i-oru-r01-result.txt#1': { acks: ['AA'], passedOn: true },
  'mindray-cl2000i-qry-q02.txt#1': { acks: [], passedOn: true },
  'roche-cobas6800-oul-r22-result.txt#1': { acks: ['AA'], passedOn: true },
  'roche-cobas6800-oul-r22-sarscov2.txt#1': { acks: ['AA'], passedOn: true },
  'roche-cobaspro-esu-inu-session.log.txt#1': { acks: ['AA'], passedOn: true },
  'roche-cobaspro-esu-inu-session.log.txt#3': { acks: ['AA'], passedOn: true },
  'roche-cobaspro-oul-r22-e801.txt#1': { acks: ['AA'], passedOn: true },
  'roche-cobaspro-oul-r22-hba1c-session.log.txt#1': { acks: ['AA'], passedOn: true },
  'roche-cobaspro-oul-r22-hba1c-session.log.txt#2': { acks: ['AA'], passedOn: true },
  'roche-cobaspro-oul-r22-manual.txt#1': { acks: ['AA'], passedOn: true },
  'roche-cobaspro-qbp-q11-manual.txt#1': { acks: [], passedOn: true },
  'roche-cobaspro-qbp-q11.txt#1': { acks: [], passedOn: true },
  'roche-cobaspure-oul-r22-qc.txt#1': { acks: ['AA'], passedOn: true },
  'roche-cobaspure-oul-r22-session.log.txt#1': { acks: ['AA'], passedOn: true },
  'roche-cobaspure-oul-r22-session.log.txt#3': { acks: ['AA'], passedOn: true },
  'siemens-clinitek-status-oru-r01-qc.txt#1': { acks: ['AA'], passedOn: true },
  'siemens-clinitek-status-oru-r01.txt#1': { acks: ['AA'], passedOn: true },
  'urit-8030-oru-r01.txt#1': { acks: ['AA'], passedOn: true },
  'urit-ut5160-oru-r01-manual.txt#1': { acks: ['AA'], passedOn: true },
};

const PROBE = (n: number) => `MSH|^~\\&|PROBE||HOST||20240501||ORU^R01^ORU_R01|PROBE-${n}|P|2.5.1\rPID|1||P1\rOBR|1|S-P\rOBX|1|NM|GLU||5.5|mmol/L|||||F\r`;

const sockets = useTcpNodeTests(() => bridgeSettingsForTests({}));

describe('hl7-link takes every analyzer message of the HL7 captures (issue 23)', () => {
  it('each gets the acknowledgement stated for it and reaches the flow once, or not at all when it is an ACK', { timeout: 60_000 }, async () => {
    const port = await freePort();
    const flow = [
      { id: 'tcpin', type: 'tcp in', datamode: 'stream', datatype: 'buffer', newline: '', topic: '', host: '', server: 'server', port: String(port), wires: [['link']] },
      { id: 'link', type: 'hl7-link', transport: 'tcp', wires: [['tcpout'], ['messages'], []] },
      { id: 'tcpout', type: 'tcp out', host: '', port: '', beserver: 'reply', base64: false, end: false },
      { id: 'messages', type: 'helper' },
      { id: 'catcher', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
      { id: 'caught', type: 'helper' },
    ];
    await helper.load([tcpNodes, ...nodeModules('hl7-link')] as never, flow as never);
    const messages = collect('messages');
    const caught = collect('caught');
    const analyzerMessages = allHl7Messages().filter((m) => m.from === 'analyzer');
    assert.deepEqual(analyzerMessages.map((m) => m.id).sort(), Object.keys(EXPECTED).sort(), 'every analyzer message of the captures is stated here');

    let n = 0;
    for (const m of analyzerMessages) {
      const expected = EXPECTED[m.id]!;
      const got: string[] = [];
      const deframer = new MllpDeframer();
      const socket = net.connect(port, '127.0.0.1');
      sockets.push(socket);
      socket.on('data', (d: Buffer) => {
        for (const e of deframer.push(d)) if (e.kind === 'frame') got.push(e.message.toString('latin1'));
      });
      await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
      const before = messages.length;
      const probe = `PROBE-${++n}`;
      socket.write(frameMllp(m.bytes));
      socket.write(frameMllp(Buffer.from(PROBE(n), 'latin1')));
      await waitUntil(() => got.some((g) => parseHl7(g).segment('MSA')?.field(2) === probe), 10_000, `${m.id}: the probe's AA`);
      const controlId = parseHl7(m.bytes.toString('latin1').split(/[\r\n]/)[0]!).msh.field(10);
      const acks = got.map((g) => parseHl7(g).segment('MSA')!).filter((msa) => msa.field(2) !== probe);
      assert.deepEqual(acks.map((msa) => msa.field(1)), expected.acks, `${m.id}: acknowledgements`);
      for (const msa of acks) assert.equal(msa.field(2), controlId, `${m.id}: MSA-2 is its MSH-10`);
      const passed = messages.slice(before).map((x) => Buffer.from(x.payload as Buffer));
      assert.equal(passed.length, expected.passedOn ? 2 : 1, `${m.id}: passed on (with the probe)`);
      if (expected.passedOn) assert.ok(passed[0]!.equals(m.bytes), `${m.id}: passed on as sent`);
      socket.destroy();
    }
    assert.deepEqual(caught.map((c) => (c.error as { message?: string }).message), []);
  });
});
