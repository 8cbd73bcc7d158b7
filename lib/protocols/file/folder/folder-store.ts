/**
 * A folder link's side of the result journal (what link-store.ts is to a
 * line): each file's bytes are stored, with its name and content hash, before
 * the file is handed on; a file whose content the journal already holds under
 * another name is stored as a repeat of it (settled at once, never handed on,
 * and on the record); and whether a taken file's results have all been
 * delivered, so the file may leave the folder.
 *
 * The journal is the memory: after a restart, a file still in the folder is
 * recognised by its hash, and what was handed on but never settled is replayed
 * by the link's journal glue (nodes/shared/link-journal.ts), not read again.
 */
import { randomUUID } from 'node:crypto';
import { isSettled, NOT_UNDERSTOOD, type ResultJournal } from '../../../journal/journal';
import type { FileFacts } from './options';

/** The journal's `end` of a message read from a file (a link's frames have their own). */
export const FILE_END = 'file';

export type TakeOutcome =
  /** Stored: hand it on. */
  | { kind: 'new'; id: string }
  /** The journal has this file (same name, same bytes, as a file or as a duplicate): stored before a restart, or a re-export of it. Not handed on again. */
  | { kind: 'known'; id: string }
  /** The same bytes came before under another name: stored as a repeat of that file, not handed on. */
  | { kind: 'duplicate'; id: string; of: string; ofName: string };

export type FileState =
  /** Its results have not all reached the LIS (not read yet, or a batch being sent or held for an operator). */
  | { kind: 'waiting'; held: boolean }
  /** Every result delivered (or discarded by an operator), or nothing in it for the LIS. */
  | { kind: 'done' }
  /** The message node could not read it (the journal's note says why). */
  | { kind: 'unreadable'; reason: string };

interface Original {
  id: string;
  name: string;
}

export class FolderStore {
  /** Content hash -> the first message stored with it. */
  private readonly byHash = new Map<string, Original>();
  /**
   * Hash and name -> the message that stored that file (an original or a
   * repeat): a file still in the folder after a restart is the same file, not
   * a duplicate of itself, whichever it was.
   */
  private readonly byFile = new Map<string, string>();

  constructor(
    private readonly journal: ResultJournal,
    /** The link's name in the journal (the folder-link node id). */
    private readonly link: string,
  ) {
    for (const m of journal.messagesOf(link)) {
      const hash = m.source?.hash;
      if (typeof hash !== 'string') continue;
      const name = String(m.source?.name ?? '');
      if (m.repeatOf === undefined && !this.byHash.has(hash)) this.byHash.set(hash, { id: m.id, name });
      if (!this.byFile.has(fileKey(hash, name))) this.byFile.set(fileKey(hash, name), m.id);
    }
  }

  /** Resolves once the journal holds the file (or knew it): only then may it be handed on. */
  async take(bytes: Buffer, facts: FileFacts): Promise<TakeOutcome> {
    const known = this.byFile.get(fileKey(facts.hash, facts.name));
    if (known !== undefined) return { kind: 'known', id: known };
    const original = this.byHash.get(facts.hash);
    const id = randomUUID();
    await this.journal.received(this.link, id, bytes, FILE_END, original?.id, { ...facts });
    this.byFile.set(fileKey(facts.hash, facts.name), id);
    if (original) return { kind: 'duplicate', id, of: original.id, ofName: original.name };
    this.byHash.set(facts.hash, { id, name: facts.name });
    return { kind: 'new', id };
  }

  /** The facts stored with a message, for its replay. */
  facts(id: string): FileFacts | undefined {
    const s = this.journal.message(id)?.source;
    if (s === undefined || typeof s.hash !== 'string' || typeof s.name !== 'string') return undefined;
    return { name: s.name, path: String(s.path ?? ''), size: Number(s.size ?? 0), mtime: String(s.mtime ?? ''), hash: s.hash };
  }

  state(id: string): FileState {
    const m = this.journal.message(id);
    // Dropped at compaction: settled past the retention time.
    if (!m || m.repeatOf !== undefined) return { kind: 'done' };
    if (!isSettled(m)) return { kind: 'waiting', held: m.stuck !== undefined };
    if (m.parts === 0 && m.note?.startsWith(NOT_UNDERSTOOD)) return { kind: 'unreadable', reason: m.note };
    for (const part of m.handed) {
      const b = this.journal.batch(`${id}#${part}`);
      if (b && b.state !== 'delivered' && b.state !== 'discarded') return { kind: 'waiting', held: b.state !== 'sending' };
    }
    return { kind: 'done' };
  }
}

function fileKey(hash: string, name: string): string {
  return `${hash}/${name}`;
}
