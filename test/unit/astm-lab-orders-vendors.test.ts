/**
 * Order downloads for two more vendors, each compared field by field with its
 * source, and each read back:
 *
 * - Immucor NEO / Galileo / Echo: the Galileo order fixture
 *   (immucor-galileo-order.txt) and the NEO query fixture (immucor-neo-query.txt);
 * - Sysmex XN: the host order of the XN specification as quoted in the
 *   comments of atom982/centrallab_server @13d3046
 *   LISserver/aparati/sysmexxn330.js (parsaj_query), and a query written with
 *   the Q layout of senaite/senaite.astm @07d958b
 *   src/senaite/astm/instruments/sysmex_xn.py (no public XN query capture was
 *   found).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeMessage, repeatsOf, type OrderRecord, type PatientRecord } from '../../lib/protocols/astm/records';
import { IMMUCOR, SYSMEX_XN, type DialectProfile } from '../../lib/protocols/astm/dialects';
import { LabOrderError, QueryBook, buildNoInformation, buildOrderMessage, toLabEvents, type LabEvent, type LabOrder, type QueriedSample } from '../../lib/protocols/astm/lab';
import { fixtureText, loadFixture } from '../support/fixtures';

/** A message's records as text, without their CRs. */
function recordsOf(text: string): string[] {
  assert.ok(text.endsWith('\r'), 'a message ends with CR');
  return text.slice(0, -1).split('\r');
}

function fixtureRecords(name: string): string[] {
  return recordsOf(fixtureText(loadFixture(name)));
}

interface FieldDifference {
  field: string;
  built: string;
  source: string;
}

/**
 * Record by record, field by field: the same record types in the same order,
 * then every field that differs, named as the standard numbers it (`O-5`; in
 * the H, field 2 is the delimiter definition). A field one side leaves out
 * counts as empty: LIS2-A2 lets a sender stop a record after its last
 * non-empty field, so `...|Blood^Patient` and `...|Blood^Patient||||` say the same.
 */
function fieldDifferences(built: string[], source: string[]): FieldDifference[] {
  assert.deepEqual(built.map((r) => r.charAt(0)), source.map((r) => r.charAt(0)), 'record types');
  const out: FieldDifference[] = [];
  built.forEach((record, i) => {
    const b = record.split('|');
    const s = (source[i] ?? '').split('|');
    for (let j = 0; j < Math.max(b.length, s.length); j++) {
      const mine = b[j] ?? '';
      const theirs = s[j] ?? '';
      if (mine !== theirs) out.push({ field: `${record.charAt(0)}-${j + 1}`, built: mine, source: theirs });
    }
  });
  return out;
}

/** Components per repeat, to show a differing field still has the source's layout. */
function shape(field: string): number[] {
  return field.split('\\').map((r) => r.split('^').length);
}

function queryIn(text: string, profile: DialectProfile): Extract<LabEvent, { type: 'query' }> {
  const events = toLabEvents(decodeMessage(text), profile, { timeZone: 'Europe/Berlin' });
  const q = events.find((e): e is Extract<LabEvent, { type: 'query' }> => e.type === 'query');
  assert.ok(q !== undefined, 'the message holds a query');
  return q;
}

function firstSample(q: Extract<LabEvent, { type: 'query' }>): QueriedSample {
  const s = q.samples[0];
  assert.ok(s !== undefined, 'the query names a sample');
  return s;
}

function partsOf(text: string): { p: PatientRecord; o: OrderRecord } {
  const m = decodeMessage(text);
  assert.deepEqual(m.records.map((r) => r.type), ['H', 'P', 'O', 'L']);
  return { p: m.records[1] as PatientRecord, o: m.records[2] as OrderRecord };
}

