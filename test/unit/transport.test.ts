/**
 * postJson against a real loopback LIS: a request ended by the caller (a node
 * stopping) is CANCELLED, one ended by its deadline is a transient TIMEOUT,
 * and the caller's signal is let go of once the request is over.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LisError } from '../../lib/errors';
import { postJson, type PostRequest } from '../../lib/lis/transport';
import { Cutoff } from '../../lib/lis/http-exchange';
import { LisStub } from '../support/lis-stub';

const stub = new LisStub();
before(() => stub.start());
after(() => stub.stop());

function request(path: string, extra: Partial<PostRequest> = {}): PostRequest {
  return { endpoint: 'TransactionInfoAPI', url: stub.url(path), body: { SampleNumber: 'S1' }, timeoutMs: 30_000, maxResponseBytes: 1e6, ...extra };
}

async function failure(p: Promise<unknown>): Promise<LisError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof LisError, String(err));
    return err;
  }
  assert.fail('the request did not fail');
}

/** Listeners on an AbortSignal, as Node counts them. */
function listeners(signal: AbortSignal): number {
  const symbols = Object.getOwnPropertySymbols(signal);
  const kEvents = symbols.find((s) => s.description === 'kEvents');
  const events = kEvents ? (signal as unknown as Record<symbol, Map<string, { size?: number }>>)[kEvents] : undefined;
  return events?.get('abort')?.size ?? 0;
}

describe('postJson: its ends', () => {
  it('is CANCELLED when the caller aborts, even before it started, and not retried', async () => {
    stub.reply('/slow', { delayMs: 60_000, body: {} });
    const caller = new AbortController();
    const pending = postJson(request('/slow', { signal: caller.signal }));
    setImmediate(() => caller.abort());
    const err = await failure(pending);
    assert.equal(err.code, 'CANCELLED');
    assert.equal(err.retry, undefined);

    const gone = new AbortController();
    gone.abort();
    assert.equal((await failure(postJson(request('/slow', { signal: gone.signal })))).code, 'CANCELLED');
  });

  it('is a transient TIMEOUT when its deadline passes first, and leaves no listener on the caller signal', async () => {
    stub.reply('/slow', { delayMs: 60_000, body: {} });
    const caller = new AbortController();
    const err = await failure(postJson(request('/slow', { signal: caller.signal, timeoutMs: 50 })));
    assert.equal(err.code, 'TIMEOUT');
    assert.equal(err.retry, 'transient');
    assert.equal(caller.signal.aborted, false);
    assert.equal(listeners(caller.signal), 0);
    const counted = new AbortController();
    counted.signal.addEventListener('abort', () => undefined);
    assert.equal(listeners(counted.signal), 1, 'listeners() counts what it should');

    stub.reply('/fast', { body: { status: 'ok' } });
    const ok = await postJson(request('/fast', { signal: caller.signal }));
    assert.deepEqual(ok.json, { status: 'ok' });
    assert.equal(listeners(caller.signal), 0);
  });

  it('takes a Cutoff (what the LIS nodes pass) as it takes an AbortSignal: CANCELLED in flight or before, no listener kept', async () => {
    const held = (c: Cutoff) => (c as unknown as { listeners: unknown[] }).listeners.length;
    stub.reply('/slow', { delayMs: 60_000, body: {} });
    const caller = new Cutoff();
    const pending = postJson(request('/slow', { signal: caller }));
    setImmediate(() => caller.abort());
    const err = await failure(pending);
    assert.equal(err.code, 'CANCELLED');
    assert.equal(held(caller), 0);
    assert.equal((await failure(postJson(request('/slow', { signal: caller })))).code, 'CANCELLED');

    const timed = new Cutoff();
    assert.equal((await failure(postJson(request('/slow', { signal: timed, timeoutMs: 50 })))).code, 'TIMEOUT');
    assert.equal(timed.aborted, false);
    assert.equal(held(timed), 0);

    stub.reply('/fast', { body: { status: 'ok' } });
    const ok = await postJson(request('/fast', { signal: timed }));
    assert.deepEqual(ok.json, { status: 'ok' });
    assert.equal(held(timed), 0);
  });
});
