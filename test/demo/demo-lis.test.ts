import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { DemoLis } from '../../demo/demo-lis';
import { DEMO_SEEDS } from '../../demo/orders';
import type { DemoLisState } from '../../demo/journal';
import { LisClient, DEFAULT_TUNING } from '../../lib/lis/client';
import { PushServer } from '../../lib/lis/push-server';
import { OrderSchema, type Order } from '../../lib/lis/schemas';
import { obj, post, startDemo } from './helpers';

async function state(lis: DemoLis): Promise<DemoLisState> {
  const res = await fetch(lis.url('/api/state'));
  assert.equal(res.status, 200);
  return (await res.json()) as DemoLisState;
}

describe('demo LIS: tests endpoint', () => {
  it('returns the whole catalog without filters, and for an empty body', async (t) => {
    const lis = await startDemo(t);
    const all = await post(lis.url('/api/tests'), {});
    assert.equal(all.status, 200);
    const tests = all.json.tests as Array<{ ID: string }>;
    assert.ok(tests.length >= 28);
    const empty = await post(lis.url('/api/tests'), '');
    assert.deepEqual(empty.json, all.json);
  });

  it('filters by Name and Code, partial and case-insensitive, both applied', async (t) => {
    const lis = await startDemo(t);
    const ids = async (body: unknown) => ((await post(lis.url('/api/tests'), body)).json.tests as Array<{ ID: string }>).map((x) => x.ID);
    assert.deepEqual(await ids({ Name: 'CHOLEST' }), ['T-CHOL', 'T-HDL']);
    assert.deepEqual(await ids({ Code: 'cr' }), ['T-CREA', 'T-CRP', 'T-UCREA', 'T-ABSCR']);
    assert.deepEqual(await ids({ Name: 'cross' }), ['T-XM']);
    assert.deepEqual(await ids({ Code: 'cr', Name: 'urine' }), ['T-UCREA']);
    assert.deepEqual(await ids({ Name: 'no such test' }), []);
    assert.deepEqual(await ids({ Name: '', Code: null }), (await ids({})));
  });

  it('refuses bad bodies: 422 naming the field, 400 for bad JSON, 415, 405', async (t) => {
    const lis = await startDemo(t);
    const bad = await post(lis.url('/api/tests'), { Name: 42 });
    assert.equal(bad.status, 422);
    assert.equal(bad.json.message, 'request body invalid');
    assert.match(String((bad.json.errors as string[])[0]), /^Name: /);
    const notJson = await post(lis.url('/api/tests'), '{"Name":');
    assert.equal(notJson.status, 400);
    assert.equal(notJson.json.message, 'body is not valid JSON');
    const text = await fetch(lis.url('/api/tests'), { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: '{}' });
    assert.equal(text.status, 415);
    const get = await fetch(lis.url('/api/tests'));
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST');
    const unknown = await post(lis.url('/api/nothing'), {});
    assert.equal(unknown.status, 404);
    assert.deepEqual(Object.keys(unknown.json).sort(), ['errors', 'message']);
  });
});

