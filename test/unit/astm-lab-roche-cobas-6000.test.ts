/**
 * The Roche cobas 6000 dialect on its capture (test/fixtures/SOURCES-added.md:
 * a TCP driver's log of an e 601 module's results), value by value. Times are
 * the analyzer's wall clock read in Europe/Berlin, as in astm-lab-events.test.ts.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { getProfile, type DialectProfile } from '../../lib/protocols/astm/dialects';
import { loadFixture, readFrames } from '../support/fixtures';
import { fixtureMessagesDecoded, onlyResults } from '../support/lab-fixture';

const FILE = 'roche-cobas6000-e601-result-log.txt';
const SITE = 'Europe/Berlin';

function resultsEvent(profile: DialectProfile) {
  const messages = fixtureMessagesDecoded(FILE);
  assert.equal(messages.length, 1);
  return onlyResults(messages[0]!, profile, SITE);
}

describe('Roche cobas 6000 (e 601)', () => {
  it('reads the log back into the three frames the analyzer sent, 240-character ETB frames cut mid-record, each checksum right', () => {
    const f = loadFixture(FILE);
    const frames = readFrames(f.bytes);
    assert.deepEqual(frames.map((x) => [x.number, x.end, x.text.length]), [
      ['1', 'ETB', 240],
      ['2', 'ETB', 240],
      ['3', 'ETX', 42],
    ]);
    for (const x of frames) assert.equal(x.checksum, x.expected);
    assert.ok(frames[0]?.text.endsWith('R|1|^^^286//not|-1^'));
    assert.ok(frames[1]?.text.startsWith('3820.035|COI'));
    assert.equal(f.bytes[0], 0x05);
    assert.equal(f.bytes[f.bytes.length - 1], 0x04);
  });

  it('files four results under the trimmed O-3, the code before the "/", the value^COI kept whole, R-12 the time', () => {
    const ev = resultsEvent(getProfile('roche-cobas-6000'));
    assert.equal(ev.sender, 'cobas6000^1');
    assert.deepEqual(ev.problems, []);
    const r = (instrumentCode: string, Result: string, time: string, utc: string, record: number, result: number) => ({
      SampleNumber: 'S3854156A',
      instrumentCode,
      Result,
      units: 'COI',
      flags: ['N'],
      status: 'F',
      completedAtRaw: time,
      completedAt: utc,
      sequence: { patient: 1, order: 1, result },
      record,
    });
    assert.deepEqual(ev.results, [
      { ...r('286', '-1^3820.035', '20230521115617', '2023-05-21T09:56:17.000Z', 5, 1), comments: ['0'] },
      { ...r('111', '-1^0.188', '20230521115659', '2023-05-21T09:56:59.000Z', 7, 2), comments: ['0'] },
      { ...r('515', '-1^0.493', '20230521115535', '2023-05-21T09:55:35.000Z', 9, 3), comments: ['0'] },
      { ...r('149', '-1^0.054', '20230521115514', '2023-05-21T09:55:14.000Z', 11, 4), comments: ['0'] },
    ]);
  });

  it('read as a cobas e 411 the same results come out, every one timed by O-23, which is before all of them', () => {
    const mine = resultsEvent(getProfile('roche-cobas-6000')).results;
    const e411 = resultsEvent(getProfile('roche-cobas-e411')).results;
    assert.deepEqual(
      e411.map((x) => [x.instrumentCode, x.Result, x.completedAtRaw]),
      mine.map((x) => [x.instrumentCode, x.Result, '20230521115400']),
    );
    for (const x of mine) assert.ok((x.completedAtRaw ?? '') > '20230521115400');
  });

  it('is a results-only dialect with the cobas type QC markers', () => {
    const p = getProfile('roche-cobas-6000');
    assert.equal(p.query, undefined);
    assert.equal(p.order, undefined);
    assert.deepEqual(p.qc, getProfile('roche-cobas-e411').qc);
  });
});
