/**
 * Mindray BC hematology over HL7 on the BC-5380 manual's examples
 * (test/fixtures/SOURCES-added.md): QC kept apart from patient results
 * (mindray-bc5380-oru-r01-xr-qc-manual.txt; before, the dialect named no QC
 * marker, so the control's 101 values went out as the results of a patient
 * sample `6`), and the patient example read value by value
 * (mindray-bc5380-oru-r01-manual.txt).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allHl7Messages } from '../support/hl7-fixtures';
import { findHl7Profile, type Hl7DialectProfile } from '../../lib/protocols/hl7/dialects';
import { hl7LabEventsOf } from '../../lib/protocols/hl7/lab';

const SITE = 'Europe/Berlin';

function bytesOf(id: string): Buffer {
  const m = allHl7Messages().find((x) => x.id === id);
  assert.ok(m, id);
  return m.bytes;
}

describe('Mindray BC (HL7): QC', () => {
  const QC = 'mindray-bc5380-oru-r01-xr-qc-manual.txt#1';

  it('the manual\'s X-R QC goes to QC, every value, none to patient results', () => {
    const events = hl7LabEventsOf(bytesOf(QC), findHl7Profile('mindray-bc-hl7')!, SITE);
    assert.deepEqual(events.map((e) => e.type), ['qc', 'encapsulated']);
    const [qc] = events;
    assert.ok(qc?.type === 'qc');
    assert.equal(qc.results.length, 101);
    assert.ok(qc.results.every((r) => r.SampleNumber === '6' && r.patientId === '6666666'));
    const wbc = qc.results.filter((r) => r.instrumentCode === 'WBC').map((r) => [r.Result, r.units, r.record]);
    assert.deepEqual(wbc, [['0.00', '10*9/L', 7], ['0.00', '10*9/L', 50], ['0.00', '10*9/L', 90]]);
    assert.deepEqual(qc.results.filter((r) => r.instrumentCode === 'PLT').map((r) => r.Result), ['4', '5', '5']);
    assert.deepEqual(qc.results.filter((r) => r.instrumentCode === 'GRAN-X').map((r) => r.Result), ['6', '28', '17']);
  });

  it('either marker alone is enough: MSH-11 Q, or a QC service in OBR-4', () => {
    const base = findHl7Profile('mindray-bc-hl7')!;
    for (const qc of [[base.qc[0]!], [base.qc[1]!]]) {
      const p: Hl7DialectProfile = { ...base, qc };
      assert.deepEqual(hl7LabEventsOf(bytesOf(QC), p, SITE).map((e) => e.type), ['qc', 'encapsulated'], JSON.stringify(qc));
    }
    const none: Hl7DialectProfile = { ...base, qc: [] };
    const [before] = hl7LabEventsOf(bytesOf(QC), none, SITE);
    assert.ok(before?.type === 'results' && before.results.length === 101, 'without a marker the control was a patient sample');
  });

  it('a patient sample (BC-6200 capture: MSH-11 P, OBR-4 00001 Automated Count) stays a patient result', () => {
    const events = hl7LabEventsOf(bytesOf('mindray-bc6200-oru-r01.txt#1'), findHl7Profile('mindray-bc-hl7')!, SITE);
    assert.deepEqual(events.map((e) => e.type), ['results']);
  });

  it('the manual\'s patient sample: OBR-3 the sample, OBX-3.2 the parameter, both OBR groups patient results', () => {
    const events = hl7LabEventsOf(bytesOf('mindray-bc5380-oru-r01-manual.txt#1'), findHl7Profile('mindray-bc-hl7')!, SITE);
    assert.deepEqual(events.map((e) => e.type), ['results', 'encapsulated']);
    const [ev] = events;
    assert.ok(ev?.type === 'results');
    assert.equal(ev.results.length, 60);
    assert.ok(ev.results.every((r) => r.SampleNumber === '20071207011' && r.patientId === '7393670'));
    const at = (code: string) => ev.results.find((r) => r.instrumentCode === code);
    assert.deepEqual([at('WBC')?.Result, at('WBC')?.units, at('WBC')?.referenceRange, at('WBC')?.flags], ['9.81', '10*9/L', '4.00-10.00', ['N']]);
    assert.deepEqual([at('HGB')?.Result, at('HGB')?.flags], ['65', ['L']]);
    assert.deepEqual([at('PCT')?.Result, at('PCT')?.units], ['1.40', 'mL/L']);
    assert.deepEqual([at('Lymphocytes%. Manual')?.Result, at('Lymphocytes%. Manual')?.sequence], ['0.0', { patient: 1, order: 2, result: 56 }]);
  });
});
