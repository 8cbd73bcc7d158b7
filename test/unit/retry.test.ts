import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LisError } from '../../lib/errors';
import { mismatchDelayMs, sleep, transientDelayMs, withRetries, type RetryNotice } from '../../lib/lis/retry';

const policy = { maxAttempts: 3, transientRetries: 2, transientBackoffMs: 1, mismatchBackoffMs: 1 };
const transient = () => new LisError('503', { code: 'HTTP_STATUS', status: 503, retry: 'transient', requestId: 'r' });

describe('retry policy (spec 7, 8)', () => {
  it('waits 2^n x base before additional retry n, and base x attempt after a mismatch', () => {
    assert.deepEqual([1, 2].map((n) => transientDelayMs(n, 1000)), [2000, 4000]);
    assert.deepEqual([1, 2].map((n) => mismatchDelayMs(n, 100)), [100, 200]);
  });

  it('reports each retry with the delay it will wait', async () => {
    const notices: RetryNotice[] = [];
    let n = 0;
    const out = await withRetries({ ...policy, transientBackoffMs: 2, mismatchBackoffMs: 3 }, { onRetry: (x) => notices.push(x) }, async () => {
      n++;
      if (n === 1) throw transient();
      if (n === 2) throw new LisError('other sample', { code: 'SAMPLE_MISMATCH', retry: 'mismatch', requestId: 'm' });
      return { value: 'ok', requestId: 'last' };
    });
    assert.equal(out.value, 'ok');
    assert.equal(out.attempts, 3);
    assert.deepEqual(out.requestIds, ['r', 'm', 'last']);
    assert.deepEqual(notices.map((x) => [x.attempt, x.delayMs]), [[1, 4], [2, 6]]);
  });

  it('fails at once on an error that allows no retry, and records the attempt count', async () => {
    let n = 0;
    await assert.rejects(
      withRetries(policy, {}, async () => {
        n++;
        throw new LisError('400', { code: 'HTTP_STATUS', status: 400 });
      }),
      (err: LisError) => err.attempts === 1 && err.code === 'HTTP_STATUS',
    );
    assert.equal(n, 1);
  });

  it('a single-attempt policy never retries, even transient failures', async () => {
    let n = 0;
    await assert.rejects(
      withRetries({ ...policy, maxAttempts: 1 }, {}, async () => {
        n++;
        throw transient();
      }),
    );
    assert.equal(n, 1);
  });

  it('stops waiting when the signal aborts', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 20);
    const started = Date.now();
    await assert.rejects(sleep(5000, ac.signal), (err: LisError) => err.code === 'CANCELLED');
    assert.ok(Date.now() - started < 1000);
  });
});
