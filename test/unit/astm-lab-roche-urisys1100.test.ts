/**
 * The Roche Urisys 1100 dialect on the Host Interface Document's result
 * example (test/fixtures/SOURCES-added.md: roche-urisys1100-result-manual.txt),
 * value by value.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { getProfile } from '../../lib/protocols/astm/dialects';
import { toLabEvents } from '../../lib/protocols/astm/lab';
import { checksumOf, loadFixture, readFrames } from '../support/fixtures';
import { onlyMessage, onlyResults } from '../support/lab-fixture';

const FILE = 'roche-urisys1100-result-manual.txt';
const SITE = 'Europe/Berlin';

const message = () => onlyMessage(FILE);

describe('Roche Urisys 1100', () => {
  it('reads the example back into fifteen frames; only the SG frame\'s checksum is off, by the one "/" of g/cm3', () => {
    const frames = readFrames(loadFixture(FILE).bytes);
    assert.equal(frames.length, 15);
    const off = frames.flatMap((f, i) => (f.checksum === f.expected ? [] : [i + 1]));
    assert.deepEqual(off, [4]);
    const sg = frames[3]!;
    assert.equal(sg.text, 'R|01|01^ SG|1.020|gcm3|||||20090116|LNorman^A\r');
    assert.equal(sg.checksum, 'BB');
    assert.equal(checksumOf(Buffer.from(`4${sg.text.replace('gcm3', 'g/cm3')}\x03`, 'latin1')), 'BB');
  });

  it('files the ten pads under O-4 component 1, the name from R-3 component 2, the first reading of R-4', () => {
    const ev = onlyResults(message(), getProfile('roche-urisys1100'), SITE);
    assert.equal(ev.sender, 'URISYS1100^99305^SW5.31^INT');
    assert.deepEqual(ev.problems, []);
    assert.deepEqual(new Set(ev.results.map((r) => r.SampleNumber)), new Set(['001']));
    // Units as sent, blanks and all (the codec keeps fields as they are).
    assert.deepEqual(
      ev.results.map((r) => [r.instrumentCode, r.Result, r.rawResult, r.units, r.record]),
      [
        ['SG', '1.020', undefined, 'gcm3', 4],
        ['pH', '7', '    7', undefined, 5],
        ['LEU', 'neg', '  neg^  neg', ' Leu/ul', 6],
        ['NIT', 'neg', '  neg^  neg', undefined, 7],
        ['PRO', 'neg', '  neg^  neg', ' mg/dl ', 8],
        ['GLU', 'norm', ' norm^  neg', ' mg/dl ', 9],
        ['KET', 'neg', '  neg^  neg', ' mg/dl ', 10],
        ['UBG', 'norm', ' norm^  neg', ' mg/dl ', 11],
        ['BIL', 'neg', '  neg^  neg', ' mg/dl ', 12],
        ['ERY', '50', '   50^   3+', ' Ery/ul', 13],
      ],
    );
  });

  it('keeps the grade of ERY in rawResult and the C record after it as its comment; no time per result', () => {
    const ev = onlyResults(message(), getProfile('roche-urisys1100'), SITE);
    assert.deepEqual(ev.results[9], {
      SampleNumber: '001',
      instrumentCode: 'ERY',
      Result: '50',
      rawResult: '   50^   3+',
      units: ' Ery/ul',
      comments: ['*'],
      sequence: { patient: 1, order: 1, result: 10 },
      record: 13,
    });
    for (const r of ev.results) assert.equal(r.completedAt, undefined);
  });

  it('is its own dialect: the cobas u 411 and generic profiles find no sample in the empty O-3', () => {
    for (const id of ['roche-cobas-u411', 'generic-lis2a2']) {
      const events = toLabEvents(message(), getProfile(id), { timeZone: SITE });
      assert.deepEqual(events.map((e) => e.type), ['unassigned'], id);
      const [u] = events;
      assert.ok(u?.type === 'unassigned');
      assert.equal(u.items.length, 10, id);
      assert.match(u.items[0]!.reason, /O-3 \(specimenId\) of O record 3 has no sample number/, id);
    }
  });

  it('is a results-only dialect: no query rule, no order layout', () => {
    const p = getProfile('roche-urisys1100');
    assert.equal(p.query, undefined);
    assert.equal(p.order, undefined);
    assert.equal(p.acceptsUnsolicitedOrders, false);
  });
});