describe('Immucor Galileo / Echo / NEO orders (go-astm fixtures)', () => {
  // 2005-02-22 14:02:43 in Berlin, the fixture's H-14.
  const at = { now: new Date('2005-02-22T13:02:43Z'), timeZone: 'Europe/Berlin' };
  // The fixture's sample, patient and test, as the LIS would give them.
  const GALILEO: LabOrder = {
    SampleNumber: '0651439A',
    Priority: 'R',
    SampleType: 'Blood',
    instrumentTests: ['Crossmatch'],
    patient: { ID: '1171984', Name: 'Patient, Test', Sex: 'M', DateOfBirth: '19590422' },
  };

  it('writes the Galileo order fixture field by field (its C record, the crossmatch donor, aside)', () => {
    const source = fixtureRecords('immucor-galileo-order.txt');
    assert.equal(source[3], 'C|1|L|Donor^R02460', 'the fixture still holds the donor comment this test leaves out');
    const withoutDonor = source.filter((r) => !r.startsWith('C|'));
    const built = recordsOf(buildOrderMessage(GALILEO, IMMUCOR, at));
    // The one difference: the file ends `L|1|N ` with a trailing space (noted
    // in test/support/fixtures.ts), which is no termination code LIS2-A2 knows.
    assert.deepEqual(fieldDifferences(built, withoutDonor), [{ field: 'L-3', built: 'N', source: 'N ' }]);
    // Byte for byte, H and P are the fixture's; the O also writes its empty
    // O-17 to O-26 (the report type, empty for a download the LIS starts).
    assert.deepEqual([built[0], built[1]], [withoutDonor[0], withoutDonor[1]]);
    assert.equal(built[2], `${withoutDonor[2] ?? ''}||||||||||`);
    assert.equal(built[3], 'L|1|N');
  });

  it('reads back: sample, patient, tests, priority and the specimen type^source', () => {
    const order: LabOrder = { ...GALILEO, Priority: 'S', instrumentTests: ['ABOD Full', 'Screen', 'ABOD Full'] };
    const { p, o } = partsOf(buildOrderMessage(order, IMMUCOR, at));
    assert.equal(o.specimenId, '0651439A');
    assert.deepEqual(repeatsOf(o.universalTestId), [['', '', '', 'ABOD Full'], ['', '', '', 'Screen']], 'each test once, in the LIS order');
    assert.equal(o.priority, 'S');
    assert.deepEqual(o.specimenDescriptor, ['Blood', 'Patient']);
    assert.equal(o.actionCode, 'N');
    assert.equal(o.reportType, '');
    assert.equal(p.practicePatientId, '1171984');
    assert.deepEqual(p.name, ['Patient', 'Test']);
    assert.equal(p.birthdate, '19590422');
    assert.equal(p.sex, 'M');
  });

  it('reads all five specimens of the NEO query and answers one of them, for that specimen only', () => {
    const q = queryIn(fixtureText(loadFixture('immucor-neo-query.txt')), IMMUCOR);
    assert.equal(q.cancel, false);
    assert.deepEqual(q.samples.map((s) => s.sampleNumber), ['VALI200301', 'VALI200302', 'VALI200303', 'VALI200304', 'VALI200305']);
    assert.ok(q.samples.every((s) => s.instrumentTests.length === 0), 'Q-5 ALL: every test');

    const book = new QueryBook(IMMUCOR);
    book.onQuery(q, 0);
    const decision = book.decide('VALI200303', 2_000);
    assert.ok(decision.send && decision.queried);
    const order: LabOrder = { ...GALILEO, SampleNumber: 'VALI200303', instrumentTests: ['Pool_Cell'] };
    const { o } = partsOf(buildOrderMessage(order, IMMUCOR, { ...at, query: decision.query }));
    assert.equal(o.specimenId, 'VALI200303');
    assert.deepEqual(o.universalTestId, ['', '', '', 'Pool_Cell']);
    assert.equal(o.reportType, 'Q', 'an answer says so (LIS2-A2 O-26)');

    assert.throws(() => buildOrderMessage(order, IMMUCOR, { ...at, query: firstSample(q) }), (err: Error) => err instanceof LabOrderError && /is for sample "VALI200301", not "VALI200303"/.test(err.message));
  });

  it('answers "no information" with the order header and L-3 "I"', () => {
    const q = queryIn(fixtureText(loadFixture('immucor-neo-query.txt')), IMMUCOR);
    assert.deepEqual(recordsOf(buildNoInformation('VALI200301', IMMUCOR, { ...at, query: firstSample(q) })), ['H|\\^&|||LIS|||||Echo|||LIS2-A2|20050222140243', 'L|1|I']);
  });

  it('refuses a sample type its source does not show, and keeps delimiters out of names and identifiers', () => {
    assert.throws(() => buildOrderMessage({ ...GALILEO, SampleType: 'Serum' }, IMMUCOR, at), /sample type "Serum" of sample 0651439A has no code .*known: Blood/);
    assert.throws(() => buildOrderMessage({ ...GALILEO, SampleType: 'constructor' }, IMMUCOR, at), /sample type "constructor"/);
    const { p } = partsOf(buildOrderMessage({ ...GALILEO, patient: { ...GALILEO.patient, Name: 'O|Brien^x, Jane' } }, IMMUCOR, at));
    assert.deepEqual(p.name, ['O Brien x', 'Jane']);
    assert.throws(() => buildOrderMessage({ ...GALILEO, SampleNumber: 'A^B' }, IMMUCOR, at), /holds "\^"/);
  });
});

