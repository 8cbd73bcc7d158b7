/**
 * Order downloads and "no information" answers: laid out field by field like
 * the vendors' own examples (the fixtures for the Roche Elecsys type and the
 * Mindray CL, the manual's page 51 for the Roche cobas type), with the values
 * taken from the LIS order; escaping; what the builder refuses.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeMessage, repeatsOf, component, type AstmMessage, type OrderRecord, type PatientRecord } from '../../lib/protocols/astm/records';
import { GENERIC_LIS2A2, MINDRAY_CL, ROCHE_COBAS_E411, ROCHE_COBAS_E411_ELECSYS, STAGO_STA } from '../../lib/protocols/astm/dialects';
import { LabOrderError, QueryBook, buildNoInformation, buildOrderMessage, nameComponents, toLabEvents, type LabEvent, type LabOrder, type QueriedSample } from '../../lib/protocols/astm/lab';
import { fixtureText, loadFixture } from '../support/fixtures';

function fixtureRecords(name: string): string[] {
  return recordsOf(fixtureText(loadFixture(name)));
}

function recordsOf(text: string): string[] {
  assert.ok(text.endsWith('\r'), 'a message ends with CR');
  return text.slice(0, -1).split('\r');
}

/** The shape of a field as written: per repeat, its number of components. */
function shape(field: string): number[] {
  return field.split('\\').map((r) => r.split('^').length);
}

/**
 * Compares two messages record by record and field by field: same record
 * types, same number of fields, same component layout in every field. Returns
 * the fields whose values differ, as `P-11`, `O-5` ... (the H is `H-n` with
 * n counted as the standard does, the delimiters being field 2).
 */
function differingFields(built: string[], expected: string[]): string[] {
  assert.equal(built.length, expected.length, 'number of records');
  const out: string[] = [];
  built.forEach((record, i) => {
    const b = record.split('|');
    const e = (expected[i] ?? '').split('|');
    assert.equal(b[0], e[0], `record ${i + 1} type`);
    assert.equal(b.length, e.length, `${b[0]} record: number of fields`);
    b.forEach((field, j) => {
      const other = e[j] ?? '';
      assert.deepEqual(shape(field), shape(other), `${b[0]}-${j + 1}: component layout ${JSON.stringify(field)} vs ${JSON.stringify(other)}`);
      if (field !== other) out.push(`${b[0]}-${j + 1}`);
    });
  });
  return out;
}

function queryOf(name: string, profile = ROCHE_COBAS_E411_ELECSYS): Extract<LabEvent, { type: 'query' }> {
  const events = toLabEvents(decodeMessage(fixtureText(loadFixture(name))), profile, { timeZone: 'Europe/Berlin' });
  const q = events.find((e): e is Extract<LabEvent, { type: 'query' }> => e.type === 'query');
  assert.ok(q !== undefined, `${name} holds no query`);
  return q;
}

function first(q: Extract<LabEvent, { type: 'query' }>): QueriedSample {
  const s = q.samples[0];
  assert.ok(s !== undefined);
  return s;
}

const PATIENT = { ID: 'PATIENT111', Name: 'Smith', Sex: 'M' as const, DateOfBirth: '19600315', Age: '45', AgeUnit: 'Y' as const };

const ORDER: LabOrder = {
  SampleNumber: '000004',
  TransactionDate: '20090910135300',
  Priority: 'R',
  SampleType: 'Serum',
  Tests: ['TSH', 'FT4', 'FT3'],
  instrumentTests: ['10', '30', '40'],
  patient: PATIENT,
};

