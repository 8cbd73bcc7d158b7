// Hostile input against the push server (lib/lis/push-server) and the
// lis-push-in node: malformed and oversize bodies, slow clients, a crowd.
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { PushServer, PUSH_PATH } from '../../lib/lis/push-server';
import type { Order } from '../../lib/lis/schemas';
import { anOrder } from '../support/lis-stub';
import { ALL_LIS_NODES, collect, helper, lastStatus, nodeModules } from '../support/red';
import { sleep, waitUntil } from '../support/wait';
import { freePort } from '../support/ports';

interface Answer {
  status: number;
  body: string;
}

/** One request through node:http; resolves with the answer, rejects if the connection failed before one came. */
function request(
  port: number,
  opts: { method?: string; path?: string; headers?: Record<string, string | number>; body?: string | Buffer; chunks?: Buffer[]; agent?: http.Agent | false },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = http.request(
      { host: '127.0.0.1', port, method: opts.method ?? 'POST', path: opts.path ?? PUSH_PATH, headers: opts.headers ?? {}, agent: opts.agent ?? false },
      (res) => {
        answered = true;
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString('utf8') }));
        res.on('error', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString('utf8') }));
      },
    );
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    if (opts.chunks) {
      // Chunked upload, one chunk at a time, stopping once the server has answered.
      void (async () => {
        for (const chunk of opts.chunks!) {
          if (answered || req.destroyed) return;
          if (!req.write(chunk)) await new Promise((r) => req.once('drain', r).once('close', r));
          await sleep(1);
        }
        if (!answered && !req.destroyed) req.end();
      })();
    } else {
      req.end(opts.body);
    }
  });
}

const json = { 'Content-Type': 'application/json' };
const orderBody = (sample: string) => JSON.stringify({ order: anOrder(sample) });

/** A raw TCP client: what the server wrote before it closed the connection, and how long that took. */
function rawClient(port: number): { socket: net.Socket; closed: Promise<{ text: string; ms: number }> } {
  const socket = net.connect(port, '127.0.0.1');
  const started = Date.now();
  const parts: Buffer[] = [];
  socket.on('data', (c: Buffer) => parts.push(c));
  const closed = new Promise<{ text: string; ms: number }>((resolve) => {
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ text: Buffer.concat(parts).toString('latin1'), ms: Date.now() - started }));
  });
  return { socket, closed };
}

/** Writes `text` a few bytes at a time until the socket closes or `maxMs` passed. */
async function dribble(socket: net.Socket, text: string, everyMs: number, maxMs: number): Promise<void> {
  const until = Date.now() + maxMs;
  for (let i = 0; i < text.length && Date.now() < until; i++) {
    if (socket.destroyed || socket.writableEnded || socket.closed) return;
    socket.write(text[i]!);
    await sleep(everyMs);
  }
}

/** The status of a raw answer, or null when the server closed without answering. */
function statusOf(text: string): number | null {
  const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
  return m ? Number(m[1]) : null;
}

