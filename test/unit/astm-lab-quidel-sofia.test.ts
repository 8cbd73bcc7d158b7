/**
 * The Quidel Sofia 2 dialect on its capture (test/fixtures/SOURCES-added.md:
 * a line monitor's log of one result transfer), value by value. Times are the
 * analyzer's wall clock read in Europe/Berlin, as in astm-lab-events.test.ts.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { getProfile } from '../../lib/protocols/astm/dialects';
import { toLabEvents } from '../../lib/protocols/astm/lab';
import { parseFrame } from '../../lib/protocols/astm/link/frame-reader';
import { checksumMade, loadFixture, readFrames } from '../support/fixtures';
import { fixtureMessagesDecoded, onlyResults } from '../support/lab-fixture';
import { monitorLog } from '../support/monitor-log';

const FILE = 'quidel-sofia2-result-monitor-log.txt';
const SITE = 'Europe/Berlin';
const utf8 = (latin1: string): string => Buffer.from(latin1, 'latin1').toString('utf8');

function resultsEvent() {
  const messages = fixtureMessagesDecoded(FILE, utf8);
  assert.equal(messages.length, 1);
  return onlyResults(messages[0]!, getProfile('quidel-sofia'), SITE);
}

describe('Quidel Sofia 2', () => {
  it('reads the monitor log back into the seven frames the Sofia sent, every byte count as the monitor counted it', () => {
    const f = loadFixture(FILE);
    const frames = readFrames(f.bytes);
    assert.deepEqual(frames.map((x) => x.number), ['1', '2', '3', '4', '5', '6', '7']);
    assert.equal(f.bytes[0], 0x05);
    assert.equal(f.bytes[f.bytes.length - 1], 0x04);
    // The host's nine ACKs are the Server lines, none of them in the analyzer's stream.
    const lines = monitorLog(f.file.toString('utf8'), (m) => assert.fail(m));
    assert.deepEqual(lines.filter((l) => l.from === 'Server').map((l) => [...l.bytes]), Array.from({ length: 9 }, () => [0x06]));
  });

  it('sums characters, not bytes: the two frames with umlauts fail LIS1-A\'s check and are NAKed; the rest pass both ways', () => {
    const f = loadFixture(FILE);
    const frames = readFrames(f.bytes);
    assert.deepEqual(frames.map((x) => x.checksum), frames.map((x) => checksumMade(x, 'utf8-characters')));
    assert.deepEqual(
      frames.filter((x) => x.checksum !== x.expected).map((x) => [x.number, x.checksum, x.expected]),
      [
        ['2', '72', 'FB'],
        ['3', '6E', '80'],
      ],
    );
    // The link judges by LIS1-A: the same two frames are refused (answered with NAK).
    let at = f.bytes.indexOf(0x02);
    const verdicts: boolean[] = [];
    while (at >= 0) {
      const parsed = parseFrame(f.bytes.subarray(at));
      verdicts.push(parsed.ok);
      at = f.bytes.indexOf(0x02, at + parsed.consumed);
    }
    assert.deepEqual(verdicts, [true, false, false, true, true, true, true]);
  });

  it('files both results under O-3 as typed (UTF-8), the analyte from R-3 component 4, R-13 the time, the C record as the order\'s comment', () => {
    const ev = resultsEvent();
    assert.equal(ev.sender, 'Sofia^25045805');
    assert.deepEqual(ev.problems, []);
    const common = { SampleNumber: '\u00fc\u00e4\u00f6 \u00f6\u00dc\u00c4', status: 'F', completedAtRaw: '20251210220914', completedAt: '2025-12-10T21:09:14.000Z', orderComments: ['Read-Now Mode'], patientId: '\u00f6\u00e4\u00fc lyme SP german' };
    assert.deepEqual(ev.results, [
      { ...common, instrumentCode: 'IgM', Result: 'negative', sequence: { patient: 1, order: 1, result: 1 }, record: 5 },
      { ...common, instrumentCode: 'IgG', Result: 'negative', sequence: { patient: 1, order: 1, result: 2 }, record: 6 },
    ]);
  });

  it('read as Latin-1 the sample number would be the UTF-8 bytes taken one by one, C1 controls among them: never sent as a sample number (the profile reads UTF-8)', () => {
    assert.equal(getProfile('quidel-sofia').charset, 'utf8');
    const events = toLabEvents(fixtureMessagesDecoded(FILE)[0]!, getProfile('quidel-sofia'), { timeZone: SITE });
    assert.equal(events.some((e) => e.type === 'results' && e.results.length > 0), false);
    const unassigned = events.find((e) => e.type === 'unassigned');
    assert.ok(unassigned && unassigned.type === 'unassigned');
    assert.match(unassigned.items[0]!.reason, /the sample number "\u00c3\u00bc\u00c3\u00a4\u00c3\u00b6 \u00c3\u00b6\u00c3\u009c\u00c3\u0084" holds the control character U\+009C/);
  });

  it('is a results-only dialect: no query rule, no order layout', () => {
    const p = getProfile('quidel-sofia');
    assert.equal(p.query, undefined);
    assert.equal(p.order, undefined);
    assert.equal(p.acceptsUnsolicitedOrders, false);
  });
});
