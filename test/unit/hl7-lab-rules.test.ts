/**
 * What the HL7 dialects decide beyond the rows of hl7-lab-fixtures.test.ts:
 * profiles are consistent, QC and encapsulated data stay out of the patient
 * results, supplements and comments stay with their result, a result without
 * a sample number is reported with the field named, and the host's messages
 * match the Mindray CL manual's own QCK^Q02 and DSR^Q03 examples field by field.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadHl7Fixture } from '../support/hl7-fixtures';
import { HL7_MINDRAY_CL, HL7_IHE_LAW, HL7_PROFILES, HL7_ROCHE_COBAS_PRO, findHl7Profile, profileProblems } from '../../lib/protocols/hl7/dialects';
import { buildHl7NotFound, buildHl7Order, hl7Instant, hl7LabEventsOf, splitBuiltMessages } from '../../lib/protocols/hl7/lab';
import { parseHl7 } from '../../lib/protocols/hl7';
import type { LabOrder, QueriedSample } from '../../lib/lab/types';

const bytes = (name: string, nth = 1) => loadHl7Fixture(name).messages.filter((m) => m.from === 'analyzer')[nth - 1]!.bytes;
const events = (name: string, dialect: string) => hl7LabEventsOf(bytes(name), findHl7Profile(dialect)!, 'UTC');

describe('HL7 dialect profiles', () => {
  it('are all usable, with unique ids', () => {
    for (const p of HL7_PROFILES) assert.deepEqual(profileProblems(p), [], p.id);
    assert.equal(new Set(HL7_PROFILES.map((p) => p.id)).size, HL7_PROFILES.length);
  });
  it('name what is wrong in a broken one', () => {
    const broken = { ...HL7_IHE_LAW, id: 'Bad Id', sampleId: { places: [], trim: true }, results: { ...HL7_IHE_LAW.results, messages: ['OUL'] } };
    assert.deepEqual(profileProblems(broken), [`id "Bad Id" must be lower-case words joined by '-'`, 'sampleId.places must name at least one place', 'results.messages "OUL" is not a message type such as ORU^R01']);
  });
});

/** The completion time of one cobas pro result whose MSH-7 is `msh7`. */
function completedWithMsh7(msh7: string, obx19: string): string | undefined {
  const text = `MSH|^~\\&|cobas pro||Host||${msh7}||OUL^R22^OUL_R22|1|P|2.5.1\rSPM|1|4711&BARCODE\rOBR|1\rOBX|1|NM|20490^20490^99ROC|1|3|mg/L|||||F||||||||${obx19}\r`;
  const ev = hl7LabEventsOf(Buffer.from(text, 'latin1'), HL7_ROCHE_COBAS_PRO, 'Europe/Berlin')[0]!;
  return ev.type === 'results' ? ev.results[0]!.completedAt : undefined;
}

