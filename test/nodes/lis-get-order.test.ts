import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LisStub, anOrder } from '../support/lis-stub';
import { useLisStub } from '../support/lifecycle';
import { helper, lastStatus, statuses } from '../support/red';
import { FAST, TOKEN, loadLisFlow, run } from '../support/lis-flow';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO_UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const ctx = useLisStub();

/** token null: no Bearer Token credential at all. */
const load = (config: Record<string, unknown> = {}, node: Record<string, unknown> = {}, token: string | null = TOKEN) =>
  loadLisFlow(ctx.stub, { type: 'lis-get-order', config, node, token: token ?? undefined, outputs: 2 });

/** Each wait must be at least what the rule says, and not wildly more. */
function assertWaits(actual: number[], expected: number[]): void {
  assert.equal(actual.length, expected.length, `gaps ${actual.join(', ')} vs expected ${expected.join(', ')}`);
  actual.forEach((gap, i) => {
    assert.ok(gap >= expected[i]! - 3, `wait ${i + 1} was ${gap.toFixed(1)} ms, expected at least ${expected[i]} ms`);
    assert.ok(gap < expected[i]! + 400, `wait ${i + 1} was ${gap.toFixed(1)} ms, expected about ${expected[i]} ms`);
  });
}

describe('lis-get-order', () => {
  it('posts the sample number with the spec headers and emits the validated order on output 1', async () => {
    ctx.stub.reply('/orders', { body: { status: 'success', order: anOrder('S100') } });
    await load();
    const before = Date.now();
    const { port, msg } = await run('S100', 2);
    assert.equal(port, 'out1');
    assert.deepEqual(msg.payload, anOrder('S100'));
    const lis = msg.lis as Record<string, unknown>;
    assert.equal(lis.status, 'success');
    assert.equal(lis.httpStatus, 200);
    assert.equal(lis.attempts, 1);

    const [req] = ctx.stub.to('/orders');
    assert.ok(req);
    assert.equal(req.method, 'POST');
    assert.deepEqual(req.json, { SampleNumber: 'S100' });
    assert.match(String(req.headers['content-type']), /^application\/json/);
    assert.equal(req.headers.accept, 'application/json');
    assert.match(String(req.headers['x-request-id']), UUID);
    assert.deepEqual(lis.requestIds, [req.headers['x-request-id']]);
    const stamp = String(req.headers['x-request-timestamp']);
    assert.match(stamp, ISO_UTC_MS);
    assert.ok(Math.abs(Date.parse(stamp) - before) < 5000, 'timestamp is the time of the request');
    assert.equal(req.headers['x-expected-sample'], 'S100');
    assert.equal(req.headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(lastStatus(helper.getNode('n'))?.fill, 'green');
    // "requesting" is written once the request is on its way (a microtask after Node's HTTP client wrote it), still before the answer's.
    assert.deepEqual(statuses(helper.getNode('n')).map((s) => s.fill), ['blue', 'green']);
  });

  it('sends no Authorization header when the Bearer Token is empty', async () => {
    ctx.stub.reply('/orders', { body: { status: 'success', order: anOrder('S1') } });
    await load({}, {}, null);
    await run('S1', 2);
    assert.equal(ctx.stub.to('/orders')[0]!.headers.authorization, undefined);
  });

  it('sends no Authorization header when the Bearer Token is only white space', async () => {
    ctx.stub.reply('/orders', { body: { status: 'success', order: anOrder('S1') } });
    await load({}, {}, '   ');
    await run('S1', 2);
    assert.equal(ctx.stub.to('/orders')[0]!.headers.authorization, undefined);
  });

  it('takes the token from the environment variable named by bearerTokenEnv when the credential is empty', async () => {
    process.env.LIS_TEST_TOKEN_VAR = 'token-from-env';
    ctx.stub.reply('/orders', { body: { status: 'success', order: anOrder('S1') } });
    await load({ bearerTokenEnv: 'LIS_TEST_TOKEN_VAR' }, {}, null);
    await run('S1', 2);
    assert.equal(ctx.stub.to('/orders')[0]!.headers.authorization, 'Bearer token-from-env');
    await helper.unload();
    await load({ bearerTokenEnv: 'LIS_TEST_TOKEN_VAR' });
    await run('S1', 2);
    assert.equal(ctx.stub.to('/orders')[1]!.headers.authorization, `Bearer ${TOKEN}`, 'the credential wins');
  });

  it('accepts { SampleNumber, allTests } and sends allTests as the text "1"', async () => {
    ctx.stub.reply('/orders', { body: { status: 'success', order: anOrder('S2') } });
    await load();
    await run({ SampleNumber: 'S2', allTests: true }, 2);
    assert.deepEqual(ctx.stub.to('/orders')[0]!.json, { SampleNumber: 'S2', allTests: '1' });
  });

  it('sends allTests "1" when the node option is set', async () => {
    ctx.stub.reply('/orders', { body: { status: 'success', order: anOrder('S3') } });
    await load({}, { allTests: true });
    await run('S3', 2);
    assert.deepEqual(ctx.stub.to('/orders')[0]!.json, { SampleNumber: 'S3', allTests: '1' });
  });

  it('trims a padded sample number before asking', async () => {
    ctx.stub.reply('/orders', { body: { status: 'success', order: anOrder('S4') } });
    await load();
    const { port } = await run('  S4 ', 2);
    assert.equal(port, 'out1');
    assert.equal(ctx.stub.to('/orders')[0]!.headers['x-expected-sample'], 'S4');
  });

  it('sends the sample number to output 2 when the LIS answers 200 without an order', async () => {
    for (const body of [{ status: 'not found' }, { status: 'not found', order: null }, { status: 'empty', order: {} }]) {
      ctx.stub.reply('/orders', { body });
      await load();
      const { port, msg } = await run('S5', 2);
      assert.equal(port, 'out2', JSON.stringify(body));
      assert.equal(msg.payload, 'S5');
      assert.equal((msg.lis as Record<string, unknown>).status, body.status);
      await helper.unload();
    }
  });

  it('retries 5xx with exponential back-off (2^n x transientBackoffMs) and succeeds', async () => {
    ctx.stub.reply('/orders', { status: 503, body: { message: 'busy', errors: [] } }, { status: 502 }, { body: { status: 'success', order: anOrder('S6') } });
    await load();
    const { port, msg } = await run('S6', 2);
    assert.equal(port, 'out1');
    assert.equal((msg.lis as Record<string, unknown>).attempts, 3);
    assertWaits(ctx.stub.gaps('/orders'), [2 * FAST.transientBackoffMs, 4 * FAST.transientBackoffMs]);
    const ids = ctx.stub.to('/orders').map((r) => r.headers['x-request-id']);
    assert.equal(new Set(ids).size, 3, 'a new X-Request-ID for every attempt');
    assert.deepEqual((msg.lis as Record<string, unknown>).requestIds, ids);
    assert.ok(statuses(helper.getNode('n')).some((s) => s.fill === 'yellow'), 'a yellow retry status was shown');
  });

  it('retries 408 the same way', async () => {
    ctx.stub.reply('/orders', { status: 408 }, { body: { status: 'success', order: anOrder('S7') } });
    await load();
    const { port } = await run('S7', 2);
    assert.equal(port, 'out1');
    assertWaits(ctx.stub.gaps('/orders'), [2 * FAST.transientBackoffMs]);
  });

  it('retries a time-out and reports TIMEOUT after the last attempt', async () => {
    ctx.stub.reply('/orders', { delayMs: 600, body: { status: 'success', order: anOrder('S8') } });
    await load({ timeout: 150 });
    const { port, msg } = await run('S8', 2);
    assert.equal(port, 'caught');
    assert.equal(ctx.stub.to('/orders').length, 3);
    assert.equal((msg._error as Record<string, unknown>).code, 'TIMEOUT');
    assert.equal((msg.error as Record<string, unknown>).code, 'TIMEOUT');
  });

  it('gives up after orderAttempts attempts in all on repeated 5xx, with the LIS message', async () => {
    ctx.stub.reply('/orders', { status: 500, body: { message: 'database down', errors: ['pool exhausted'] } });
    await load();
    const { port, msg } = await run('S9', 2);
    assert.equal(port, 'caught');
    assert.equal(ctx.stub.to('/orders').length, 3);
    const err = msg._error as Record<string, unknown>;
    assert.equal(err.code, 'HTTP_STATUS');
    assert.equal(err.status, 500);
    assert.deepEqual(err.errors, ['pool exhausted']);
    assert.match(String(err.message), /database down/);
    assert.equal(lastStatus(helper.getNode('n'))?.fill, 'red');
  });

  it('never makes more than transientRetries additional attempts after 5xx', async () => {
    ctx.stub.reply('/orders', { status: 503 });
    await load({ orderAttempts: 6, transientRetries: 1 });
    const { port } = await run('S10', 2);
    assert.equal(port, 'caught');
    assert.equal(ctx.stub.to('/orders').length, 2);
  });

  it('never makes more than orderAttempts attempts, whatever transientRetries allows', async () => {
    ctx.stub.reply('/orders', { status: 503 });
    await load({ orderAttempts: 2, transientRetries: 5 });
    await run('S11', 2);
    assert.equal(ctx.stub.to('/orders').length, 2);
  });

  it('retries a connection that is refused', async () => {
    const dead = new LisStub();
    await dead.start();
    const url = dead.url('/orders');
    await dead.stop();
    await load({ transactionInfoApiUrl: url });
    const { port, msg } = await run('S12', 2);
    assert.equal(port, 'caught');
    const err = msg._error as Record<string, unknown>;
    assert.equal(err.code, 'NETWORK');
    assert.match(String(err.message), /ECONNREFUSED/);
    assert.equal(err.attempts, 3, 'refused connections follow the transient rule');
  });

  for (const status of [400, 401, 403, 404, 409, 422]) {
    it(`fails at once on ${status} with the LIS's message and errors`, async () => {
      ctx.stub.reply('/orders', { status, body: { message: `refused ${status}`, errors: ['first detail', 'second detail'] } });
      await load();
      const { port, msg } = await run('S13', 2);
      assert.equal(port, 'caught');
      assert.equal(ctx.stub.to('/orders').length, 1);
      const err = msg._error as Record<string, unknown>;
      assert.equal(err.status, status);
      assert.match(String(err.message), new RegExp(`${status}.*refused ${status}`));
      assert.deepEqual(err.errors, ['first detail', 'second detail']);
      assert.equal((msg.error as Record<string, unknown>).code, 'HTTP_STATUS');
      assert.deepEqual((msg.error as { cause: Record<string, unknown> }).cause.errors, ['first detail', 'second detail']);
    });
  }

  it('rejects an order for another sample, waits orderBackoffMs x attempt, and retries', async () => {
    ctx.stub.reply('/orders', { body: { status: 'success', order: anOrder('OTHER-1') } }, { body: { status: 'success', order: anOrder('OTHER-2') } }, { body: { status: 'success', order: anOrder('S14') } });
    await load();
    const { port, msg } = await run('S14', 2);
    assert.equal(port, 'out1');
    assert.equal((msg.payload as Record<string, unknown>).SampleNumber, 'S14');
    assert.equal((msg.lis as Record<string, unknown>).attempts, 3);
    assertWaits(ctx.stub.gaps('/orders'), [1 * FAST.orderBackoffMs, 2 * FAST.orderBackoffMs]);
  });

  it('never emits an order for another sample: SAMPLE_MISMATCH after the last attempt', async () => {
    ctx.stub.reply('/orders', { body: { status: 'success', order: anOrder('NOT-MINE') } });
    await load();
    const { port, msg } = await run('S15', 2);
    assert.equal(port, 'caught');
    assert.equal(ctx.stub.to('/orders').length, 3);
    const err = msg._error as Record<string, unknown>;
    assert.equal(err.code, 'SAMPLE_MISMATCH');
    assert.match(String(err.message), /NOT-MINE.*S15/);
    assert.equal(msg.payload, 'S15', 'the message keeps the sample it asked for');
  });

  it('compares sample numbers exactly (case and padding count)', async () => {
    ctx.stub.reply('/orders', { body: { status: 'success', order: anOrder('s16') } });
    await load({ orderAttempts: 1 });
    const { port } = await run('S16', 2);
    assert.equal(port, 'caught');
  });

  it('fails with the offending fields when the order breaks the schema', async () => {
    const bad = anOrder('S17', { TransactionDate: '20260230120000', SampleType: 'Blood plasma', Priority: 'U' });
    (bad.patient as Record<string, unknown>).Sex = 'X';
    (bad.patient as Record<string, unknown>).DateOfBirth = '1980-02-29';
    ctx.stub.reply('/orders', { body: { status: 'success', order: bad } });
    await load();
    const { port, msg } = await run('S17', 2);
    assert.equal(port, 'caught');
    assert.equal(ctx.stub.to('/orders').length, 1, 'an invalid order is not retried');
    const err = msg._error as { code: string; errors: string[]; message: string };
    assert.equal(err.code, 'INVALID_RESPONSE');
    for (const field of ['order.TransactionDate', 'order.SampleType', 'order.Priority', 'order.patient.Sex', 'order.patient.DateOfBirth']) {
      assert.ok(err.errors.some((e) => e.startsWith(`${field}:`)), `${field} named in ${err.errors.join(' | ')}`);
    }
  });

  it('fails clearly on a body that is not JSON', async () => {
    ctx.stub.reply('/orders', { headers: { 'Content-Type': 'text/html' }, body: '<html><body>Gateway error</body></html>' });
    await load();
    const { port, msg } = await run('S18', 2);
    assert.equal(port, 'caught');
    const err = msg._error as { code: string; message: string };
    assert.equal(err.code, 'INVALID_RESPONSE');
    assert.match(err.message, /not JSON.*text\/html/);
  });

  it('does not follow a redirect and names its Location', async () => {
    ctx.stub.reply('/orders', { status: 302, headers: { Location: ctx.stub.url('/elsewhere') } });
    ctx.stub.reply('/elsewhere', { body: { status: 'success', order: anOrder('S19') } });
    await load();
    const { port, msg } = await run('S19', 2);
    assert.equal(port, 'caught');
    assert.equal(ctx.stub.to('/elsewhere').length, 0, 'the redirect target was never asked');
    assert.equal(ctx.stub.to('/orders').length, 1);
    const err = msg._error as { code: string; message: string; status: number };
    assert.equal(err.code, 'REDIRECT');
    assert.equal(err.status, 302);
    assert.ok(err.message.includes(ctx.stub.url('/elsewhere')));
  });

  it('refuses input that is not a sample number without calling the LIS', async () => {
    await load();
    for (const payload of [42, '', '   ', { Sample: 'x' }, ['S1'], 'bad\nsample']) {
      const { port, msg } = await run(payload, 2);
      assert.equal(port, 'caught', JSON.stringify(payload));
      assert.equal((msg._error as Record<string, unknown>).code, 'INVALID_INPUT');
    }
    assert.equal(ctx.stub.to('/orders').length, 0);
  });

  it('expands ${VAR} anywhere in a URL and names an unset variable', async () => {
    process.env.LIS_TEST_BASE = ctx.stub.url('');
    ctx.stub.reply('/orders', { body: { status: 'success', order: anOrder('S20') } });
    await load({ transactionInfoApiUrl: '${LIS_TEST_BASE}/orders' });
    assert.equal((await run('S20', 2)).port, 'out1');
    await helper.unload();
    await load({ transactionInfoApiUrl: '${LIS_TEST_UNSET_VAR}/orders' });
    const { port, msg } = await run('S20', 2);
    assert.equal(port, 'caught');
    assert.equal((msg._error as Record<string, unknown>).code, 'NOT_CONFIGURED');
    assert.match(String((msg._error as Record<string, unknown>).message), /LIS_TEST_UNSET_VAR/);
  });

  it('reports an invalid tuning value by name instead of guessing', async () => {
    await load({ orderAttempts: 0 });
    const { port, msg } = await run('S21', 2);
    assert.equal(port, 'caught');
    assert.match(String((msg._error as Record<string, unknown>).message), /orderAttempts/);
    assert.equal(ctx.stub.requests.length, 0);
  });

  it('cancels a pending retry when the flow stops, without sending again', async () => {
    ctx.stub.reply('/orders', { status: 503 });
    await load({ transientBackoffMs: 5000 });
    helper.getNode('n').receive({ payload: 'S22' } as never);
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    await helper.unload();
    assert.ok(Date.now() - started < 1000, 'close did not wait for the back-off');
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(ctx.stub.to('/orders').length, 1);
  });
});
