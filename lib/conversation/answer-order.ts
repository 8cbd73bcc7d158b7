/**
 * A "no information" answer written as a bare terminator (H + L|1|I) names no
 * sample: the analyzer pairs it with its oldest open query. Such an answer may
 * therefore leave only when its query is the oldest one still open on that
 * link; otherwise a slow LIS answer for an earlier sample would let a fast
 * "not found" for a later one tell the earlier sample "no order".
 *
 * Pure bookkeeping per link (TCP session or serial line): queries in arrival
 * order, each until it is answered, cancelled, or past the analyzer's deadline
 * (after which the analyzer no longer counts it as open either).
 */
interface Open {
  sample: string;
  deadline: number;
}

export class AnswerOrder {
  private readonly links = new Map<string, Open[]>();

  constructor(private readonly deadlineMs: number) {}

  /** The analyzer on `link` asked about these samples, in this order. */
  queried(link: string, samples: readonly string[], now: number): void {
    const open = this.open(link, now).filter((o) => !samples.includes(o.sample));
    for (const sample of samples) open.push({ sample, deadline: now + this.deadlineMs });
    this.links.set(link, open);
  }

  /** The query for `sample` was answered or cancelled: it is no longer open. */
  settled(link: string, sample: string): void {
    const open = this.links.get(link);
    if (!open) return;
    const i = open.findIndex((o) => o.sample === sample);
    if (i !== -1) open.splice(i, 1);
    if (open.length === 0) this.links.delete(link);
  }

  /** Whether an answer naming no sample would be paired with `sample`'s query now. */
  isOldest(link: string, sample: string, now: number): boolean {
    return this.open(link, now)[0]?.sample === sample;
  }

  /** Whether `sample` still has an open query on `link`. */
  isOpen(link: string, sample: string, now: number): boolean {
    return this.open(link, now).some((o) => o.sample === sample);
  }

  /** The next moment an open query expires (to re-check held answers), or undefined. */
  nextDeadline(now: number): number | undefined {
    let next: number | undefined;
    for (const key of [...this.links.keys()]) {
      const first = this.open(key, now)[0];
      if (first && (next === undefined || first.deadline < next)) next = first.deadline;
    }
    return next;
  }

  private open(link: string, now: number): Open[] {
    const open = (this.links.get(link) ?? []).filter((o) => o.deadline > now);
    if (open.length > 0) this.links.set(link, open);
    else this.links.delete(link);
    return open;
  }
}
