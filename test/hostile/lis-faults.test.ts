/**
 * A LIS that misbehaves, against the nodes that call it: down (connection
 * refused), too slow, failing then recovering, HTML error pages, truncated
 * JSON, an answer cut off mid-body, and a 50 MB answer.
 *
 * For results (spec 4.3: one attempt, never retried) each fault must leave
 * the batch in the journal in the right held state (failed: the LIS did not
 * take it; uncertain: it may have), put the right code in front of Catch
 * nodes, keep the node working, lose nothing and send nothing twice. Orders
 * and processed notifications (spec 4.2, 4.4, 7, 8) recover by retrying.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useLisStub } from '../support/lifecycle';
import { anOrder, cutShort, flood, LisGate, type Flood } from '../support/lis-stub';
import { loadLisFlow, type FlowOptions, type Outcome } from '../support/lis-flow';
import { collect, helper, journalDir } from '../support/red';
import { sleep, waitUntil } from '../support/wait';
import { readJournalFile } from '../support/journal-file';
import { statusOf, warningsOf } from '../support/node-spies';

const ctx = useLisStub();

const MB = 1024 * 1024;
const HTML_PAGE = '<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>\n<body><h1>Bad Gateway</h1><p>The proxy server received an invalid response from an upstream server.</p><hr><address>Apache/2.4 Server at lis.example.org Port 443</address></body></html>\n';
const HTML = { 'Content-Type': 'text/html; charset=utf-8' };
const TRUNCATED_JSON = '{"status":"success","accepted":2,"items":[{"SampleNumber":"S';
const OK = { body: { status: 'success' } };

const items = (sample: string) => [
  { SampleNumber: sample, TestCode: 'GLU', Result: '5.4' },
  { SampleNumber: sample, TestCode: 'CREA', Result: '88' },
];
/**
 * Every message out of the node under test or its Catch node, in order. (lis-flow's run() leaves a
 * once-listener behind on each port it did not resolve on, and Node-RED skips the next listener
 * of a helper node when such a leftover removes itself mid-delivery: these listeners stay.)
 */
let outcomes: Outcome[] = [];

async function loadFlow(opts: FlowOptions): Promise<void> {
  await loadLisFlow(ctx.stub, opts);
  outcomes = [];
  const ports = [...Array.from({ length: opts.outputs ?? 1 }, (_, i) => `out${i + 1}`), 'caught'];
  for (const port of ports) (helper.getNode(port) as unknown as NodeJS.EventEmitter).on('input', (msg: Record<string, unknown>) => outcomes.push({ port, msg }));
}

/** Sends `payload` into the node under test; resolves with the next message out of an output or the Catch node. */
async function run(payload: unknown, timeoutMs = 8000): Promise<Outcome> {
  const next = outcomes.length;
  helper.getNode('n').receive({ payload } as never);
  await waitUntil(() => outcomes.length > next, timeoutMs, 'an outcome');
  return outcomes[next]!;
}

const errorOf = (o: Outcome) => o.msg._error as { code: string; message: string; status?: number; attempts?: number };

// --- lis-send-results: the journal's account of every batch ---

const loadSender = (config: Record<string, unknown> = {}) => loadFlow({ type: 'lis-send-results', config });

/** sample -> the batch states written for it, from the journal file. */
function ledger(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const b of readJournalFile(journalDir()).batches.values()) {
    assert.equal(b.samples.length, 1, 'one sample per batch in these tests');
    assert.ok(!out.has(b.samples[0]!), `one batch per sample: ${b.samples[0]} journaled twice`);
    out.set(b.samples[0]!, b.history);
  }
  return out;
}

