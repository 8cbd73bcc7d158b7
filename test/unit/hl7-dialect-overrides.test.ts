/**
 * HL7 site dialects: a built-in profile plus overrides, merged by the rules
 * every protocol shares (lib/dialect/overrides.ts) with HL7's places and field
 * readings given whole, checked like a built-in profile with the path of each
 * problem, and exported as only what differs (JSON round trip).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  HL7_EDAN_I15,
  HL7_GENERIC_ORU,
  HL7_MINDRAY_CL,
  HL7_PROFILES,
  HL7_URIT_UT5160,
  Hl7DialectProfileSchema,
  applyHl7Overrides,
  hl7OverridesOf,
  hl7SiteDialectOf,
  hl7SiteProfile,
  mergeHl7Overrides,
  profileIssues,
} from '../../lib/protocols/hl7/dialects';
import { assertRoundTripsEveryPair, assertSchemaTakesEvery, overrideAsserts } from '../support/dialect-overrides';

const { apply, pathsOf } = overrideAsserts(applyHl7Overrides);

describe('the HL7 profile schema', () => {
  it('accepts every built-in profile as it is', () => {
    assertSchemaTakesEvery(Hl7DialectProfileSchema, HL7_PROFILES);
  });
});

describe('merging HL7 overrides onto a base', () => {
  it('merges objects key by key', () => {
    const p = apply(HL7_GENERIC_ORU, { results: { trim: true, completedAt: [14] }, queryDeadlineMs: 20_000 });
    assert.equal(p.results.trim, true);
    assert.deepEqual(p.results.completedAt, [14]);
    assert.deepEqual(p.results.code, HL7_GENERIC_ORU.results.code);
    assert.deepEqual(p.results.messages, HL7_GENERIC_ORU.results.messages);
    assert.equal(p.queryDeadlineMs, 20_000);
  });

  it('replaces places, field readings and arrays whole', () => {
    // OBX-4 given over OBX-3.1 reads OBX-4.1, not a component kept from the base.
    const p = apply(HL7_GENERIC_ORU, { results: { code: { segment: 'OBX', field: 4 } }, sampleId: { places: [{ segment: 'OBR', field: 2 }] } });
    assert.deepEqual(p.results.code, { segment: 'OBX', field: 4 });
    assert.deepEqual(p.sampleId, { places: [{ segment: 'OBR', field: 2 }], trim: true });
    // Units read as a component do not keep the URIT's join of the whole field.
    assert.deepEqual(apply(HL7_URIT_UT5160, { results: { units: { field: 6, component: 1 } } }).results.units, { field: 6, component: 1 });
  });

  it('replaces an answer given with another form, and merges one that keeps it', () => {
    const law = { form: 'law', profiles: { answer: 'A', order: 'O' }, testCodingSystem: '99X', charsetName: 'UNICODE UTF-8' };
    assert.deepEqual(apply(HL7_MINDRAY_CL, { answer: law }).answer, law);
    const display = apply(HL7_MINDRAY_CL, { answer: { testComponents: 2 } }).answer;
    assert.equal(display?.form, 'display');
    assert.equal(display?.form === 'display' && display.testComponents, 2);
    assert.equal(display?.form === 'display' && display.items.tests, 29);
    // A law answer left half-filled is refused, naming what is missing.
    assert.deepEqual(pathsOf(HL7_MINDRAY_CL, { answer: { form: 'law', testCodingSystem: 'L' } }), ['answer.profiles', 'answer.charsetName']);
  });

  it('removes a setting given as null', () => {
    const p = apply(HL7_EDAN_I15, { results: { referenceRange: null, patientId: null } });
    assert.equal('referenceRange' in p.results, false);
    assert.equal(p.results.patientId, undefined);
    assert.equal(apply(HL7_MINDRAY_CL, { query: null, answer: null, acceptsUnsolicitedOrders: false, qcInRequest: null }).query, undefined);
  });

  it('leaves the base untouched', () => {
    mergeHl7Overrides(HL7_GENERIC_ORU, { results: { code: { segment: 'OBX', field: 4 } } });
    assert.deepEqual(HL7_GENERIC_ORU.results.code, { segment: 'OBX', field: 3, component: 1 });
  });
});

describe('checking an HL7 site dialect', () => {
  it('refuses unknown keys with their path, saying a place is given whole', () => {
    assert.deepEqual(pathsOf(HL7_GENERIC_ORU, { sampleID: { trim: false } }), ['sampleID']);
    const issues = applyHl7Overrides(HL7_GENERIC_ORU, { results: { code: { segment: 'OBX', field: 3, comp: 2 } } }).issues;
    assert.deepEqual(issues.map((i) => i.path), ['results.code.comp']);
    assert.match(issues[0]?.message ?? '', /not a setting.*place, given whole/);
    assert.match(applyHl7Overrides(HL7_GENERIC_ORU, { results: { units: { field: 6, joint: '^' } } }).issues[0]?.message ?? '', /results\.units is given whole/);
  });

  it('names wrong types and values with their path', () => {
    assert.deepEqual(pathsOf(HL7_GENERIC_ORU, { queryDeadlineMs: '20s' }), ['queryDeadlineMs']);
    assert.deepEqual(pathsOf(HL7_GENERIC_ORU, { charset: 'ebcdic' }), ['charset']);
    // The test code is read from an OBX: a place in another segment is refused where it is.
    assert.deepEqual(pathsOf(HL7_GENERIC_ORU, { results: { code: { segment: 'OBR', field: 4 } } }), ['results.code.segment']);
    assert.deepEqual(pathsOf(HL7_GENERIC_ORU, { results: { value: { field: 5, component: 'whole' } } }), ['results.value.component']);
  });

  it('applies the rules of the built-in profiles, with paths', () => {
    assert.deepEqual(pathsOf(HL7_GENERIC_ORU, { results: { code: { segment: 'OBX', field: 0 } } }), ['results.code.field']);
    assert.deepEqual(pathsOf(HL7_GENERIC_ORU, { sampleId: { places: [{ segment: 'obr', field: 2 }] } }), ['sampleId.places[0].segment']);
    assert.deepEqual(pathsOf(HL7_GENERIC_ORU, { sampleId: { places: [] } }), ['sampleId.places']);
    assert.deepEqual(pathsOf(HL7_GENERIC_ORU, { results: { units: { field: 6, component: 1, join: '^' } } }), ['results.units.join']);
    assert.deepEqual(pathsOf(HL7_GENERIC_ORU, { results: { messages: ['ORU^R01', 'ORU-R01'] } }), ['results.messages[1]']);
    assert.deepEqual(pathsOf(HL7_GENERIC_ORU, { qc: [{ place: { segment: 'SPM', field: 11 }, anyOf: [] }] }), ['qc[0].anyOf']);
    assert.deepEqual(pathsOf(HL7_GENERIC_ORU, { acceptsUnsolicitedOrders: true }), ['acceptsUnsolicitedOrders']);
    assert.deepEqual(pathsOf(HL7_MINDRAY_CL, { answer: { items: { sample: 1 } } }), ['answer.items']);
    assert.deepEqual(pathsOf(HL7_GENERIC_ORU, { label: ' ' }), ['label']);
    assert.deepEqual(profileIssues({ ...HL7_MINDRAY_CL, query: undefined, acceptsUnsolicitedOrders: false }).map((i) => i.path), ['answer']);
  });

  it('refuses text that is not a JSON object, and takes empty text as no overrides', () => {
    assert.match(applyHl7Overrides(HL7_GENERIC_ORU, '{"results": ').issues[0]?.message ?? '', /not JSON/);
    assert.match(applyHl7Overrides(HL7_GENERIC_ORU, '"x"').issues[0]?.message ?? '', /JSON object/);
    assert.deepEqual(apply(HL7_GENERIC_ORU, ''), HL7_GENERIC_ORU);
    assert.equal(apply(HL7_GENERIC_ORU, '{"queryDeadlineMs": 5000}').queryDeadlineMs, 5000);
  });

  it('refuses overrides nested deeper than any setting, at the path where the depth runs out, without recursing', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 5000; i++) deep = { place: deep };
    const issues = applyHl7Overrides(HL7_GENERIC_ORU, { qc: [deep] }).issues;
    assert.equal(issues.length, 1);
    assert.equal(issues[0]!.path, `qc[0]${'.place'.repeat(30)}`);
    assert.match(issues[0]!.message, /nested deeper than 32 levels/);
  });

  it('names an unknown base', () => {
    assert.deepEqual(hl7SiteProfile({ base: 'no-such-analyzer', overrides: {} }).issues.map((i) => i.path), ['base']);
  });
});

describe('exporting an HL7 site dialect', () => {
  it('keeps only what differs from the base', () => {
    assert.deepEqual(hl7OverridesOf(HL7_GENERIC_ORU, HL7_GENERIC_ORU), {});
    const p = apply(HL7_GENERIC_ORU, { results: { code: { segment: 'OBX', field: 4 }, trim: true, patientId: null } });
    assert.deepEqual(hl7OverridesOf(HL7_GENERIC_ORU, p), { results: { code: { segment: 'OBX', field: 4 }, trim: true, patientId: null } });
  });

  it('gives the same profile back through JSON, for every ordered pair of built-in HL7 profiles', () => {
    assertRoundTripsEveryPair(HL7_PROFILES, hl7SiteDialectOf, hl7SiteProfile);
  });
});
