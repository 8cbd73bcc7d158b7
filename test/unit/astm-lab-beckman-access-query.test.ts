/**
 * Beckman Coulter Access 2 / UniCel DxI host queries (issue 25, "Quirks met
 * in the field": a DxI on a results-only dialect never gets its orders).
 * Capture beckman-access-query-strings.txt (test/fixtures/SOURCES-added.md),
 * read value by value; the answer compared field by field with the order
 * download of the UniCel DxI and Access 2 LIS Vendor Information manual
 * (C03112), `O|1|SPEC1234||^^^Ferritin|R||||||A||||Serum`, whose printed
 * checksums (F8 for that frame, FF for `4L|1|F`) are checked here too.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeMessage, type OrderRecord } from '../../lib/protocols/astm/records';
import { getProfile, profileIssues } from '../../lib/protocols/astm/dialects';
import { QueryBook, buildNoInformation, buildOrderMessage, toLabEvents, type LabEvent, type LabOrder } from '../../lib/protocols/astm/lab';
import { checksumOf, fixtureText, loadFixture } from '../support/fixtures';

const FILE = 'beckman-access-query-strings.txt';
const SITE = 'Europe/Berlin';
const BECKMAN = getProfile('beckman-access');

function recordsOf(text: string): string[] {
  assert.ok(text.endsWith('\r'));
  return text.slice(0, -1).split('\r');
}

function query(): Extract<LabEvent, { type: 'query' }> {
  const events = toLabEvents(decodeMessage(fixtureText(loadFixture(FILE))), BECKMAN, { timeZone: SITE });
  assert.deepEqual(events.map((e) => e.type), ['query']);
  const q = events[0];
  assert.ok(q?.type === 'query');
  return q;
}

// The manual's download, as the LIS would ask for it: 2011-12-31 23:59:59 in Berlin.
const at = { now: new Date('2011-12-31T22:59:59Z'), timeZone: SITE };
const FERRITIN: LabOrder = { SampleNumber: 'SPEC1234', Priority: 'R', SampleType: 'Serum', instrumentTests: ['Ferritin'], patient: { ID: '098765678', Name: 'Doe, Jane', Sex: 'F' } };

describe('Beckman Coulter Access 2 / UniCel DxI host queries', () => {
  it('the fixture is the query as sent: H, Q, L', () => {
    assert.deepEqual(recordsOf(fixtureText(loadFixture(FILE))), ['H|\\^&|||ACCESS^500001|||||LIS||P|1|20111231235959', 'Q|1|^3588820543||ALL||||||||O', 'L|1|F']);
  });

  it('reads the query: the specimen from Q-3 component 2, ALL for every test, not a cancel', () => {
    const q = query();
    assert.equal(q.sender, 'ACCESS^500001');
    assert.equal(q.cancel, false);
    assert.equal(q.samples.length, 1);
    const [s] = q.samples;
    assert.equal(s?.sampleNumber, '3588820543');
    assert.deepEqual(s?.instrumentTests, []);
    assert.deepEqual(s?.range, ['', '3588820543']);
    assert.equal(s?.record, 2);
  });

  it('before issue 25 the dialect read no query: the Q record was passed on as "other"', () => {
    const { query: _dropped, order: _o, noOrder: _n, ...old } = BECKMAN;
    const events = toLabEvents(decodeMessage(fixtureText(loadFixture(FILE))), { ...old, acceptsUnsolicitedOrders: false }, { timeZone: SITE });
    assert.deepEqual(events.map((e) => e.type), ['other']);
  });

  it('answers with the manual\'s order download, field by field', () => {
    const book = new QueryBook(BECKMAN);
    book.onQuery(query(), 0);
    const decision = book.decide('3588820543', 1_000);
    assert.ok(decision.send && decision.queried);
    const built = recordsOf(buildOrderMessage({ ...FERRITIN, SampleNumber: '3588820543' }, BECKMAN, { ...at, query: decision.query }));
    assert.deepEqual(built, ['H|\\^&|||LIS|||||||P|1|20111231235959', 'P|1|098765678', 'O|1|3588820543||^^^Ferritin|R||||||A||||Serum||||||||||', 'L|1|F']);
    // The manual's own example, its printed checksums included.
    const manual = recordsOf(buildOrderMessage(FERRITIN, BECKMAN, at));
    assert.equal(manual[2]?.replace(/\|+$/, ''), 'O|1|SPEC1234||^^^Ferritin|R||||||A||||Serum');
    assert.equal(checksumOf(Buffer.from(`3${manual[2]?.replace(/\|+$/, '') ?? ''}\r\x03`, 'latin1')), 'F8');
    assert.equal(checksumOf(Buffer.from(`4${manual[3] ?? ''}\r\x03`, 'latin1')), 'FF');
    assert.equal(checksumOf(Buffer.from(`2${manual[1] ?? ''}\r\x03`, 'latin1')), 'A3');
    const o = decodeMessage(built.join('\r') + '\r').records[2] as OrderRecord;
    assert.deepEqual([o.specimenId, o.universalTestId, o.priority, o.actionCode, o.specimenDescriptor], ['3588820543', ['', '', '', 'Ferritin'], 'R', 'A', 'Serum']);
  });

  it('answers a sample the LIS does not know with "no information" (LIS2-A2 L-3 I)', () => {
    const q = query();
    assert.deepEqual(recordsOf(buildNoInformation('3588820543', BECKMAN, { ...at, query: q.samples[0] })), ['H|\\^&|||LIS|||||||P|1|20111231235959', 'L|1|I']);
  });

  it('is a usable profile', () => {
    assert.deepEqual(profileIssues(BECKMAN), []);
  });
});
