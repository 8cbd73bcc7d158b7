/**
 * One journal per file for the whole Node-RED process: the astm-link,
 * astm-message and lis-send-results nodes that use the same file share one
 * open journal, so its in-memory state is never split. It stays open across
 * redeploys (nodes come and go; what they wrote must not be re-read each time)
 * and is compacted at start and once a day.
 */
import { ResultJournal } from './journal';

const DAY_MS = 24 * 60 * 60_000;

interface Shared {
  opening: Promise<ResultJournal>;
  timer: NodeJS.Timeout | undefined;
}

const open = new Map<string, Shared>();

export interface JournalSettings {
  file: string;
  retentionMs: number;
}

/** The process's journal for `settings.file`, opened (and compacted) on first use. */
export function journalAt(settings: JournalSettings): Promise<ResultJournal> {
  const known = open.get(settings.file);
  if (known) return known.opening;
  const shared: Shared = { opening: openAndCompact(settings), timer: undefined };
  open.set(settings.file, shared);
  shared.opening.then(
    (journal) => {
      shared.timer = setInterval(() => void journal.compact().catch(() => undefined), DAY_MS);
      shared.timer.unref();
    },
    // A journal that could not open is forgotten, so the next deploy tries again.
    () => open.delete(settings.file),
  );
  return shared.opening;
}

async function openAndCompact(settings: JournalSettings): Promise<ResultJournal> {
  const journal = await ResultJournal.open({ file: settings.file, retentionMs: settings.retentionMs });
  await journal.compact();
  return journal;
}

/** The journal of `file` when something already opened it (or is opening it): looking must not create one. */
export function openedJournal(file: string): Promise<ResultJournal> | undefined {
  return open.get(file)?.opening;
}

/** Closes every journal (tests that start several runtimes in one process, and process exit). */
export async function closeAllJournals(): Promise<void> {
  const all = [...open.values()];
  open.clear();
  for (const s of all) {
    if (s.timer) clearInterval(s.timer);
    await s.opening.then((j) => j.close()).catch(() => undefined);
  }
}
