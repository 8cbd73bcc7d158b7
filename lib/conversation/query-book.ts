/**
 * Which queries are open, so that an order coming back from the LIS is sent
 * only when the analyzer can still use it:
 *
 * - within the profile's deadline after the query: sent as the answer;
 * - after the deadline: the analyzer has given up (the cobas e 411 sends a
 *   cancel after 15 s). Sent as an unsolicited download when the profile
 *   accepts those, refused with a reason otherwise;
 * - after the analyzer cancelled the query: not sent, whatever the profile
 *   accepts, until the analyzer queries the sample again;
 * - never queried: sent only if the profile accepts unsolicited downloads.
 *
 * Pure: no timers and no clock; the caller passes `now`. Memory is bounded:
 * entries older than `retainMs` are dropped, and the oldest ones beyond
 * `maxEntries`. A cancel is honoured for `retainMs`; after that the sample
 * counts as never queried.
 */
import type { LabEvent, QueriedSample } from '../lab/types';
import { RecentEntries } from './recent-entries';

/**
 * What the book needs of a dialect, in no protocol's terms: an ASTM or HL7
 * profile passes as it is.
 */
export interface QueryRules {
  /** The profile's id, for messages. */
  readonly id: string;
  /** How long after its query the analyzer still takes an answer. */
  readonly queryDeadlineMs: number;
  /** Whether the analyzer takes orders it did not ask for. */
  readonly acceptsUnsolicitedOrders: boolean;
}

export type QueryDecision =
  | { send: true; queried: true; query: QueriedSample }
  | { send: true; queried: false; note?: string }
  | { send: false; reason: string };

export interface QueryBookOptions {
  /** How long a query (open, cancelled or answered) is remembered. Default 60 minutes. */
  retainMs?: number;
  /** Most samples remembered at once; the oldest go first. Default 10,000. */
  maxEntries?: number;
}

type Moment = Date | number;

interface Entry {
  state: 'open' | 'cancelled' | 'answered';
  /** When the analyzer last queried the sample (ms). */
  queriedAt: number;
  /** Last change of state (ms): what expiry counts from. */
  changedAt: number;
  query?: QueriedSample;
}

export class QueryBook {
  private readonly entries = new RecentEntries<Entry>();
  private readonly retainMs: number;
  private readonly maxEntries: number;

  constructor(
    private readonly profile: QueryRules,
    options: QueryBookOptions = {},
  ) {
    this.retainMs = options.retainMs ?? 60 * 60_000;
    this.maxEntries = options.maxEntries ?? 10_000;
    if (!Number.isFinite(this.retainMs) || this.retainMs < profile.queryDeadlineMs) throw new RangeError(`retainMs must be a number of ms no shorter than the query deadline (${profile.queryDeadlineMs})`);
    if (!Number.isInteger(this.maxEntries) || this.maxEntries < 1) throw new RangeError('maxEntries must be a positive integer');
  }

  /** Records a query event: each sample becomes open, or cancelled for a cancel. */
  onQuery(event: Extract<LabEvent, { type: 'query' }>, now: Moment): void {
    for (const sample of event.samples) {
      if (event.cancel) this.onCancel(sample.sampleNumber, now);
      else {
        const t = ms(now);
        this.put(sample.sampleNumber, { state: 'open', queriedAt: t, changedAt: t, query: sample });
      }
    }
  }

  /** The analyzer withdrew its query for the sample. */
  onCancel(sampleNumber: string, now: Moment): void {
    const t = ms(now);
    const earlier = this.entries.get(sampleNumber);
    this.put(sampleNumber, { state: 'cancelled', queriedAt: earlier?.queriedAt ?? t, changedAt: t });
  }

  /** An answer (order or "no information") went out for the sample. */
  onAnswered(sampleNumber: string, now: Moment): void {
    const earlier = this.entries.get(sampleNumber);
    if (earlier === undefined || earlier.state === 'cancelled') return;
    this.put(sampleNumber, { state: 'answered', queriedAt: earlier.queriedAt, changedAt: ms(now) });
  }

  /** Whether an order for the sample may go to the analyzer now, and as what. */
  decide(sampleNumber: string, now: Moment): QueryDecision {
    const t = ms(now);
    this.prune(t);
    const { id, queryDeadlineMs: deadline, acceptsUnsolicitedOrders: unsolicited } = this.profile;
    const e = this.entries.get(sampleNumber);
    const s = JSON.stringify(sampleNumber);
    if (e === undefined) {
      return unsolicited ? { send: true, queried: false } : { send: false, reason: `sample ${s} was not queried (or its query is older than the memory of ${this.retainMs} ms), and profile ${id} takes no unsolicited orders` };
    }
    const age = t - e.queriedAt;
    switch (e.state) {
      case 'cancelled':
        return { send: false, reason: `the analyzer cancelled its query for sample ${s} ${t - e.changedAt} ms ago; the order is not sent until the sample is queried again` };
      case 'answered':
        return unsolicited
          ? { send: true, queried: false, note: `the query for sample ${s} was already answered: sent as an unsolicited download` }
          : { send: false, reason: `the query for sample ${s} was already answered, and profile ${id} takes no unsolicited orders` };
      case 'open':
        if (age <= deadline && e.query !== undefined) return { send: true, queried: true, query: e.query };
        return unsolicited
          ? { send: true, queried: false, note: `the order for sample ${s} comes ${age} ms after the query, past the analyzer's ${deadline} ms: sent as an unsolicited download` }
          : { send: false, reason: `the order for sample ${s} comes ${age} ms after the query, past the analyzer's ${deadline} ms, and profile ${id} takes no unsolicited orders` };
    }
  }

  /** Samples remembered now (for tests and monitoring). */
  get size(): number {
    return this.entries.size;
  }

  private put(sampleNumber: string, entry: Entry): void {
    this.entries.set(sampleNumber, entry, entry.changedAt);
    this.prune(entry.changedAt);
  }

  private prune(now: number): void {
    this.entries.prune(now, this.retainMs, this.maxEntries);
  }
}

function ms(now: Moment): number {
  const t = now instanceof Date ? now.getTime() : now;
  if (!Number.isFinite(t)) throw new RangeError('now must be a valid Date or a number of ms');
  return t;
}
