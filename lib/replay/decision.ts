/**
 * What lis-send-results does with a result batch of a replay. Each result is
 * looked up in the journal by what identifies it at the LIS
 * (lib/journal/result-key: sample, LIS test, sub-test, value):
 * - `none` (dry run): nothing is sent; the report says what `new` would send;
 * - `new`: only the results the LIS never got are sent;
 * - `all`: every result is sent, those the LIS held counted as resent.
 * Results in a held batch (failed or uncertain) count as known: that batch is
 * resent or discarded on its own (GET /lis-bridge/held), not by a replay.
 * Results in a batch whose request is under way (the live flow's, another
 * replay's, a resend) count as at the LIS and are sent by no mode, not even
 * `all`: two replays started together must not both send them, and the
 * batch in flight ends delivered or held, never lost.
 */
import type { ResultItem } from '../lis/schemas';
import type { SendMode } from './request';

export type Seen = 'delivered' | 'sending' | 'held' | undefined;

export interface ReplayDecision {
  mode: SendMode;
  /** What goes to the LIS now (empty in a dry run). */
  send: ResultItem[];
  /** Results the LIS never got: what `new` sends. */
  fresh: ResultItem[];
  /** Results the LIS holds (or may hold: `held`), by the journal. */
  delivered: ResultItem[];
  held: ResultItem[];
  /** In a batch on its way to the LIS now: counted as at the LIS, never sent again by a replay. */
  inFlight: ResultItem[];
}

export function decideReplay(items: readonly ResultItem[], seen: (item: ResultItem) => Seen, mode: SendMode): ReplayDecision {
  const fresh: ResultItem[] = [];
  const delivered: ResultItem[] = [];
  const held: ResultItem[] = [];
  const inFlight: ResultItem[] = [];
  for (const item of items) {
    const s = seen(item);
    (s === 'delivered' ? delivered : s === 'sending' ? inFlight : s === 'held' ? held : fresh).push(item);
  }
  const send = mode === 'all' ? items.filter((i) => !inFlight.includes(i)) : mode === 'new' ? fresh : [];
  return { mode, send, fresh, delivered, held, inFlight };
}

/** How many of the results sent the LIS held already (journaled with the batch as resent). */
export function resentCount(d: ReplayDecision): number {
  return d.mode === 'all' ? d.delivered.length + d.held.length : 0;
}
