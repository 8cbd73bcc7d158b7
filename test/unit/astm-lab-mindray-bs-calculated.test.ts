/**
 * Mindray BS-240 calculated tests (issue 25, "Quirks met in the field"): R-3
 * puts a calculated item's name at component 2 with component 1 empty
 * (`^A/G^^F`), where a measured test has its code at component 1
 * (`P^Phosphorus^^F`). Capture: mindray-bs240-result-calculated-log.txt
 * (test/fixtures/SOURCES-added.md), two patient transfers of the BS-240's
 * log, value by value. Times are the analyzer's clock read in
 * Europe/Berlin, as in astm-lab-events.test.ts.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeMessage, splitMessages } from '../../lib/protocols/astm/records';
import { getProfile, profileIssues, type DialectProfile } from '../../lib/protocols/astm/dialects';
import { toLabEvents } from '../../lib/protocols/astm/lab';
import type { InstrumentResult } from '../../lib/lab/types';
import { fixtureText, loadFixture, readFrames } from '../support/fixtures';

const FILE = 'mindray-bs240-result-calculated-log.txt';
const SITE = 'Europe/Berlin';

function messages() {
  return splitMessages(fixtureText(loadFixture(FILE))).map((text) => decodeMessage(text));
}

function resultsOf(profile: DialectProfile, index: number) {
  const events = toLabEvents(messages()[index]!, profile, { timeZone: SITE });
  const results = events.flatMap((e) => (e.type === 'results' ? e.results : []));
  const unassigned = events.flatMap((e) => (e.type === 'unassigned' ? e.items : []));
  return { events, results, unassigned };
}

const row = (r: InstrumentResult) => [r.SampleNumber, r.instrumentCode, r.Result, r.units ?? '', r.completedAtRaw ?? ''];

describe('Mindray BS-240: calculated tests with the code at R-3 component 2', () => {
  it('reads the log back into two transfers of one frame each, every checksum right', () => {
    const frames = readFrames(loadFixture(FILE).bytes);
    assert.deepEqual(frames.map((f) => f.number), ['1', '1']);
    for (const f of frames) assert.equal(f.checksum, f.expected);
    assert.equal(messages().length, 2);
  });

  it('files the measured tests under component 1 and the AST/ALT ratio under its name, value by value', () => {
    const first = resultsOf(getProfile('mindray-bs'), 0);
    assert.deepEqual(first.events.map((e) => e.type), ['results']);
    assert.deepEqual(first.results.map(row), [
      ['2025105875', 'CREAS', '3.216365', 'mg/dL', '20250701154742'],
      ['2025105875', 'UREA', '72.506096', 'mg/dL', '20250701154406'],
    ]);
    const second = resultsOf(getProfile('mindray-bs'), 1);
    assert.deepEqual(second.events.map((e) => e.type), ['results']);
    assert.deepEqual(second.unassigned, []);
    assert.deepEqual(second.results.map(row), [
      ['25142231', 'MGII', '2.199529', 'mg/dL', '20250701154348'],
      ['25142231', 'CA', '9.370620', 'mg/dL', '20250701154200'],
      ['25142231', 'SGPT', '10.484621', 'U/L', '20250701154836'],
      ['25142231', 'SGOT', '29.443050', 'U/L', '20250701154854'],
      // Calculated: no code at component 1, no R-12 time, no units.
      ['25142231', 'AST/ALT', '2.808213', '', ''],
    ]);
    assert.deepEqual(second.results[4], {
      SampleNumber: '25142231',
      instrumentCode: 'AST/ALT',
      Result: '2.808213',
      rawResult: '2.808213^^^^',
      flags: ['N'],
      status: 'F',
      sequence: { patient: 477, order: 477, result: 168 },
      record: 8,
    });
  });

  it('without the fallback (the dialect before issue 25) the ratio is unassigned, naming where the code was looked for', () => {
    const base = getProfile('mindray-bs');
    const old: DialectProfile = { ...base, testId: { code: base.testId.code } };
    const { results, unassigned } = resultsOf(old, 1);
    assert.deepEqual(results.map((r) => r.instrumentCode), ['MGII', 'CA', 'SGPT', 'SGOT']);
    assert.deepEqual(unassigned.map((u) => [u.reason, u.Result]), [['R record 8 has no instrument test code at component 1 of R-3 (universalTestId)', '2.808213']]);
    const elsewhere: DialectProfile = { ...base, testId: { ...base.testId, codeFallbacks: [{ component: 3, trim: true }] } };
    assert.deepEqual(resultsOf(elsewhere, 1).unassigned.map((u) => u.reason), ['R record 8 has no instrument test code at components 1 or 3 of R-3 (universalTestId)']);
  });

  it('checks the fallbacks as it checks the code place', () => {
    const base = getProfile('mindray-bs');
    assert.deepEqual(profileIssues(base), []);
    const bad: DialectProfile = { ...base, testId: { ...base.testId, codeFallbacks: [{ component: 0, trim: true }] } };
    assert.deepEqual(profileIssues(bad).map((i) => i.path), ['testId.codeFallbacks[0].component']);
  });
});
