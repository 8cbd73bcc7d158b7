/**
 * What waits for an operator, per link node: result batches held (failed or
 * uncertain, lib/journal/held), received messages stuck (replayed after a
 * restart and still not at the LIS), and results waiting for a person
 * (lib/journal/holds: no LIS test for their code, say). A held batch belongs to the link its
 * message came over; a batch the journal knows no message of (results that
 * did not come from a link) counts under ''.
 *
 * Walks the journal's stuck list (every message in memory): for a scrape or a
 * change of held batches, never per message received.
 */
import type { ResultJournal } from '../journal/journal';

export interface QueueCounts {
  held: number;
  stuck: number;
  /** Results held for a person (not batches: each result counts). */
  waiting: number;
  /** Held batches already warned of (HELD raised: past their warn-after time), and since when the oldest waits. */
  overdue?: number;
  overdueSince?: number;
}

export function queuesByLink(journal: Pick<ResultJournal, 'held' | 'stuck' | 'message' | 'holds'>): Map<string, QueueCounts> {
  const out = new Map<string, QueueCounts>();
  const of = (link: string): QueueCounts => {
    let c = out.get(link);
    if (!c) out.set(link, (c = { held: 0, stuck: 0, waiting: 0 }));
    return c;
  };
  for (const b of journal.held()) {
    const c = of(b.message === undefined ? '' : (journal.message(b.message)?.link ?? ''));
    c.held++;
    if (b.warned) {
      c.overdue = (c.overdue ?? 0) + 1;
      c.overdueSince = Math.min(c.overdueSince ?? Infinity, b.at);
    }
  }
  for (const m of journal.stuck()) of(m.link).stuck++;
  for (const h of journal.holds()) of(h.link ?? '').waiting += h.results.length;
  return out;
}
