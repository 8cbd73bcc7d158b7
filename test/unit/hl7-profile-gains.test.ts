/**
 * What the HL7 profile model gained for issue 25 ("HL7 in the dialog", last
 * bullet), each on real captures (test/fixtures/SOURCES.md, SOURCES-added.md),
 * value by value:
 * - the test code's fallback places (OBX-3.1, then OBX-3.2, then OBX-4), with
 *   numbers passed over where the name comes later (URIT-8030 channel `1`,
 *   EDAN i15 measured/calculated `0`/`1`);
 * - units read whole when they hold an unescaped `^` (`10^9/L`);
 * - ORM^O01 worklist queries read into the same query event as QRY^Q02 and
 *   QBP^Q11, one dialect reading both through the sample's fallback places.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allHl7Messages } from '../support/hl7-fixtures';
import { HL7_GENERIC_ORU, HL7_MINDRAY_CL, findHl7Profile, profileProblems, type Hl7DialectProfile, type Hl7ResultsRule } from '../../lib/protocols/hl7/dialects';
import { hl7LabEventsOf } from '../../lib/protocols/hl7/lab';
import type { InstrumentResult } from '../../lib/lab/types';

const SITE = 'Europe/Berlin';

function bytesOf(id: string): Buffer {
  const m = allHl7Messages().find((x) => x.id === id);
  assert.ok(m, id);
  return m.bytes;
}

function results(id: string, profile: Hl7DialectProfile): InstrumentResult[] {
  return hl7LabEventsOf(bytesOf(id), profile, SITE).flatMap((e) => (e.type === 'results' ? e.results : []));
}

const withResults = (base: Hl7DialectProfile, results: Partial<Hl7ResultsRule>): Hl7DialectProfile => ({ ...base, results: { ...base.results, ...results } });

/** The generic dialect as an integrator would shape it: the code in OBX-3.1, else OBX-3.2, else OBX-4, numbers passed over. */
const FALLBACKS: Partial<Hl7ResultsRule> = {
  codeFallbacks: [{ segment: 'OBX', field: 3, component: 2 }, { segment: 'OBX', field: 4 }],
  codeSkipsNumbers: true,
};

