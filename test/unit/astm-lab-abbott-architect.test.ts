/**
 * The Abbott ARCHITECT dialect's host queries on an ARCHITECT 7.01 query
 * (test/fixtures/SOURCES-added.md: abbott-architect-query-strings.txt), value
 * by value. The results of the same profile are tested in astm-lab-events.test.ts.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GENERIC_LIS2A2, getProfile } from '../../lib/protocols/astm/dialects';
import { toLabEvents } from '../../lib/protocols/astm/lab';
import { fixtureText, loadFixture } from '../support/fixtures';
import { onlyMessage } from '../support/lab-fixture';

const FILE = 'abbott-architect-query-strings.txt';
const SITE = 'Europe/Berlin';

const queryMessage = () => onlyMessage(FILE);

describe('Abbott ARCHITECT host query', () => {
  it('reads the three string literals back into the records, each checksum as the analyzer sent it', () => {
    // The loader refuses a line whose |CS is not its frame's sum (test/support/fixtures.ts, checksum-field).
    assert.equal(
      fixtureText(loadFixture(FILE)),
      'H|\\^&|||ARCHITECT^7.01^F5260044206^H1P1O1R1C1Q1L1|||||||P|1|20120225131842\rQ|1|^0000040735||^^^ALL||||||||O\rL|1\r',
    );
  });

  it('gives one query event: sample 0000040735 from Q-3 component 2, every test, no cancel', () => {
    const events = toLabEvents(queryMessage(), getProfile('abbott-architect'), { timeZone: SITE });
    assert.deepEqual(events.map((e) => e.type), ['query']);
    const [q] = events;
    assert.ok(q?.type === 'query');
    assert.equal(q.sender, 'ARCHITECT^7.01^F5260044206^H1P1O1R1C1Q1L1');
    assert.equal(q.cancel, false);
    assert.deepEqual(q.samples, [{ sampleNumber: '0000040735', instrumentTests: [], range: ['', '0000040735'], record: 2 }]);
  });

  it('reads Q-5 `^^^ALL` as every test, not as a test coded ALL', () => {
    const rule = getProfile('abbott-architect').query;
    assert.ok(rule !== undefined);
    assert.deepEqual([rule.component, rule.allTests, rule.cancelStatus], [2, ['ALL'], undefined]);
    // The generic profile reads test codes at the same component 4 and agrees.
    const [generic] = toLabEvents(queryMessage(), GENERIC_LIS2A2, { timeZone: SITE });
    assert.ok(generic?.type === 'query');
    assert.deepEqual(generic.samples.map((s) => [s.sampleNumber, s.instrumentTests]), [['0000040735', []]]);
  });

  it('still builds no order download: the query is reported for the LIS to answer', () => {
    const p = getProfile('abbott-architect');
    assert.equal(p.order, undefined);
    assert.equal(p.acceptsUnsolicitedOrders, false);
  });
});