describe('Roche cobas e 411, Elecsys type (manual fixtures)', () => {
  const at = { now: new Date('2024-05-01T10:00:00Z'), timeZone: 'Europe/Berlin' };

  it('answers the manual\'s query with the manual\'s order layout', () => {
    const query = first(queryOf('roche-e411-query-manual.txt'));
    const built = buildOrderMessage(ORDER, ROCHE_COBAS_E411_ELECSYS, { ...at, query });
    const expected = fixtureRecords('roche-e411-order-download-manual.txt');
    // The manual orders test 30 with dilution 2 (`^^^30^2`); the LIS order has no dilution.
    assert.deepEqual(differingFields(recordsOf(built), expected), ['O-5']);
    const o = decodeMessage(built).records[2] as OrderRecord;
    assert.deepEqual(repeatsOf(o.universalTestId).map((r) => r[3]), ['10', '30', '40']);
    assert.equal(o.specimenId, '000004');
    assert.deepEqual(o.instrumentSpecimenId, ['40', '0', '5', '', 'SAMPLE', 'NORMAL'], 'the tube position echoed from Q-3');
  });

  it('writes the "no order" answer exactly as the manual does (O-26 "Z")', () => {
    const query = first(queryOf('roche-e411-query-manual.txt'));
    const built = buildNoInformation('000004', ROCHE_COBAS_E411_ELECSYS, { ...at, query });
    assert.deepEqual(recordsOf(built), fixtureRecords('roche-e411-order-download-no-order-manual.txt'));
  });

  it('goes from query to answer through the QueryBook', () => {
    const q = queryOf('roche-e411-query-manual.txt');
    const book = new QueryBook(ROCHE_COBAS_E411_ELECSYS);
    book.onQuery(q, 1_000);
    const decision = book.decide('000004', 5_000);
    assert.ok(decision.send && decision.queried);
    const built = buildOrderMessage(ORDER, ROCHE_COBAS_E411_ELECSYS, { ...at, query: decision.query });
    assert.deepEqual(differingFields(recordsOf(built), fixtureRecords('roche-e411-order-download-manual.txt')), ['O-5']);
  });

  it('cannot answer without the query, and never with another sample\'s query', () => {
    assert.throws(() => buildOrderMessage(ORDER, ROCHE_COBAS_E411_ELECSYS, { ...at, queried: true }), /needs the query being answered/);
    const query = { ...first(queryOf('roche-e411-query-manual.txt')), sampleNumber: '000005' };
    assert.throws(() => buildOrderMessage(ORDER, ROCHE_COBAS_E411_ELECSYS, { ...at, query }), (err: Error) => err instanceof LabOrderError && /is for sample "000005", not "000004"/.test(err.message));
    assert.throws(() => buildNoInformation('000004', ROCHE_COBAS_E411_ELECSYS, { ...at, query }), LabOrderError);
  });
});

describe('Roche cobas e 411, cobas type (manual p.51)', () => {
  const at = { now: new Date('2024-05-01T10:00:00Z'), timeZone: 'Europe/Berlin' };
  // The manual's query for sample 000004 at sequence 40, disk 0, position 5.
  const manualQuery = 'H|\\^&|||cobas-e411^1|||||host|TSREQ^REAL|P|1\rQ|1|^^000004^40^0^5^^S1^SC||ALL||||||||O\rL|1|N\r';

  it('answers with the manual\'s example 1 layout: O-12 "A", O-16 sample type code, O-26 "O"', () => {
    const q = toLabEvents(decodeMessage(manualQuery), ROCHE_COBAS_E411, { timeZone: 'Europe/Berlin' })[0];
    assert.ok(q?.type === 'query' && !q.cancel);
    const built = buildOrderMessage(ORDER, ROCHE_COBAS_E411, { ...at, query: first(q) });
    const example1 = ['H|\\^&|||host^1|||||cobas-e411|TSDWN^REPLY|P|1', 'P|1', 'O|1|000004|40^0^5^^S1^SC|^^^10^\\^^^30^2\\^^^40^|R||||||A||||1||||||||||O', 'L|1|N'];
    assert.deepEqual(differingFields(recordsOf(built), example1), ['O-5']);
  });

  it('writes example 2, "no order information", exactly', () => {
    const q = toLabEvents(decodeMessage(manualQuery), ROCHE_COBAS_E411, { timeZone: 'Europe/Berlin' })[0];
    assert.ok(q?.type === 'query');
    const built = buildNoInformation('000004', ROCHE_COBAS_E411, { ...at, query: first(q) });
    assert.deepEqual(recordsOf(built), ['H|\\^&|||host^1|||||cobas-e411|TSDWN^REPLY|P|1', 'P|1', 'O|1|000004|40^0^5^^S1^SC||R||||||A||||1||||||||||O', 'L|1|N']);
  });

  it('maps the LIS sample type to the analyzer\'s code and refuses one it has none for', () => {
    const query = first(queryOf('roche-e411-query.txt', ROCHE_COBAS_E411));
    const order = { ...ORDER, SampleNumber: '0000000387' };
    const o = (text: string) => decodeMessage(text).records[2] as OrderRecord;
    assert.equal(o(buildOrderMessage({ ...order, SampleType: 'Urine' }, ROCHE_COBAS_E411, { ...at, query })).specimenDescriptor, '2');
    assert.equal(o(buildOrderMessage({ ...order, SampleType: 'Plasma' }, ROCHE_COBAS_E411, { ...at, query })).specimenDescriptor, '1');
    assert.throws(() => buildOrderMessage({ ...order, SampleType: 'CSF' }, ROCHE_COBAS_E411, { ...at, query }), /sample type "CSF" .* has no code/);
  });

  it('refuses an unsolicited download: the analyzer only gets answers to its queries', () => {
    assert.throws(() => buildOrderMessage(ORDER, ROCHE_COBAS_E411, at), /needs the query being answered/);
  });
});