describe('HL7 profiles: the test code in fallback places', () => {
  it('URIT-8030: the generic dialect takes the channel number `1` (and OBR-3, the message number, for the sample); with the fallbacks, OBX-4 `GLI`', () => {
    assert.deepEqual(results('urit-8030-oru-r01.txt#1', HL7_GENERIC_ORU).map((r) => [r.SampleNumber, r.instrumentCode, r.Result, r.units]), [['202508090002', '1', '111', 'mg/dL']]);
    const shaped = { ...withResults(HL7_GENERIC_ORU, FALLBACKS), sampleId: { places: [{ segment: 'OBR', field: 2 }], trim: true } };
    assert.deepEqual(profileProblems(shaped), []);
    assert.deepEqual(results('urit-8030-oru-r01.txt#1', shaped).map((r) => [r.SampleNumber, r.instrumentCode, r.Result, r.units, r.referenceRange, r.flags]), [['0000966134', 'GLI', '111', 'mg/dL', '65-99', ['N']]]);
    // The same as the built-in URIT-8030 dialect, which reads OBX-4 directly.
    assert.deepEqual(results('urit-8030-oru-r01.txt#1', findHl7Profile('urit-8030')!).map((r) => r.instrumentCode), ['GLI']);
  });

  it('EDAN i15: measured (0) and calculated (1) in OBX-3 give way to the analyte in OBX-4, every one of 12', () => {
    const shaped = withResults(HL7_GENERIC_ORU, FALLBACKS);
    assert.deepEqual(
      results('edan-i15-oru-r01.txt#1', shaped).map((r) => [r.SampleNumber, r.instrumentCode, r.Result, r.units ?? '']),
      [
        ['20250902001', 'pH', '7.400', ''],
        ['20250902001', 'pO2', '90', 'mmHg'],
        ['20250902001', 'pCO2', '40.0', 'mmHg'],
        ['20250902001', 'Na+', '140', 'mmol/L'],
        ['20250902001', 'K+', '4.0', 'mmol/L'],
        ['20250902001', 'Ca++', '1.30', 'mmol/L'],
        ['20250902001', 'Cl-', '100', 'mmol/L'],
        ['20250902001', 'Glu', '5.0', 'mmol/L'],
        ['20250902001', 'Lac', '1.00', 'mmol/L'],
        ['20250902001', 'Hct', '40', '%'],
        ['20250902001', 'tHb(est)', '13.7', 'g/dL'],
        ['20250902001', 'cH+', '39.8', 'nmol/L'],
      ],
    );
    // Without passing numbers over, OBX-3 holds a value and the fallbacks are never tried.
    const plain = withResults(HL7_GENERIC_ORU, { codeFallbacks: FALLBACKS.codeFallbacks });
    assert.deepEqual([...new Set(results('edan-i15-oru-r01.txt#1', plain).map((r) => r.instrumentCode))], ['0', '1']);
  });

  it('keeps a code that is only the first place\'s (Analyx Panca `WBC`, Mindray BC-6200 LOINC `6690-2`), and a number when no later place names the test', () => {
    const shaped = withResults(HL7_GENERIC_ORU, FALLBACKS);
    assert.deepEqual(results('analyx-panca-oru-r01.txt#1', shaped).slice(0, 3).map((r) => r.instrumentCode), ['WBC', 'Neu#', 'Lym#']);
    const bc = results('mindray-bc6200-oru-r01.txt#1', shaped);
    assert.ok(bc.some((r) => r.instrumentCode === '6690-2') && !bc.some((r) => r.instrumentCode === 'WBC'), 'a LOINC code (`6690-2^WBC^LN`) is no bare number: it stays the code');
    // `10002^PCT^99MRC`: Mindray's own number gives way to the name in OBX-3.2.
    assert.ok(bc.some((r) => r.instrumentCode === 'PCT'));
    const onlyNumbers = withResults(HL7_GENERIC_ORU, { codeFallbacks: [{ segment: 'OBX', field: 3, component: 2 }], codeSkipsNumbers: true });
    assert.deepEqual(results('urit-8030-oru-r01.txt#1', onlyNumbers).map((r) => r.instrumentCode), ['1'], 'no name later: the channel number stays the code');
  });

  it('refuses codeSkipsNumbers without a fallback place to skip to', () => {
    assert.deepEqual(profileProblems(withResults(HL7_GENERIC_ORU, { codeSkipsNumbers: true })), ['results.codeSkipsNumbers needs results.codeFallbacks: a number is only passed over for a later place']);
  });
});

describe('HL7 profiles: units written with an unescaped component separator', () => {
  it('Analyx Panca `10^9/L`: the generic dialect keeps `10`; read whole, `10^9/L`', () => {
    const generic = results('analyx-panca-oru-r01.txt#1', HL7_GENERIC_ORU);
    assert.deepEqual(generic.slice(0, 2).map((r) => r.units), ['10', '10']);
    const whole = withResults(HL7_GENERIC_ORU, { units: { field: 6, component: 'all', join: '^' } });
    assert.deepEqual(
      results('analyx-panca-oru-r01.txt#1', whole).filter((r) => r.units?.includes('^')).map((r) => [r.instrumentCode, r.Result, r.units]),
      [
        ['WBC', '7.56', '10^9/L'],
        ['Neu#', '4.34', '10^9/L'],
        ['Lym#', '2.39', '10^9/L'],
        ['Mon#', '0.45', '10^9/L'],
        ['Eos#', '0.36', '10^9/L'],
        ['Bas#', '0.02', '10^9/L'],
        ['RBC', '4.94', '10^12/L'],
        ['PLT', '427', '10^9/L'],
        ['P-LCC', '59', '10^9/L'],
      ],
    );
  });

  it('URIT UT-5160 manual example: the same reading gives `10^9/L`, a unit without `^` stays as it is', () => {
    const rows = results('urit-ut5160-oru-r01-manual.txt#1', findHl7Profile('urit-ut5160')!);
    assert.equal(rows.find((r) => r.instrumentCode === 'WBC')?.units, '10^9/L');
    assert.equal(rows.find((r) => r.instrumentCode === 'MPV')?.units, 'fL');
  });
});