describe('demo LIS: orders endpoint', () => {
  it('serves seeded orders, and a valid generated order for any other sample number', async (t) => {
    const lis = await startDemo(t);
    const seeded = await post(lis.url('/api/orders'), { SampleNumber: 'S1002' });
    assert.equal(seeded.status, 200);
    assert.equal(seeded.json.status, 'success');
    const order = OrderSchema.parse(seeded.json.order);
    assert.equal(order.SampleNumber, 'S1002');
    assert.equal(order.Priority, 'S');
    assert.deepEqual(order.Tests, ['T-CBC']);

    for (const sample of ['ABC-0001', '12345678', 'lower-case', 'S1001X']) {
      const res = await post(lis.url('/api/orders'), { SampleNumber: sample });
      assert.equal(res.status, 200);
      assert.equal(res.json.status, 'success');
      const generated = OrderSchema.parse(res.json.order);
      assert.equal(generated.SampleNumber, sample);
      assert.equal(generated.TransactionDate, '20261121093015');
    }
  });

  it('answers the same order for the same sample number, from another instance too', async (t) => {
    const a = await startDemo(t);
    const b = await startDemo(t);
    const first = await post(a.url('/api/orders'), { SampleNumber: 'RACK7-POS3' });
    const again = await post(a.url('/api/orders'), { SampleNumber: 'RACK7-POS3' });
    const other = await post(b.url('/api/orders'), { SampleNumber: 'RACK7-POS3' });
    assert.deepEqual(again.json, first.json);
    assert.deepEqual(other.json, first.json);
  });

  it('has no order for sample numbers matching the no-order pattern (default NOORDER...)', async (t) => {
    const lis = await startDemo(t);
    const none = await post(lis.url('/api/orders'), { SampleNumber: 'NOORDER-42' });
    assert.equal(none.status, 200);
    assert.deepEqual(none.json, { status: 'not found' });
    const custom = await startDemo(t, { noOrderPattern: /^X/ });
    assert.deepEqual((await post(custom.url('/api/orders'), { SampleNumber: 'X1' })).json, { status: 'not found' });
    assert.equal((await post(custom.url('/api/orders'), { SampleNumber: 'NOORDER-42' })).json.status, 'success');
  });

  it('refuses bodies without a SampleNumber, or with allTests not a string', async (t) => {
    const lis = await startDemo(t);
    for (const body of [{}, { SampleNumber: '' }, { SampleNumber: '   ' }, { SampleNumber: 7 }, { SampleNumber: 'A', allTests: true }, [], 'null']) {
      const res = await post(lis.url('/api/orders'), body);
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.ok(Array.isArray(res.json.errors) && res.json.errors.length > 0);
    }
  });

  it('restricts orders to orderableTests', async (t) => {
    const only = ['T-NA', 'T-K', 'T-CL'];
    const lis = await startDemo(t, { orderableTests: only });
    for (let i = 0; i < 30; i++) {
      const res = await post(lis.url('/api/orders'), { SampleNumber: `ION-${i}` });
      const order = OrderSchema.parse(res.json.order);
      assert.ok(order.Tests.length >= 2 && order.Tests.every((id) => only.includes(id)), JSON.stringify(order.Tests));
      assert.equal(order.SampleType, 'Serum');
    }
    assert.deepEqual((await state(lis)).orderableTests, only);
    assert.throws(() => new DemoLis({ orderableTests: ['T-NOPE'] }), /T-NOPE/);
  });
});

