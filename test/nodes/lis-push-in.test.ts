import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { anOrder } from '../support/lis-stub';
import { ALL_LIS_NODES, collect, helper, lastStatus, nodeModules, waitUntil } from '../support/red';
import { freePort } from '../support/ports';

const PUSH_TOKEN = 'push-secret-7781';
let port: number;

beforeEach(async () => {
  port = await freePort();
  await helper.startServer();
});
afterEach(async () => {
  await helper.unload();
  await helper.stopServer();
});

async function load(props: Record<string, unknown> = {}, authToken?: string): Promise<void> {
  const flow = [
    { id: 'n', type: 'lis-push-in', name: 'push', localApiAddress: '127.0.0.1', localApiPort: port, wires: [['out1']], ...props },
    { id: 'out1', type: 'helper' },
    { id: 'catcher', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', type: 'helper' },
  ];
  await helper.load(nodeModules(...ALL_LIS_NODES) as never, flow as never, (authToken ? { n: { authToken } } : {}) as never);
  await waitUntil(() => lastStatus(helper.getNode('n'))?.fill !== undefined, 3000, 'push-in status');
}

function post(body: string | object, headers: Record<string, string> = {}, path = '/api/getSampleData', method = 'POST') {
  return fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', ...headers },
    ...(method === 'GET' || method === 'HEAD' ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
}

async function expectError(res: Response, status: number): Promise<{ message: string; errors: string[] }> {
  assert.equal(res.status, status);
  assert.match(String(res.headers.get('content-type')), /application\/json/);
  const body = (await res.json()) as { message: string; errors: string[] };
  assert.equal(typeof body.message, 'string');
  assert.ok(Array.isArray(body.errors));
  return body;
}

describe('lis-push-in', () => {
  it('accepts { order }, answers 200 { status, received } and emits the order', async () => {
    await load();
    const got = collect('out1');
    const res = await post({ order: anOrder('P1') }, { 'X-Request-ID': 'req-1' });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { status: 'success', received: 1 });
    await waitUntil(() => got.length === 1);
    assert.deepEqual(got[0]!.payload, anOrder('P1'));
    assert.equal(got[0]!.topic, 'P1');
    assert.equal((got[0]!.lis as Record<string, unknown>).requestId, 'req-1');
  });

  it('accepts a bare order and { orders: [...] }, one message per order', async () => {
    await load();
    const got = collect('out1');
    assert.equal((await post(anOrder('P2'))).status, 200);
    const res = await post({ orders: [anOrder('P3'), anOrder('P4')] });
    assert.deepEqual(await res.json(), { status: 'success', received: 2 });
    await waitUntil(() => got.length === 3);
    assert.deepEqual(got.map((m) => (m.payload as Record<string, unknown>).SampleNumber), ['P2', 'P3', 'P4']);
  });

  it('answers 422 for missing or empty order data', async () => {
    await load();
    const got = collect('out1');
    for (const body of ['', '{}', '{"order":null}', '{"order":{}}', '{"orders":[]}', '[]', '"x"']) {
      const err = await expectError(await post(body), 422);
      assert.match(err.message, /missing or empty/, body);
    }
    assert.equal(got.length, 0);
  });

  it('answers 422 naming the invalid fields, and accepts none of a batch with one bad order', async () => {
    await load();
    const got = collect('out1');
    const bad = anOrder('P6', { SampleType: 'Blood plasma' });
    const err = await expectError(await post({ orders: [anOrder('P5'), bad] }), 422);
    assert.ok(err.errors.some((e) => e.startsWith('orders[1].SampleType:')), err.errors.join(' | '));
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(got.length, 0, 'the valid order of the batch was not emitted either');
  });

  it('answers 400 for malformed JSON', async () => {
    await load();
    await expectError(await post('{"order": {'), 400);
  });

  it('answers 404 for an unknown route and 405 with Allow: POST for another method', async () => {
    await load();
    await expectError(await post({}, {}, '/api/other'), 404);
    const res = await post({}, {}, '/api/getSampleData', 'GET');
    assert.equal(res.headers.get('allow'), 'POST');
    await expectError(res, 405);
    await expectError(await post({ order: anOrder('P7') }, {}, '/api/getSampleData', 'PUT'), 405);
  });

  it('answers 415 when the body is not declared as JSON', async () => {
    await load();
    await expectError(await post(JSON.stringify({ order: anOrder('P8') }), { 'Content-Type': 'text/plain' }), 415);
  });

  it('answers 413 over the body limit and emits nothing', async () => {
    await load({ bodyLimit: 2000 });
    const got = collect('out1');
    const big = anOrder('P9', { Note: 'x'.repeat(5000) });
    await expectError(await post({ order: big }), 413);
    assert.equal(got.length, 0);
    // A chunked body without Content-Length is cut off as it arrives.
    const res = await fetch(`http://127.0.0.1:${port}/api/getSampleData`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: new Blob([JSON.stringify({ order: big })]).stream(),
      duplex: 'half',
    } as RequestInit);
    await expectError(res, 413);
  });

  it('requires the bearer token when one is set (401 otherwise)', async () => {
    await load({}, PUSH_TOKEN);
    await expectError(await post({ order: anOrder('P10') }), 401);
    await expectError(await post({ order: anOrder('P10') }, { Authorization: 'Bearer wrong' }), 401);
    assert.equal((await post({ order: anOrder('P10') }, { Authorization: `Bearer ${PUSH_TOKEN}` })).status, 200);
  });

  it('shows a red status and tells Catch nodes when the port is in use, without crashing', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(port, '127.0.0.1', r));
    try {
      await load();
      await waitUntil(() => lastStatus(helper.getNode('n'))?.fill === 'red', 3000, 'red status');
      // The failure may come before a listener could be attached to 'caught': read what the catch node sent.
      const sent = (helper.getNode('catcher') as unknown as { send: { args: unknown[][] } }).send;
      await waitUntil(() => sent.args.length === 1, 3000, 'catch');
      const caught = sent.args[0]![0] as { error: { message: string; code: string } };
      assert.match(caught.error.message, new RegExp(`${port}.*in use.*: set LocalAPIPort to a free port`));
      assert.equal(caught.error.code, 'LISTEN_FAILED');
      assert.equal(lastStatus(helper.getNode('n'))?.text, `port ${port} in use: set LocalAPIPort`);
    } finally {
      await new Promise<void>((r) => blocker.close(() => r()));
    }
  });

  it('names the tab variable the port came from when it is in use (${LIS_PUSH_PORT}, as in the examples)', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(port, '127.0.0.1', r));
    try {
      const flow = [
        { id: 'tab', type: 'tab', label: 'analyzer', env: [{ name: 'LIS_PUSH_PORT', value: String(port), type: 'str' }] },
        { id: 'n', z: 'tab', type: 'lis-push-in', name: 'push', localApiAddress: '127.0.0.1', localApiPort: '${LIS_PUSH_PORT}', wires: [[]] },
        { id: 'catcher', z: 'tab', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
        { id: 'caught', z: 'tab', type: 'helper' },
      ];
      await helper.load(nodeModules(...ALL_LIS_NODES) as never, flow as never);
      await waitUntil(() => lastStatus(helper.getNode('n'))?.fill === 'red', 3000, 'red status');
      assert.equal(lastStatus(helper.getNode('n'))?.text, `port ${port} in use: set LIS_PUSH_PORT`);
      const sent = (helper.getNode('catcher') as unknown as { send: { args: unknown[][] } }).send;
      await waitUntil(() => sent.args.length === 1, 3000, 'catch');
      assert.match((sent.args[0]![0] as { error: { message: string } }).error.message, /in use.*: set LIS_PUSH_PORT to a free port/);
    } finally {
      await new Promise<void>((r) => blocker.close(() => r()));
    }
  });

  it('frees its port on redeploy, even with a client connection kept open', async () => {
    await load();
    const keepAlive = net.connect(port, '127.0.0.1');
    await new Promise((r) => keepAlive.once('connect', r));
    await helper.unload();
    const again = net.createServer();
    await new Promise<void>((resolve, reject) => {
      again.once('error', reject);
      again.listen(port, '127.0.0.1', () => resolve());
    });
    await new Promise<void>((r) => again.close(() => r()));
    keepAlive.destroy();
    await load();
    assert.equal(lastStatus(helper.getNode('n'))?.fill, 'green');
  });
});