describe('HL7 lab events', () => {
  it('reads a time without offset in MSH-7\'s offset, else in the site zone; a stated offset wins', () => {
    const site = 'Europe/Berlin';
    assert.equal(hl7Instant('20230412112047', site, '+0900'), '2023-04-12T02:20:47.000Z');
    assert.equal(hl7Instant('20230412112047-0500', site, '+0900'), '2023-04-12T16:20:47.000Z');
    assert.equal(hl7Instant('20230412112047', site), '2023-04-12T09:20:47.000Z');
    assert.equal(completedWithMsh7('20230412120000+0900', '20230412112047'), '2023-04-12T02:20:47.000Z');
    assert.equal(completedWithMsh7('20230412120000', '20230412112047'), '2023-04-12T09:20:47.000Z');
  });
  it('keeps the URIT UT-5160 histograms aside and counted, out of the results', () => {
    const ev = events('urit-ut5160-oru-r01-manual.txt', 'urit-ut5160');
    const enc = ev.find((e) => e.type === 'encapsulated');
    assert.ok(enc && enc.type === 'encapsulated');
    assert.deepEqual(enc.items.map((i) => i.instrumentCode), ['RBCHistogram', 'PLTHistogram', 'S0_S10DIFFScattergram', 'S90_S90DDIFFScattergram']);
    const results = ev.find((e) => e.type === 'results');
    assert.ok(results && results.type === 'results');
    assert.equal(results.results.length, 24);
    assert.ok(!results.results.some((r) => r.instrumentCode.endsWith('gram')));
  });
  it('keeps repeated OBX-8 flags (BC-6200 `H~N`)', () => {
    const ev = events('mindray-bc6200-oru-r01.txt', 'mindray-bc-hl7');
    const e0 = ev[0]!;
    const results = e0.type === 'results' ? e0.results : [];
    assert.deepEqual(results.find((r) => r.instrumentCode === 'WBC')?.flags, ['H', 'N']);
    assert.equal(results.find((r) => r.instrumentCode === 'InR‰')?.units, '‰');
  });
  it('attaches IHE LAW supplemental observations to the result they describe', () => {
    const ev = events('roche-cobaspro-oul-r22-e801.txt', 'roche-cobas-pro');
    const e0 = ev[0]!;
    const r = e0.type === 'results' ? e0.results[0]! : undefined;
    assert.deepEqual(r?.supplements?.map((s) => s.code), ['10020', 'PT', 'CalibrationID', 'QCTID', 'QCSTATE', 'TR_TECHNICALLIMIT', 'TR_REPEATLIMIT', 'TR_EXPECTEDVALUES', '10020_EFS', '10020_EFV', '10020_EFC', '10020_PMT']);
    assert.deepEqual(r?.supplements?.[8], { code: '10020_EFS', value: '42399.210', units: 'COUNT', segment: 'OBX', index: 20 });
    const message = parseHl7(bytes('roche-cobaspro-oul-r22-e801.txt').toString('latin1'));
    for (const s of r?.supplements ?? []) {
      const seg = message.segments[s.index - 1]!;
      assert.deepEqual([seg.name, seg.field(3)], [s.segment, s.code], `${s.segment} ${s.index}`);
    }
  });
  it('keeps QC apart: cobas pure SPM-11 Q, CLINITEK OBR-15 …^Q with its NTE comments, Mindray CL MSH-16 2', () => {
    assert.deepEqual(events('roche-cobaspure-oul-r22-qc.txt', 'roche-cobas-pro').map((e) => e.type), ['qc']);
    const clinitek = events('siemens-clinitek-status-oru-r01-qc.txt', 'siemens-clinitek');
    assert.deepEqual(clinitek.map((e) => e.type), ['qc']);
    const c0 = clinitek[0]!;
    const first = c0.type === 'qc' ? c0.results[0]! : undefined;
    assert.deepEqual(first?.orderComments?.[0], 'QCName:CHEKSTIX');
    assert.deepEqual(first?.comments, ['QCRResult:P']);
    const cl = events('mindray-cl2000i-oru-r01-qc.txt', 'mindray-cl-hl7');
    const cl0 = cl[0]!;
    assert.deepEqual(cl0.type === 'qc' ? cl0.results[0]!.control : undefined, { id: '2', name: 'QUAL2', lot: '2222', expiry: '20300101', level: 'M', mean: '55.000000', sd: '5.000000' });
  });
  it('reports a result without a sample number as unassigned, naming the field', () => {
    const text = bytes('mindray-cl2000i-oru-r01-result.txt').toString('latin1').replace('OBR|1|12345678|', 'OBR|1||');
    const ev = hl7LabEventsOf(Buffer.from(text, 'latin1'), HL7_MINDRAY_CL, 'UTC');
    assert.deepEqual(ev.map((e) => e.type), ['unassigned']);
    const e0 = ev[0]!;
    assert.equal(e0.type === 'unassigned' ? e0.items[0]!.reason : '', 'OBX 4 (2): no sample number in OBR-2');
  });
  it('keeps in an unassigned result the units, reference range and flags the result would have had', () => {
    const original = hl7LabEventsOf(bytes('mindray-cl2000i-oru-r01-result.txt'), HL7_MINDRAY_CL, 'UTC')[0]!;
    const placed = original.type === 'results' ? original.results[0]! : undefined;
    assert.ok(placed?.units && placed.referenceRange && placed.flags, 'the fixture has units, a range and flags');
    const text = bytes('mindray-cl2000i-oru-r01-result.txt').toString('latin1').replace('OBR|1|12345678|', 'OBR|1||');
    const e0 = hl7LabEventsOf(Buffer.from(text, 'latin1'), HL7_MINDRAY_CL, 'UTC')[0]!;
    const item = e0.type === 'unassigned' ? e0.items[0]! : undefined;
    assert.deepEqual({ units: item?.units, referenceRange: item?.referenceRange, flags: item?.flags }, { units: placed.units, referenceRange: placed.referenceRange, flags: placed.flags });
  });
  it('reads a Mindray query without a bar code (a range query) as other, saying why', () => {
    const text = bytes('mindray-cl2000i-qry-q02.txt').toString('latin1').replace('|RD|0019|', '|RD||');
    const ev = hl7LabEventsOf(Buffer.from(text, 'latin1'), HL7_MINDRAY_CL, 'UTC');
    assert.deepEqual(ev, [{ type: 'other', kind: 'unreadable-query', reason: 'QRY^Q02: the query names no sample in QRD-8 (a query by range or time, which one order cannot answer)' }]);
  });
  it('says what each other event is in its kind: a message type the dialect does not read, results without OBX', () => {
    const cl = (text: string) => hl7LabEventsOf(Buffer.from(text, 'latin1'), HL7_MINDRAY_CL, 'UTC').map((e) => (e.type === 'other' ? e.kind : e.type));
    assert.deepEqual(cl('MSH|^~\\&|LIS||||20120508||ADT^A01|1|P|2.3.1\rPID|1\r'), ['unsupported-message']);
    assert.deepEqual(cl('MSH|^~\\&|LIS||||20120508||ORU^R01|1|P|2.3.1\rPID|1\rOBR|1|123\r'), ['empty-message']);
  });
  it('reads the cobas pro status messages as other', () => {
    assert.deepEqual(events('roche-cobaspro-esu-inu-session.log.txt', 'roche-cobas-pro'), [{ type: 'other', kind: 'status-message', reason: "ESU^U01 reports the analyzer's state; it carries no results", sender: 'cobas pro' }]);
  });
});