describe('demo LIS: bearer token', () => {
  it('requires Authorization: Bearer <token> on the four endpoints when set, and never logs it', async (t) => {
    const token = 'tok-3f9a7c';
    const lis = await startDemo(t, { token });
    for (const path of ['/api/tests', '/api/orders', '/api/results', '/api/processed']) {
      const none = await post(lis.url(path), {});
      assert.equal(none.status, 401, path);
      assert.equal(none.headers.get('www-authenticate'), 'Bearer');
      assert.equal(none.json.message, 'missing or wrong bearer token');
      assert.ok(Array.isArray(none.json.errors));
      assert.equal((await post(lis.url(path), {}, { Authorization: 'Bearer wrong' })).status, 401);
      assert.equal((await post(lis.url(path), {}, { Authorization: token })).status, 401);
    }
    const ok = await post(lis.url('/api/orders'), { SampleNumber: 'S1001' }, { Authorization: `Bearer ${token}` });
    assert.equal(ok.status, 200);
    const s = await state(lis);
    assert.equal(s.tokenRequired, true);
    const everything = JSON.stringify(s) + lis.lines.join('\n') + (await (await fetch(lis.url('/'))).text());
    assert.ok(!everything.includes(token));
    assert.equal(s.requests.orders[0]!.authorization, 'present');
  });

  it('shows the token on its page and in api/state only when told it is no secret (npm start), and counts past its history', async (t) => {
    const token = 'demo-token';
    const lis = await startDemo(t, { token, showToken: true, historyLimit: 2 });
    const page = await (await fetch(lis.url('/'))).text();
    assert.match(page, /<th>Bearer Token<\/th><td><code id="token">demo-token<\/code>/);
    assert.equal((await state(lis)).token, token);
    assert.ok(!lis.lines.join('\n').includes(token), 'the log still never holds it');

    const auth = { Authorization: `Bearer ${token}` };
    for (const sample of ['S1001', 'S1002', 'S1003']) assert.equal((await post(lis.url('/api/orders'), { SampleNumber: sample }, auth)).status, 200);
    const results = [
      { SampleNumber: 'S1001', TestCode: 'GLU', Result: '5.1' },
      { SampleNumber: 'S1001', TestCode: 'CREA', Result: '80' },
    ];
    assert.equal((await post(lis.url('/api/results'), { results }, auth)).status, 200);
    assert.equal((await post(lis.url('/api/results'), { results }, {})).status, 401);
    assert.deepEqual(lis.totals(), { requests: { tests: 0, orders: 3, results: 2, processed: 0 }, resultsAccepted: 2, refused: 1 });
    assert.equal((await state(lis)).requests.orders.length, 2, 'the history is bounded; the totals are not');

    const hidden = await startDemo(t, { token });
    assert.equal((await state(hidden)).token, null);
  });

  it('asks for nothing when no token (or an empty one) is set', async (t) => {
    const lis = await startDemo(t, { token: '  ' });
    assert.equal((await post(lis.url('/api/tests'), {})).status, 200);
    assert.equal((await state(lis)).tokenRequired, false);
  });
});

describe('demo LIS: results endpoint', () => {
  it('accepts valid result items, records them and shows them in api/state', async (t) => {
    const lis = await startDemo(t);
    const results = [
      { SampleNumber: 'S1002', TestCode: 'CBC', SubTestCode: 'WBC', Result: '6.8' },
      { SampleNumber: 'S1002', TestCode: 'CBC', SubTestCode: 'HGB', Result: '14.1' },
      { SampleNumber: 'S1001', TestCode: 'GLU', Result: '5.20' },
    ];
    const headers = { 'X-Request-ID': 'req-1', 'X-Request-Timestamp': '2026-11-21T09:30:15.123Z' };
    const res = await post(lis.url('/api/results'), { results }, headers);
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { status: 'success', received: 3 });
    const record = (await state(lis)).requests.results[0]!;
    assert.equal(record.status, 200);
    assert.equal(record.requestId, 'req-1');
    assert.equal(record.requestTimestamp, '2026-11-21T09:30:15.123Z');
    assert.equal(record.expectedSample, null);
    assert.deepEqual(record.body, { results });
    assert.match(lis.lines.at(-1)!, /POST \/api\/results 200 3 results for S1002, S1001 \[X-Request-ID req-1\]/);
  });

  it('refuses invalid items with 422 { message, errors } naming each field', async (t) => {
    const lis = await startDemo(t);
    const res = await post(lis.url('/api/results'), {
      results: [{ SampleNumber: 'S1', TestCode: 'GLU', Result: 5.2 }, { SampleNumber: 'S1', Result: '1' }],
    });
    assert.equal(res.status, 422);
    assert.equal(res.json.message, 'request body invalid');
    const errors = res.json.errors as string[];
    assert.ok(errors.some((e) => e.startsWith('results[0].Result:')), errors.join('\n'));
    assert.ok(errors.some((e) => e.startsWith('results[1].TestCode:')), errors.join('\n'));
    for (const body of [{ results: [] }, {}, [{ SampleNumber: 'S1', TestCode: 'GLU', Result: '1' }]]) {
      assert.equal((await post(lis.url('/api/results'), body)).status, 422, JSON.stringify(body));
    }
    const s = await state(lis);
    assert.equal(s.requests.results.length, 4);
    assert.ok(s.requests.results.every((r) => r.status === 422));
  });

  it('accepts unknown test codes with a warning that points at an ID sent as a code', async (t) => {
    const lis = await startDemo(t);
    const res = await post(lis.url('/api/results'), { results: [{ SampleNumber: 'S1', TestCode: 'T-GLU', Result: '5.1' }] });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json.warnings, ['results[0].TestCode: T-GLU is not a code in the catalog: that is a test ID; results carry the test code (GLU)']);
  });
});