describe('push server under hostile input', () => {
  let server: PushServer;
  let port: number;
  const received: Order[] = [];
  const rejected: number[] = [];

  before(async () => {
    server = new PushServer({
      host: '127.0.0.1',
      port: 0,
      bodyLimit: 4000,
      headersTimeoutMs: 300,
      requestTimeoutMs: 600,
      onOrders: (orders) => received.push(...orders),
      onRejected: (status) => rejected.push(status),
    });
    port = await server.listen();
  });
  after(() => server.close());
  beforeEach(() => {
    received.length = 0;
    rejected.length = 0;
  });

  const stillServes = async (sample: string) => {
    const res = await request(port, { headers: json, body: orderBody(sample) });
    assert.equal(res.status, 200, res.body);
    assert.ok(received.some((o) => o.SampleNumber === sample), `${sample} emitted`);
  };

  it('answers 400 to malformed JSON of many shapes, accepting nothing', async () => {
    const bodies = ['{', '{"order": {', '{"order":}', "{'order':1}", 'nul', '{"a":1,}', '\u0000\u0001\u0002', '{"order":{"SampleNumber":"X"}}}', '\uFEFF{}', 'NaN', '[1,2', '"unterminated'];
    for (const body of bodies) {
      const res = await request(port, { headers: json, body });
      assert.equal(res.status, 400, JSON.stringify(body));
      const parsed = JSON.parse(res.body) as { message: string; errors: string[] };
      assert.match(parsed.message, /not valid JSON/);
      assert.ok(Array.isArray(parsed.errors));
    }
    // Invalid UTF-8 decodes to replacement characters: still not JSON.
    const res = await request(port, { headers: json, body: Buffer.from([0x7b, 0xff, 0xfe, 0x22]) });
    assert.equal(res.status, 400);
    assert.equal(received.length, 0);
    await stillServes('MAL-OK');
  });

  it('answers 415 to every content type but application/json, accepting nothing', async () => {
    const types = ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonp', 'application/json-patch+json', 'multipart/form-data; boundary=x', 'json', ''];
    for (const type of types) {
      const headers: Record<string, string> = type === '' ? {} : { 'Content-Type': type };
      const res = await request(port, { headers, body: orderBody('CT-1') });
      assert.equal(res.status, 415, JSON.stringify(type));
    }
    // Parameters and case are fine.
    assert.equal((await request(port, { headers: { 'Content-Type': 'Application/JSON; charset=utf-8' }, body: orderBody('CT-2') })).status, 200);
    assert.deepEqual(received.map((o) => o.SampleNumber), ['CT-2']);
  });

  it('answers 413 to oversize bodies, with Content-Length, chunked, or with a lying Content-Length, and keeps serving', async () => {
    const big = JSON.stringify({ order: anOrder('BIG', { Note: 'x'.repeat(20000) }) });
    // Declared too large: refused before the body is read.
    const declared = await request(port, { headers: { ...json, 'Content-Length': Buffer.byteLength(big) }, body: big });
    assert.equal(declared.status, 413);
    // No Content-Length, chunked: cut off as the chunks arrive.
    const chunks: Buffer[] = [];
    for (let i = 0; i < big.length; i += 1000) chunks.push(Buffer.from(big.slice(i, i + 1000)));
    const chunked = await request(port, { headers: { ...json, 'Transfer-Encoding': 'chunked' }, chunks });
    assert.equal(chunked.status, 413);
    // A huge declared length with a tiny body.
    const lying = await request(port, { headers: { ...json, 'Content-Length': 10_000_000 }, body: '{}' });
    assert.equal(lying.status, 413);
    // Exactly at the limit is fine, one byte over is not.
    const pad = (n: number) => {
      const base = JSON.stringify({ order: anOrder('EDGE', { Note: '' }) });
      return JSON.stringify({ order: anOrder('EDGE', { Note: 'y'.repeat(n - base.length) }) });
    };
    assert.equal(Buffer.byteLength(pad(4000)), 4000);
    assert.equal((await request(port, { headers: json, body: pad(4001) })).status, 413);
    assert.equal((await request(port, { headers: json, body: pad(4000) })).status, 200);
    assert.deepEqual(received.map((o) => o.SampleNumber), ['EDGE']);
    await stillServes('AFTER-413');
  });

  it('cuts off a client that sends its headers too slowly (headersTimeoutMs 300), and keeps serving', async () => {
    const { socket, closed } = rawClient(port);
    const head = `POST ${PUSH_PATH} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` + 'X-Slow: ' + 'z'.repeat(200) + '\r\n\r\n';
    void dribble(socket, head, 20, 5000);
    const { text, ms } = await closed;
    assert.ok(ms < 2500, `closed after ${ms} ms`);
    const status = statusOf(text);
    assert.ok(status === null || status === 408, `answer ${JSON.stringify(text.slice(0, 40))}`);
    await stillServes('AFTER-SLOW-HEAD');
  });

  it('cuts off a client that sends its body too slowly (requestTimeoutMs 600), accepting nothing of it, and keeps serving', async () => {
    const { socket, closed } = rawClient(port);
    const body = orderBody('SLOW-BODY');
    socket.write(`POST ${PUSH_PATH} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`);
    void dribble(socket, body, 20, 5000);
    const { text, ms } = await closed;
    assert.ok(ms < 3000, `closed after ${ms} ms`);
    const status = statusOf(text);
    assert.ok(status === null || status === 408, `answer ${JSON.stringify(text.slice(0, 40))}`);
    assert.ok(!received.some((o) => o.SampleNumber === 'SLOW-BODY'), 'the slow order was not accepted');
    await stillServes('AFTER-SLOW-BODY');
  });

  it('cuts off an idle connection that never sends anything, and a keep-alive request whose second request stalls', async () => {
    const idle = rawClient(port);
    const first = rawClient(port);
    const body = orderBody('KA-1');
    first.socket.write(`POST ${PUSH_PATH} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    first.socket.write(`POST ${PUSH_PATH} HTTP/1.1\r\nHost: x\r\n`);
    const [a, b] = await Promise.all([idle.closed, first.closed]);
    assert.ok(a.ms < 7000, `idle closed after ${a.ms} ms`);
    assert.ok(b.ms < 3000, `stalled keep-alive closed after ${b.ms} ms`);
    assert.equal(statusOf(b.text), 200, 'the complete first request was answered');
    assert.deepEqual(received.map((o) => o.SampleNumber), ['KA-1']);
    await stillServes('AFTER-IDLE');
  });

  it('answers 1000 concurrent requests (valid and invalid, 50 at a time over a keep-alive Agent) each with the right status, emitting every valid order exactly once', async (t) => {
    // A server of its own with the default time limits: the 300 ms headers limit above is for slow clients, and a
    // crowd of 50 in this same process, on a busy machine, can keep a request's headers waiting longer than that.
    const crowdReceived: Order[] = [];
    const crowd = new PushServer({ host: '127.0.0.1', port: 0, bodyLimit: 4000, onOrders: (orders) => crowdReceived.push(...orders) });
    const crowdPort = await crowd.listen();
    t.after(() => crowd.close());
    const agent = new http.Agent({ keepAlive: true, maxSockets: 50 });
    type Case = { expect: number; samples: string[]; run: () => Promise<Answer> };
    const cases: Case[] = [];
    for (let i = 0; i < 1000; i++) {
      const s = `C${i}`;
      switch (i % 8) {
        case 0:
          cases.push({ expect: 200, samples: [s], run: () => request(crowdPort, { agent, headers: json, body: orderBody(s) }) });
          break;
        case 1:
          cases.push({ expect: 200, samples: [`${s}a`, `${s}b`], run: () => request(crowdPort, { agent, headers: json, body: JSON.stringify({ orders: [anOrder(`${s}a`), anOrder(`${s}b`)] }) }) });
          break;
        case 2:
          cases.push({ expect: 400, samples: [], run: () => request(crowdPort, { agent, headers: json, body: `{"order": {"SampleNumber": "${s}"` }) });
          break;
        case 3:
          cases.push({ expect: 415, samples: [], run: () => request(crowdPort, { agent, headers: { 'Content-Type': 'text/plain' }, body: orderBody(s) }) });
          break;
        case 4:
          cases.push({ expect: 422, samples: [], run: () => request(crowdPort, { agent, headers: json, body: JSON.stringify({ orders: [anOrder(s), anOrder(`${s}x`, { SampleType: 'Blood plasma' })] }) }) });
          break;
        case 5:
          cases.push({ expect: 413, samples: [], run: () => request(crowdPort, { agent, headers: json, body: JSON.stringify({ order: anOrder(s, { Note: 'q'.repeat(6000) }) }) }) });
          break;
        case 6:
          cases.push({ expect: 404, samples: [], run: () => request(crowdPort, { agent, headers: json, path: '/api/other', body: orderBody(s) }) });
          break;
        default:
          cases.push({ expect: 200, samples: [s], run: () => request(crowdPort, { agent, headers: { ...json, 'X-Request-ID': s }, body: JSON.stringify(anOrder(s)) }) });
      }
    }
    const answers: Array<Answer | Error> = new Array(cases.length);
    let next = 0;
    const worker = async () => {
      while (next < cases.length) {
        const i = next++;
        try {
          answers[i] = await cases[i]!.run();
        } catch (err) {
          answers[i] = err as Error;
        }
      }
    };
    try {
      await Promise.all(Array.from({ length: 50 }, worker));
    } finally {
      agent.destroy();
    }
    const wrong = cases.flatMap((c, i) => {
      const a = answers[i]!;
      if (a instanceof Error) return [`#${i}: ${a.message}`];
      return a.status === c.expect ? [] : [`#${i}: ${a.status}, expected ${c.expect}`];
    });
    assert.deepEqual(wrong, []);
    const expected = cases.flatMap((c) => c.samples).sort();
    const got = crowdReceived.map((o) => o.SampleNumber).sort();
    assert.equal(got.length, expected.length, 'every valid order emitted exactly once');
    assert.deepEqual(got, expected);
    assert.equal(new Set(got).size, got.length, 'no order twice');
    const after = await request(crowdPort, { headers: json, body: orderBody('AFTER-CROWD') });
    assert.equal(after.status, 200, after.body);
    assert.ok(crowdReceived.some((o) => o.SampleNumber === 'AFTER-CROWD'), 'AFTER-CROWD emitted');
  });
});

describe('lis-push-in node: time-out settings', () => {
  let port: number;
  beforeEach(async () => {
    port = await freePort();
    await helper.startServer();
  });
  afterEach(async () => {
    await helper.unload();
    await helper.stopServer();
  });

  async function load(props: Record<string, unknown>): Promise<void> {
    const flow = [
      { id: 'n', type: 'lis-push-in', localApiAddress: '127.0.0.1', localApiPort: port, wires: [['out1']], ...props },
      { id: 'out1', type: 'helper' },
    ];
    await helper.load(nodeModules(...ALL_LIS_NODES) as never, flow as never);
    await waitUntil(() => lastStatus(helper.getNode('n'))?.fill !== undefined, 3000, 'push-in status');
  }

  it('applies headersTimeoutMs and requestTimeoutMs from its properties to slow clients, then serves a normal request', async () => {
    await load({ headersTimeoutMs: '300', requestTimeoutMs: 600 });
    const got = collect('out1');
    const slowHead = rawClient(port);
    void dribble(slowHead.socket, `POST ${PUSH_PATH} HTTP/1.1\r\nHost: x\r\nX-Pad: ${'p'.repeat(300)}\r\n\r\n`, 20, 5000);
    const slowBody = rawClient(port);
    const body = orderBody('NODE-SLOW');
    slowBody.socket.write(`POST ${PUSH_PATH} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`);
    void dribble(slowBody.socket, body, 20, 5000);
    const [h, b] = await Promise.all([slowHead.closed, slowBody.closed]);
    assert.ok(h.ms < 2500, `slow headers cut after ${h.ms} ms`);
    assert.ok(b.ms < 3000, `slow body cut after ${b.ms} ms`);
    for (const r of [h, b]) assert.ok([null, 408].includes(statusOf(r.text)), r.text.slice(0, 40));
    const res = await request(port, { headers: json, body: orderBody('NODE-OK') });
    assert.equal(res.status, 200);
    await waitUntil(() => got.length === 1, 2000, 'order emitted');
    assert.equal(got[0]!.topic, 'NODE-OK');
  });

  it('keeps the defaults when the properties are empty, and refuses a bad time-out as NOT_CONFIGURED', async () => {
    await load({ headersTimeoutMs: '', requestTimeoutMs: '' });
    assert.equal(lastStatus(helper.getNode('n'))?.fill, 'green');
    assert.equal((await request(port, { headers: json, body: orderBody('DEF-1') })).status, 200);
    await helper.unload();
    await load({ headersTimeoutMs: 'soon' });
    assert.equal(lastStatus(helper.getNode('n'))?.fill, 'red');
    await helper.unload();
    await load({ requestTimeoutMs: 0 });
    assert.equal(lastStatus(helper.getNode('n'))?.fill, 'red');
  });
});

describe('lis-push-in node: deep nesting', () => {
  let port: number;
  beforeEach(async () => {
    port = await freePort();
    await helper.startServer();
    // Two wires: Node-RED copies the message for the second, as a flow with a debug tap beside it does.
    const flow = [
      { id: 'n', type: 'lis-push-in', localApiAddress: '127.0.0.1', localApiPort: port, wires: [['out1', 'out2']] },
      { id: 'out1', type: 'helper' },
      { id: 'out2', type: 'helper' },
    ];
    await helper.load(nodeModules(...ALL_LIS_NODES) as never, flow as never);
    await waitUntil(() => lastStatus(helper.getNode('n'))?.fill !== undefined, 3000, 'push-in status');
  });
  afterEach(async () => {
    await helper.unload();
    await helper.stopServer();
  });

  /** `{"a":{"a":...0...}}`, `levels` deep, written out as text (building it as an object would overflow here too). */
  const deep = (levels: number) => `${'{"a":'.repeat(levels)}0${'}'.repeat(levels)}`;
  /** A body whose placeholder string "DEEP" is replaced by a nested value. */
  const withDeep = (shape: unknown, levels: number) => JSON.stringify(shape).replace('"DEEP"', deep(levels));

  const SHAPES: Array<{ where: string; body: (s: string) => unknown; path: RegExp }> = [
    { where: 'an unknown field of the order', body: (s) => ({ order: anOrder(s, { Extra: 'DEEP' }) }), path: /^order\.Extra\.a\.a/ },
    { where: 'an unknown field of the patient', body: (s) => ({ order: anOrder(s, { patient: { ID: 'P1', Name: 'Roe, Jane', Sex: 'F', Extra: 'DEEP' } }) }), path: /^order\.patient\.Extra\.a/ },
    { where: 'the second order of a batch', body: (s) => ({ orders: [anOrder(`${s}-1`), anOrder(`${s}-2`, { Extra: 'DEEP' })] }), path: /^orders\[1\]\.Extra\.a/ },
    { where: 'a field beside the order', body: (s) => ({ order: anOrder(s), Extra: 'DEEP' }), path: /^Extra\.a/ },
    { where: 'a bare order', body: (s) => ({ ...anOrder(s), Extra: 'DEEP' }), path: /^Extra\.a/ },
    { where: 'the Tests array', body: (s) => ({ order: anOrder(s, { Tests: ['T-GLU', 'DEEP'] }) }), path: /^order\.Tests\[1\]\.a/ },
  ];

  for (const shape of SHAPES) {
    it(`refuses an order with a value nested 100,000 levels deep in ${shape.where} with 422 naming the field, and passes nothing on`, async () => {
      const got = collect('out1');
      const copies = collect('out2');
      const answer = await request(port, { headers: json, body: withDeep(shape.body('DEEP-1'), 100_000) });
      assert.equal(answer.status, 422, answer.body);
      const body = JSON.parse(answer.body) as { message: string; errors: string[] };
      assert.match(body.errors[0]!, shape.path);
      assert.match(body.errors[0]!, /nested more than 32 levels/);
      await sleep(200);
      assert.equal(got.length + copies.length, 0);
    });
  }

  it('answers 200 to an order with a moderately nested unknown field only once it reached the flow, copies included', async () => {
    const got = collect('out1');
    const copies = collect('out2');
    const answer = await request(port, { headers: json, body: withDeep({ order: anOrder('NESTED-OK', { Extra: 'DEEP' }) }, 20) });
    assert.equal(answer.status, 200, answer.body);
    await waitUntil(() => got.length === 1 && copies.length === 1, 3000, 'the order on both wires');
    assert.equal((got[0]!.payload as { SampleNumber: string }).SampleNumber, 'NESTED-OK');
  });
});
