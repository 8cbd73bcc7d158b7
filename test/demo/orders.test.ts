import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { checkCatalog, findCatalogFile, loadCatalog } from '../../demo/catalog';
import { DEMO_SEEDS, OrderBook, ageOn, formatTransactionDate, poolPatient, sampleTypeOf } from '../../demo/orders';
import { OrderSchema, PatientSchema, SAMPLE_TYPES, TestSchema, describeIssues } from '../../lib/lis/schemas';
import { FIXED_NOW } from './helpers';

const catalog = loadCatalog();
const book = (orderableTests?: string[]) => new OrderBook({ catalog, orderableTests, noOrderPattern: /^NOORDER/i });
const samples = Array.from({ length: 300 }, (_, i) => `LAB${String(i * 7919).padStart(8, '0')}`);

describe('flows/lis-catalog.json', () => {
  it('is an array of spec 2.1 Test objects valid against TestSchema, IDs T-<code>, unique', () => {
    const raw: unknown = JSON.parse(readFileSync(findCatalogFile(), 'utf8'));
    assert.ok(Array.isArray(raw));
    raw.forEach((t, i) => {
      const parsed = TestSchema.safeParse(t);
      assert.ok(parsed.success, `test ${i}: ${parsed.success ? '' : describeIssues(parsed.error, '').join('; ')}`);
      assert.deepEqual(Object.keys(t as object).sort(), ['Code', 'ID', 'Name', 'Type']);
    });
    assert.ok(catalog.length >= 28 && catalog.length <= 40, `30 to 40 tests, got ${catalog.length}`);
    for (const t of catalog) {
      assert.equal(t.ID, `T-${t.Code}`);
      assert.ok((SAMPLE_TYPES as readonly string[]).includes(t.Type ?? ''), `${t.ID} Type ${String(t.Type)}`);
    }
  });

  it('covers chemistry, a CBC panel, coagulation, immunoassay and virology', () => {
    const codes = new Set(catalog.map((t) => t.Code));
    const wanted = ['GLU', 'CREA', 'UREA', 'ALT', 'AST', 'CHOL', 'TRIG', 'HDL', 'NA', 'K', 'CL', 'CRP', 'CBC', 'WBC', 'RBC', 'HGB', 'HCT', 'PLT', 'MCV', 'PT', 'INR', 'APTT', 'FIB', 'TSH', 'FT4', 'HCG', 'CA125', 'PSA', 'HIV', 'HBV', 'HCV'];
    assert.deepEqual(wanted.filter((c) => !codes.has(c)), []);
  });

  it('checkCatalog refuses duplicates and invalid tests, naming them', () => {
    assert.throws(() => checkCatalog([{ ID: 'A', Name: 'a', Code: 'X' }, { ID: 'A', Name: 'b', Code: 'Y' }]), /ID A appears more than once/);
    assert.throws(() => checkCatalog([{ ID: '', Name: 'a', Code: 'X' }]), /tests\[0\]\.ID/);
    assert.throws(() => checkCatalog([]), /at least one test/);
  });
});

