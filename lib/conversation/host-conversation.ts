/**
 * The host's side of an analyzer conversation, whatever the protocol (ASTM
 * today, HL7 next): the analyzer asks about samples, the host answers each
 * query with its order or with "no information" within the analyzer's
 * deadline, downloads orders nobody asked for where the analyzer takes them,
 * and honours a cancel. Only the messages differ between protocols, so what
 * is written comes from a `Writer` the protocol supplies, and the rules from
 * the dialect.
 *
 * A pure machine with AstmLink's contract: the caller passes the current time
 * in and carries out the actions returned, in order; the machine has no
 * timers and does no I/O. `nextDeadline()` says when `tick()` is due (a held
 * "no information" answer may become sendable, or expire). Each action
 * carries the caller's context (for Node-RED, the message it answers), so the
 * adapter reuses it.
 */
import type { LabOrder, QueriedSample } from '../lab/types';
import { AnswerOrder } from './answer-order';
import { QueryBook } from './query-book';
import { RecentEntries } from './recent-entries';

export interface ConversationRules {
  id: string;
  label: string;
  /** How long the analyzer waits for the answer to a query. */
  queryDeadlineMs: number;
  acceptsUnsolicitedOrders: boolean;
  /** The dialect can write an order download at all (without one, a query is passed on untouched). */
  canDownload: boolean;
  /**
   * The "no information" answer names no sample (ASTM's bare `L|1|I`): the
   * analyzer pairs it with its oldest open query, so it may leave only when its
   * query is the oldest one still open on its link.
   */
  anonymousNoInformation: boolean;
}

/** What the protocol writes. Throws (with the field named) when the order cannot be written for this analyzer. */
export interface Writer {
  order(order: LabOrder, at: { now: Date; queried: true; query: QueriedSample } | { now: Date; queried: false }): string;
  noInformation(sampleNumber: string, at: { now: Date; query: QueriedSample }): string;
}

export type ConversationAction<C> =
  /** Ask the LIS for the order of this queried sample. */
  | { type: 'ask'; sample: QueriedSample; context: C }
  /** A query the dialect cannot answer with a download: passed on untouched. */
  | { type: 'unanswerable'; samples: QueriedSample[]; context: C }
  /** Text for the analyzer (an order download, or a "no information" answer). */
  | { type: 'send'; sampleNumber: string; text: string; kind: 'order' | 'noInformation'; context: C }
  /** An order the analyzer can no longer take; the caller fails its message with the reason. */
  | { type: 'refused'; sampleNumber: string; reason: string; context: C }
  | { type: 'warn'; text: string };

export interface ConversationOptions {
  /** How long the LIS test IDs of a downloaded order are kept, to tell which LIS tests a result answers. */
  orderedRetainMs?: number;
  orderedMax?: number;
}

/** One query event as every protocol reads it. */
export interface QueryEvent {
  samples: QueriedSample[];
  cancel: boolean;
}

interface Held<C> {
  link: string;
  sampleNumber: string;
  text: string;
  context: C;
}

export class HostConversation<C> {
  private readonly book: QueryBook;
  private readonly answerOrder: AnswerOrder;
  private readonly held: Held<C>[] = [];
  private readonly ordered = new RecentEntries<{ tests: string[]; at: number }>();
  private readonly orderedRetainMs: number;
  private readonly orderedMax: number;
  readonly counts = { queries: 0, orders: 0 };

  constructor(
    private readonly rules: ConversationRules,
    private readonly writer: Writer,
    options: ConversationOptions = {},
  ) {
    this.book = new QueryBook(rules);
    this.answerOrder = new AnswerOrder(rules.queryDeadlineMs);
    this.orderedRetainMs = options.orderedRetainMs ?? 24 * 60 * 60_000;
    this.orderedMax = options.orderedMax ?? 10_000;
  }

  /**
   * The analyzer on `link` asked about (or cancelled) samples. A query from a
   * replayed message (stored before a restart) is not answered: the analyzer
   * gave up waiting long ago, and an order now would arrive unasked.
   */
  query(link: string, event: QueryEvent, now: number, context: C, replay = false): ConversationAction<C>[] {
    const names = event.samples.map((s) => s.sampleNumber).join(', ');
    if (replay) return [{ type: 'warn', text: `replayed message: the query for ${names} is not answered again` }];
    this.book.onQuery({ type: 'query', ...event }, now);
    if (event.cancel) {
      for (const s of event.samples) this.answerOrder.settled(link, s.sampleNumber);
      // A held "no information" whose query is now gone may be sendable, or is void.
      return [{ type: 'warn', text: `the analyzer cancelled its query for ${names}: an order arriving now is not sent` }, ...this.release(now)];
    }
    this.answerOrder.queried(link, event.samples.map((s) => s.sampleNumber), now);
    if (!this.rules.canDownload) {
      // Asking the LIS would only end in an order this dialect cannot write.
      return [{ type: 'warn', text: `${this.rules.label} has no documented order download: query for ${names} passed on untouched` }, { type: 'unanswerable', samples: event.samples, context }];
    }
    this.counts.queries += event.samples.length;
    return event.samples.map((sample) => ({ type: 'ask', sample, context }));
  }

