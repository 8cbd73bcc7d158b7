/**
 * The Roche cobas u 411 dialect on the Host Interface Manual's result example
 * (test/fixtures/SOURCES-added.md: roche-cobas-u411-result-manual.txt), value
 * by value.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GENERIC_LIS2A2, getProfile } from '../../lib/protocols/astm/dialects';
import { toLabEvents } from '../../lib/protocols/astm/lab';
import { loadFixture, readFrames } from '../support/fixtures';
import { onlyMessage, onlyResults } from '../support/lab-fixture';

const FILE = 'roche-cobas-u411-result-manual.txt';
const SITE = 'Europe/Berlin';

const message = () => onlyMessage(FILE);

describe('Roche cobas u 411', () => {
  it('reads the manual\'s example back into seventeen frames, every checksum right once each · is a space', () => {
    const frames = readFrames(loadFixture(FILE).bytes);
    assert.equal(frames.length, 17);
    assert.deepEqual(frames.map((f) => f.number).join(''), '12345670123456701');
    for (const f of frames) assert.equal(f.checksum, f.expected, f.text);
    assert.equal(frames[0]!.text, 'H|\\^&|||cobas u 411^8^3.2.0.1001^Int|||||||P||20110315101822\r');
  });

  it('files the twelve strip results under O-3 `001`, the parameter name from R-3 component 2', () => {
    const ev = onlyResults(message(), getProfile('roche-cobas-u411'), SITE);
    assert.equal(ev.sender, 'cobas u 411^8^3.2.0.1001^Int');
    assert.deepEqual(ev.problems, []);
    assert.deepEqual(
      ev.results.map((r) => [r.SampleNumber, r.instrumentCode, r.Result, r.record]),
      [
        ['001', 'SG', '1.005', 4],
        ['001', 'pH', '7', 5],
        ['001', 'LEU', 'neg', 6],
        ['001', 'NIT', 'neg', 7],
        ['001', 'PRO', 'neg', 8],
        ['001', 'GLU', 'neg', 9],
        ['001', 'KET', 'neg', 10],
        ['001', 'UBG', 'neg', 11],
        ['001', 'BIL', 'neg', 12],
        ['001', 'ERY', 'neg', 13],
        ['001', 'COL', 'p.yel', 14],
        ['001', 'CLA', '', 15],
      ],
    );
  });

  it('keeps the rest of each result as sent: no units, flags, status or time in the example', () => {
    const ev = onlyResults(message(), getProfile('roche-cobas-u411'), SITE);
    const [sg] = ev.results;
    assert.deepEqual(sg, { SampleNumber: '001', instrumentCode: 'SG', Result: '1.005', sequence: { patient: 1, order: 1, result: 1 }, record: 4 });
    for (const r of ev.results) {
      assert.equal(r.completedAt, undefined);
      assert.equal(r.instrumentSubCode, undefined);
    }
  });

  it('is needed: the generic profile, reading codes at component 4, leaves every result unassigned', () => {
    const events = toLabEvents(message(), GENERIC_LIS2A2, { timeZone: SITE });
    assert.deepEqual(events.map((e) => e.type), ['unassigned']);
    const [u] = events;
    assert.ok(u?.type === 'unassigned');
    assert.equal(u.items.length, 12);
  });

  it('is a results-only dialect: no query rule, no order layout', () => {
    const p = getProfile('roche-cobas-u411');
    assert.equal(p.query, undefined);
    assert.equal(p.order, undefined);
    assert.equal(p.acceptsUnsolicitedOrders, false);
  });
});