const ORDER: LabOrder = { SampleNumber: '0019', SampleType: 'Serum', Priority: 'R', instrumentTests: ['1', '2', '5'], patient: { ID: '1212', Name: 'Tommy', Sex: 'M', DateOfBirth: '19620824' } };

function query(name: string, dialect: string): QueriedSample {
  const ev = events(name, dialect)[0]!;
  assert.equal(ev.type, 'query');
  return ev.type === 'query' ? ev.samples[0]! : (undefined as never);
}

/** Segments of a message, each as its fields, with MSH-7 (the time) and QRD-1 blanked. */
function fieldsOf(text: string): string[][] {
  return parseHl7(text).segments.map((s) => {
    const f = s.text.split('|');
    if (s.name === 'MSH') f[6] = '';
    if (s.name === 'QRD') f[1] = '';
    return f;
  });
}

describe('Mindray CL answers, against the manual (pp. 1-29 to 1-31)', () => {
  const at = { now: new Date('2012-05-08T10:47:00Z'), timeZone: 'UTC', controlId: () => '99' };
  const q = query('mindray-cl2000i-qry-q02.txt', 'mindray-cl-hl7');
  const manual = (name: string) => loadHl7Fixture(name).messages[0]!.bytes.toString('latin1');

  it('found: QCK^Q02 OK (not acknowledged by the analyzer), then the DSR^Q03', () => {
    const parts = splitBuiltMessages(buildHl7Order(HL7_MINDRAY_CL, ORDER, { ...at, queried: true, query: q }));
    assert.deepEqual(parts.map((p) => p.type), ['QCK^Q02', 'DSR^Q03']);
    assert.deepEqual(fieldsOf(parts[0]!.text), fieldsOf(manual('mindray-cl2000i-qck-q02-found.txt')));
    const ours = fieldsOf(parts[1]!.text);
    const theirs = fieldsOf(manual('mindray-cl2000i-dsr-q03-order-download.txt'));
    assert.equal(ours.length, theirs.length);
    // The manual's example also fills items the LIS order does not carry
    // (bed 27, blood type O, patient type, charge type, the analyzer's sample
    // ID 3, receipt time, item 25) and numbers its QRD-4 2 (ours repeats the
    // query's 1): every other field is the same.
    const notInOrder = new Set([2, 6, 15, 17, 22, 23, 25]);
    ours.forEach((seg, i) => {
      const want = [...theirs[i]!];
      if (want[0] === 'DSP' && notInOrder.has(Number(want[1]))) want[3] = '';
      if (want[0] === 'QRD') want[4] = '1';
      assert.deepEqual(seg, want, `segment ${i + 1}`);
    });
  });
  it('not found: QCK^Q02 NF alone', () => {
    const text = buildHl7NotFound(HL7_MINDRAY_CL, '0019', { ...at, query: q });
    assert.deepEqual(fieldsOf(text), fieldsOf(manual('mindray-cl2000i-qck-q02-notfound.txt')));
  });
  it('cuts a built answer into its messages, not at a CR and MSH inside a value (the builder escapes it)', () => {
    const tricky: LabOrder = { ...ORDER, patient: { ...ORDER.patient, Name: 'Tommy\rMSH|^~\\&|X' } };
    const parts = splitBuiltMessages(buildHl7Order(HL7_MINDRAY_CL, tricky, { ...at, queried: true, query: q }));
    assert.deepEqual(parts.map((p) => p.type), ['QCK^Q02', 'DSR^Q03']);
    assert.ok(parts[1]!.text.includes('Tommy\\X0D\\MSH'), parts[1]!.text);
  });
  it('unsolicited: one DSR^Q03 with MSH-15 P and its own control ID', () => {
    const parts = splitBuiltMessages(buildHl7Order(HL7_MINDRAY_CL, ORDER, { ...at, queried: false }));
    assert.deepEqual(parts.map((p) => p.type), ['DSR^Q03']);
    const msh = parseHl7(parts[0]!.text).msh;
    assert.deepEqual([msh.field(10), msh.field(15)], ['99', 'P']);
  });
});

