/**
 * The Sysmex U-WAM (UF-4000) dialect on its capture (test/fixtures/SOURCES-added.md:
 * a Python proxy's log of U-WAM traffic), value by value. Times are the
 * analyzer's wall clock read in Europe/Berlin, as in astm-lab-events.test.ts.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GENERIC_LIS2A2, getProfile, profileProblems, SYSMEX_UWAM, type DialectProfile } from '../../lib/protocols/astm/dialects';
import { loadFixture, readFrames } from '../support/fixtures';
import { fixtureMessagesDecoded, onlyResults } from '../support/lab-fixture';
import { pythonBytes } from '../support/python-log';

const FILE = 'sysmex-uwam-uf4000-result-log.txt';
const SITE = 'Europe/Berlin';

function resultsEvent(profile: DialectProfile = getProfile('sysmex-uwam')) {
  const messages = fixtureMessagesDecoded(FILE);
  assert.equal(messages.length, 1);
  return onlyResults(messages[0]!, profile, SITE);
}

describe('Sysmex U-WAM (UF-4000)', () => {
  it('reads the log back into the nine frames the U-WAM sent, the O record cut by an ETB, each checksum right', () => {
    const f = loadFixture(FILE);
    const frames = readFrames(f.bytes);
    assert.deepEqual(frames.map((x) => x.number), ['1', '2', '3', '4', '5', '6', '7', '0', '1']);
    assert.deepEqual(frames.map((x) => x.end), ['ETX', 'ETX', 'ETB', 'ETX', 'ETX', 'ETX', 'ETX', 'ETX', 'ETX']);
    for (const x of frames) assert.equal(x.checksum, x.expected);
    // ENQ first, EOT last, and none of the host's ACKs left in the analyzer's stream.
    assert.equal(f.bytes[0], 0x05);
    assert.equal(f.bytes[f.bytes.length - 1], 0x04);
    assert.ok(!f.bytes.includes(0x06));
  });

  it('files each result under O-3, the parameter from R-3 component 4, RAW and MAINFORMAT told apart by sub-code', () => {
    const ev = resultsEvent();
    assert.equal(ev.sender, 'U-WAM^00-19_Build003^A6048^^^^AU501736');
    assert.deepEqual(ev.problems, []);
    const common = { SampleNumber: '1234test', units: '/\u00b5l', flags: ['N'], completedAtRaw: '20220608143227', completedAt: '2022-06-08T12:32:27.000Z' };
    assert.deepEqual(ev.results, [
      { ...common, instrumentCode: 'RBC', instrumentSubCode: 'RAW', Result: '21.5', rawResult: '21.5^RAW', sequence: { patient: 1, order: 1, result: 1 }, record: 4 },
      { ...common, instrumentCode: 'RBC', instrumentSubCode: 'MAINFORMAT', Result: '21.5', rawResult: '21.5^MAINFORMAT', sequence: { patient: 1, order: 1, result: 2 }, record: 5 },
      { ...common, instrumentCode: 'NL\u00b7RBC', instrumentSubCode: 'RAW', Result: '20.6', rawResult: '20.6^RAW', sequence: { patient: 1, order: 1, result: 3 }, record: 6 },
      { ...common, instrumentCode: 'NL\u00b7RBC', instrumentSubCode: 'MAINFORMAT', Result: '20.6', rawResult: '20.6^MAINFORMAT', sequence: { patient: 1, order: 1, result: 4 }, record: 7 },
    ]);
    // R-9 is empty in the capture, so no status is made up (the strict comparison above has none).
  });

  it('without the sub-code in R-4, RAW and MAINFORMAT are one test reported twice, which is flagged', () => {
    const { subCodeIn: _ignored, subCode: _too, ...testId } = SYSMEX_UWAM.testId;
    const ev = resultsEvent({ ...SYSMEX_UWAM, testId });
    assert.equal(ev.problems.length, 2);
    assert.match(ev.problems[0] ?? '', /R records 4 and 5 both report test RBC for sample 1234test/);
  });

  it('is a results-only dialect: no query rule, no order layout; the generic profile takes the whole R-4 as the value', () => {
    const p = getProfile('sysmex-uwam');
    assert.equal(p.query, undefined);
    assert.equal(p.order, undefined);
    assert.equal(p.acceptsUnsolicitedOrders, false);
    const generic = resultsEvent(GENERIC_LIS2A2);
    assert.equal(generic.results[0]?.Result, '21.5^RAW');
  });

  it('a sub-code read from R-4 needs a value component of its own', () => {
    assert.deepEqual(profileProblems(SYSMEX_UWAM), []);
    const noSub = { ...SYSMEX_UWAM, testId: { code: SYSMEX_UWAM.testId.code, subCodeIn: 'value' as const } };
    assert.deepEqual(profileProblems(noSub), ['testId.subCodeIn "value" needs a testId.subCode']);
    const sameComponent = { ...SYSMEX_UWAM, results: { ...SYSMEX_UWAM.results, value: { ...SYSMEX_UWAM.results.value, component: 2 } } };
    assert.deepEqual(profileProblems(sameComponent), ['testId.subCodeIn "value" needs results.value.component to be another component than testId.subCode.component']);
  });
});

describe('Python bytes literals in driver logs', () => {
  const fail = (message: string): never => {
    throw new Error(message);
  };

  it('undoes the escapes Python writes and nothing else', () => {
    assert.deepEqual([...pythonBytes("\\x021H|\\\\^&\\r\\x03\\xb5'\\n", fail)], [0x02, 0x31, 0x48, 0x7c, 0x5c, 0x5e, 0x26, 0x0d, 0x03, 0xb5, 0x27, 0x0a]);
  });

  it('refuses an escape Python does not write and a raw control character', () => {
    assert.throws(() => pythonBytes('\\q', fail), /unknown escape/);
    assert.throws(() => pythonBytes('\\x0', fail), /bad \\x escape/);
    assert.throws(() => pythonBytes('a\rb', fail), /byte 0xd/);
  });
});
