/**
 * The Bearer Token may appear in the Authorization header and nowhere else:
 * not in messages, errors, statuses, warnings, logs, request bodies, or the
 * result journal and traces on disk.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { anOrder } from '../support/lis-stub';
import { useLisStub } from '../support/lifecycle';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ALL_LIS_NODES, helper, journalDir, nodeModules, waitUntil } from '../support/red';
import { FAST } from '../support/lis-flow';

const TOKEN = 'Zq8-secret-bearer-token-41c9';

const ctx = useLisStub();

/** Everything a value could show of itself, Error internals included. */
function dump(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => {
    if (v instanceof Error) return { ...v, name: v.name, message: v.message, stack: v.stack, cause: v.cause, str: String(v) };
    if (typeof v === 'function') return '[fn]';
    return v;
  });
}

describe('secrets', () => {
  it('the Bearer Token appears only in the Authorization header, on success and on every kind of failure', async () => {
    ctx.stub.reply('/orders', { body: { status: 'success', order: anOrder('S1') } }, { status: 401, body: { message: 'bad token', errors: [] } }, { status: 503 }, { status: 302, headers: { Location: '/x' } });
    ctx.stub.reply('/results', { status: 500, body: { message: 'no', errors: ['x'] } });
    ctx.stub.reply('/processed', { body: 'not json' });
    ctx.stub.reply('/tests', { body: { tests: [{ ID: 1 }] } });
    const cfg = { id: 'cfg', type: 'lis-config', labTestsApiUrl: ctx.stub.url('/tests'), transactionInfoApiUrl: ctx.stub.url('/orders'), resultApiUrl: ctx.stub.url('/results'), orderCompletedApiUrl: ctx.stub.url('/processed'), ...FAST, orderAttempts: 1 };
    const flow = [
      cfg,
      { id: 'o', type: 'lis-get-order', lis: 'cfg', wires: [['h'], ['h']] },
      { id: 'r', type: 'lis-send-results', lis: 'cfg', wires: [['h']] },
      { id: 'p', type: 'lis-mark-processed', lis: 'cfg', wires: [['h']] },
      { id: 't', type: 'lis-get-tests', lis: 'cfg', wires: [['h']] },
      { id: 'bad', type: 'lis-config', timeout: 'soon' },
      { id: 'o2', type: 'lis-get-order', lis: 'bad', wires: [['h'], ['h']] },
      { id: 'h', type: 'helper' },
      { id: 'catcher', type: 'catch', scope: null, uncaught: false, wires: [['h']] },
    ];
    await helper.load(nodeModules(...ALL_LIS_NODES) as never, flow as never, { cfg: { bearerToken: TOKEN }, bad: { bearerToken: TOKEN } } as never);
    const seen: unknown[] = [];
    helper.getNode('h').on('input', (m: unknown) => seen.push(m));

    for (let i = 0; i < 4; i++) helper.getNode('o').receive({ payload: `S${i === 0 ? 1 : i + 10}` } as never);
    helper.getNode('r').receive({ payload: [{ SampleNumber: 'S1', TestCode: 'GLU', Result: '1' }] } as never);
    helper.getNode('r').receive({ payload: [{ SampleNumber: 'S1' }] } as never);
    helper.getNode('p').receive({ payload: { SampleNumber: 'S1', Tests: ['T'] } } as never);
    helper.getNode('t').receive({ payload: {} } as never);
    helper.getNode('o2').receive({ payload: 'S1' } as never);
    await waitUntil(() => seen.length >= 9, 8000, 'all outcomes');

    const haystack: string[] = [dump(seen)];
    for (const id of ['cfg', 'bad', 'o', 'r', 'p', 't', 'o2']) {
      const n = helper.getNode(id) as unknown as Record<'status' | 'error' | 'warn' | 'log' | 'debug' | 'trace', { args: unknown[][] }>;
      for (const spy of ['status', 'error', 'warn', 'log', 'debug', 'trace'] as const) haystack.push(dump(n[spy].args));
    }
    haystack.push(dump(helper.log().args));
    // The journal (the held batch of the 500 answer is in it) and any trace file.
    const files = readdirSync(journalDir(), { recursive: true }).map((f) => join(journalDir(), String(f))).filter((f) => statSync(f).isFile());
    assert.ok(files.some((f) => f.endsWith('journal.jsonl')), 'the journal was written');
    for (const f of files) haystack.push(readFileSync(f, 'latin1'));
    for (const req of ctx.stub.requests) {
      const { authorization, ...rest } = req.headers;
      assert.equal(authorization, `Bearer ${TOKEN}`);
      haystack.push(dump(rest), req.body);
    }
    const all = haystack.join('\n');
    assert.ok(all.length > 1000, 'the check looked at real output');
    assert.ok(all.includes('S1'), 'the check looked at real output');
    assert.ok(!all.includes(TOKEN), 'the token leaked');
    assert.ok(!all.includes(TOKEN.slice(0, 12)), 'part of the token leaked');
  });

  it('a LIS address written with user:password@ is warned about at start, naming the setting and never the password; the LIS still gets the Bearer Token', async () => {
    ctx.stub.reply('/results', { body: { status: 'success' } });
    const password = 'Pw-in-url-7731';
    const withCredentials = ctx.stub.url('/results').replace('://', `://lab:${password}@`);
    const flow = [
      { id: 'cfg', type: 'lis-config', labTestsApiUrl: ctx.stub.url('/tests'), transactionInfoApiUrl: ctx.stub.url('/orders'), resultApiUrl: withCredentials, ...FAST },
      { id: 'r', type: 'lis-send-results', lis: 'cfg', wires: [['h']] },
      { id: 'h', type: 'helper' },
    ];
    await helper.load(nodeModules(...ALL_LIS_NODES) as never, flow as never, { cfg: { bearerToken: TOKEN } } as never);
    const warned = (helper.getNode('cfg') as unknown as { warn: { args: unknown[][] } }).warn.args.map((a) => String(a[0]));
    assert.equal(warned.filter((w) => /resultApiUrl carries a user name or password, which is stored in the flow and exported with it/.test(w)).length, 1, warned.join('\n'));
    assert.ok(!warned.join('\n').includes(password), 'the password is not in the warning');
    const out: unknown[] = [];
    helper.getNode('h').on('input', (m: unknown) => out.push(m));
    helper.getNode('r').receive({ payload: [{ SampleNumber: 'S1', TestCode: 'GLU', Result: '1' }] } as never);
    await waitUntil(() => out.length === 1, 5000, 'the results sent');
    assert.equal(ctx.stub.to('/results')[0]!.headers.authorization, `Bearer ${TOKEN}`);
  });
});