describe('IHE LAW answers', () => {
  const at = { now: new Date('2023-01-28T11:46:27Z'), timeZone: 'UTC', controlId: () => 'H1' };
  const q = query('roche-cobaspro-qbp-q11.txt', 'roche-cobas-pro');
  const order: LabOrder = { ...ORDER, SampleNumber: '498100', instrumentTests: ['20340', '20411'], Priority: 'S', patient: { ID: 'P7', Name: 'Roe, Jane', Sex: 'F', DateOfBirth: '19800102' } };

  it('found: RSP^K11 with QAK OK and the QPD echoed, then OML^O33 with one ORC/TQ1/OBR per test', () => {
    const parts = splitBuiltMessages(buildHl7Order(HL7_ROCHE_COBAS_PRO, order, { ...at, queried: true, query: q }));
    assert.deepEqual(parts.map((p) => p.type), ['RSP^K11', 'OML^O33']);
    assert.deepEqual(parts[0]!.text.split('\r').filter(Boolean), [
      'MSH|^~\\&|Host||cobas pro||20230128114627||RSP^K11^RSP_K11|H1|P|2.5.1|||NE|AL||UNICODE UTF-8|||LAB-27^IHE',
      'MSA|AA|159',
      'QAK|262|OK|INIBAR^^99ROC',
      'QPD|INIBAR^^99ROC|262|498100|50006|1|||||SERPLAS^^99ROC|SC^^99ROC|R',
    ]);
    assert.deepEqual(parts[1]!.text.split('\r').filter(Boolean).slice(1), [
      'PID|1||P7||Roe^Jane||19800102|F',
      'SPM|1|498100&BARCODE||Serum|||||||P',
      'SAC|||498100',
      'ORC|NW|498100|||||||20230128114627',
      'TQ1|1||||||||S',
      'OBR|1|498100||20340^^99ROC',
      'ORC|NW|498100|||||||20230128114627',
      'TQ1|1||||||||S',
      'OBR|2|498100||20411^^99ROC',
    ]);
  });
  it('not found: RSP^K11 with QAK NF', () => {
    const text = buildHl7NotFound(HL7_ROCHE_COBAS_PRO, '498100', { ...at, query: q });
    assert.equal(text.split('\r')[2], 'QAK|262|NF|INIBAR^^99ROC');
  });
  it('refuses an order for a results-only dialect, naming it', () => {
    assert.throws(() => buildHl7Order(findHl7Profile('siemens-clinitek')!, order, { ...at, queried: false }), /Siemens CLINITEK Status .* documents no order download/);
  });
});