describe('demo LIS: processed endpoint', () => {
  it('accepts Tests as a JSON-serialised string and refuses a nested array with 422', async (t) => {
    const lis = await startDemo(t);
    const ok = await post(lis.url('/api/processed'), { SampleNumber: 'S1001', Tests: JSON.stringify(['T-GLU', 'T-CREA']) });
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.json, { status: 'success', processed: 2 });
    const nested = await post(lis.url('/api/processed'), { SampleNumber: 'S1001', Tests: ['T-GLU'] });
    assert.equal(nested.status, 422);
    assert.match((nested.json.errors as string[])[0]!, /JSON-serialised string.*not a nested array/);
    for (const body of [{ SampleNumber: 'S1001', Tests: 'T-GLU' }, { SampleNumber: 'S1001', Tests: '[]' }, { SampleNumber: 'S1001', Tests: '[1]' }, { SampleNumber: 'S1001' }, { Tests: '["T-GLU"]' }]) {
      const res = await post(lis.url('/api/processed'), body);
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.ok((res.json.errors as string[]).length > 0);
    }
    const s = await state(lis);
    assert.equal(s.requests.processed.length, 7);
    assert.deepEqual(s.requests.processed.at(-1)!.body, { SampleNumber: 'S1001', Tests: '["T-GLU","T-CREA"]' });
  });

  it('leaves processed tests out of later orders unless allTests is "1"', async (t) => {
    const lis = await startDemo(t);
    await post(lis.url('/api/processed'), { SampleNumber: 'S1001', Tests: '["T-GLU","T-CREA"]' });
    const open = await post(lis.url('/api/orders'), { SampleNumber: 'S1001' });
    assert.deepEqual(obj(open.json.order).Tests, ['T-UREA', 'T-NA', 'T-K']);
    const all = await post(lis.url('/api/orders'), { SampleNumber: 'S1001', allTests: '1' });
    assert.deepEqual(obj(all.json.order).Tests, DEMO_SEEDS[0]!.Tests);
    await post(lis.url('/api/processed'), { SampleNumber: 'S1001', Tests: '["T-UREA","T-NA","T-K"]' });
    assert.deepEqual((await post(lis.url('/api/orders'), { SampleNumber: 'S1001' })).json, { status: 'already processed' });
  });
});

