/**
 * One replay's report, filled in by the nodes on its path as its messages go
 * through the flow (nodes/shared/replays.ts hands them the run), and whether
 * the flow is done with it. Per sample: what went (or, in a dry run, would go)
 * to the LIS, what the LIS held already, what test-mapper could not map; and
 * apart, the results that named no sample (unassigned), QC, and every error a
 * node raised on a replayed message.
 *
 * Settled means: every message was read by the message node, and every result
 * batch it made came to its end (all its results unmapped, a decision at
 * lis-send-results, or an error). A flow wired differently (no test-mapper, a
 * function node that drops messages) never settles: the report says so and
 * shows what did arrive.
 */
import type { ResultItem } from '../lis/schemas';
import type { ReplayDecision } from './decision';
import { jsonBytes, ReportBudget } from './report-budget';
import type { SendMode } from './request';

export interface ReplaySample {
  sampleNumber: string;
  /** Sent to the LIS by this replay. */
  sent: ResultItem[];
  /** Dry run: what send "new" would send. */
  wouldSend: ResultItem[];
  /** The journal says the LIS has these, or a request under way is taking them there; not sent again (unless send "all" and not under way, then they are in `sent` too). */
  atLis: ResultItem[];
  /** In a held (failed or uncertain) batch: decided there, not here. */
  held: ResultItem[];
  /** Results test-mapper could not map, with its reason. */
  unmapped: Array<{ instrumentCode: string; instrumentSubCode?: string; value: string; reason: string }>;
}

export interface ReplayReport {
  id: string;
  link: string;
  mode: SendMode;
  source: 'paste' | 'trace';
  startedAt: string;
  /** Messages found in the paste or the trace range, and put through the flow. */
  messages: number;
  settled: boolean;
  samples: ReplaySample[];
  unassigned: Array<{ message: number; record: number; reason: string; instrumentCode?: string; value?: string }>;
  qc: Array<{ message: number; results: number }>;
  other: Array<{ message: number; reason: string }>;
  errors: Array<{ message?: number; batch?: string; node: string; error: string }>;
  /** What reading the paste or the trace noticed, and what in it could not be read. */
  notes: string[];
  problems: string[];
  /** Set when the report stopped listing entries at its byte limit (lib/replay/report-budget): says how many are left out. */
  truncated?: string;
}

export interface ReplayStart {
  id: string;
  link: string;
  mode: SendMode;
  source: 'paste' | 'trace';
  messages: number;
  notes: string[];
  problems: string[];
  now: number;
  /** The most the report lists, in JSON bytes; past it entries are only counted. */
  limitBytes: number;
}

export class ReplayRun {
  private readonly samples = new Map<string, ReplaySample>();
  private readonly report: Omit<ReplayReport, 'samples' | 'settled'>;
  private readonly read = new Set<number>();
  private readonly pending = new Set<string>();
  private readonly ended = new Set<string>();
  private readonly listeners = new Set<() => void>();
  private readonly budget: ReportBudget;

  constructor(start: ReplayStart) {
    const { now, limitBytes, notes, problems, ...rest } = start;
    this.budget = new ReportBudget(limitBytes);
    this.budget.admit(rest);
    this.report = {
      ...rest,
      notes: notes.filter((n) => this.budget.admit(n)),
      problems: problems.filter((p) => this.budget.admit(p)),
      startedAt: new Date(now).toISOString(),
      unassigned: [],
      qc: [],
      other: [],
      errors: [],
    };
  }

  /** The report's size in JSON bytes, about (what the kept reports are budgeted by). */
  get bytes(): number {
    return this.budget.bytes;
  }

  get id(): string {
    return this.report.id;
  }

  get mode(): SendMode {
    return this.report.mode;
  }

  get settled(): boolean {
    return this.read.size >= this.report.messages && this.pending.size === 0;
  }

  /** Called each time the run may have settled; returns the removal. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The message node read message `message` into these result batches (`<message>#<part>`). */
  messageRead(message: number, batches: string[]): void {
    for (const b of batches) if (!this.ended.has(b)) this.pending.add(b);
    this.read.add(message);
    this.changed();
  }

