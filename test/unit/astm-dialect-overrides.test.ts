/**
 * Site dialects: a built-in profile plus overrides, merged by the rules of
 * lib/protocols/astm/dialects/overrides.ts, checked like a built-in profile with the
 * path of each problem, and exported as only what differs (JSON round trip).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  DialectProfileSchema,
  GENERIC_LIS2A2,
  PROFILES,
  ROCHE_COBAS_C311,
  ROCHE_COBAS_E411,
  applyOverrides,
  mergeOverrides,
  overridesOf,
  profileIssues,
  siteDialectOf,
  siteProfile,
} from '../../lib/protocols/astm/dialects';
import { assertRoundTripsEveryPair, assertSchemaTakesEvery, overrideAsserts } from '../support/dialect-overrides';

const { apply, pathsOf } = overrideAsserts(applyOverrides);

describe('the profile schema', () => {
  it('accepts every built-in profile as it is', () => {
    assertSchemaTakesEvery(DialectProfileSchema, PROFILES);
  });
});

describe('merging overrides onto a base', () => {
  it('merges objects key by key', () => {
    const p = apply(GENERIC_LIS2A2, { results: { value: { component: 1, decimalComma: 'dot' } } });
    assert.deepEqual(p.results.value, { component: 1, trim: false, decimalComma: 'dot' });
    assert.deepEqual(p.results.completedAt, GENERIC_LIS2A2.results.completedAt);
    assert.deepEqual(p.sampleId, GENERIC_LIS2A2.sampleId);
  });

  it('replaces locators and arrays whole', () => {
    // The c 311 splits its code on '/': a new locator does not keep that split.
    const p = apply(ROCHE_COBAS_C311, { testId: { code: { component: 2, trim: true } }, qc: [{ record: 'O', field: 'actionCode', component: 1, anyOf: ['Q', 'C'] }] });
    assert.deepEqual(p.testId.code, { component: 2, trim: true });
    assert.deepEqual(p.qc, [{ record: 'O', field: 'actionCode', component: 1, anyOf: ['Q', 'C'] }]);
  });

  it('replaces a choice given with another record or form, and merges one that keeps it', () => {
    assert.deepEqual(apply(GENERIC_LIS2A2, { sampleId: { record: 'P', field: 'laboratoryPatientId', component: 1, trim: true, singleComponent: false } }).sampleId, {
      record: 'P',
      field: 'laboratoryPatientId',
      component: 1,
      trim: true,
      singleComponent: false,
    });
    assert.deepEqual(apply(GENERIC_LIS2A2, { sampleId: { field: 'instrumentSpecimenId' } }).sampleId, { ...GENERIC_LIS2A2.sampleId, field: 'instrumentSpecimenId' });
    // A P choice left half-filled is refused, naming what is missing.
    assert.deepEqual(pathsOf(GENERIC_LIS2A2, { sampleId: { record: 'P', field: 'laboratoryPatientId' } }), ['sampleId.component', 'sampleId.trim', 'sampleId.singleComponent']);
  });

  it('removes a setting given as null', () => {
    const p = apply(GENERIC_LIS2A2, { query: null, testId: { subCode: { component: 5, trim: true } } });
    assert.equal(p.query, undefined);
    assert.equal('query' in p, false);
    const q = apply(p, { testId: { subCode: null } });
    assert.equal(q.testId.subCode, undefined);
  });

  it('reaches every setting a site may need to change', () => {
    const p = apply(GENERIC_LIS2A2, {
      label: 'Site analyzer',
      sampleId: { field: 'instrumentSpecimenId', component: 2, trim: false, singleComponent: false },
      testId: { code: { component: 1, alsoComponents: [2], joinWith: '/', trim: true }, subCode: { component: 4, split: { separator: '/', part: 2 }, trim: true } },
      results: { value: { component: 'first-non-empty', decimalComma: 'dot' }, completedAt: { record: 'O', field: 'resultedAt' } },
      qc: [{ record: 'H', field: 'processingId', component: 1, anyOf: ['Q', 'QC'] }],
      query: { component: 3, cancelStatus: 'X', repeats: 'all', allTests: ['ALL', '*'] },
      order: { header: { fields: { senderId: 'HOST' } }, order: { test: { codeComponent: 1, components: 1 }, sampleType: { map: { Serum: 'S' } } } },
      noOrder: { terminationCode: 'Q' },
      queryDeadlineMs: 20000,
      acceptsUnsolicitedOrders: false,
      link: { checksums: false, framePerRecord: true },
      transport: { serial: { baudRate: 19200 } },
      timeZone: 'Europe/Berlin',
    });
    assert.equal(p.sampleId.field, 'instrumentSpecimenId');
    assert.equal(p.testId.code.joinWith, '/');
    assert.equal(p.results.value.component, 'first-non-empty');
    assert.equal(p.query?.cancelStatus, 'X');
    assert.equal(p.order?.header.fields.senderId, 'HOST');
    assert.equal(p.order?.header.fields.processingId, 'P');
    assert.deepEqual(p.order?.order.sampleType, { field: 'specimenDescriptor', map: { Serum: 'S' } });
    assert.deepEqual(p.noOrder, { ...GENERIC_LIS2A2.noOrder, terminationCode: 'Q' });
    assert.equal(p.transport.serial?.baudRate, 19200);
    assert.equal(p.transport.serial?.parity, 'none');
    assert.deepEqual(p.link, { checksums: false, framePerRecord: true });
  });

  it('leaves the base untouched', () => {
    mergeOverrides(GENERIC_LIS2A2, { results: { value: { component: 2 } } });
    assert.equal(GENERIC_LIS2A2.results.value.component, undefined);
  });
});

describe('checking a site dialect', () => {
  it('refuses unknown keys with their path', () => {
    assert.deepEqual(pathsOf(GENERIC_LIS2A2, { sampleID: { component: 2 } }), ['sampleID']);
    // A record field name misspelt in a template would write nothing where the analyzer expects it.
    assert.deepEqual(pathsOf(GENERIC_LIS2A2, { order: { header: { fields: { senderID: 'HOST' } } } }), ['order.header.fields.senderID']);
    const issues = applyOverrides(ROCHE_COBAS_C311, { testId: { code: { component: 2, trim: true, splt: { separator: '/', part: 1 } } } }).issues;
    assert.deepEqual(issues.map((i) => i.path), ['testId.code.splt']);
    assert.match(issues[0]?.message ?? '', /not a setting.*given whole/);
  });

  it('names wrong types and values with their path', () => {
    assert.deepEqual(pathsOf(GENERIC_LIS2A2, { queryDeadlineMs: '20s' }), ['queryDeadlineMs']);
    assert.deepEqual(pathsOf(GENERIC_LIS2A2, { results: { value: { decimalComma: 'comma' } } }), ['results.value.decimalComma']);
    assert.deepEqual(pathsOf(GENERIC_LIS2A2, { sampleId: { field: 'name' } }), ['sampleId.field']);
  });

  it('applies the rules of the built-in profiles, with paths', () => {
    assert.deepEqual(pathsOf(GENERIC_LIS2A2, { results: { value: { component: 0 } } }), ['results.value.component']);
    assert.deepEqual(pathsOf(GENERIC_LIS2A2, { testId: { code: { component: 4, alsoComponents: [5], trim: true } } }), ['testId.code.joinWith']);
    assert.deepEqual(pathsOf(GENERIC_LIS2A2, { qc: [{ record: 'H', field: 'processingId', component: 1, anyOf: [] }] }), ['qc[0].anyOf']);
    assert.deepEqual(pathsOf(GENERIC_LIS2A2, { order: null }), ['acceptsUnsolicitedOrders', 'noOrder']);
    assert.deepEqual(pathsOf(GENERIC_LIS2A2, { order: { order: { sampleType: { map: { 'Whole blood': [] } } } } }), ['order.order.sampleType.map["Whole blood"]']);
    assert.deepEqual(
      profileIssues({ ...ROCHE_COBAS_E411, acceptsUnsolicitedOrders: true }).map((i) => i.path),
      ['acceptsUnsolicitedOrders'],
    );
  });

  it('refuses text that is not a JSON object, and takes empty text as no overrides', () => {
    assert.match(applyOverrides(GENERIC_LIS2A2, '{"results": ').issues[0]?.message ?? '', /not JSON/);
    assert.match(applyOverrides(GENERIC_LIS2A2, '[1]').issues[0]?.message ?? '', /JSON object/);
    assert.deepEqual(apply(GENERIC_LIS2A2, '  '), GENERIC_LIS2A2);
    assert.equal(apply(GENERIC_LIS2A2, '{"queryDeadlineMs": 5000}').queryDeadlineMs, 5000);
  });

  it('refuses overrides nested deeper than any setting, at the path where the depth runs out, without recursing', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 5000; i++) deep = { value: deep };
    const issues = applyOverrides(GENERIC_LIS2A2, { results: deep }).issues;
    assert.equal(issues.length, 1);
    assert.equal(issues[0]!.path, `results${'.value'.repeat(31)}`);
    assert.match(issues[0]!.message, /nested deeper than 32 levels/);
    // The deepest real setting is a few levels down: untouched by the bound.
    assert.deepEqual(pathsOf(GENERIC_LIS2A2, { testId: { code: { component: 4, split: { separator: '/', part: 1 }, trim: true } } }), []);
  });

  it('names an unknown base', () => {
    assert.deepEqual(siteProfile({ base: 'no-such-analyzer', overrides: {} }).issues.map((i) => i.path), ['base']);
  });
});

describe('exporting a site dialect', () => {
  it('keeps only what differs from the base', () => {
    assert.deepEqual(overridesOf(GENERIC_LIS2A2, GENERIC_LIS2A2), {});
    const p = apply(GENERIC_LIS2A2, { results: { value: { component: 1 } }, query: null, testId: { code: { component: 1, trim: true } } });
    assert.deepEqual(overridesOf(GENERIC_LIS2A2, p), { results: { value: { component: 1 } }, query: null, testId: { code: { component: 1, trim: true } } });
  });

  it('gives the same profile back through JSON, for every built-in profile as base and as target', () => {
    assertRoundTripsEveryPair(PROFILES, siteDialectOf, siteProfile);
  });
});