describe('OrderBook', () => {
  it('generates a valid order for any sample number, with exactly that SampleNumber and TransactionDate now', () => {
    for (const sample of [...samples, 'x', 'ÄÖ-12', ' padded ', '0000']) {
      const found = book().lookup(sample, FIXED_NOW);
      assert.ok(found.found);
      const parsed = OrderSchema.safeParse(found.order);
      assert.ok(parsed.success, `${sample}: ${parsed.success ? '' : describeIssues(parsed.error, 'order').join('; ')}`);
      assert.equal(found.order.SampleNumber, sample);
      assert.equal(found.order.TransactionDate, '20261121093015');
    }
  });

  it('is deterministic: the same sample number gives the same order from a fresh book', () => {
    for (const sample of samples.slice(0, 50)) {
      assert.deepEqual(book().lookup(sample, FIXED_NOW), book().lookup(sample, FIXED_NOW));
    }
    // Different samples mostly belong to different patients (a pool of 997, so some repeat).
    const patients = new Set(samples.map((s) => {
      const found = book().lookup(s, FIXED_NOW);
      return found.found ? found.order.patient.ID : '';
    }));
    assert.ok(patients.size > 200, `${patients.size} patients for ${samples.length} samples`);
  });

  it('orders 2 to 5 distinct tests from the catalog that share the order sample type', () => {
    const byId = new Map(catalog.map((t) => [t.ID, t]));
    const sizes = new Set<number>();
    const types = new Set<string>();
    const priorities = new Set<unknown>();
    for (const sample of samples) {
      const found = book().lookup(sample, FIXED_NOW);
      assert.ok(found.found);
      const { Tests, SampleType } = found.order;
      sizes.add(Tests.length);
      types.add(SampleType);
      priorities.add(found.order.Priority);
      assert.equal(new Set(Tests).size, Tests.length);
      for (const id of Tests) assert.equal(sampleTypeOf(byId.get(id)!), SampleType, `${sample}: ${id}`);
      // A group with fewer than 2 tests could give 1; the default catalog has none.
      assert.ok(Tests.length >= 2 && Tests.length <= 5, `${sample}: ${Tests.length}`);
    }
    assert.deepEqual([...sizes].sort(), [2, 3, 4, 5]);
    assert.deepEqual([...types].sort(), ['Blood', 'EDTA', 'Plasma', 'Serum', 'Urine']);
    assert.deepEqual([...priorities].sort(), ['R', 'S']);
  });

  it('draws from the tests of the longest prefix a sample number has, else from orderableTests', () => {
    const prefixed = new OrderBook({ catalog, orderableTests: ['T-NA', 'T-K'], orderableByPrefix: { 'HL7-': ['T-TSH', 'T-FT4'], 'HL7-V': ['T-HIV', 'T-HBV'] }, noOrderPattern: /^NOORDER/i });
    for (let i = 0; i < 20; i++) {
      const tests = (n: string) => {
        const found = prefixed.lookup(n, FIXED_NOW);
        assert.ok(found.found);
        return found.order.Tests;
      };
      assert.deepEqual(tests(`HL7-${i}`), ['T-TSH', 'T-FT4']);
      assert.deepEqual(tests(`HL7-V${i}`), ['T-HIV', 'T-HBV']);
      assert.deepEqual(tests(`ION${i}`), ['T-NA', 'T-K']);
    }
    assert.throws(() => new OrderBook({ catalog, orderableByPrefix: { X: ['T-NOPE'] }, noOrderPattern: /^NOORDER/i }), /orderableByPrefix\["X"\] names tests that are not in the catalog: T-NOPE/);
  });

  it('never orders PSA for a woman or HCG for a man', () => {
    for (const sample of samples) {
      const found = book().lookup(sample, FIXED_NOW);
      assert.ok(found.found);
      const sex = found.order.patient.Sex;
      if (sex === 'F') assert.ok(!found.order.Tests.includes('T-PSA'), sample);
      if (sex === 'M') assert.ok(!found.order.Tests.includes('T-HCG'), sample);
    }
  });

  it('serves the seeded samples as written', () => {
    for (const seed of DEMO_SEEDS) {
      const found = book().lookup(seed.SampleNumber, FIXED_NOW);
      assert.ok(found.found && found.source === 'seeded');
      assert.deepEqual(found.order.Tests, seed.Tests);
      assert.equal(found.order.SampleType, seed.SampleType);
      assert.equal(found.order.patient.Name, seed.patient.Name);
      assert.ok(OrderSchema.safeParse(found.order).success, seed.SampleNumber);
    }
    const s1001 = book().lookup('S1001', FIXED_NOW);
    assert.ok(s1001.found);
    assert.deepEqual(s1001.order.patient, { ID: 'P-100001', Name: 'Maria Rossi', Sex: 'F', DateOfBirth: '19680412', Age: '58', AgeUnit: 'Y' });
  });

  it('has no order for sample numbers matching the pattern, and ignores a g flag', () => {
    assert.deepEqual(book().lookup('NOORDER-1', FIXED_NOW), { found: false });
    assert.deepEqual(book().lookup('noorder', FIXED_NOW), { found: false });
    assert.ok(book().lookup('X-NOORDER', FIXED_NOW).found);
    const global = new OrderBook({ catalog, noOrderPattern: /^NONE/g });
    // With a g flag kept, every second test() would start at lastIndex and miss.
    for (let i = 0; i < 4; i++) assert.equal(global.lookup('NONE1', FIXED_NOW).found, false);
  });

  it('orderableTests restricts every order, seeded ones included', () => {
    const only = ['T-GLU', 'T-CREA', 'T-NA', 'T-HGB'];
    const restricted = book(only);
    for (const sample of [...samples, ...DEMO_SEEDS.map((s) => s.SampleNumber)]) {
      const found = restricted.lookup(sample, FIXED_NOW);
      assert.ok(found.found);
      assert.ok(found.order.Tests.length >= 1);
      for (const id of found.order.Tests) assert.ok(only.includes(id), `${sample}: ${id}`);
      assert.ok(OrderSchema.safeParse(found.order).success);
    }
    // S1001 keeps its orderable tests; S1002 (CBC only) keeps its patient and gets generated tests.
    const s1001 = restricted.lookup('S1001', FIXED_NOW);
    assert.ok(s1001.found);
    assert.deepEqual(s1001.order.Tests, ['T-GLU', 'T-CREA', 'T-NA']);
    const s1002 = restricted.lookup('S1002', FIXED_NOW);
    assert.ok(s1002.found);
    assert.equal(s1002.order.patient.Name, 'Tomasz Kowalski');
  });

  it('refuses orderableTests naming tests outside the catalog', () => {
    assert.throws(() => book(['T-GLU', 'T-NOPE', 'GLU']), /not in the catalog: T-NOPE, GLU/);
    assert.throws(() => book([]), /at least one/);
  });
});