describe('HL7 profiles: ORM^O01 worklist queries', () => {
  it('the generic dialect cannot read the Analyx Panca ORM^O01; analyx-panca reads ORC-3 into a query event', () => {
    const generic = hl7LabEventsOf(bytesOf('analyx-panca-orm-o01-query.txt#1'), HL7_GENERIC_ORU, SITE);
    assert.deepEqual(generic.map((e) => (e.type === 'other' ? e.kind : e.type)), ['unsupported-message']);
    const [q] = hl7LabEventsOf(bytesOf('analyx-panca-orm-o01-query.txt#1'), findHl7Profile('analyx-panca')!, SITE);
    assert.ok(q?.type === 'query');
    assert.equal(q.cancel, false);
    assert.deepEqual(q.samples.map((s) => [s.sampleNumber, s.record, s.instrumentTests, s.answerContext?.controlId, s.answerContext?.segmentName]), [['wbl2506100001', 2, [], '2', 'ORC']]);
  });

  it('one dialect reads QRY^Q02 (QRD-8) and ORM^O01 (ORC-3) through the sample\'s fallback places', () => {
    const both: Hl7DialectProfile = { ...HL7_MINDRAY_CL, query: { ...HL7_MINDRAY_CL.query!, messages: ['QRY^Q02', 'ORM^O01'], sampleFallbacks: [{ segment: 'ORC', field: 3 }] } };
    assert.deepEqual(profileProblems(both), []);
    const sampleOf = (id: string) => hl7LabEventsOf(bytesOf(id), both, SITE).flatMap((e) => (e.type === 'query' ? e.samples.map((s) => s.sampleNumber) : [e.type]));
    assert.deepEqual(sampleOf('mindray-cl2000i-qry-q02.txt#1'), hl7LabEventsOf(bytesOf('mindray-cl2000i-qry-q02.txt#1'), HL7_MINDRAY_CL, SITE).flatMap((e) => (e.type === 'query' ? e.samples.map((s) => s.sampleNumber) : [])));
    assert.deepEqual(sampleOf('analyx-panca-orm-o01-query.txt#1'), ['wbl2506100001']);
    // Without the fallback, the ORM^O01 names no QRD and the reason says where the sample was looked for.
    const qrdOnly: Hl7DialectProfile = { ...both, query: { ...both.query!, sampleFallbacks: undefined } };
    const [other] = hl7LabEventsOf(bytesOf('analyx-panca-orm-o01-query.txt#1'), qrdOnly, SITE);
    assert.ok(other?.type === 'other');
    assert.equal(other.reason, 'ORM^O01: ORM^O01 has no QRD segment to name the sample in QRD-8');
    const bad: Hl7DialectProfile = { ...both, query: { ...both.query!, sampleFallbacks: [{ segment: 'orc', field: 0 }] } };
    assert.deepEqual(profileProblems(bad), ['query.sampleFallbacks[0].segment "orc" is not a segment name', 'query.sampleFallbacks[0].field must be a positive integer, got 0']);
  });

  it('Mindray BC-5300 manual example: mindray-bc-hl7 reads `ORC|RF||SampleID1||IP` into a query for SampleID1', () => {
    const events = hl7LabEventsOf(bytesOf('mindray-bc5300-orm-o01-query.txt#1'), findHl7Profile('mindray-bc-hl7')!, SITE);
    assert.deepEqual(events.map((e) => e.type), ['query']);
    const [q] = events;
    assert.ok(q?.type === 'query');
    assert.equal(q.sender, 'BC-5300');
    assert.deepEqual(q.samples.map((s) => [s.sampleNumber, s.record, s.answerContext?.controlId, s.answerContext?.segment]), [['SampleID1', 2, '9', 'RF||SampleID1||IP']]);
    // Before issue 25 the dialect read results only.
    const { query: _q, ...resultsOnly } = findHl7Profile('mindray-bc-hl7')!;
    const [old] = hl7LabEventsOf(bytesOf('mindray-bc5300-orm-o01-query.txt#1'), resultsOnly, SITE);
    assert.ok(old?.type === 'other' && old.kind === 'unsupported-message');
  });

  it('the analyx-panca and mindray-bc-hl7 dialects have no answer layout: the query is passed on, no order is written', () => {
    for (const id of ['analyx-panca', 'mindray-bc-hl7']) {
      const p = findHl7Profile(id)!;
      assert.equal(p.answer, undefined, id);
      assert.deepEqual(profileProblems(p), [], id);
    }
  });
});
