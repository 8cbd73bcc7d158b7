import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useLisStub } from '../support/lifecycle';
import { helper, lastStatus, statuses } from '../support/red';
import { FAST, TOKEN, loadLisFlow, run } from '../support/lis-flow';

const ctx = useLisStub();

const load = (config: Record<string, unknown> = {}) => loadLisFlow(ctx.stub, { type: 'lis-mark-processed', config });

describe('lis-mark-processed', () => {
  it('sends Tests as a JSON-serialised string, not a nested array', async () => {
    ctx.stub.reply('/processed', { body: { status: 'success' } });
    await load();
    const { port, msg } = await run({ SampleNumber: 'S1', Tests: ['T-GLU', 'T-CREA'] });
    assert.equal(port, 'out1');
    const [req] = ctx.stub.to('/processed');
    assert.deepEqual(req!.json, { SampleNumber: 'S1', Tests: '["T-GLU","T-CREA"]' });
    assert.equal(typeof (req!.json as Record<string, unknown>).Tests, 'string');
    assert.equal(req!.headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(req!.headers['x-expected-sample'], undefined);
    assert.deepEqual(msg.payload, { status: 'success' });
  });

  it('notifies again for a sample whose later results are delivered, naming only those tests', async () => {
    // A held result sent after mapping: the flow's msg.processed names only the newly delivered tests.
    ctx.stub.reply('/processed', { body: { status: 'success' } });
    await load();
    const first = await run({ SampleNumber: 'S1', Tests: ['T-GLU'] });
    assert.equal(first.port, 'out1');
    const second = await run({ SampleNumber: 'S1', Tests: ['T-K'] });
    assert.equal(second.port, 'out1');
    assert.deepEqual(
      ctx.stub.to('/processed').map((r) => [r.method, r.json]),
      [
        ['POST', { SampleNumber: 'S1', Tests: '["T-GLU"]' }],
        ['POST', { SampleNumber: 'S1', Tests: '["T-K"]' }],
      ],
    );
    assert.deepEqual(second.msg.payload, { status: 'success' });
  });

  it('retries 5xx and 408 with the transient back-off', async () => {
    ctx.stub.reply('/processed', { status: 503 }, { status: 408 }, { body: {} });
    await load();
    const { port, msg } = await run({ SampleNumber: 'S2', Tests: ['T1'] });
    assert.equal(port, 'out1');
    assert.equal((msg.lis as Record<string, unknown>).attempts, 3);
    const gaps = ctx.stub.gaps('/processed');
    assert.ok(gaps[0]! >= 2 * FAST.transientBackoffMs - 3 && gaps[1]! >= 4 * FAST.transientBackoffMs - 3, gaps.join(','));
  });

  it('stops after 1 + transientRetries attempts', async () => {
    ctx.stub.reply('/processed', { status: 500 });
    await load({ transientRetries: 1 });
    const { port } = await run({ SampleNumber: 'S3', Tests: ['T1'] });
    assert.equal(port, 'caught');
    assert.equal(ctx.stub.to('/processed').length, 2);
  });

  it('fails at once on 4xx', async () => {
    ctx.stub.reply('/processed', { status: 404, body: { message: 'no such order', errors: [] } });
    await load();
    const { port, msg } = await run({ SampleNumber: 'S4', Tests: ['T1'] });
    assert.equal(port, 'caught');
    assert.equal(ctx.stub.to('/processed').length, 1);
    assert.match(String((msg._error as Record<string, unknown>).message), /no such order/);
  });

  it('passes the message on untouched, grey "disabled", when no OrderCompletedAPI URL is set', async () => {
    for (const orderCompletedApiUrl of ['', '${LIS_PROCESSED_URL_NOT_SET}']) {
      await load({ orderCompletedApiUrl });
      const payload = { SampleNumber: 'S5', Tests: ['T1'] };
      const { port, msg } = await run(payload);
      assert.equal(port, 'out1');
      assert.deepEqual(msg.payload, payload);
      assert.equal(msg.lis, undefined);
      const status = lastStatus(helper.getNode('n'));
      assert.equal(status?.fill, 'grey');
      assert.ok(!statuses(helper.getNode('n')).some((s) => s.fill === 'blue'), 'never shown as requesting');
      await helper.unload();
    }
    assert.equal(ctx.stub.requests.length, 0);
  });

  it('refuses input without SampleNumber or Tests', async () => {
    await load();
    for (const payload of [{ SampleNumber: 'S6' }, { Tests: ['T1'] }, { SampleNumber: 'S6', Tests: 'T1' }, { SampleNumber: 'S6', Tests: [] }]) {
      const { port, msg } = await run(payload);
      assert.equal(port, 'caught', JSON.stringify(payload));
      assert.equal((msg._error as Record<string, unknown>).code, 'INVALID_INPUT');
    }
    assert.equal(ctx.stub.requests.length, 0);
  });
});
