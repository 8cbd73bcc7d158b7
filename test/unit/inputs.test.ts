import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { orderRequestFrom, resultsFrom, testsFilterFrom } from '../../lib/lis/inputs';
import { parseTuning } from '../../lib/lis/tuning';
import { DEFAULT_TUNING } from '../../lib/lis/client';
import { expandEnv, UnsetVariableError } from '../../lib/util/env-template';
import { readPushedOrders } from '../../lib/lis/push-orders';
import { readWholeNumbers } from '../../lib/util/settings';
import { anOrder } from '../support/lis-stub';

describe('node inputs', () => {
  it('reads a sample number from a string or { SampleNumber, allTests }', () => {
    assert.deepEqual(orderRequestFrom(' 123 ', false), { sampleNumber: '123', allTests: false });
    assert.deepEqual(orderRequestFrom({ SampleNumber: 'A1', allTests: '1' }, false), { sampleNumber: 'A1', allTests: true });
    assert.deepEqual(orderRequestFrom({ SampleNumber: 'A1', allTests: false }, true), { sampleNumber: 'A1', allTests: false });
    assert.deepEqual(orderRequestFrom('Müller-1', false).sampleNumber, 'Müller-1');
    for (const bad of [123, null, '', { SampleNumber: 5 }, 'a\u0000b', 'a\u20acb']) assert.throws(() => orderRequestFrom(bad, false), /order not requested/);
  });

  it('reads results from an array or { results }', () => {
    assert.deepEqual(resultsFrom([1]), [1]);
    assert.deepEqual(resultsFrom({ results: [2] }), [2]);
    assert.throws(() => resultsFrom({ result: [] }), /array of result items/);
  });

  it('lets msg.payload override the node test filters', () => {
    assert.deepEqual(testsFilterFrom(undefined, { Name: 'a', Code: '' }), { Name: 'a' });
    assert.deepEqual(testsFilterFrom({ Code: 'C' }, { Name: 'a' }), { Name: 'a', Code: 'C' });
    assert.throws(() => testsFilterFrom({ Name: 3 }, {}), /Name must be a string/);
  });
});

describe('lis-config tuning', () => {
  it('takes the spec defaults for empty fields', () => {
    assert.deepEqual(parseTuning({}), { tuning: DEFAULT_TUNING, errors: [] });
    assert.deepEqual(DEFAULT_TUNING, { timeoutMs: 30000, orderAttempts: 3, orderBackoffMs: 100, transientRetries: 2, transientBackoffMs: 1000, maxResponseBytes: 10485760 });
  });

  it('reads numbers typed as strings and names a bad one', () => {
    assert.equal(parseTuning({ timeout: '5000', orderAttempts: 4 }).tuning.orderAttempts, 4);
    const { errors } = parseTuning({ orderAttempts: '0', transientBackoffMs: 'fast', timeout: '1.5' });
    assert.equal(errors.length, 3);
    assert.match(errors.join(), /orderAttempts.*transientBackoffMs|timeout/);
  });
});

describe('${VAR} expansion', () => {
  const env = (name: string) => ({ BASE: 'http://lis:8080', PATH_PART: 'orders' })[name];
  it('expands any number of placeholders anywhere', () => {
    assert.equal(expandEnv('${BASE}/api/${PATH_PART}', env), 'http://lis:8080/api/orders');
    assert.equal(expandEnv('http://plain', env), 'http://plain');
  });
  it('names an unset variable', () => {
    assert.throws(() => expandEnv('${NOPE}/x', env), (e: UnsetVariableError) => e.variable === 'NOPE');
  });
});

describe('pushed order bodies', () => {
  it('reads { order }, a bare order, and { orders }', () => {
    assert.equal((readPushedOrders({ order: anOrder('A') }) as { orders: unknown[] }).orders.length, 1);
    assert.equal((readPushedOrders(anOrder('A')) as { orders: unknown[] }).orders.length, 1);
    assert.equal((readPushedOrders({ orders: [anOrder('A'), anOrder('B')] }) as { orders: unknown[] }).orders.length, 2);
  });
  it('says "missing or empty" for empty data and names fields of invalid data', () => {
    for (const body of [null, [], {}, { order: null }, { order: {} }, { orders: [] }, { orders: 'x' }]) {
      const r = readPushedOrders(body);
      assert.ok(!r.ok && /missing or empty/.test(r.message), JSON.stringify(body));
    }
    const r = readPushedOrders({ orders: [anOrder('A'), anOrder('B', { Tests: [] })] });
    assert.ok(!r.ok && r.errors.some((e) => e.startsWith('orders[1].Tests:')));
  });
});

describe('whole-number settings', () => {
  it('take defaults for empty fields and name every bad value with its range', () => {
    const rules = { port: { setting: 'localApiPort', min: 0, max: 65535, fallback: 8181 }, limit: { setting: 'bodyLimit', min: 1, fallback: 10 } };
    assert.deepEqual(readWholeNumbers({ localApiPort: '', bodyLimit: ' 20 ' }, rules), { values: { port: 8181, limit: 20 }, errors: [], faults: [] });
    assert.deepEqual(readWholeNumbers({ localApiPort: 70000, bodyLimit: '1.5' }, rules).errors, [
      'localApiPort must be a whole number from 0 to 65535, not 70000',
      'bodyLimit must be a whole number of at least 1, not "1.5"',
    ]);
  });

  it('name the environment variable Node-RED left unresolved in a value, and the setting', () => {
    const rules = { port: { setting: 'localApiPort', min: 0, max: 65535, fallback: 8181 } };
    const { faults } = readWholeNumbers({ localApiPort: '${LIS_PUSH_PORT}' }, rules);
    assert.deepEqual(
      faults.map((f) => [f.setting, f.variable]),
      [['localApiPort', 'LIS_PUSH_PORT']],
    );
    assert.match(faults[0]!.message, /environment variable LIS_PUSH_PORT is not set: set LIS_PUSH_PORT to a whole number from 0 to 65535/);
  });
});