describe('Mindray CL-2000i (manual fixtures)', () => {
  // 2009-09-10 10:25:01 in China, the time in the manual's H-14.
  const at = { now: new Date('2009-09-10T02:25:01Z'), timeZone: 'Asia/Shanghai' };
  const order: LabOrder = { ...ORDER, SampleNumber: 'SAMPLE123', SampleType: 'Urine', instrumentTests: ['1', '2', '3', '4'], patient: PATIENT };

  it('answers a query with the manual\'s download layout, every field present', () => {
    const built = buildOrderMessage(order, MINDRAY_CL, { ...at, queried: true });
    const differing = differingFields(recordsOf(built), fixtureRecords('mindray-cl2000i-order-download.txt'));
    // What the manual's example holds and a LIS order does not: P-11 department,
    // P-19 diagnosis, P-21 patient type, P-26 zone, P-27 bed; O-3 the analyzer's
    // own sample number; O-5 the test names; O-8 collection time; O-15 sending
    // time; O-17, O-18, O-20 physicians and department.
    assert.deepEqual(differing, ['P-11', 'P-19', 'P-21', 'P-26', 'P-27', 'O-3', 'O-5', 'O-8', 'O-15', 'O-17', 'O-18', 'O-20']);
    const m = decodeMessage(built);
    const o = m.records[2] as OrderRecord;
    assert.deepEqual(repeatsOf(o.universalTestId).map((r) => r[0]), ['1', '2', '3', '4']);
    assert.equal(o.reportType, 'Q');
    assert.equal(buildOrderMessage(order, MINDRAY_CL, at).split('\r')[2]?.split('|')[25], 'O', 'O-26 "O" for a download without a query');
  });

  it('writes the "not found" answer exactly as the manual does (H-12 "QA", L-3 "I")', () => {
    assert.deepEqual(recordsOf(buildNoInformation('SAMPLE123', MINDRAY_CL, at)), fixtureRecords('mindray-cl2000i-query-answer-notfound.txt'));
  });

  it('replaces delimiters in the patient name, which Mindray cannot read as escapes, and refuses them in identifiers', () => {
    const built = buildOrderMessage({ ...order, patient: { ...PATIENT, Name: 'Smith|Jones^Jr' } }, MINDRAY_CL, at);
    const p = decodeMessage(built).records[1] as PatientRecord;
    assert.deepEqual(p.name, ['Smith Jones Jr', '', '']);
    assert.throws(() => buildOrderMessage({ ...order, SampleNumber: 'S|1' }, MINDRAY_CL, at), /holds "\|"/);
    assert.throws(() => buildOrderMessage({ ...order, instrumentTests: ['1^2'] }, MINDRAY_CL, at), LabOrderError);
  });
});

