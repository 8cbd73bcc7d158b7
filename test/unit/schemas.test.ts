import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { OrderSchema, SAMPLE_TYPES, TestSchema, describeIssues, isRealDate } from '../../lib/lis/schemas';
import { anOrder } from '../support/lis-stub';

function errorsOf(value: unknown): string[] {
  const r = OrderSchema.safeParse(value);
  return r.success ? [] : describeIssues(r.error, 'order');
}

describe('order schema (spec 2.2, 2.3, 2.4)', () => {
  it('accepts a complete order and keeps fields the spec does not name', () => {
    const order = anOrder('S1', { Ward: '3B' });
    assert.deepEqual(OrderSchema.parse(order), order);
  });

  it('accepts each of the 19 sample types and nothing else', () => {
    assert.equal(SAMPLE_TYPES.length, 19);
    for (const t of SAMPLE_TYPES) assert.deepEqual(errorsOf(anOrder('S', { SampleType: t })), []);
    for (const t of ['serum', 'EDTA ', 'Whole Blood', '']) assert.equal(errorsOf(anOrder('S', { SampleType: t }))[0]?.split(':')[0], 'order.SampleType');
  });

  it('wants TransactionDate as 14 digits naming a real moment', () => {
    for (const good of ['20240229235959', '20261121000000']) assert.deepEqual(errorsOf(anOrder('S', { TransactionDate: good })), []);
    for (const bad of ['20230229120000', '20261321000000', '20261121240000', '20261121126000', '2026112112000', '2026-11-21T12:00', 20261121120000]) {
      assert.equal(errorsOf(anOrder('S', { TransactionDate: bad }))[0]?.split(':')[0], 'order.TransactionDate', String(bad));
    }
  });

  it('allows Priority S or R, or none', () => {
    for (const p of ['S', 'R', undefined, null]) assert.deepEqual(errorsOf(anOrder('S', { Priority: p })), []);
    for (const p of ['s', 'A', 'STAT']) assert.equal(errorsOf(anOrder('S', { Priority: p })).length, 1);
  });

  it('checks the patient: Sex M/F/U, DateOfBirth yyyymmdd, AgeUnit Y/M/D, ID present', () => {
    const withPatient = (p: Record<string, unknown>) => anOrder('S', { patient: { ID: 'P', Name: 'N', Sex: 'U', ...p } });
    assert.deepEqual(errorsOf(withPatient({})), []);
    assert.deepEqual(errorsOf(withPatient({ Sex: 'm' })), ['order.patient.Sex: must be one of "M", "F", "U"']);
    assert.equal(errorsOf(withPatient({ DateOfBirth: '19800230' }))[0]?.split(':')[0], 'order.patient.DateOfBirth');
    assert.equal(errorsOf(withPatient({ AgeUnit: 'W' }))[0]?.split(':')[0], 'order.patient.AgeUnit');
    assert.equal(errorsOf(withPatient({ ID: '' }))[0]?.split(':')[0], 'order.patient.ID');
    assert.equal(errorsOf(anOrder('S', { patient: undefined }))[0]?.split(':')[0], 'order.patient');
  });

  it('wants at least one test ID, each a non-empty string', () => {
    assert.equal(errorsOf(anOrder('S', { Tests: [] }))[0]?.split(':')[0], 'order.Tests');
    assert.equal(errorsOf(anOrder('S', { Tests: ['A', 7] }))[0]?.split(':')[0], 'order.Tests[1]');
    assert.equal(errorsOf(anOrder('S', { Tests: 'A,B' }))[0]?.split(':')[0], 'order.Tests');
  });

  it('requires the required fields', () => {
    const order = anOrder('S');
    for (const key of ['SampleNumber', 'TransactionDate', 'SampleType', 'Tests', 'patient']) {
      const copy = { ...order };
      delete copy[key];
      assert.equal(errorsOf(copy)[0]?.split(':')[0], `order.${key}`, key);
    }
  });
});

describe('test schema (spec 2.1)', () => {
  it('requires ID, Name and Code as strings; Type optional', () => {
    assert.ok(TestSchema.safeParse({ ID: '1', Name: 'Glucose', Code: 'GLU' }).success);
    assert.ok(TestSchema.safeParse({ ID: '1', Name: 'Glucose', Code: 'GLU', Type: 'Serum' }).success);
    assert.ok(!TestSchema.safeParse({ ID: 1, Name: 'Glucose', Code: 'GLU' }).success);
    assert.ok(!TestSchema.safeParse({ ID: '1', Code: 'GLU' }).success);
  });
});

describe('isRealDate', () => {
  it('knows leap years and month lengths', () => {
    assert.ok(isRealDate(2000, 2, 29));
    assert.ok(!isRealDate(1900, 2, 29));
    assert.ok(!isRealDate(2026, 4, 31));
    assert.ok(isRealDate(2026, 12, 31, 23, 59, 59));
  });
});