  /** The LIS's order for a sample (after test mapping): the answer to its query, an unsolicited download, or refused. */
  order(link: string, order: LabOrder, now: number, context: C): ConversationAction<C>[] {
    const sampleNumber = order.SampleNumber;
    const decision = this.book.decide(sampleNumber, now);
    if (!decision.send) return [{ type: 'refused', sampleNumber, reason: decision.reason, context }];
    const out: ConversationAction<C>[] = [];
    if (!decision.queried && decision.note) out.push({ type: 'warn', text: decision.note });
    const at = new Date(now);
    const text = decision.queried ? this.writer.order(order, { now: at, queried: true, query: decision.query }) : this.writer.order(order, { now: at, queried: false });
    this.book.onAnswered(sampleNumber, now);
    this.remember(order, now);
    this.counts.orders++;
    out.push({ type: 'send', sampleNumber, text, kind: 'order', context });
    this.answerOrder.settled(link, sampleNumber);
    out.push(...this.release(now));
    return out;
  }

  /** The LIS has no order for a queried sample: the dialect's "no information" answer, now or once its query is the oldest. */
  noOrder(link: string, sampleNumber: string, now: number, context: C): ConversationAction<C>[] {
    const decision = this.book.decide(sampleNumber, now);
    if (!decision.send || !decision.queried) {
      return [{ type: 'warn', text: `no "no information" answer for sample ${sampleNumber}: ${decision.send ? 'it has no open query' : decision.reason}` }];
    }
    const text = this.writer.noInformation(sampleNumber, { now: new Date(now), query: decision.query });
    this.book.onAnswered(sampleNumber, now);
    if (this.rules.anonymousNoInformation && !this.answerOrder.isOldest(link, sampleNumber, now)) {
      this.held.push({ link, sampleNumber, text, context });
      return [];
    }
    this.answerOrder.settled(link, sampleNumber);
    return [{ type: 'send', sampleNumber, text, kind: 'noInformation', context }, ...this.release(now)];
  }

  /** Time passed: held answers whose query became the oldest leave; those past their deadline are dropped. */
  tick(now: number): ConversationAction<C>[] {
    return this.release(now);
  }

  /** When tick() is next due, or undefined when nothing is held. */
  nextDeadline(now: number): number | undefined {
    if (this.held.length === 0) return undefined;
    const next = this.answerOrder.nextDeadline(now);
    // One past the deadline: at the deadline itself the query still counts as open.
    return next === undefined ? undefined : next + 1;
  }

  /** The LIS test IDs of orders downloaded for these samples (a result's LIS test may depend on what was ordered). */
  orderedTests(samples: readonly string[], now: number): string[] {
    const out = new Set<string>();
    for (const s of new Set(samples)) {
      const entry = this.ordered.get(s);
      if (entry && now - entry.at <= this.orderedRetainMs) entry.tests.forEach((x) => out.add(x));
    }
    return [...out];
  }

  /** The flow stopped: held answers are dropped (their analyzer will ask again). */
  close(): void {
    this.held.length = 0;
  }

  private release(now: number): ConversationAction<C>[] {
    const out: ConversationAction<C>[] = [];
    for (let progress = true; progress; ) {
      progress = false;
      for (let i = 0; i < this.held.length; i++) {
        const h = this.held[i]!;
        if (!this.answerOrder.isOpen(h.link, h.sampleNumber, now)) {
          this.held.splice(i, 1);
          out.push({
            type: 'warn',
            text: `"no information" for sample ${h.sampleNumber} not sent: an earlier query on the same link was still unanswered when the analyzer's ${this.rules.queryDeadlineMs} ms ran out, and the answer names no sample`,
          });
          progress = true;
          break;
        }
        if (this.answerOrder.isOldest(h.link, h.sampleNumber, now)) {
          this.held.splice(i, 1);
          this.answerOrder.settled(h.link, h.sampleNumber);
          out.push({ type: 'send', sampleNumber: h.sampleNumber, text: h.text, kind: 'noInformation', context: h.context });
          progress = true;
          break;
        }
      }
    }
    return out;
  }

  private remember(order: LabOrder, now: number): void {
    if (!order.Tests || order.Tests.length === 0) return;
    this.ordered.set(order.SampleNumber, { tests: [...order.Tests], at: now }, now);
    this.ordered.prune(now, this.orderedRetainMs, this.orderedMax);
  }
}
