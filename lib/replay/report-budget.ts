/**
 * How much memory operator replays may hold (issue 23: 16 dry runs of a
 * 4.4 MB paste grew Node-RED by half a gigabyte). Measured in the bytes of
 * the report's JSON, which is what a GET sends and grows with what the
 * report holds in memory:
 * - a replay takes at most MAX_TEXT_BYTES of captured text (paste or trace range);
 * - one report lists entries up to MAX_REPORT_BYTES, then only counts them;
 * - the reports kept together stay under TOTAL_BYTES (and MAX_KEPT of them),
 *   the oldest settled ones dropped first.
 */
export const REPLAY_LIMITS = {
  maxTextBytes: 2 * 1024 * 1024,
  maxReportBytes: 4 * 1024 * 1024,
  totalBytes: 16 * 1024 * 1024,
  maxKept: 50,
} as const;

/** Bytes `value` takes in a JSON report. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}

/** "2 MiB", "512 KiB": a limit as an operator reads it. */
export function sizeText(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`;
  if (bytes >= 1024) return `${Math.round((bytes / 1024) * 10) / 10} KiB`;
  return `${bytes} bytes`;
}

/** One report's byte account: entries are listed while they fit, then only counted. */
export class ReportBudget {
  private used = 0;
  private dropped = 0;

  constructor(readonly limitBytes: number) {}

  get bytes(): number {
    return this.used;
  }

  /** Entries counted but not listed because the report was full. */
  get omitted(): number {
    return this.dropped;
  }

  /** Accounts for an entry (plus its separator); false when it does not fit: it is counted as omitted instead. */
  admit(value: unknown, overhead = 0): boolean {
    const n = jsonBytes(value) + 1 + overhead;
    if (this.used + n > this.limitBytes) {
      this.dropped++;
      return false;
    }
    this.used += n;
    return true;
  }

  /** What the report says when it had to stop listing entries (undefined while all are listed). */
  note(): string | undefined {
    if (this.dropped === 0) return undefined;
    return `this report reached its limit of ${sizeText(this.limitBytes)}: ${this.dropped} further ${this.dropped === 1 ? 'entry is' : 'entries are'} not listed (results, errors or notes); replay fewer messages at a time to see them all`;
  }
}

export interface KeptReport {
  readonly id: string;
  readonly settled: boolean;
  /** The report's size now (it grows until settled). */
  readonly bytes: number;
}

/**
 * The replay reports kept for GET /lis-bridge/replays/:id, within a total
 * byte budget and a count: the oldest settled reports go first, then the
 * oldest of those still under way (a flow wired so it never settles must not
 * keep its reports for ever). The newest report is always kept: it is bounded
 * on its own (ReportBudget).
 */
export class KeptReports<T extends KeptReport> {
  private readonly reports = new Map<string, T>();

  constructor(private readonly limits: { totalBytes: number; maxKept: number }, private readonly dropped: (report: T) => void = () => undefined) {}

  keep(report: T): void {
    this.reports.set(report.id, report);
    this.fit();
  }

  get(id: string): T | undefined {
    return this.reports.get(id);
  }

  get size(): number {
    return this.reports.size;
  }

  get totalBytes(): number {
    let total = 0;
    for (const r of this.reports.values()) total += r.bytes;
    return total;
  }

  /** Drops reports until the kept ones fit; call again as reports grow. */
  fit(): void {
    let total = this.totalBytes;
    const over = () => total > this.limits.totalBytes || this.reports.size > this.limits.maxKept;
    const newest = [...this.reports.keys()].at(-1);
    for (const settledOnly of [true, false]) {
      for (const r of [...this.reports.values()]) {
        if (!over()) return;
        if (r.id === newest || (settledOnly && !r.settled)) continue;
        this.reports.delete(r.id);
        total -= r.bytes;
        this.dropped(r);
      }
    }
  }
}
