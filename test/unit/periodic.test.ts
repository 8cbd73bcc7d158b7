// The periodic checks (nodes/shared/periodic.ts): each on its interval, all of them on demand at a `now` the caller gives, never two runs of one check at once.
import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { NodeAPI } from 'node-red';
import { checkEveryMs } from '../../nodes/shared/journal';
import { periodic, runChecksNow, type Check, type PeriodicOptions } from '../../nodes/shared/periodic';
import { sleep, waitUntil } from '../support/wait';

const HOUR = 60 * 60_000;
const noError = (err: unknown) => assert.fail(`no error expected, got ${String(err)}`);

/** A check registered for the test only: stopped when it ends. */
function schedule(t: TestContext, check: Check, options: Partial<PeriodicOptions> = {}) {
  const p = periodic(check, { everyMs: HOUR, onError: noError, ...options });
  t.after(() => p.stop());
  return p;
}

/** A check that notes each round's `now` and how many rounds run at once; `hold` keeps a round going until released. */
function recorder() {
  const seen: number[] = [];
  let running = 0;
  let most = 0;
  let release: (() => void) | undefined;
  let holding = false;
  const check: Check = async (now) => {
    running++;
    most = Math.max(most, running);
    seen.push(now);
    if (holding) await new Promise<void>((r) => (release = r));
    running--;
  };
  return {
    check,
    seen,
    most: () => most,
    hold() {
      holding = true;
    },
    free() {
      holding = false;
      release?.();
    },
  };
}

/**
 * Several intervals have passed: a second check on a 10 ms interval has ticked
 * `n` times. A tick of the check under test, had it come, would have come by
 * then, however slow the machine (the same timers carry both).
 */
async function intervalsPass(t: TestContext, n: number): Promise<void> {
  const witness = recorder();
  schedule(t, witness.check, { everyMs: 10 });
  await waitUntil(() => witness.seen.length >= n, 5000, `${n} ticks of a second check`);
}

describe('periodic checks', () => {
  it('runs a check on its interval with the time of the tick, until stopped', async (t) => {
    const r = recorder();
    const p = schedule(t, r.check, { everyMs: 20 });
    await waitUntil(() => r.seen.length >= 2, 2000, 'two ticks');
    const tick = r.seen[0]!;
    assert.ok(Math.abs(tick - Date.now()) < 2000, `the tick's own time (${tick})`);
    p.stop();
    const after = r.seen.length;
    await intervalsPass(t, 5);
    assert.equal(r.seen.length, after, 'no tick once stopped');
  });

  it('runChecksNow runs every registered check once at the given now, and resolves when all are done', async (t) => {
    const a = recorder();
    const b = recorder();
    schedule(t, a.check);
    schedule(t, b.check);
    const later = Date.now() + 61_000;
    await runChecksNow({ now: later });
    assert.deepEqual([a.seen, b.seen], [[later], [later]]);
    // Without a now: the time each round starts.
    const before = Date.now();
    await runChecksNow();
    assert.ok(a.seen[1]! >= before && a.seen[1]! <= Date.now(), String(a.seen[1]));
  });

  it('awaits an asynchronous check before resolving', async (t) => {
    let finished = false;
    schedule(t, async () => {
      await sleep(30);
      finished = true;
    });
    await runChecksNow();
    assert.ok(finished);
  });

  it('never runs one check twice at once: a run asked for waits for the one in flight, a tick meanwhile is skipped', async (t) => {
    const r = recorder();
    const p = schedule(t, r.check, { everyMs: 10 });
    await waitUntil(() => r.seen.length === 1, 2000, 'the first tick');
    r.hold();
    await waitUntil(() => r.seen.length === 2, 2000, 'a tick that is held');
    let done = false;
    const asked = runChecksNow({ now: 42 }).then(() => (done = true));
    await intervalsPass(t, 5); // no tick starts a round meanwhile, and the asked one waits
    assert.equal(r.seen.length, 2, 'nothing started beside the round in flight');
    assert.equal(done, false);
    r.free();
    await asked;
    assert.equal(r.seen.at(-1), 42, 'the asked round ran once the first was done');
    assert.equal(r.most(), 1, 'one round at a time');
    // Two asked at once run one after the other, in order.
    p.stop();
    const q = recorder();
    const s = schedule(t, q.check);
    await Promise.all([s.run(1), runChecksNow({ now: 2 }), s.run(3)]);
    assert.deepEqual(q.seen, [1, 2, 3]);
    assert.equal(q.most(), 1);
  });

  it('leaves out a stopped check, and a queued round of a check stopped meanwhile does not start', async (t) => {
    const gone = recorder();
    schedule(t, gone.check).stop();
    const held = recorder();
    const p = schedule(t, held.check);
    held.hold();
    const first = p.run(1);
    const queued = p.run(2);
    await waitUntil(() => held.seen.length === 1, 2000, 'the first round');
    p.stop();
    held.free();
    await Promise.all([first, queued, runChecksNow({ now: 3 })]);
    assert.deepEqual(gone.seen, []);
    assert.deepEqual(held.seen, [1]);
  });

  it('rejects runChecksNow with a failed check\'s error once every check is done; a failed tick goes to onError and the next tick runs', async (t) => {
    const ok = recorder();
    schedule(t, ok.check);
    const failing = schedule(t, () => {
      throw new Error('board gone');
    });
    await assert.rejects(runChecksNow({ now: 5 }), /board gone/);
    assert.deepEqual(ok.seen, [5], 'the other check ran');
    schedule(t, async () => {
      throw new Error('journal closed');
    });
    await assert.rejects(runChecksNow(), (err: unknown) => err instanceof AggregateError && err.errors.length === 2);
    failing.stop();

    const errors: unknown[] = [];
    let rounds = 0;
    const ticking = periodic(
      () => {
        rounds++;
        throw new Error(`round ${rounds}`);
      },
      { everyMs: 10, onError: (err) => errors.push(err) },
    );
    t.after(() => ticking.stop());
    await waitUntil(() => errors.length >= 2, 2000, 'two failed ticks');
    assert.match(String(errors[0]), /round 1/);
    assert.match(String(errors[1]), /round 2/);
  });

  it('refuses an interval that is not a positive number of ms', () => {
    for (const everyMs of [0, -1, NaN, Infinity]) assert.throws(() => periodic(() => undefined, { everyMs, onError: noError }), /positive number of ms/);
  });
});

describe('lisBridge.checkEveryMs (settings.js, for tests)', () => {
  const red = (lisBridge: unknown) => ({ settings: { userDir: '/srv/node-red', lisBridge } }) as unknown as NodeAPI;

  it('replaces a check\'s own interval when set, beside the other lisBridge settings (a getter among them too)', () => {
    const settings = {
      get dir() {
        return '/tmp/lis-bridge-shared';
      },
      checkEveryMs: 100,
    };
    assert.equal(checkEveryMs(red(settings), 30_000), 100);
  });

  it('leaves the check\'s own interval when unset or not a positive number', () => {
    for (const lisBridge of [undefined, {}, { checkEveryMs: 0 }, { checkEveryMs: -5 }, { checkEveryMs: '100' }, { checkEveryMs: NaN }]) {
      assert.equal(checkEveryMs(red(lisBridge), 30_000), 30_000, JSON.stringify(lisBridge));
    }
  });
});
