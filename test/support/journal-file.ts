/**
 * The result journal as a test sees it from outside: the file read back line
 * by line (what survives a crash), and entries written straight into a
 * journal directory before a runtime loads it (a process that stopped at a
 * chosen moment).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ResultJournal } from '../../lib/journal/journal';

export const JOURNAL_FILE = 'journal.jsonl';

export interface FileBatch {
  key: string;
  node: string;
  message?: string;
  part?: number;
  samples: string[];
  body: unknown;
  /** The last state written for the batch ("sending" when no outcome was written). */
  state: string;
  /** Every state written, oldest first (starting with "sending" for the tx line; age-warning marks left out). */
  history: string[];
  error?: { code: string; message: string; status?: number };
  notSent: boolean;
  warned: boolean;
}

export interface FileMessage {
  id: string;
  link: string;
  data: Buffer;
  parts?: number;
  replayed: boolean;
  note?: string;
}

export interface JournalFile {
  lines: Array<Record<string, unknown>>;
  messages: Map<string, FileMessage>;
  batches: Map<string, FileBatch>;
}

/** The journal file under `dir`, folded the way a restart would read it (without the sending -> uncertain step). */
export function readJournalFile(dir: string): JournalFile {
  const file = join(dir, JOURNAL_FILE);
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const lines = text
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const messages = new Map<string, FileMessage>();
  const batches = new Map<string, FileBatch>();
  for (const e of lines) {
    switch (e.e) {
      case 'rx':
        messages.set(String(e.id), { id: String(e.id), link: String(e.link), data: Buffer.from(String(e.data), 'base64'), replayed: false });
        break;
      case 'rxu': {
        const m = messages.get(String(e.id));
        if (!m) break;
        if (typeof e.parts === 'number') m.parts = e.parts;
        if (e.replayed === true) m.replayed = true;
        if (typeof e.note === 'string') m.note = e.note;
        break;
      }
      case 'tx':
        batches.set(String(e.key), {
          key: String(e.key),
          node: String(e.node),
          ...(typeof e.message === 'string' ? { message: e.message } : {}),
          ...(typeof e.part === 'number' ? { part: e.part } : {}),
          samples: e.samples as string[],
          body: e.body,
          state: 'sending',
          history: ['sending'],
          notSent: false,
          warned: false,
        });
        break;
      case 'txu': {
        const b = batches.get(String(e.key));
        if (!b) break;
        // An age-warning mark repeats the state it found: not a change of state.
        if (e.warned !== true || b.state !== String(e.state)) b.history.push(String(e.state));
        b.state = String(e.state);
        if (e.error) b.error = e.error as FileBatch['error'];
        else delete b.error;
        b.notSent = e.notSent === true;
        b.warned = e.warned === true;
        break;
      }
    }
  }
  return { lines, messages, batches };
}

/** Opens the journal in `dir` the way the nodes do, lets `write` add to it, and closes it again. `now` dates what is written. */
export async function writeJournal(dir: string, write: (journal: ResultJournal) => Promise<void>, now?: () => number): Promise<void> {
  const journal = await ResultJournal.open({ file: join(dir, JOURNAL_FILE), retentionMs: 30 * 24 * 60 * 60_000, ...(now ? { now } : {}) });
  try {
    await write(journal);
  } finally {
    await journal.close();
  }
}