/** Every batch ends delivered or held, and the LIS saw each sample `requests[sample]` times. */
function assertAccounted(expected: Record<string, string[]>, requests: Array<{ json?: unknown; body?: string }>, perSample: Record<string, number>): void {
  assert.deepEqual(Object.fromEntries(ledger()), expected);
  const seen: Record<string, number> = {};
  for (const r of requests) {
    const json = r.json ?? JSON.parse(r.body ?? 'null');
    const samples = new Set(((json as { results: Array<{ SampleNumber: string }> }).results ?? []).map((i) => i.SampleNumber));
    for (const s of samples) seen[s] = (seen[s] ?? 0) + 1;
  }
  assert.deepEqual(seen, perSample, 'requests per sample at the LIS');
}

/** The node still works: the next batch is delivered at once. */
async function nextBatchDelivered(sample: string): Promise<Outcome> {
  const o = await run(items(sample));
  assert.equal(o.port, 'out1', `the next batch (${sample}) was delivered: ${JSON.stringify(o.msg._error ?? null)}`);
  return o;
}

/** Asks the node to resend every held batch; resolves once `out1` saw `n` more messages. */
async function resendAll(n: number): Promise<Array<Record<string, unknown>>> {
  const out = collect('out1');
  helper.getNode('n').receive({ topic: 'lis:resend', payload: 'all' } as never);
  await waitUntil(() => out.length === n, 3000, `${n} resent batch(es)`);
  await sleep(50);
  assert.equal(out.length, n);
  return out;
}

