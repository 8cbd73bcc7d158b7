/**
 * The dialect preview (lib/protocols/astm/preview.ts) on real captures: what a dialect,
 * built-in or edited, makes of them, and for what it cannot place, the record
 * and field to look at.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GENERIC_LIS2A2, applyOverrides, getProfile, type DialectProfile } from '../../lib/protocols/astm/dialects';
import { previewMessages } from '../../lib/protocols/astm/preview';
import { fixtureMessages, loadFixture } from '../support/fixtures';

const messagesOf = (name: string): Buffer[] => fixtureMessages(loadFixture(name)).map((m) => Buffer.from(m, 'latin1'));
const edited = (base: DialectProfile, overrides: unknown): DialectProfile => {
  const r = applyOverrides(base, overrides);
  assert.deepEqual(r.issues, []);
  return r.profile!;
};

describe('the dialect preview', () => {
  it('shows why the generic dialect leaves the cobas c 311 results unassigned, pointing at O-3', () => {
    const p = previewMessages(GENERIC_LIS2A2, messagesOf('roche-c311-result.txt'), 'UTC');
    assert.equal(p.results.length, 0);
    assert.equal(p.unassigned.length, 7);
    const first = p.unassigned[0]!;
    assert.deepEqual(first.at, { record: 'O', index: 3, field: 'specimenId', label: 'O-3 (specimenId)' });
    assert.equal(first.record, 4);
    assert.match(first.reason, /has components .* does not guess/);
    assert.equal(first.value, '22.4');
    assert.equal(first.testCode, '685/');
  });

  it('shows the same capture read by an edited dialect: sample, code, value, units, flags, status', () => {
    const site = edited(GENERIC_LIS2A2, { sampleId: { component: 2, singleComponent: false }, testId: { code: { component: 4, split: { separator: '/', part: 1 }, trim: true } } });
    const p = previewMessages(site, messagesOf('roche-c311-result.txt'), 'UTC');
    assert.equal(p.unassigned.length, 0);
    assert.deepEqual(p.results.map((r) => [r.sampleNumber, r.testCode, r.value, r.units]), [
      ['CL-PL-24-0370', '685', '22.4', 'U/l'],
      ['CL-PL-24-0370', '687', '15.0', 'U/l'],
      ['CL-PL-24-0370', '712', '4.1', 'umol/l'],
      ['CL-PL-24-0370', '158', '301', 'U/l'],
      ['CL-PL-24-0370', '735', '1.6', 'umol/l'],
      ['CL-PL-24-0370', '717', '5.85', 'mmol/l'],
      ['CL-PL-24-0370', '690', '34', 'umol/l'],
    ]);
    assert.deepEqual(p.results[0]!.flags, ['A']);
    assert.equal(p.results[0]!.status, 'F');
    assert.equal(p.results[0]!.message, 1);
  });

  it('points at R-3 when a result names no test where the dialect looks (Ortho VISION writes a plain ABO)', () => {
    const p = previewMessages(GENERIC_LIS2A2, messagesOf('ortho-vision-result-abo-rh.txt'), 'UTC');
    assert.deepEqual(p.unassigned.map((u) => [u.record, u.at?.label]), [
      [4, 'R-3 (universalTestId)'],
      [5, 'R-3 (universalTestId)'],
    ]);
    const site = edited(GENERIC_LIS2A2, { testId: { code: { component: 1, trim: true } } });
    assert.deepEqual(previewMessages(site, messagesOf('ortho-vision-result-abo-rh.txt'), 'UTC').results.map((r) => [r.sampleNumber, r.testCode, r.value, r.completedAtRaw]), [
      ['SID305', 'ABO', 'B', '20210309142229'],
      ['SID305', 'Rh', 'POS', '20210309142229'],
    ]);
  });

  it('numbers the messages of a paste (ARCHITECT: five H...L) and gives sub-codes', () => {
    const p = previewMessages(getProfile('abbott-architect'), messagesOf('abbott-architect-i-result-multi.txt'), 'Europe/Berlin');
    assert.equal(p.messages, 5);
    assert.deepEqual([...new Set(p.results.map((r) => r.message))], [1, 2, 3, 4, 5]);
    assert.ok(p.results.every((r) => r.subCode !== undefined && r.completedAt !== undefined), JSON.stringify(p.results[0]));
  });

  it('lists queries with their samples, and a cancel as a cancel (cobas e 411 manual)', () => {
    const e411 = getProfile('roche-cobas-e411-elecsys');
    assert.deepEqual(previewMessages(e411, messagesOf('roche-e411-query-manual.txt'), 'UTC').queries, [{ message: 1, record: 2, sampleNumber: '000004', tests: [], cancel: false }]);
    assert.deepEqual(previewMessages(e411, messagesOf('roche-e411-query-cancel-manual.txt'), 'UTC').queries, [{ message: 1, record: 2, sampleNumber: '000004', tests: [], cancel: true }]);
    // A dialect edited to read no queries says so instead.
    const none = previewMessages(edited(e411, { query: null }), messagesOf('roche-e411-query-manual.txt'), 'UTC');
    assert.deepEqual(none.queries, []);
    assert.match(none.other[0]!.reason, /reads no host queries/);
  });

  it('keeps QC apart (Yumizen H500)', () => {
    const p = previewMessages(getProfile('horiba-yumizen'), messagesOf('horiba-yumizen-h500-qc-result.txt'), 'UTC');
    assert.equal(p.results.length, 0);
    assert.ok(p.qc.length > 10);
  });

  it('names a message that cannot be decoded, with its record', () => {
    const p = previewMessages(GENERIC_LIS2A2, [Buffer.from('H|\\^&\rP|1\rO|1|S1||^^^GLU\rR|1|^^^GLU|5\x01\rL|1\r', 'latin1')], 'UTC');
    assert.equal(p.problems.length, 1);
    assert.equal(p.problems[0]!.record, 4);
    assert.match(p.problems[0]!.text, /not readable as ASTM records/);
  });
});