describe('demo LIS: recording', () => {
  it('records time, endpoint, traceability headers, body and status, bounded per endpoint', async (t) => {
    const lis = await startDemo(t, { historyLimit: 3 });
    for (let i = 1; i <= 5; i++) {
      await post(lis.url('/api/orders'), { SampleNumber: `B${i}` }, { 'X-Request-ID': `id-${i}`, 'X-Expected-Sample': `B${i}`, 'X-Request-Timestamp': 'ts' });
    }
    await post(lis.url('/api/tests'), { Code: 'K' });
    const s = await state(lis);
    assert.deepEqual(s.requests.orders.map((r) => r.requestId), ['id-5', 'id-4', 'id-3']);
    const newest = s.requests.orders[0]!;
    assert.equal(newest.kind, 'orders');
    assert.equal(newest.path, '/api/orders');
    assert.equal(newest.expectedSample, 'B5');
    assert.equal(newest.requestTimestamp, 'ts');
    assert.deepEqual(newest.body, { SampleNumber: 'B5' });
    assert.equal(obj(obj(newest.answer).order).SampleNumber, 'B5');
    assert.ok(!Number.isNaN(Date.parse(newest.at)));
    assert.equal(s.requests.tests.length, 1);
    assert.ok(s.requests.tests[0]!.seq > newest.seq);
    assert.deepEqual(s.endpoints, { tests: lis.url('/api/tests'), orders: lis.url('/api/orders'), results: lis.url('/api/results'), processed: lis.url('/api/processed') });
  });

  it('logs a warning when X-Expected-Sample differs from the body', async (t) => {
    const lis = await startDemo(t);
    await post(lis.url('/api/orders'), { SampleNumber: 'A1' }, { 'X-Expected-Sample': 'A2' });
    assert.match(lis.lines.at(-1)!, /X-Expected-Sample A2 differs from the body/);
  });

  it('serves custom paths below a path prefix', async (t) => {
    const lis = await startDemo(t, { paths: { orders: '/TransactionInfo', results: '/v2/results' } }, '/lis/');
    assert.equal(lis.url('/TransactionInfo'), lis.url('/').replace(/\/$/, '/TransactionInfo'));
    assert.match(lis.url('/'), /\/lis\/$/);
    assert.equal((await post(lis.url('/TransactionInfo'), { SampleNumber: 'P1' })).json.status, 'success');
    assert.equal((await post(lis.url('/api/tests'), {})).status, 200);
    assert.equal((await post(lis.url('/api/orders'), { SampleNumber: 'P1' })).status, 404);
    assert.equal((await post(lis.url('/').replace('/lis/', '/TransactionInfo'), { SampleNumber: 'P1' })).status, 404);
    const bare = await fetch(lis.url('/').replace(/\/$/, ''), { redirect: 'manual' });
    assert.equal(bare.status, 301);
    assert.equal(bare.headers.get('location'), '/lis/');
    assert.equal((await fetch(lis.url('/'))).status, 200);
    assert.throws(() => new DemoLis({ paths: { tests: '/api/state' } }), /taken/);
    assert.throws(() => new DemoLis({ paths: { tests: '/x', orders: '/x' } }), /another endpoint/);
  });
});

/** Opens /events and resolves with the data of the first event named `name` after `trigger` ran. */
function nextEvent(url: string, name: string, trigger: () => Promise<unknown>): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, (res) => {
      assert.equal(res.headers['content-type'], 'text/event-stream; charset=utf-8');
      let buffer = '';
      let triggered = false;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        // The greeting comment arrives first: the stream is attached, so the event cannot be missed.
        if (!triggered) {
          triggered = true;
          trigger().catch(reject);
        }
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(frame)?.[1];
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (event === name && data !== undefined) {
            req.destroy();
            resolve(JSON.parse(data));
          }
        }
      });
    });
    req.on('error', reject);
    req.setTimeout(5000, () => req.destroy(new Error(`no ${name} event within 5 s`)));
  });
}

