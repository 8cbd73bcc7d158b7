// What lis-send-results decides about held batches, without Node-RED.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { batchOrigin, contextOf, heldDue, heldSummary, selectKeys } from '../../lib/journal/held';
import type { BatchRecord } from '../../lib/journal/journal';

const batch = (key: string, at: number, extra: Partial<BatchRecord> = {}): BatchRecord => ({
  key,
  node: 'n1',
  at,
  samples: ['S1'],
  body: [{ SampleNumber: 'S1', TestCode: 'GLU', Result: '5.4' }],
  msg: {},
  state: 'failed',
  updatedAt: at,
  error: undefined,
  notSent: false,
  warned: false,
  ...extra,
});

describe('held batches', () => {
  it('warns once per batch past the warning age, and resends only what provably never left, when asked to', () => {
    const held = [batch('old', 0), batch('warned', 0, { warned: true }), batch('young', 59_000, { notSent: true })];
    const due = heldDue(held, 60_001, 60_000, true);
    assert.deepEqual(due.warn.map((b) => b.key), ['old']);
    assert.deepEqual(due.resend.map((b) => b.key), ['young']);
    assert.equal(due.overdue, true);
    assert.deepEqual(heldDue(held, 60_001, 60_000, false).resend, [], 'auto-resend off');
    assert.equal(heldDue([batch('young', 59_000)], 60_001, 60_000, false).overdue, false);
  });

  it('names the batches a command is for: a key, keys, or all; anything else is refused', () => {
    const held = [batch('a', 0), batch('b', 0)];
    assert.deepEqual(selectKeys('all', held), ['a', 'b']);
    assert.deepEqual(selectKeys(undefined, held), ['a', 'b'], 'resend with no payload means all');
    assert.throws(() => selectKeys(undefined, held, false), /held batch key/, 'discard never means all by default');
    assert.deepEqual(selectKeys(['b'], held), ['b']);
    assert.throws(() => selectKeys(42, held), (err: Error & { code?: string }) => err.code === 'INVALID_INPUT');
  });

  it('keeps the JSON-safe rest of a message with its batch, never its payload, error or private parts', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    assert.deepEqual(contextOf({ payload: [1], error: {}, _msgid: 'x', req: {}, topic: 'results', processed: [{ SampleNumber: 'S1' }], loop: cyclic, big: 1n }), {
      topic: 'results',
      processed: [{ SampleNumber: 'S1' }],
    });
  });

  it('keys a batch by its stored message and part, so a replay cannot send it twice; others get a fresh key', () => {
    assert.deepEqual(batchOrigin({ message: 'rx-1', part: 2 }, 'n1', () => 'x'), { key: 'rx-1#2', message: 'rx-1', part: 2 });
    assert.deepEqual(batchOrigin(undefined, 'n1', () => 'u1'), { key: 'n1:u1' });
    assert.deepEqual(batchOrigin({ message: 'rx-1' }, 'n1', () => 'u2'), { key: 'n1:u2' }, 'no part: not from a journaled message');
  });

  it('summarises a batch without its result values', () => {
    const s = heldSummary(batch('a', 0));
    assert.equal(s.results, 1);
    assert.equal(JSON.stringify(s).includes('5.4'), false);
  });
});
