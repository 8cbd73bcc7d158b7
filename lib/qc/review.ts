/**
 * Patient results sent since a test's last good control: what a rejected run
 * cannot recall from the LIS, so it lists them for review. Per analyzer × test,
 * the results the QC gate let through since its last good run; a rejected run
 * takes that list as its own (the event's review list) and the next list
 * starts empty; a good run empties the list; accepting the event drops its
 * list (the acceptance records how many it covered).
 *
 * On disk in review.jsonl beside the QC store, read whole at start and
 * compacted there to the lines still in a list.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { AppendLog } from '../journal/append-log';

/** One patient result sent: its sample, its batch key, when the gate let it through. */
export interface SentResult {
  sample: string;
  key: string;
  at: number;
}

/** A list holds at most this many; beyond it only the count grows (a person reviews by the first ones and the count). */
export const REVIEW_CAP = 5000;

const LineSchema = z.discriminatedUnion('e', [
  z.object({ e: z.literal('sent'), a: z.string(), t: z.string(), s: z.string(), k: z.string(), at: z.number() }),
  z.object({ e: z.literal('good'), a: z.string(), t: z.string(), at: z.number() }),
  z.object({ e: z.literal('frozen'), a: z.string(), t: z.string(), r: z.string(), at: z.number() }),
  z.object({ e: z.literal('done'), a: z.string(), t: z.string(), r: z.string(), at: z.number() }),
]);
type Line = z.infer<typeof LineSchema>;

interface List {
  items: SentResult[];
  /** Results beyond REVIEW_CAP: counted, not listed. */
  more: number;
  seen: Set<string>;
}

const SEP = '\u0000';
const emptyList = (): List => ({ items: [], more: 0, seen: new Set() });

export class ReviewBook {
  private readonly log: AppendLog;
  private readonly since = new Map<string, List>();
  private readonly frozen = new Map<string, List>();

  constructor(dir: string) {
    this.log = new AppendLog(join(dir, 'review.jsonl'));
  }

  async open(): Promise<void> {
    const { lines } = await this.log.open();
    for (const text of lines) {
      const line = parse(text);
      if (line) this.apply(line);
    }
    // What no list holds any more (emptied by a good run, an accepted event) leaves the file.
    const live = new Set<string>();
    for (const [k, l] of [...this.since, ...this.frozen]) for (const i of l.items) live.add(k.split(SEP).slice(0, 2).join(SEP) + SEP + i.key + SEP + i.sample);
    if (lines.length > 2 * live.size + 100) {
      await this.log.compact((text) => {
        const line = parse(text);
        if (!line) return false;
        if (line.e === 'sent') return live.has(line.a + SEP + line.t + SEP + line.k + SEP + line.s);
        if (line.e === 'frozen') return this.frozen.has(line.a + SEP + line.t + SEP + line.r);
        return false;
      });
    }
  }

  /** Patient results the gate let through; a repeat (a message replayed after a restart) is noted once. */
  sent(analyzer: string, test: string, results: readonly SentResult[]): Promise<void> {
    const lines: Line[] = [];
    for (const r of results) {
      const line: Line = { e: 'sent', a: analyzer, t: test, s: r.sample, k: r.key, at: r.at };
      if (this.apply(line)) lines.push(line);
    }
    return this.write(lines);
  }

  /** A good run: the list starts again. */
  good(analyzer: string, test: string, at: number): Promise<void> {
    const list = this.since.get(analyzer + SEP + test);
    if (!list || (list.items.length === 0 && list.more === 0)) return Promise.resolve();
    const line: Line = { e: 'good', a: analyzer, t: test, at };
    this.apply(line);
    return this.write([line]);
  }

  /** A rejected run takes the list as its review list (once). */
  rejected(analyzer: string, test: string, run: string, at: number): Promise<void> {
    if (this.frozen.has(analyzer + SEP + test + SEP + run)) return Promise.resolve();
    const line: Line = { e: 'frozen', a: analyzer, t: test, r: run, at };
    this.apply(line);
    return this.write([line]);
  }

  /** The event was accepted: its list is reviewed. */
  done(analyzer: string, test: string, run: string, at: number): Promise<void> {
    if (!this.frozen.has(analyzer + SEP + test + SEP + run)) return Promise.resolve();
    const line: Line = { e: 'done', a: analyzer, t: test, r: run, at };
    this.apply(line);
    return this.write([line]);
  }

  /** The results a rejected run lists for review, and how many more beyond them. */
  forEvent(analyzer: string, test: string, run: string): { items: SentResult[]; more: number } {
    const l = this.frozen.get(analyzer + SEP + test + SEP + run);
    return { items: l ? [...l.items] : [], more: l?.more ?? 0 };
  }

  /** The results sent since the test's last good run, so far. */
  current(analyzer: string, test: string): { items: SentResult[]; more: number } {
    const l = this.since.get(analyzer + SEP + test);
    return { items: l ? [...l.items] : [], more: l?.more ?? 0 };
  }

  close(): Promise<void> {
    return this.log.close();
  }

  /** False when the line changes nothing (a result noted already). */
  private apply(line: Line): boolean {
    const at = line.a + SEP + line.t;
    if (line.e === 'sent') {
      let l = this.since.get(at);
      if (!l) this.since.set(at, (l = emptyList()));
      const id = line.k + SEP + line.s;
      if (l.seen.has(id) || [...this.frozenOf(at)].some((f) => f.seen.has(id))) return false;
      l.seen.add(id);
      if (l.items.length < REVIEW_CAP) l.items.push({ sample: line.s, key: line.k, at: line.at });
      else l.more++;
    } else if (line.e === 'good') {
      this.since.delete(at);
    } else if (line.e === 'frozen') {
      this.frozen.set(at + SEP + line.r, this.since.get(at) ?? emptyList());
      this.since.delete(at);
    } else {
      this.frozen.delete(at + SEP + line.r);
    }
    return true;
  }

  private *frozenOf(at: string): Iterable<List> {
    for (const [k, l] of this.frozen) if (k.startsWith(at + SEP)) yield l;
  }

  private async write(lines: readonly Line[]): Promise<void> {
    await Promise.all(lines.map((l) => this.log.append(JSON.stringify(l))));
  }
}

function parse(text: string): Line | undefined {
  try {
    const r = LineSchema.safeParse(JSON.parse(text));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}
