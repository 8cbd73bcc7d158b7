/**
 * The HL7 simulator's messages read back with the host's own reader
 * (lib/protocols/hl7/lab) and the same dialect profile: queries name the sample where
 * the host looks, results and QC decode to exactly the values the simulator
 * meant to send, and the host's answers (build-answer.ts) read back as the
 * order the LIS gave.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HL7_PROFILES, findHl7Profile } from '../../lib/protocols/hl7/dialects';
import { buildHl7NotFound, buildHl7Order, hl7LabEventsOf, splitBuiltMessages } from '../../lib/protocols/hl7/lab';
import { parseHl7 } from '../../lib/protocols/hl7/message';
import type { InstrumentResult, QueriedSample } from '../../lib/protocols/astm/lab';
import { buildHl7Ack, buildHl7Query, buildHl7Results, buildHl7Status, readHl7HostMessage, type GeneratedResult } from '../../lib/sim';
import { labOrder } from './support/test-host';

const NOW = new Date('2026-11-21T08:30:15.000Z');
const TZ = 'Europe/Berlin';
const at = (controlId: string) => ({ now: NOW, timeZone: TZ, controlId });
const TESTS = ['GLU', 'CREA', 'TSH'];

function expected(r: GeneratedResult) {
  return { code: r.code, value: r.value, units: r.units, range: r.referenceRange, flags: r.flag === undefined ? undefined : [r.flag] };
}
function got(r: InstrumentResult) {
  return { code: r.instrumentCode, value: r.Result, units: r.units, range: r.referenceRange, flags: r.flags };
}

describe('HL7 simulator messages, read back by the host', () => {
  for (const profile of HL7_PROFILES) {
    it(`${profile.id}: results decode to exactly what was sent, under the sample, with the completion time`, () => {
      const { text, results } = buildHl7Results(profile, { sampleNumber: 'S100', tests: TESTS, completedAt: NOW, seed: '1' }, at('7'));
      const events = hl7LabEventsOf(Buffer.from(text, 'utf8'), profile, TZ);
      assert.deepEqual(events.map((e) => e.type), ['results'], text);
      const e = events[0]!;
      assert.ok(e.type === 'results');
      assert.deepEqual(e.problems, []);
      assert.deepEqual(e.results.map(got), results.map(expected));
      for (const r of e.results) {
        assert.equal(r.SampleNumber, 'S100');
        assert.equal(r.completedAt, NOW.toISOString());
      }
      assert.equal(parseHl7(text).msh.field(10), '7');
    });

    if (profile.qc.length > 0) {
      it(`${profile.id}: QC is kept apart by the host, filed under the control`, () => {
        const { text, results } = buildHl7Results(profile, { sampleNumber: 'CTRL-N', tests: ['GLU'], completedAt: NOW, seed: '1', qc: true }, at('8'));
        const events = hl7LabEventsOf(Buffer.from(text, 'utf8'), profile, TZ);
        assert.deepEqual(events.map((e) => e.type), ['qc'], text);
        const qc = events[0]!;
        assert.ok(qc.type === 'qc');
        assert.deepEqual(qc.results.map((r) => [r.SampleNumber, r.instrumentCode, r.Result, r.units]), results.map((r) => ['CTRL-N', r.code, r.value, r.units]));
      });
    }
  }

  it('mindray-cl-hl7: the QRY^Q02 has the manual\'s layout and the bar code in QRD-8', () => {
    const profile = findHl7Profile('mindray-cl-hl7')!;
    const text = buildHl7Query(profile, '0019', { ...at('4'), queryId: '1', tag: 'Q4' });
    // Mindray CL manual p.1-28 (fixture mindray-cl2000i-qry-q02.txt), our time and control ID.
    assert.equal(text, 'MSH|^~\\&|||||20261121093015||QRY^Q02|4|P|2.3.1||||||ASCII|||\rQRD|20261121093015|R|D|1|||RD|0019|OTH|||T|\rQRF||||||RCT|COR|ALL||\r');
    const [q] = hl7LabEventsOf(Buffer.from(text), profile, TZ);
    assert.ok(q?.type === 'query');
    assert.equal(q.samples[0]?.sampleNumber, '0019');
  });

  it('mindray-cl-hl7: results and QC have the manual\'s MSH-16 (0 sample, 2 QC) and OBX-4 the test name', () => {
    const profile = findHl7Profile('mindray-cl-hl7')!;
    const r = parseHl7(buildHl7Results(profile, { sampleNumber: 'S1', tests: ['GLU'], completedAt: NOW, seed: '1' }, at('1')).text);
    assert.equal(r.msh.field(16), '0');
    assert.equal(r.segment('OBR')?.field(2), 'S1');
    assert.equal(r.segment('OBX')?.field(4), 'Glucose');
    const qc = parseHl7(buildHl7Results(profile, { sampleNumber: 'QUAL2', tests: ['GLU'], completedAt: NOW, seed: '1', qc: true }, at('2')).text);
    assert.equal(qc.msh.field(16), '2');
    assert.equal(qc.all('OBX').length, 0, 'Mindray QC travels in the OBR');
  });

  for (const id of ['ihe-law', 'roche-cobas-pro', 'roche-cobas-6800', 'biosystems-ba']) {
    it(`${id}: the QBP^Q11 names the specimen in QPD-3 and its tag in QPD-2; the host's RSP^K11 echoes them`, () => {
      const profile = findHl7Profile(id)!;
      const text = buildHl7Query(profile, 'S9', { ...at('12'), queryId: '1', tag: 'Q12' });
      const [q] = hl7LabEventsOf(Buffer.from(text), profile, TZ);
      assert.ok(q?.type === 'query', text);
      const query = q.samples[0] as QueriedSample;
      assert.equal(query.sampleNumber, 'S9');
      const answer = buildHl7Order(profile, labOrder('S9', TESTS, { Priority: 'S' }), { now: NOW, timeZone: TZ, controlId: () => '900', queried: true, query });
      const [rsp, oml] = splitBuiltMessages(answer);
      const r = readHl7HostMessage(Buffer.from(rsp!.text), profile);
      assert.deepEqual(r.meaning, { kind: 'queryAnswer', status: 'OK', acknowledges: '12', tag: 'Q12' });
      const o = readHl7HostMessage(Buffer.from(oml!.text), profile);
      assert.ok(o.meaning.kind === 'order');
      assert.equal(o.meaning.order.sampleNumber, 'S9');
      assert.deepEqual(o.meaning.order.tests, TESTS);
      assert.equal(o.meaning.order.priority, 'S');
      assert.deepEqual(o.meaning.order.patient, { id: 'P-S9', name: 'Roe, Jane', dateOfBirth: '19800102', sex: 'F' });
      const dc = readHl7HostMessage(Buffer.from(oml!.text.replace(/\rORC\|NW\|/g, '\rORC|DC|')), profile);
      assert.deepEqual(dc.meaning, { kind: 'noWork', sampleNumber: 'S9' }, 'LAB27-004: ORC-1 DC, no work for the specimen');
      const nf = readHl7HostMessage(Buffer.from(buildHl7NotFound(profile, 'S9', { now: NOW, timeZone: TZ, controlId: () => '901', query })), profile);
      assert.deepEqual(nf.meaning, { kind: 'queryAnswer', status: 'NF', acknowledges: '12', tag: 'Q12' });
    });
  }

  it('analyx-panca: the simulator asks for its worklist as the capture does (`ORC|RF|C1|<tube>||IP`), and the host reads the tube', () => {
    const profile = findHl7Profile('analyx-panca')!;
    const text = buildHl7Query(profile, 'wbl2506100001', { ...at('2'), queryId: '1', tag: 'Q2' });
    assert.deepEqual(text.split('\r').filter((x) => x !== '').slice(1), ['ORC|RF|C1|wbl2506100001||IP']);
    assert.equal(parseHl7(text).msh.field(9, 1, 2), 'O01');
    const [q] = hl7LabEventsOf(Buffer.from(text), profile, TZ);
    assert.ok(q?.type === 'query');
    assert.deepEqual(q.samples.map((s) => s.sampleNumber), ['wbl2506100001']);
  });

  it('mindray-cl-hl7: QCK^Q02 + DSR^Q03 read back as the order, with sample type and patient', () => {
    const profile = findHl7Profile('mindray-cl-hl7')!;
    const [q] = hl7LabEventsOf(Buffer.from(buildHl7Query(profile, 'S5', { ...at('3'), queryId: '1', tag: 'Q3' })), profile, TZ);
    assert.ok(q?.type === 'query');
    const [qck, dsr] = splitBuiltMessages(buildHl7Order(profile, labOrder('S5', ['1', '2']), { now: NOW, timeZone: TZ, controlId: () => '1', queried: true, query: q.samples[0]! }));
    assert.deepEqual(readHl7HostMessage(Buffer.from(qck!.text), profile).meaning, { kind: 'queryAnswer', status: 'OK', acknowledges: '3', tag: 'SR' });
    const o = readHl7HostMessage(Buffer.from(dsr!.text), profile).meaning;
    assert.ok(o.kind === 'order');
    assert.deepEqual({ ...o.order, controlId: '' }, {
      sampleNumber: 'S5',
      tests: ['1', '2'],
      priority: 'R',
      patient: { id: 'P-S5', name: 'Roe, Jane', dateOfBirth: '19800102', sex: 'F' },
      sampleType: 'Serum',
      unsolicited: false,
      messageType: 'DSR^Q03',
      controlId: '',
      problems: [],
    });
  });

  it('acknowledgements: Mindray ACK^Q03 as in the manual; LAW ORL^O34 for an OML, with an ERR for AE; ACK^U01^ACK otherwise', () => {
    const mindray = findHl7Profile('mindray-cl-hl7')!;
    // Manual p.1-31 (fixture mindray-cl2000i-ack-q03.txt), our time.
    assert.equal(
      buildHl7Ack(mindray, { type: 'DSR^Q03', controlId: '4', code: 'AA' }, at('4')),
      'MSH|^~\\&|||||20261121093015||ACK^Q03|4|P|2.3.1||||||ASCII|||\rMSA|AA|4|Message accepted|||0|\rERR|0|\r',
    );
    const law = findHl7Profile('ihe-law')!;
    const ae = parseHl7(buildHl7Ack(law, { type: 'OML^O33', controlId: '77', sender: 'Host', code: 'AE', text: 'bad order' }, at('5')));
    assert.equal(ae.msh.rawField(9), 'ORL^O34^ORL_O34');
    assert.equal(ae.msh.field(5), 'Host');
    assert.deepEqual([ae.segment('MSA')?.field(1), ae.segment('MSA')?.field(2), ae.segment('ERR')?.field(8)], ['AE', '77', 'bad order']);
    assert.equal(parseHl7(buildHl7Ack(law, { type: 'ESU^U01', controlId: '10', code: 'AA' }, at('6'))).msh.rawField(9), 'ACK^U01^ACK');
    const hostAe = buildHl7Ack(law, { type: 'OUL^R22', controlId: '78', code: 'AE', text: 'bad result' }, at('7'));
    assert.deepEqual(readHl7HostMessage(Buffer.from(hostAe), law).meaning, { kind: 'ack', code: 'AE', acknowledges: '78', text: 'bad result' });
  });

  it('roche-cobas-pro: ESU^U01 as in the session log, which the host reads as a status message', () => {
    const profile = findHl7Profile('roche-cobas-pro')!;
    const text = buildHl7Status(profile, at('10'));
    assert.match(text, /^MSH\|\^~\\&\|cobas pro\|\|Host\|\|20261121093015\|\|ESU\^U01\^ESU_U01\|10\|P\|2\.5\.1\|\|\|NE\|AL\|\|UNICODE UTF-8\|\|\|ROC-02\^ROCHE\rEQU\|0\^ROCHE~C223-10\^ROCHE~0\^ROCHE\|20261121093015\|ID\^IDLE/);
    const [e] = hl7LabEventsOf(Buffer.from(text), profile, TZ);
    assert.ok(e?.type === 'other' && /reports the analyzer's state/.test(e.reason));
  });
});
