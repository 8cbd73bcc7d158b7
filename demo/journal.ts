/**
 * What the demo LIS remembers: every request to its four endpoints and every
 * order it pushed, kept in memory and bounded so a demo left running for days
 * cannot grow without limit.
 */

export type EndpointKind = 'tests' | 'orders' | 'results' | 'processed';
export const ENDPOINT_KINDS: readonly EndpointKind[] = ['tests', 'orders', 'results', 'processed'];

export interface RequestRecord {
  /** Increases by one per request or push across all kinds, so events can be ordered. */
  seq: number;
  /** ISO 8601 time the request arrived. */
  at: string;
  kind: EndpointKind;
  method: string;
  path: string;
  /** The traceability headers of spec 5, null when absent. */
  requestId: string | null;
  requestTimestamp: string | null;
  expectedSample: string | null;
  /** Whether an Authorization header came; its value is never kept. */
  authorization: 'present' | 'absent';
  /** The parsed JSON body, the raw text when it was not JSON, or null when empty or too large to keep. */
  body: unknown;
  /** HTTP status answered. */
  status: number;
  /** JSON body answered. */
  answer: unknown;
  /** One readable phrase about the outcome, as logged. */
  note: string;
}

export interface PushRecord {
  seq: number;
  at: string;
  kind: 'push';
  sampleNumber: string;
  target: string;
  /** The order sent, null when none was sent. */
  order: unknown;
  /** The push server's HTTP status, null when it could not be reached. */
  status: number | null;
  /** The push server's answer (JSON, or text). */
  answer: unknown;
  /** Why the push failed, null when it succeeded. */
  error: string | null;
  requestId: string;
}

/** The most recent `limit` items. */
export class Bounded<T> {
  private readonly items: T[] = [];

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`history limit must be a whole number >= 1, not ${limit}`);
  }

  add(item: T): void {
    this.items.push(item);
    if (this.items.length > this.limit) this.items.splice(0, this.items.length - this.limit);
  }

  newestFirst(): T[] {
    return [...this.items].reverse();
  }

  get size(): number {
    return this.items.length;
  }
}

/**
 * Test IDs the processed endpoint (spec 4.4) confirmed, per sample. Orders
 * leave those tests out unless asked with allTests "1" (spec 4.2), which is
 * what that flag is for. Bounded by sample count like the request history.
 */
export class ProcessedLedger {
  private readonly bySample = new Map<string, Set<string>>();

  constructor(private readonly limit: number) {}

  mark(sampleNumber: string, testIds: readonly string[]): void {
    const known = this.bySample.get(sampleNumber) ?? new Set<string>();
    // Re-inserting moves the sample to the end, so the oldest sample is dropped first.
    this.bySample.delete(sampleNumber);
    for (const id of testIds) known.add(id);
    this.bySample.set(sampleNumber, known);
    while (this.bySample.size > this.limit) {
      const oldest = this.bySample.keys().next();
      if (oldest.done) break;
      this.bySample.delete(oldest.value);
    }
  }

  processed(sampleNumber: string): ReadonlySet<string> {
    return this.bySample.get(sampleNumber) ?? new Set<string>();
  }
}

/** Everything the demo LIS knows, as GET /api/state returns it; lists are newest first. */
export interface DemoLisState {
  /** ISO time of start(), null when not running. */
  startedAt: string | null;
  /** The page's address, null when not running. */
  page: string | null;
  /** The URLs to put in lis-config, null when not running. */
  endpoints: Record<EndpointKind, string> | null;
  tokenRequired: boolean;
  /** The token itself, only when the demo LIS was told it may show it (npm start's fixed demo token). */
  token: string | null;
  pushUrl: string | null;
  noOrderPattern: string;
  seededSamples: string[];
  orderableTests: string[];
  requests: Record<EndpointKind, RequestRecord[]>;
  pushes: PushRecord[];
}

/** Counts since start, not bounded by the history limit (npm start's summary line). */
export interface DemoLisTotals {
  requests: Record<EndpointKind, number>;
  /** Result items answered 200. */
  resultsAccepted: number;
  /** Requests answered 400 or above. */
  refused: number;
}