describe('demo LIS: page and live events', () => {
  it('sends a Server-Sent Event when a result arrives', async (t) => {
    const lis = await startDemo(t);
    const results = [{ SampleNumber: 'S1001', TestCode: 'K', Result: '4.1' }];
    const data = obj(await nextEvent(lis.url('/events'), 'results', () => post(lis.url('/api/results'), { results })));
    assert.equal(data.kind, 'results');
    assert.equal(data.status, 200);
    assert.deepEqual(data.body, { results });
  });

  it('stop() ends open event streams', async (t) => {
    const lis = new DemoLis();
    await lis.start({ port: 0 });
    t.after(() => lis.stop());
    const ended = new Promise<void>((resolve, reject) => {
      http.get(lis.url('/events'), (res) => {
        res.resume();
        res.on('end', () => resolve());
        res.on('error', () => resolve());
        void lis.stop();
      }).on('error', reject);
    });
    await ended;
  });

  it('shows orders, results and processed notifications, newest first, with everything escaped', async (t) => {
    const lis = await startDemo(t);
    await post(lis.url('/api/orders'), { SampleNumber: 'S1005' });
    await post(lis.url('/api/results'), {
      results: [
        { SampleNumber: 'S1005', TestCode: 'TSH', Result: '<script>alert(1)</script>' },
        { SampleNumber: '<b>bold</b>', TestCode: 'FT4', SubTestCode: '"quoted" & \'single\'', Result: '15.2' },
      ],
    });
    await post(lis.url('/api/processed'), { SampleNumber: 'S1005', Tests: '["T-TSH"]' });
    await post(lis.url('/api/orders'), { SampleNumber: '<img src=x onerror=alert(2)>' });
    const res = await fetch(lis.url('/'));
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(res.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    const html = await res.text();
    assert.ok(!html.includes('<script>alert'), 'raw script tag in the page');
    assert.ok(!html.includes('<img src=x'), 'raw img tag in the page');
    assert.ok(!html.includes('<b>bold'), 'raw b tag in the page');
    assert.ok(html.includes('&#60;script&#62;alert(1)&#60;/script&#62;'));
    assert.ok(html.includes('&#34;quoted&#34; &#38; &#39;single&#39;'));
    assert.ok(html.includes('Siobh\u00e1n O&#39;Neill (P-100005)'));
    // Newest first: the second order request comes before S1005's.
    const orders = html.slice(html.indexOf('id="orders"'), html.indexOf('</section>', html.indexOf('id="orders"')));
    assert.ok(orders.indexOf('&#60;img') < orders.indexOf('S1005'));
    assert.match(html, /<script src="app.js"><\/script>/);
    assert.equal((html.match(/<script/g) ?? []).length, 1, 'only the page script tag');
    const panels = await (await fetch(lis.url('/panels'))).text();
    assert.ok(panels.includes('&#60;script&#62;') && !panels.includes('<script'));
    const script = await fetch(lis.url('/app.js'));
    assert.match(script.headers.get('content-type') ?? '', /javascript/);
    assert.match(await script.text(), /new EventSource\('events'\)/);
    assert.equal((await fetch(lis.url('/app.css'))).status, 200);
  });
});

describe('demo LIS: push', () => {
  it('pushes a generated order to a lis-push-in server and reports its answer', async (t) => {
    const received: Order[] = [];
    const server = new PushServer({ host: '127.0.0.1', port: 0, bodyLimit: 100000, authToken: 'push-secret', onOrders: (orders) => received.push(...orders) });
    const port = await server.listen();
    t.after(() => server.close());
    const pushUrl = `http://127.0.0.1:${port}/api/getSampleData`;
    const lis = await startDemo(t, { pushUrl, pushToken: 'push-secret' });

    const res = await post(lis.url('/push'), { SampleNumber: 'PUSH-77' });
    assert.equal(res.status, 200);
    assert.equal(res.json.status, 'success');
    assert.equal(res.json.target, pushUrl);
    assert.deepEqual(res.json.answer, { status: 200, body: { status: 'success', received: 1 } });
    assert.equal(received.length, 1);
    assert.deepEqual(received[0], res.json.order);
    // The pushed order is the one the orders endpoint serves for that sample.
    const served = await post(lis.url('/api/orders'), { SampleNumber: 'PUSH-77' });
    assert.deepEqual(served.json.order, received[0]);

    const s = await state(lis);
    assert.equal(s.pushes.length, 1);
    assert.equal(s.pushes[0]!.sampleNumber, 'PUSH-77');
    assert.equal(s.pushes[0]!.status, 200);
    assert.ok(!JSON.stringify(s).includes('push-secret') && !lis.lines.join('\n').includes('push-secret'));
    assert.match(lis.lines.find((l) => l.includes(' push '))!, /push PUSH-77 -> http:\/\/127\.0\.0\.1:\d+\/api\/getSampleData: 200/);
  });

  it('reports the push server refusing (502 with its answer), and an unreachable one', async (t) => {
    const server = new PushServer({ host: '127.0.0.1', port: 0, bodyLimit: 100000, authToken: 'right', onOrders: () => undefined });
    const port = await server.listen();
    t.after(() => server.close());
    const lis = await startDemo(t, { pushUrl: `http://127.0.0.1:${port}/api/getSampleData`, pushToken: 'wrong' });
    const refused = await post(lis.url('/push'), { SampleNumber: 'S1001' });
    assert.equal(refused.status, 502);
    assert.match(String(refused.json.message), /missing or wrong bearer token/);
    assert.equal(obj(refused.json.answer).status, 401);

    await server.close();
    const gone = await post(lis.url('/push'), { SampleNumber: 'S1001' });
    assert.equal(gone.status, 502);
    assert.match(String(gone.json.message), /cannot reach .*ECONNREFUSED/);
    assert.deepEqual(obj(gone.json.answer), { status: null, body: null });
    assert.deepEqual((await state(lis)).pushes.map((p) => p.status), [null, 401]);
  });

  it('refuses pushes without a push URL, for no-order samples, and bad bodies', async (t) => {
    const none = await startDemo(t);
    assert.equal((await post(none.url('/push'), { SampleNumber: 'S1001' })).status, 409);
    const lis = await startDemo(t, { pushUrl: 'http://127.0.0.1:9/api/getSampleData' });
    assert.equal((await post(lis.url('/push'), { SampleNumber: 'NOORDER1' })).status, 422);
    assert.equal((await post(lis.url('/push'), { SampleNumber: '' })).status, 422);
    assert.equal((await post(lis.url('/push'), 'nope')).status, 400);
    const form = await fetch(lis.url('/push'), { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'SampleNumber=S1' });
    assert.equal(form.status, 415);
    assert.equal((await fetch(lis.url('/push'))).status, 405);
    assert.throws(() => new DemoLis({ pushUrl: 'ftp://x/y' }), /http\(s\) URL/);
  });
});

describe('demo LIS: the package\'s own client', () => {
  it('runs the whole workflow against it: catalog, order, no order, results, processed', async (t) => {
    const lis = await startDemo(t, { token: 'abc' });
    const urls = lis.endpointUrls();
    const client = new LisClient({
      ...DEFAULT_TUNING,
      urls: { LabTestsAPI: urls.tests, TransactionInfoAPI: urls.orders, ResultAPI: urls.results, OrderCompletedAPI: urls.processed },
      env: () => undefined,
      bearerToken: 'abc',
    });
    const { tests } = await client.getTests({ Code: 'GLU' });
    assert.deepEqual(tests.map((x) => x.ID), ['T-GLU']);
    const order = await client.getOrder('DEMO-1', {});
    assert.equal(order.kind, 'order');
    const none = await client.getOrder('NOORDER-1', {});
    assert.equal(none.kind, 'none');
    assert.equal(none.lisStatus, 'not found');
    const sent = await client.sendResults([{ SampleNumber: 'DEMO-1', TestCode: 'GLU', Result: '5.0' }]);
    assert.deepEqual(sent.body, { status: 'success', received: 1 });
    const done = await client.markProcessed({ SampleNumber: 'DEMO-1', Tests: ['T-GLU'] });
    assert.deepEqual(done.body, { status: 'success', processed: 1 });
    const s = await state(lis);
    const ask = s.requests.orders.find((r) => obj(r.body).SampleNumber === 'DEMO-1')!;
    assert.equal(ask.expectedSample, 'DEMO-1');
    assert.match(ask.requestId ?? '', /^[0-9a-f-]{36}$/);
    assert.ok(ask.requestTimestamp && !Number.isNaN(Date.parse(ask.requestTimestamp)));
  });
});