describe('generic LIS2-A2 orders', () => {
  const at = { now: new Date('2025-01-15T09:30:00Z'), timeZone: 'Europe/Berlin' };
  const decode = (text: string): { m: AstmMessage; p: PatientRecord; o: OrderRecord } => {
    const m = decodeMessage(text);
    return { m, p: m.records[1] as PatientRecord, o: m.records[2] as OrderRecord };
  };

  it('round-trips: the decoded download gives back sample, tests, priority, sample type and patient', () => {
    const order: LabOrder = { ...ORDER, SampleNumber: 'S-2025-0042', Priority: 'S', SampleType: 'Whole blood', instrumentTests: ['GLU', 'CRE'], patient: { ID: 'P-77', Name: 'Roe, Jane', Sex: 'F', DateOfBirth: '19800229' } };
    const text = buildOrderMessage(order, GENERIC_LIS2A2, at);
    assert.ok(text.endsWith('\r') && !text.includes('\n'));
    const { m, p, o } = decode(text);
    assert.deepEqual(m.records.map((r) => r.type), ['H', 'P', 'O', 'L']);
    assert.equal(component(m.records[0]?.type === 'H' ? m.records[0].timestamp : undefined, 1), '20250115103000', 'H-14 in the site zone');
    assert.equal(p.practicePatientId, 'P-77');
    assert.deepEqual(p.name, ['Roe', 'Jane']);
    assert.equal(p.birthdate, '19800229');
    assert.equal(p.sex, 'F');
    assert.equal(o.specimenId, 'S-2025-0042');
    assert.deepEqual(repeatsOf(o.universalTestId), [['', '', '', 'GLU'], ['', '', '', 'CRE']]);
    assert.equal(o.priority, 'S');
    assert.equal(o.requestedAt, '20090910135300');
    assert.equal(o.specimenDescriptor, 'Whole blood');
    assert.equal(o.actionCode, 'N');
    assert.equal(o.reportType, 'O');
    assert.equal(decode(buildOrderMessage(order, GENERIC_LIS2A2, { ...at, queried: true })).o.reportType, 'Q');
  });

  it('escapes | ^ & \\ in a patient name so the record stays whole, and gets the name back', () => {
    const name = 'O|Brien^x&y\\z, Jane';
    const text = buildOrderMessage({ ...ORDER, patient: { ...PATIENT, Name: name } }, GENERIC_LIS2A2, at);
    const pText = recordsOf(text)[1] ?? '';
    assert.equal(pText.split('|').length, 9, 'P keeps its 9 fields');
    assert.equal(pText, 'P|1|PATIENT111|||O&F&Brien&S&x&E&y&R&z^Jane||19600315|M');
    assert.deepEqual(decode(text).p.name, ['O|Brien^x&y\\z', 'Jane']);
  });

  it('escapes a sample number holding a delimiter rather than altering it', () => {
    const { o } = decode(buildOrderMessage({ ...ORDER, SampleNumber: 'A^B' }, GENERIC_LIS2A2, at));
    assert.equal(o.specimenId, 'A^B');
  });

  it('orders each test once and keeps the LIS order of tests', () => {
    const { o } = decode(buildOrderMessage({ ...ORDER, instrumentTests: ['B', 'A', 'B'] }, GENERIC_LIS2A2, at));
    assert.deepEqual(repeatsOf(o.universalTestId).map((r) => r[3]), ['B', 'A']);
    const single = decode(buildOrderMessage({ ...ORDER, instrumentTests: ['GLU'] }, GENERIC_LIS2A2, at)).o;
    assert.deepEqual(single.universalTestId, ['', '', '', 'GLU']);
  });

  it('answers "no information" with L-3 "I"', () => {
    assert.deepEqual(recordsOf(buildNoInformation('S-1', GENERIC_LIS2A2, at)), ['H|\\^&|||LIS|||||||P|LIS2-A2|20250115103000', 'L|1|I']);
  });

  it('refuses what cannot be sent', () => {
    assert.throws(() => buildOrderMessage({ ...ORDER, instrumentTests: [] }, GENERIC_LIS2A2, at), /no instrument tests/);
    assert.throws(() => buildOrderMessage({ ...ORDER, SampleNumber: ' ' }, GENERIC_LIS2A2, at), /SampleNumber is empty/);
    assert.throws(() => buildOrderMessage({ ...ORDER, SampleNumber: 'S\r1' }, GENERIC_LIS2A2, at), /control character/);
    assert.throws(() => buildOrderMessage({ ...ORDER, patient: { ...PATIENT, Name: 'A\u0003B' } }, GENERIC_LIS2A2, at), /control character/);
    assert.throws(() => buildOrderMessage({ ...ORDER, patient: { ...PATIENT, DateOfBirth: '1960-03-15' } }, GENERIC_LIS2A2, at), /not yyyymmdd/);
    assert.throws(() => buildOrderMessage({ ...ORDER, TransactionDate: '2009' }, GENERIC_LIS2A2, at), /TransactionDate/);
    // The Stago STA profile reads results only (no download layout in its sources).
    assert.throws(() => buildOrderMessage(ORDER, STAGO_STA, at), /no order download layout/);
    assert.throws(() => buildNoInformation('S-1', STAGO_STA, at), /no order download layout/);
    assert.throws(() => buildOrderMessage(ORDER, GENERIC_LIS2A2, { ...at, timeZone: 'Nowhere/Town' }));
  });
});

describe('patient names', () => {
  it('splits only the "Last, First" form; any other name goes whole into the last-name component', () => {
    assert.deepEqual(nameComponents('Roe, Jane', 2), ['Roe', 'Jane']);
    assert.deepEqual(nameComponents('  Roe ,  Jane Ann ', 3), ['Roe', 'Jane Ann', '']);
    assert.deepEqual(nameComponents('Jane Roe', 2), ['Jane Roe', '']);
    assert.deepEqual(nameComponents('van der Berg, Jan', 2), ['van der Berg', 'Jan']);
    assert.deepEqual(nameComponents('Roe, Jane', 1), ['Roe, Jane']);
    assert.deepEqual(nameComponents('', 2), ['', '']);
  });
});