describe('patients and dates', () => {
  it('pool patients are valid, stable, and vary in sex and age', () => {
    const sexes = new Set<string>();
    for (let i = 0; i < 997; i++) {
      const p = poolPatient(i);
      assert.deepEqual(p, poolPatient(i));
      const age = p.DateOfBirth ? ageOn(p.DateOfBirth, FIXED_NOW) : undefined;
      assert.ok(PatientSchema.safeParse({ ...p, ...age }).success, JSON.stringify(p));
      sexes.add(p.Sex);
    }
    assert.deepEqual([...sexes].sort(), ['F', 'M', 'U']);
  });

  it('ageOn counts days under a month, months under two years, years after', () => {
    const now = new Date(2026, 10, 21);
    assert.deepEqual(ageOn('20261121', now), { Age: '0', AgeUnit: 'D' });
    assert.deepEqual(ageOn('20261101', now), { Age: '20', AgeUnit: 'D' });
    assert.deepEqual(ageOn('20261021', now), { Age: '1', AgeUnit: 'M' });
    assert.deepEqual(ageOn('20241122', now), { Age: '23', AgeUnit: 'M' });
    assert.deepEqual(ageOn('20241121', now), { Age: '2', AgeUnit: 'Y' });
    assert.deepEqual(ageOn('19800229', now), { Age: '46', AgeUnit: 'Y' });
    assert.equal(ageOn('20270101', now), undefined);
  });

  it('formatTransactionDate writes yyyymmddHHMMSS in local time', () => {
    assert.equal(formatTransactionDate(new Date(2026, 0, 2, 3, 4, 5)), '20260102030405');
  });
});
