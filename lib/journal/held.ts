/**
 * What an operator and a flow see of held batches, and which of them need
 * something now: plain functions over journal records, for lis-send-results
 * and the held admin routes.
 */
import { LisError } from '../errors';
import type { BatchRecord } from './journal';
import { HOLD_BATCH_PREFIX } from './holds';

/** What an operator needs to decide about a held batch (no result values: those stay in the journal). */
export function heldSummary(b: BatchRecord): Record<string, unknown> {
  return {
    key: b.key,
    node: b.node,
    state: b.state,
    samples: b.samples,
    results: Array.isArray(b.body) ? b.body.length : 0,
    firstSent: new Date(b.at).toISOString(),
    updated: new Date(b.updatedAt).toISOString(),
    error: b.error ?? null,
    notSent: b.notSent,
  };
}

/** The held batches a command names: a key, a list of keys, or "all" (resend also takes no payload as all). */
export function selectKeys(payload: unknown, held: BatchRecord[], emptyMeansAll = true): string[] {
  if (payload === 'all' || (emptyMeansAll && (payload === undefined || payload === null || payload === ''))) return held.map((b) => b.key);
  if (typeof payload === 'string') return [payload];
  if (Array.isArray(payload) && payload.every((k) => typeof k === 'string')) return payload as string[];
  throw new LisError('msg.payload must be a held batch key, an array of keys, or "all"', { code: 'INVALID_INPUT' });
}

/**
 * A batch's journal key: its message and part when it came from a stored
 * message (so a replay of that message can never send it twice), else a
 * fresh key of the sender node's.
 */
export function batchOrigin(origin: unknown, owner: string, fresh: () => string): { key: string; message?: string; part?: number } {
  // Held results a person sent: one batch per hold, whatever its message's batches were.
  const hold = (origin as { hold?: unknown } | undefined)?.hold;
  if (typeof hold === 'string' && hold !== '') return { key: `${HOLD_BATCH_PREFIX}${hold}` };
  const o = journalOrigin(origin);
  if (o) return { key: `${o.message}#${o.part}`, ...o };
  return { key: `${owner}:${fresh()}` };
}

/** The journaled message and part a flow message's batch came from (`msg.journal`), when it says. */
export function journalOrigin(origin: unknown): { message: string; part: number } | undefined {
  const o = origin as { message?: unknown; part?: unknown } | undefined;
  return typeof o?.message === 'string' && typeof o.part === 'number' ? { message: o.message, part: o.part } : undefined;
}

/** The message's other properties, JSON-safe, kept with the batch so a resend after a restart gives the flow what it had. */
export function contextOf(msg: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(msg)) {
    if (k === 'payload' || k === 'error' || k === 'req' || k === 'res' || k.startsWith('_')) continue;
    try {
      const json = JSON.stringify(v);
      if (json !== undefined) out[k] = JSON.parse(json);
    } catch {
      // A value that cannot be stored (a cycle, a BigInt) is left out of the journal, not fatal.
    }
  }
  return out;
}

/**
 * Held batches that need something at `now`: an age warning (raised once per
 * batch, past `warnAfterMs`), and, when automatic resend is on, a resend of
 * those that provably never reached the LIS.
 */
export function heldDue(held: BatchRecord[], now: number, warnAfterMs: number, autoResend: boolean): { warn: BatchRecord[]; resend: BatchRecord[]; overdue: boolean } {
  const limit = now - warnAfterMs;
  return {
    warn: held.filter((b) => b.at < limit && !b.warned),
    resend: autoResend ? held.filter((b) => b.notSent) : [],
    overdue: held.some((b) => b.at < limit),
  };
}
