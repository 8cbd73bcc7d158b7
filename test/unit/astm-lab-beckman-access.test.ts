/**
 * The Beckman Coulter Access 2 / UniCel DxI dialect on its capture
 * (test/fixtures/SOURCES-added.md: an Access 2's serial log), value by value.
 * Times are the analyzer's wall clock read in Europe/Berlin, as in
 * astm-lab-events.test.ts.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeMessage, splitMessages } from '../../lib/protocols/astm/records';
import { GENERIC_LIS2A2, getProfile } from '../../lib/protocols/astm/dialects';
import { toLabEvents } from '../../lib/protocols/astm/lab';
import { fixtureText, loadFixture, readFrames } from '../support/fixtures';

const FILE = 'beckman-access2-result-log.txt';
const SITE = 'Europe/Berlin';

function message() {
  const messages = splitMessages(fixtureText(loadFixture(FILE))).map((text) => decodeMessage(text));
  assert.equal(messages.length, 1);
  return messages[0]!;
}

describe('Beckman Coulter Access 2 / UniCel DxI', () => {
  it('reads the log back into the five frames the analyzer sent, each checksum right', () => {
    const frames = readFrames(loadFixture(FILE).bytes);
    assert.deepEqual(frames.map((f) => f.number), ['1', '2', '3', '4', '5']);
    for (const f of frames) assert.equal(f.checksum, f.expected);
  });

  it('files the result under O-3, the assay name from R-3 component 4, the time from R-13', () => {
    const events = toLabEvents(message(), getProfile('beckman-access'), { timeZone: SITE });
    assert.deepEqual(events.map((e) => e.type), ['results']);
    const [ev] = events;
    assert.ok(ev?.type === 'results');
    assert.equal(ev.sender, 'ACCESS^575707');
    assert.deepEqual(ev.problems, []);
    assert.deepEqual(ev.results, [
      {
        SampleNumber: '25020053',
        instrumentCode: 'HCG5',
        Result: '108.66',
        units: 'mIU/mL',
        flags: ['N'],
        status: 'F',
        completedAtRaw: '20250701182626',
        completedAt: '2025-07-01T16:26:26.000Z',
        sequence: { patient: 1, order: 1, result: 1 },
        record: 4,
      },
    ]);
  });

  it('does not take the rack^position of O-4 or the trailing component of R-3 for anything', () => {
    const [ev] = toLabEvents(message(), getProfile('beckman-access'), { timeZone: SITE });
    assert.ok(ev?.type === 'results');
    const [r] = ev.results;
    assert.ok(r !== undefined);
    assert.notEqual(r.SampleNumber, '1316');
    assert.equal(r.instrumentSubCode, undefined);
  });

  it('O-3 is one plain value, so even the generic profile finds the sample', () => {
    const [generic] = toLabEvents(message(), GENERIC_LIS2A2, { timeZone: SITE });
    assert.ok(generic?.type === 'results');
    assert.equal(generic.results[0]?.SampleNumber, '25020053');
  });
});
