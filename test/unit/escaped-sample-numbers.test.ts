/**
 * A delimiter the sender escaped into a sample number is data, both ways: the
 * analyzer's query or result under `S&E&1` (ASTM) or `S\T\1` (HL7) is read as
 * the sample "S&1", the order download for "S&1" writes it escaped again, and
 * the analyzer reading that download gets "S&1" back. An analyzer that cannot
 * read escapes is never sent the sample number mangled: the order is refused,
 * naming the character.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildOrderMessage, toLabEvents } from '../../lib/protocols/astm/lab';
import { decodeMessage } from '../../lib/protocols/astm/records';
import { GENERIC_LIS2A2, getProfile } from '../../lib/protocols/astm/dialects';
import { buildHl7Order, hl7LabEventsOf, splitBuiltMessages } from '../../lib/protocols/hl7/lab';
import { HL7_ROCHE_COBAS_PRO } from '../../lib/protocols/hl7/dialects';
import { parseHl7 } from '../../lib/protocols/hl7';
import type { LabEvent, LabOrder, QueriedSample } from '../../lib/lab/types';
import type { Hl7LabEvent } from '../../lib/protocols/hl7/lab';

const ORDER: LabOrder = { SampleNumber: 'S&1', TransactionDate: '20240501100000', Priority: 'R', SampleType: 'Serum', Tests: ['T-GLU'], instrumentTests: ['GLU'], patient: { ID: 'P1', Name: 'Roe, Jane', Sex: 'F', DateOfBirth: '19800102' } };

function queried(events: readonly (LabEvent | Hl7LabEvent)[]): QueriedSample {
  const q = events.find((e) => e.type === 'query');
  assert.ok(q && q.type === 'query', JSON.stringify(events));
  return q.samples[0]!;
}

describe('a sample number with an escaped delimiter, read and written again', () => {
  it('ASTM: a query for S&E&1 asks for "S&1"; the order download writes S&E&1 in O-3, which reads back as "S&1"; results under it are sent as "S&1"', () => {
    const at = { now: new Date('2024-05-01T10:00:00Z'), timeZone: 'UTC' };
    const query = queried(toLabEvents(decodeMessage('H|\\^&|||A\rQ|1|^S&E&1||ALL\rL|1|N\r'), GENERIC_LIS2A2, at));
    assert.equal(query.sampleNumber, 'S&1');

    const built = buildOrderMessage(ORDER, GENERIC_LIS2A2, { ...at, query });
    const o = built.split('\r').find((r) => r.startsWith('O|'))!;
    assert.match(o, /^O\|1\|S&E&1\|/, o);
    const order = decodeMessage(built).records.find((r) => r.type === 'O');
    assert.equal(order && order.type === 'O' ? order.specimenId : undefined, 'S&1');

    const results = toLabEvents(decodeMessage('H|\\^&|||A\rP|1\rO|1|S&E&1||^^^GLU\rR|1|^^^GLU|5.1|mmol/L\rL|1|N\r'), GENERIC_LIS2A2, at).flatMap((e) => (e.type === 'results' ? e.results : []));
    assert.deepEqual(results.map((r) => [r.SampleNumber, r.instrumentCode, r.Result]), [['S&1', 'GLU', '5.1']]);
  });

  it('ASTM: an analyzer that cannot read escapes is not sent the sample number at all', () => {
    const beckman = getProfile('beckman-access')!;
    assert.throws(() => buildOrderMessage(ORDER, beckman, { now: new Date('2024-05-01T10:00:00Z'), timeZone: 'UTC' }), /SampleNumber "S&1" holds "&", which this analyzer cannot read inside a value/);
  });

  it('HL7: a query for S\\T\\1 asks for "S&1"; the order download writes S\\T\\1, which reads back as "S&1"; results under it are sent as "S&1"', () => {
    const query = queried(hl7LabEventsOf(Buffer.from('MSH|^~\\&|cobas pro||Host||20240501||QBP^Q11^QBP_Q11|159|P|2.5.1||||||UNICODE UTF-8\rQPD|INIBAR^^99ROC|262|S\\T\\1|50006|1\rRCP|I|1|R\r', 'latin1'), HL7_ROCHE_COBAS_PRO, 'UTC'));
    assert.equal(query.sampleNumber, 'S&1');

    const parts = splitBuiltMessages(buildHl7Order(HL7_ROCHE_COBAS_PRO, ORDER, { now: new Date('2024-05-01T10:00:00Z'), timeZone: 'UTC', controlId: () => 'H1', queried: true, query }));
    const oml = parts.find((p) => p.type === 'OML^O33')!;
    const spm = oml.text.split('\r').find((s) => s.startsWith('SPM|'))!;
    assert.match(spm, /^SPM\|1\|S\\T\\1&BARCODE\|/, spm);
    assert.equal(parseHl7(oml.text).segment('SPM')!.field(2), 'S&1');
    assert.ok(parts.find((p) => p.type === 'RSP^K11')!.text.includes('QPD|INIBAR^^99ROC|262|S\\T\\1|'), 'the query echoed as it came');

    const oul = 'MSH|^~\\&|cobas pro||Host||20240501||OUL^R22^OUL_R22|160|P|2.5.1||||||UNICODE UTF-8\rSPM|1|S\\T\\1&BARCODE\rOBR|1\rOBX|1|NM|20490^20490^99ROC||3|mg/L|||||F\r';
    const results = hl7LabEventsOf(Buffer.from(oul, 'latin1'), HL7_ROCHE_COBAS_PRO, 'UTC').flatMap((e) => (e.type === 'results' ? e.results : []));
    assert.deepEqual(results.map((r) => [r.SampleNumber, r.instrumentCode, r.Result]), [['S&1', '20490', '3']]);
  });
});
