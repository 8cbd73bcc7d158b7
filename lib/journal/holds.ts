/**
 * Held results: what the analyzer sent that cannot go to the LIS as it is, kept
 * for a person to resolve. A hold ends in one of two ways, each on the record:
 * sent (a person mapped the code, deployed, and sent it: the batch
 * `hold:<id>` is written before its request leaves, and from then on the
 * batch's own rules apply), or dismissed (who, when, why). A person's "send"
 * that never reached its batch (a crash in between) leaves the hold open, to
 * be sent again; a second "send" of a hold whose batch exists is refused by
 * that batch's key. Holds outlive the retention of settled messages: an open
 * hold is never dropped.
 */
import { randomUUID } from 'node:crypto';
import type { CorrectionInfo, HoldEntry, HoldKind } from './entries';

/** The batch key a released hold is sent under: one per hold, so it reaches the LIS at most once. */
export const HOLD_BATCH_PREFIX = 'hold:';

export interface HeldResult {
  /** The result as test-mapper got it (instrument code, sample, value …). */
  result: unknown;
  reason: string;
  /** For a correction: the value it replaces, and where both come from. */
  correction?: CorrectionInfo;
}

export interface HoldRecord {
  id: string;
  at: number;
  node: string;
  link: string | undefined;
  message: string | undefined;
  part: number | undefined;
  kind: HoldKind;
  code: string;
  results: HeldResult[];
  /** The samples its results name. */
  samples: string[];
  msg: Record<string, unknown>;
  /** The ids of the holds written in the same line (this one's included): they leave the file together. */
  line: string[];
  /** open; sending: a person sent it and its batch is not written yet; sent; dismissed. */
  state: 'open' | 'sending' | 'sent' | 'dismissed';
  updatedAt: number;
  by: string | undefined;
  note: string | undefined;
}

export type NewHold = Omit<HoldEntry, 'e' | 'at'>;

/** send: toward the LIS (its batch follows); dismiss: with why; evaluate: a control identified, judged in the QC store. */
export type HoldAction = 'send' | 'dismiss' | 'evaluate';

export class HoldBook {
  private readonly holds = new Map<string, HoldRecord>();

  /** The records a hold line makes, unless its ids are held already (the same batch translated again after a restart). */
  add(entry: HoldEntry): HoldRecord[] {
    if (entry.holds.some((h) => this.holds.has(h.id))) return [];
    const out: HoldRecord[] = [];
    const line = entry.holds.map((h) => h.id);
    for (const h of entry.holds) {
      const record: HoldRecord = {
        id: h.id,
        at: entry.at,
        node: entry.node,
        link: entry.link,
        message: entry.message,
        part: entry.part,
        kind: h.kind,
        code: h.code,
        results: h.results,
        samples: [...new Set(h.results.map((r) => sampleOf(r.result)).filter((s) => s !== ''))],
        msg: entry.msg,
        line,
        state: 'open',
        updatedAt: entry.at,
        by: undefined,
        note: undefined,
      };
      this.holds.set(h.id, record);
      out.push(record);
    }
    return out;
  }

  has(id: string): boolean {
    return this.holds.has(id);
  }

  get(id: string): HoldRecord | undefined {
    return this.holds.get(id);
  }

  /** A person's action, as read back or just written. */
  acted(id: string, action: HoldAction, by: string, at: number, note?: string): void {
    const h = this.holds.get(id);
    if (!h || h.state === 'sent' || h.state === 'dismissed') return;
    h.state = action === 'send' ? 'sending' : action === 'evaluate' ? 'sent' : 'dismissed';
    if (action === 'evaluate') {
      h.results = [];
      h.msg = {};
    }
    h.by = by;
    h.note = note;
    h.updatedAt = at;
  }

  /** A batch was written: when it is a hold's, the hold is sent (its results leave memory; the batch has them now). */
  batchWritten(key: string, at: number): void {
    if (!key.startsWith(HOLD_BATCH_PREFIX)) return;
    const h = this.holds.get(key.slice(HOLD_BATCH_PREFIX.length));
    if (!h || h.state === 'dismissed') return;
    h.state = 'sent';
    h.updatedAt = at;
    h.results = [];
    h.msg = {};
  }

  /** After reading the file: a send that never reached its batch is open again. */
  reopenUnsent(): void {
    for (const h of this.holds.values()) if (h.state === 'sending') h.state = 'open';
  }

  /** Holds waiting for a person (open, or being sent now), oldest first. */
  waiting(): HoldRecord[] {
    return [...this.holds.values()].filter((h) => h.state === 'open' || h.state === 'sending').sort((a, b) => a.at - b.at);
  }

  all(): IterableIterator<HoldRecord> {
    return this.holds.values();
  }

  /**
   * Ended holds last changed before `cutoff` whose line can go: what compaction drops. A hold whose line stays (a
   * sibling still open, or younger) stays too, or reading that line again would bring it back open.
   */
  endedBefore(cutoff: number): Set<string> {
    const gone = (id: string) => {
      const h = this.holds.get(id);
      return h === undefined || ((h.state === 'sent' || h.state === 'dismissed') && h.updatedAt < cutoff);
    };
    const out = new Set<string>();
    for (const h of this.holds.values()) if (h.line.every(gone)) out.add(h.id);
    return out;
  }

  drop(ids: ReadonlySet<string>): void {
    for (const id of ids) this.holds.delete(id);
  }
}

function sampleOf(result: unknown): string {
  const s = (result as { SampleNumber?: unknown } | null)?.SampleNumber;
  return typeof s === 'string' ? s : '';
}

/** A mapper's rejections as holds, one per kind and code, in the order first seen; ids from `idBase` (a batch's message and part). */
export function holdsFor(rejected: ReadonlyArray<{ result: unknown; reason: string; kind: HoldKind; code: string; correction?: CorrectionInfo }>, idBase: string): NewHold['holds'] {
  const byKey = new Map<string, NewHold['holds'][number]>();
  for (const r of rejected) {
    const id = `${idBase}:${r.kind}:${r.code}`;
    let h = byKey.get(id);
    if (!h) byKey.set(id, (h = { id, kind: r.kind, code: r.code, results: [] }));
    h.results.push({ result: r.result, reason: r.reason, ...(r.correction ? { correction: r.correction } : {}) });
  }
  return [...byKey.values()];
}

/** The hold line for a batch's rejected results: ids from its message and part when journaled (so a replay holds them once), else fresh. */
export function holdEntryFor(input: {
  node: string;
  link: string | undefined;
  origin: { message: string; part: number } | undefined;
  endsPart: boolean;
  /** The rest of the flow's message, JSON-safe (contextOf). */
  msg: Record<string, unknown>;
  rejected: ReadonlyArray<{ result: unknown; reason: string; kind: HoldKind; code: string }>;
}): NewHold {
  const { origin } = input;
  return {
    node: input.node,
    ...(input.link !== undefined ? { link: input.link } : {}),
    ...(origin ? { message: origin.message, part: origin.part, endsPart: input.endsPart } : {}),
    msg: input.msg,
    holds: holdsFor(input.rejected, origin ? `${origin.message}#${origin.part}` : `${input.node}:${randomUUID()}`),
  };
}
