import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useLisStub } from '../support/lifecycle';
import { ALL_LIS_NODES, collect, helper, lastStatus, nodeModules, waitUntil } from '../support/red';
import { TOKEN, loadLisFlow, run } from '../support/lis-flow';

const ctx = useLisStub();

const load = (config: Record<string, unknown> = {}) => loadLisFlow(ctx.stub, { type: 'lis-send-results', config });

const items = [
  { SampleNumber: 'S1', TestCode: 'GLU', Result: '5.4' },
  { SampleNumber: 'S1', TestCode: 'CBC', SubTestCode: 'WBC', Result: '7.1' },
];

describe('lis-send-results', () => {
  it('posts { results } with the spec headers and outputs the LIS answer', async () => {
    ctx.stub.reply('/results', { body: { status: 'success', accepted: 2 } });
    await load();
    const { port, msg } = await run(items);
    assert.equal(port, 'out1');
    assert.deepEqual(msg.payload, { status: 'success', accepted: 2 });
    const [req] = ctx.stub.to('/results');
    assert.deepEqual(req!.json, { results: items });
    assert.equal(req!.headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(req!.headers['x-expected-sample'], undefined, 'X-Expected-Sample is for order requests only');
    assert.ok(req!.headers['x-request-id']);
    assert.ok(req!.headers['x-request-timestamp']);
    assert.equal(lastStatus(helper.getNode('n'))?.fill, 'green');
  });

  it('accepts { results: [...] } as well as a bare array', async () => {
    ctx.stub.reply('/results', { body: {} });
    await load();
    await run({ results: items });
    assert.deepEqual(ctx.stub.to('/results')[0]!.json, { results: items });
  });

  for (const [what, reply] of [
    ['503', { status: 503 }],
    ['408', { status: 408 }],
    ['500', { status: 500, body: { message: 'boom', errors: [] } }],
  ] as const) {
    it(`makes exactly one attempt on ${what}`, async () => {
      ctx.stub.reply('/results', reply);
      await load();
      const { port, msg } = await run(items);
      assert.equal(port, 'caught');
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(ctx.stub.to('/results').length, 1);
      assert.equal((msg._error as Record<string, unknown>).code, 'HTTP_STATUS');
    });
  }

  it('makes exactly one attempt on a time-out', async () => {
    ctx.stub.reply('/results', { delayMs: 800, body: {} });
    await load({ timeout: 100 });
    const { port, msg } = await run(items);
    assert.equal(port, 'caught');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(ctx.stub.to('/results').length, 1);
    assert.equal((msg._error as Record<string, unknown>).code, 'TIMEOUT');
  });

  it('validates every item before sending anything', async () => {
    ctx.stub.reply('/results', { body: {} });
    await load();
    const bad = [...items, { SampleNumber: 'S2', TestCode: '', Result: 7.2 }, { TestCode: 'X', Result: '1' }];
    const { port, msg } = await run(bad);
    assert.equal(port, 'caught');
    assert.equal(ctx.stub.requests.length, 0, 'nothing sent');
    const err = msg._error as { code: string; errors: string[] };
    assert.equal(err.code, 'INVALID_INPUT');
    assert.ok(err.errors.some((e) => e.startsWith('results[2].TestCode:')), err.errors.join(' | '));
    assert.ok(err.errors.some((e) => e.startsWith('results[2].Result:')), err.errors.join(' | '));
    assert.ok(err.errors.some((e) => e.startsWith('results[3].SampleNumber:')), err.errors.join(' | '));
  });

  it('refuses an empty batch and a payload of the wrong shape', async () => {
    await load();
    for (const payload of [[], {}, 'S1', null]) {
      const { port, msg } = await run(payload);
      assert.equal(port, 'caught', JSON.stringify(payload));
      assert.equal((msg._error as Record<string, unknown>).code, 'INVALID_INPUT');
    }
    assert.equal(ctx.stub.requests.length, 0);
  });

  it('treats an empty 2xx answer as success with a null payload', async () => {
    ctx.stub.reply('/results', { status: 204 });
    await load();
    const { port, msg } = await run(items);
    assert.equal(port, 'out1');
    assert.equal(msg.payload, null);
  });

  it('treats a non-JSON 2xx answer as delivered, with a warning, never as a failure to resend', async () => {
    ctx.stub.reply('/results', { headers: { 'Content-Type': 'text/plain' }, body: 'OK' });
    await load();
    const { port, msg } = await run(items);
    assert.equal(port, 'out1');
    assert.equal(msg.payload, 'OK');
    const warn = (helper.getNode('n') as unknown as { warn: { args: unknown[][] } }).warn;
    assert.ok(warn.args.some((a) => /not JSON/.test(String(a[0]))));
  });

  it('tells Complete nodes of delivered batches only, and Catch nodes of failed ones', async () => {
    ctx.stub.reply('/results', { body: { ok: 1 } }, { status: 500 });
    await load();
    await helper.unload();
    const flow = [
      { id: 'cfg', type: 'lis-config', resultApiUrl: ctx.stub.url('/results'), timeout: 1000 },
      { id: 'n', type: 'lis-send-results', lis: 'cfg', wires: [['out1']] },
      { id: 'out1', type: 'helper' },
      { id: 'completer', type: 'complete', scope: ['n'], uncaught: false, wires: [['completed']] },
      { id: 'completed', type: 'helper' },
      { id: 'catcher', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
      { id: 'caught', type: 'helper' },
    ];
    await helper.load(nodeModules(...ALL_LIS_NODES) as never, flow as never);
    const completed = collect('completed');
    const caught = collect('caught');
    helper.getNode('n').receive({ payload: items, _id: 'first' } as never);
    await waitUntil(() => completed.length === 1);
    helper.getNode('n').receive({ payload: items, _id: 'second' } as never);
    await waitUntil(() => caught.length === 1);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(completed.length, 1, 'the failed batch did not reach the Complete node');
  });

  it('does not follow a redirect', async () => {
    ctx.stub.reply('/results', { status: 307, headers: { Location: ctx.stub.url('/moved') } });
    await load();
    const { port, msg } = await run(items);
    assert.equal(port, 'caught');
    assert.equal(ctx.stub.to('/moved').length, 0);
    assert.equal((msg._error as Record<string, unknown>).code, 'REDIRECT');
  });
});