  aside(message: number, topic: string, payload: unknown): void {
    if (topic === 'qc') this.list(this.report.qc, { message, results: Array.isArray(payload) ? payload.length : 0 });
    else if (topic === 'unassigned' && Array.isArray(payload)) {
      for (const u of payload as Array<Record<string, unknown>>) {
        this.list(this.report.unassigned, { message, record: Number(u.record), reason: String(u.reason), ...opt('instrumentCode', u.instrumentCode), ...opt('value', u.Result) });
      }
    } else if (topic === 'other') this.list(this.report.other, { message, reason: String((payload as { reason?: unknown } | null)?.reason ?? topic) });
  }

  /** test-mapper mapped a batch: its rejected results are reported; a batch with nothing mapped ends here. */
  mapped(batch: string, mappedCount: number, rejected: Array<{ result: unknown; reason: string }>): void {
    for (const r of rejected) {
      const raw = (r.result ?? {}) as Record<string, unknown>;
      this.add(String(raw.SampleNumber ?? '?'), 'unmapped', {
        instrumentCode: String(raw.instrumentCode ?? ''),
        ...(typeof raw.instrumentSubCode === 'string' && raw.instrumentSubCode !== '' ? { instrumentSubCode: raw.instrumentSubCode } : {}),
        value: String(raw.Result ?? ''),
        reason: r.reason,
      });
    }
    if (mappedCount === 0) this.end(batch);
    else this.changed();
  }

  /** lis-send-results decided a batch (and, unless a dry run, sent `decision.send`). */
  decided(batch: string, decision: ReplayDecision, sent: boolean): void {
    if (decision.mode === 'none') for (const item of decision.fresh) this.add(item.SampleNumber, 'wouldSend', item);
    for (const item of [...decision.delivered, ...decision.inFlight]) this.add(item.SampleNumber, 'atLis', item);
    for (const item of decision.held) this.add(item.SampleNumber, 'held', item);
    if (sent) for (const item of decision.send) this.add(item.SampleNumber, 'sent', item);
    this.end(batch);
  }

  /** A node failed on a replayed message: the message (or its batch) goes no further. */
  failed(node: string, error: string, where: { message?: number; batch?: string }): void {
    this.list(this.report.errors, { ...where, node, error });
    if (where.batch !== undefined) this.end(where.batch);
    else if (where.message !== undefined) this.read.add(where.message);
    this.changed();
  }

  toJSON(): ReplayReport {
    const truncated = this.budget.note();
    return { ...this.report, settled: this.settled, samples: [...this.samples.values()], ...(truncated ? { truncated } : {}) };
  }

  /** Lists an entry of a sample while the report has room (a new sample's own fields counted with its first entry). */
  private add<K extends 'sent' | 'wouldSend' | 'atLis' | 'held' | 'unmapped'>(sampleNumber: string, list: K, entry: ReplaySample[K][number]): void {
    const known = this.samples.get(sampleNumber);
    if (!this.budget.admit(entry, known ? 0 : jsonBytes({ ...EMPTY_SAMPLE, sampleNumber }))) return;
    let s = known;
    if (!s) this.samples.set(sampleNumber, (s = { sampleNumber, sent: [], wouldSend: [], atLis: [], held: [], unmapped: [] }));
    (s[list] as Array<typeof entry>).push(entry);
  }

  private list<T>(into: T[], entry: T): void {
    if (this.budget.admit(entry)) into.push(entry);
  }

  /** A batch may end before its message's read is noted (the nodes run in one tick): remembered either way. */
  private end(batch: string): void {
    this.ended.add(batch);
    this.pending.delete(batch);
    this.changed();
  }

  private changed(): void {
    for (const l of [...this.listeners]) l();
  }
}

const EMPTY_SAMPLE = { sampleNumber: '', sent: [], wouldSend: [], atLis: [], held: [], unmapped: [] };

function opt(name: string, value: unknown): Record<string, string> {
  return typeof value === 'string' && value !== '' ? { [name]: value } : {};
}