describe('lis-send-results against a misbehaving LIS', () => {
  it('LIS down (connection refused): NETWORK, held as failed and provably not sent; delivered once by a resend when it is back', async () => {
    ctx.stub.reply('/results', OK);
    const gate = await LisGate.inFrontOf(ctx.stub.url('/'));
    try {
      await loadSender({ resultApiUrl: gate.url('/results') });
      const failed = await run(items('S-DOWN'));
      assert.equal(failed.port, 'caught');
      assert.equal(errorOf(failed).code, 'NETWORK');
      assert.match(errorOf(failed).message, /ECONNREFUSED/);
      const held = [...readJournalFile(journalDir()).batches.values()][0]!;
      assert.equal(held.state, 'failed');
      assert.equal(held.notSent, true);
      assert.equal(held.error?.code, 'NETWORK');

      await gate.up();
      await nextBatchDelivered('S-NEXT');
      const resent = await resendAll(1);
      assert.equal((resent[0]!.lis as Record<string, unknown>).resent, true);
      assertAccounted(
        { 'S-DOWN': ['sending', 'failed', 'sending', 'delivered'], 'S-NEXT': ['sending', 'delivered'] },
        ctx.stub.to('/results'),
        { 'S-NEXT': 1, 'S-DOWN': 1 },
      );
    } finally {
      await gate.down();
    }
  });

  it('LIS slower than the time-out: TIMEOUT, one attempt, held as uncertain (it may have the results), never resent unasked', async () => {
    ctx.stub.reply('/results', { delayMs: 500, ...OK }, OK);
    await loadSender({ timeout: 150 });
    const o = await run(items('S-SLOW'));
    assert.equal(o.port, 'caught');
    assert.equal(errorOf(o).code, 'TIMEOUT');
    await sleep(500); // the late answer comes and goes; no second attempt
    assert.equal(ctx.stub.to('/results').length, 1);
    await nextBatchDelivered('S-NEXT');
    assertAccounted({ 'S-SLOW': ['sending', 'uncertain'], 'S-NEXT': ['sending', 'delivered'] }, ctx.stub.to('/results'), { 'S-SLOW': 1, 'S-NEXT': 1 });
    const held = [...readJournalFile(journalDir()).batches.values()].find((b) => b.samples[0] === 'S-SLOW')!;
    assert.equal(held.notSent, false);
  });

  it('500 then recovering: HTTP_STATUS, one attempt, held as failed, delivered once by a resend', async () => {
    ctx.stub.reply('/results', { status: 500, body: { message: 'database locked', errors: ['retry later'] } }, OK);
    await loadSender();
    const o = await run(items('S-500'));
    assert.equal(o.port, 'caught');
    assert.equal(errorOf(o).code, 'HTTP_STATUS');
    assert.equal(errorOf(o).status, 500);
    assert.match(errorOf(o).message, /database locked/);
    await sleep(200);
    assert.equal(ctx.stub.to('/results').length, 1, 'spec 4.3: never retried');
    await nextBatchDelivered('S-NEXT');
    await resendAll(1);
    assertAccounted(
      { 'S-500': ['sending', 'failed', 'sending', 'delivered'], 'S-NEXT': ['sending', 'delivered'] },
      ctx.stub.to('/results'),
      { 'S-500': 2, 'S-NEXT': 1 },
    );
  });

  it('resends of one batch that overlap while the LIS is slow: it is sent again once, the others are refused', async () => {
    ctx.stub.reply('/results', { status: 500 }, { delayMs: 300, ...OK });
    await loadSender();
    assert.equal((await run(items('S-RACE'))).port, 'caught');
    const [key] = [...readJournalFile(journalDir()).batches.keys()];
    const out = collect('out1');
    const caught = collect('caught');
    helper.getNode('n').receive({ topic: 'lis:resend', payload: key } as never);
    await waitUntil(() => ctx.stub.to('/results').length === 2, 2000, 'the first resend at the LIS');
    helper.getNode('n').receive({ topic: 'lis:resend', payload: key } as never);
    const admin = await helper.request().post(`/lis-bridge/held/${encodeURIComponent(key!)}/resend`);
    assert.equal(admin.status, 409, JSON.stringify(admin.body));
    await waitUntil(() => out.length === 1 && caught.length === 1, 3000, 'one resent batch and one refusal');
    await sleep(100);
    assert.equal(caught[0]!.topic, 'lis:resend');
    assert.match(String((caught[0]!._error as Record<string, unknown>).message), /is sending, not held/);
    assertAccounted({ 'S-RACE': ['sending', 'failed', 'sending', 'delivered'] }, ctx.stub.to('/results'), { 'S-RACE': 2 });
  });

  it('an HTML error page with 500: HTTP_STATUS naming the page, held as failed', async () => {
    ctx.stub.reply('/results', { status: 500, headers: HTML, body: HTML_PAGE }, OK);
    await loadSender();
    const o = await run(items('S-HTML500'));
    assert.equal(o.port, 'caught');
    assert.equal(errorOf(o).code, 'HTTP_STATUS');
    assert.match(errorOf(o).message, /answered 500.*not in the spec's error format.*Bad Gateway/);
    assert.ok(errorOf(o).message.length < 400, 'a snippet of the page, not all of it');
    await nextBatchDelivered('S-NEXT');
    assertAccounted({ 'S-HTML500': ['sending', 'failed'], 'S-NEXT': ['sending', 'delivered'] }, ctx.stub.to('/results'), { 'S-HTML500': 1, 'S-NEXT': 1 });
  });

  for (const [what, body, headers] of [
    ['an HTML page with 200', HTML_PAGE, HTML],
    ['truncated JSON with 200', TRUNCATED_JSON, { 'Content-Type': 'application/json' }],
  ] as const) {
    it(`${what}: the LIS accepted the request, so delivered with a warning, never held for a resend`, async () => {
      ctx.stub.reply('/results', { status: 200, headers, body }, OK);
      await loadSender();
      const o = await run(items('S-ODD'));
      assert.equal(o.port, 'out1');
      assert.equal(o.msg.payload, body, 'the raw answer is passed on');
      assert.ok(warningsOf('n').some((w) => /accepted the request \(200\) but its body is not JSON/.test(w)), warningsOf('n').join(' | '));
      await nextBatchDelivered('S-NEXT');
      assertAccounted({ 'S-ODD': ['sending', 'delivered'], 'S-NEXT': ['sending', 'delivered'] }, ctx.stub.to('/results'), { 'S-ODD': 1, 'S-NEXT': 1 });
    });
  }

  it('an answer cut off mid-body (connection dropped): held as uncertain, not as failed', async () => {
    ctx.stub.reply('/results', { write: (res) => cutShort(res, '{"status":"success","accepted":2}', 10) }, OK);
    await loadSender();
    const o = await run(items('S-CUT'));
    assert.equal(o.port, 'caught');
    assert.equal(errorOf(o).code, 'NETWORK');
    assert.match(errorOf(o).message, /aborted/);
    await nextBatchDelivered('S-NEXT');
    assertAccounted({ 'S-CUT': ['sending', 'uncertain'], 'S-NEXT': ['sending', 'delivered'] }, ctx.stub.to('/results'), { 'S-CUT': 1, 'S-NEXT': 1 });
  });

  it('a 50 MB answer: refused at maxResponseBytes without reading it all, held as uncertain, and the node carries on', async () => {
    const floods: Flood[] = [];
    ctx.stub.reply('/results', { write: (res) => void floods.push(flood(res, { bytes: 50 * MB })) }, OK);
    await loadSender({ maxResponseBytes: MB, timeout: 5000 });
    const rssBefore = process.memoryUsage().rss;
    const o = await run(items('S-HUGE'));
    assert.equal(o.port, 'caught');
    assert.equal(errorOf(o).code, 'INVALID_RESPONSE');
    assert.match(errorOf(o).message, new RegExp(`larger than ${MB} bytes`));
    const { written, completed } = await floods[0]!.ended;
    assert.equal(completed, false, 'the client hung up');
    assert.ok(written < 10 * MB, `the LIS got to write only ${(written / MB).toFixed(1)} MB of 50 before the client stopped reading`);
    assert.ok(process.memoryUsage().rss - rssBefore < 40 * MB, 'the answer was not buffered whole');
    await nextBatchDelivered('S-NEXT');
    assertAccounted({ 'S-HUGE': ['sending', 'uncertain'], 'S-NEXT': ['sending', 'delivered'] }, ctx.stub.to('/results'), { 'S-HUGE': 1, 'S-NEXT': 1 });
  });
});

// --- lis-get-order: spec 4.2 / 8 retries recover what can be recovered ---

const loadGetOrder = (config: Record<string, unknown> = {}) => loadFlow({ type: 'lis-get-order', config, outputs: 2 });
const ORDER = (sample: string) => ({ body: { status: 'success', order: anOrder(sample) } });

/** The node still works: the next order comes out of output 1. */
async function nextOrder(sample: string): Promise<void> {
  ctx.stub.reply('/orders', ORDER(sample));
  const o = await run(sample);
  assert.equal(o.port, 'out1', JSON.stringify(o.msg._error ?? null));
  assert.equal((o.msg.payload as Record<string, unknown>).SampleNumber, sample);
}

describe('lis-get-order against a misbehaving LIS', () => {
  it('LIS down: NETWORK after the transient retries; an order as soon as it is back, even mid-retries', async () => {
    const gate = await LisGate.inFrontOf(ctx.stub.url('/'));
    try {
      await loadGetOrder({ transactionInfoApiUrl: gate.url('/orders'), transientBackoffMs: 20 });
      const down = await run('S-DOWN');
      assert.equal(down.port, 'caught');
      assert.equal(errorOf(down).code, 'NETWORK');
      assert.equal(errorOf(down).attempts, 3);
      assert.equal(ctx.stub.to('/orders').length, 0);

      // Down for the first attempt, up before the retry.
      await helper.unload();
      await loadGetOrder({ transactionInfoApiUrl: gate.url('/orders'), transientBackoffMs: 150 });
      ctx.stub.reply('/orders', ORDER('S-BACK'));
      const pending = run('S-BACK');
      await waitUntil(() => statusOf('n')?.fill === 'yellow', 2000, 'the retry status');
      await gate.up();
      const back = await pending;
      assert.equal(back.port, 'out1');
      assert.equal((back.msg.lis as Record<string, unknown>).attempts, 2);
      assert.equal(ctx.stub.to('/orders').length, 1);
    } finally {
      await gate.down();
    }
  });

  it('slower than the time-out: retried and recovered; TIMEOUT after 3 attempts when it stays slow', async () => {
    ctx.stub.reply('/orders', { delayMs: 400, ...ORDER('S-SLOW') }, ORDER('S-SLOW'));
    await loadGetOrder({ timeout: 150 });
    const recovered = await run('S-SLOW');
    assert.equal(recovered.port, 'out1');
    assert.equal((recovered.msg.lis as Record<string, unknown>).attempts, 2);

    ctx.stub.reply('/orders', { delayMs: 400, ...ORDER('S-STUCK') });
    const o = await run('S-STUCK');
    assert.equal(o.port, 'caught');
    assert.equal(errorOf(o).code, 'TIMEOUT');
    assert.equal(errorOf(o).attempts, 3);
    await nextOrder('S-NEXT');
  });

  it('500 then recovering: the retries get the order', async () => {
    ctx.stub.reply('/orders', { status: 500 }, { status: 503, headers: HTML, body: HTML_PAGE }, ORDER('S-500'));
    await loadGetOrder();
    const o = await run('S-500');
    assert.equal(o.port, 'out1');
    assert.equal((o.msg.lis as Record<string, unknown>).attempts, 3);
    assert.equal(ctx.stub.to('/orders').length, 3);
  });

  it('an HTML error page with 500 every time: HTTP_STATUS after 3 attempts', async () => {
    ctx.stub.reply('/orders', { status: 500, headers: HTML, body: HTML_PAGE });
    await loadGetOrder();
    const o = await run('S-HTML');
    assert.equal(o.port, 'caught');
    assert.equal(errorOf(o).code, 'HTTP_STATUS');
    assert.equal(errorOf(o).attempts, 3);
    assert.match(errorOf(o).message, /Bad Gateway/);
    await nextOrder('S-NEXT');
  });

  for (const [what, body, headers] of [
    ['an HTML page with 200', HTML_PAGE, HTML],
    ['truncated JSON with 200', TRUNCATED_JSON, { 'Content-Type': 'application/json' }],
  ] as const) {
    it(`${what}: INVALID_RESPONSE at once (not transient), never an order`, async () => {
      ctx.stub.reply('/orders', { status: 200, headers, body });
      await loadGetOrder();
      const o = await run('S-ODD');
      assert.equal(o.port, 'caught');
      assert.equal(errorOf(o).code, 'INVALID_RESPONSE');
      assert.equal(errorOf(o).status, 200);
      assert.equal(ctx.stub.to('/orders').length, 1);
      await nextOrder('S-NEXT');
    });
  }

  it('a 50 MB answer: INVALID_RESPONSE without reading it all, and the node carries on', async () => {
    const floods: Flood[] = [];
    ctx.stub.reply('/orders', { write: (res) => void floods.push(flood(res, { bytes: 50 * MB })) });
    await loadGetOrder({ maxResponseBytes: MB, timeout: 5000 });
    const o = await run('S-HUGE');
    assert.equal(o.port, 'caught');
    assert.equal(errorOf(o).code, 'INVALID_RESPONSE');
    assert.equal(ctx.stub.to('/orders').length, 1, 'not retried');
    const { written, completed } = await floods[0]!.ended;
    assert.equal(completed, false);
    assert.ok(written < 10 * MB, `${(written / MB).toFixed(1)} MB written`);
    await helper.unload();
    await loadGetOrder();
    await nextOrder('S-NEXT');
  });
});

// --- lis-mark-processed: spec 4.4 / 7 transient retries ---

const loadMarkProcessed = (config: Record<string, unknown> = {}) => loadFlow({ type: 'lis-mark-processed', config });
const processed = (sample: string) => ({ SampleNumber: sample, Tests: ['T-GLU', 'T-CREA'] });

async function nextProcessed(sample: string): Promise<void> {
  ctx.stub.reply('/processed', OK);
  const o = await run(processed(sample));
  assert.equal(o.port, 'out1', JSON.stringify(o.msg._error ?? null));
}

describe('lis-mark-processed against a misbehaving LIS', () => {
  it('LIS down: NETWORK after 1 + 2 attempts, then works once it is up', async () => {
    const gate = await LisGate.inFrontOf(ctx.stub.url('/'));
    try {
      await loadMarkProcessed({ orderCompletedApiUrl: gate.url('/processed') });
      const o = await run(processed('S-DOWN'));
      assert.equal(o.port, 'caught');
      assert.equal(errorOf(o).code, 'NETWORK');
      assert.equal(errorOf(o).attempts, 3);
      await gate.up();
      await nextProcessed('S-NEXT');
      assert.equal(ctx.stub.to('/processed').length, 1);
    } finally {
      await gate.down();
    }
  });

  it('slower than the time-out, and 500: retried and recovered', async () => {
    ctx.stub.reply('/processed', { delayMs: 400, ...OK }, { status: 500, headers: HTML, body: HTML_PAGE }, OK);
    await loadMarkProcessed({ timeout: 150 });
    const o = await run(processed('S-SLOW'));
    assert.equal(o.port, 'out1');
    assert.equal((o.msg.lis as Record<string, unknown>).attempts, 3);
  });

  it('500 every time: HTTP_STATUS after 3 attempts; TIMEOUT after 3 when it stays slow', async () => {
    ctx.stub.reply('/processed', { status: 500, headers: HTML, body: HTML_PAGE });
    await loadMarkProcessed({ timeout: 150 });
    const failed = await run(processed('S-500'));
    assert.equal(failed.port, 'caught');
    assert.equal(errorOf(failed).code, 'HTTP_STATUS');
    assert.equal(errorOf(failed).attempts, 3);
    ctx.stub.reply('/processed', { delayMs: 400, ...OK });
    const slow = await run(processed('S-STUCK'));
    assert.equal(slow.port, 'caught');
    assert.equal(errorOf(slow).code, 'TIMEOUT');
    assert.equal(errorOf(slow).attempts, 3);
    await nextProcessed('S-NEXT');
  });

  for (const [what, body, headers] of [
    ['an HTML page with 200', HTML_PAGE, HTML],
    ['truncated JSON with 200', TRUNCATED_JSON, { 'Content-Type': 'application/json' }],
  ] as const) {
    it(`${what}: accepted with a warning (the LIS took it), sent once`, async () => {
      ctx.stub.reply('/processed', { status: 200, headers, body });
      await loadMarkProcessed();
      const o = await run(processed('S-ODD'));
      assert.equal(o.port, 'out1');
      assert.ok(warningsOf('n').some((w) => /OrderCompletedAPI accepted the request \(200\) but its body is not JSON/.test(w)));
      assert.equal(ctx.stub.to('/processed').length, 1);
    });
  }

  it('a 50 MB answer: INVALID_RESPONSE without reading it all, and the node carries on', async () => {
    const floods: Flood[] = [];
    ctx.stub.reply('/processed', { write: (res) => void floods.push(flood(res, { bytes: 50 * MB })) });
    await loadMarkProcessed({ maxResponseBytes: MB, timeout: 5000 });
    const o = await run(processed('S-HUGE'));
    assert.equal(o.port, 'caught');
    assert.equal(errorOf(o).code, 'INVALID_RESPONSE');
    const { written, completed } = await floods[0]!.ended;
    assert.equal(completed, false);
    assert.ok(written < 10 * MB, `${(written / MB).toFixed(1)} MB written`);
    await helper.unload();
    await loadMarkProcessed();
    await nextProcessed('S-NEXT');
  });
});