describe('Sysmex XN query answers (atom982 XN-330 driver, senaite field layout)', () => {
  // The host order of the XN specification as atom982 quotes it (lines 432,
  // 464, 481 of sysmexxn330.js; `····` is the quote's own elision of the
  // tests between RBC and NEUT#).
  const SPEC_HOST_ORDER = [
    'H|\\^&|||||||||||E1394-97',
    'P|1|||100|^Carol^Thomas||20010820|F|||||^Dr. N||||||||||||^^^Eas',
    'O|1|^^123-4567-890123^C||^^^^WBC\\^^^^RBC\\\u00b7\u00b7\u00b7\u00b7^^^^NEUT#||20010807101000|||||N||||||||||||||Q',
    'L|1|N',
  ];
  // A sampler query laid out as senaite's RequestInformationRecord reads it:
  // Q-3 rack^position^sample ID (space-padded, as in the result fixtures)^
  // attribute B (bar code), Q-7 the time, Q-13 'N' (real-time inquiry,
  // sampler, initial analysis). The H is sysmex-xn550-result.txt's.
  const QUERY = 'H|\\^&|||    XN-550^00-24^22723^^^^BD634545||||||||E1394-97\rQ|1|2^1^          SAMPLE0042^B||||20240627135407||||||N\rL|1|N\r';
  const at = { now: new Date('2024-06-27T12:00:00Z'), timeZone: 'Europe/Berlin' };
  const ORDER: LabOrder = {
    SampleNumber: 'SAMPLE0042',
    TransactionDate: '20010807101000',
    Priority: 'R',
    SampleType: 'EDTA',
    instrumentTests: ['WBC', 'RBC', 'NEUT#'],
    patient: { ID: '100', Name: 'Thomas, Carol', Sex: 'F', DateOfBirth: '20010820' },
  };

  it('reads the sample from Q-3 component 3, trimmed, and keeps the whole range', () => {
    const q = queryIn(QUERY, SYSMEX_XN);
    assert.equal(q.cancel, false);
    const s = firstSample(q);
    assert.equal(s.sampleNumber, 'SAMPLE0042');
    assert.deepEqual(s.range, ['2', '1', '          SAMPLE0042', 'B']);
    assert.deepEqual(s.instrumentTests, [], 'an empty Q-5 asks for every test');
  });

  it('answers with the specification\'s host order layout, field by field', () => {
    const query = firstSample(queryIn(QUERY, SYSMEX_XN));
    const built = recordsOf(buildOrderMessage(ORDER, SYSMEX_XN, { ...at, query }));
    const differences = fieldDifferences(built, SPEC_HOST_ORDER);
    // What a LIS order does not carry (P-14 physician, P-26 ward), the tube
    // (O-3: this query's rack^position^sample^attribute, the quote's own
    // sample) and the elided tests in the quote's O-5.
    assert.deepEqual(differences.map((d) => d.field), ['P-14', 'P-26', 'O-3', 'O-5']);
    for (const d of differences.filter((x) => x.field.startsWith('O-'))) assert.deepEqual(shape(d.built), shape(d.source), `${d.field} keeps the layout`);
    assert.equal(built[2], 'O|1|2^1^          SAMPLE0042^B||^^^^WBC\\^^^^RBC\\^^^^NEUT#||20010807101000|||||N||||||||||||||Q');
  });

  it('reads back: the queried tube and sample in O-3, the tests in O-5 component 5, the patient as ^first^last', () => {
    const query = firstSample(queryIn(QUERY, SYSMEX_XN));
    const { p, o } = partsOf(buildOrderMessage({ ...ORDER, Priority: 'S' }, SYSMEX_XN, { ...at, query }));
    assert.deepEqual(o.specimenId, ['2', '1', '          SAMPLE0042', 'B']);
    assert.equal(repeatsOf(o.specimenId)[0]?.[2]?.trim(), 'SAMPLE0042');
    assert.equal(o.instrumentSpecimenId, '');
    assert.deepEqual(repeatsOf(o.universalTestId).map((r) => r[4]), ['WBC', 'RBC', 'NEUT#']);
    assert.equal(o.priority, '', 'no priority is sent: the sources show none');
    assert.equal(o.requestedAt, '20010807101000');
    assert.equal(o.actionCode, 'N');
    assert.equal(o.reportType, 'Q');
    assert.equal(p.patientId3, '100', 'P-5, where the quote and the result fixtures have it');
    assert.equal(p.laboratoryPatientId, '');
    assert.deepEqual(p.name, ['', 'Carol', 'Thomas']);
    const plain = partsOf(buildOrderMessage({ ...ORDER, patient: { ...ORDER.patient, Name: 'Carol Thomas' } }, SYSMEX_XN, { ...at, query })).p;
    assert.deepEqual(plain.name, ['', '', 'Carol Thomas'], 'a name without a comma is not split: it goes whole into the surname');
  });

  it('answers "no information" with the download header and L-3 "I"', () => {
    const query = firstSample(queryIn(QUERY, SYSMEX_XN));
    assert.deepEqual(recordsOf(buildNoInformation('SAMPLE0042', SYSMEX_XN, { ...at, query })), ['H|\\^&|||||||||||E1394-97', 'L|1|I']);
  });

  it('answers only the query it was asked, for the sample it named', () => {
    const query = firstSample(queryIn(QUERY, SYSMEX_XN));
    assert.throws(() => buildOrderMessage(ORDER, SYSMEX_XN, at), /needs the query being answered/);
    assert.throws(() => buildOrderMessage(ORDER, SYSMEX_XN, { ...at, queried: true }), /needs the query being answered/);
    assert.throws(() => buildOrderMessage({ ...ORDER, SampleNumber: 'SAMPLE0043' }, SYSMEX_XN, { ...at, query }), /is for sample "SAMPLE0042", not "SAMPLE0043"/);
    // A query whose tube component holds another number than the one it was
    // filed under (only a caller's mistake can make one): the echo is refused.
    const forged: QueriedSample = { ...query, range: ['2', '1', 'SAMPLE0099', 'B'] };
    assert.throws(() => buildOrderMessage(ORDER, SYSMEX_XN, { ...at, query: forged }), (err: Error) => err instanceof LabOrderError && /"SAMPLE0099" is not sample "SAMPLE0042"/.test(err.message));

    const book = new QueryBook(SYSMEX_XN);
    const never = book.decide('SAMPLE0042', 0);
    assert.equal(never.send, false, 'a sample the analyzer did not ask about gets no download');
    book.onQuery(queryIn(QUERY, SYSMEX_XN), 1_000);
    const decision = book.decide('SAMPLE0042', 3_000);
    assert.ok(decision.send && decision.queried);
    assert.equal(recordsOf(buildOrderMessage(ORDER, SYSMEX_XN, { ...at, query: decision.query }))[2]?.split('|')[2], '2^1^          SAMPLE0042^B');
  });

  it('names no sample when the bar code was not read, rather than answering a tube by position', () => {
    const unread = QUERY.replace('2^1^          SAMPLE0042^B', '2^1^^B');
    const events = toLabEvents(decodeMessage(unread), SYSMEX_XN, { timeZone: 'Europe/Berlin' });
    const samples = events.flatMap((e) => (e.type === 'query' ? e.samples : []));
    assert.deepEqual(samples, []);
  });
});
