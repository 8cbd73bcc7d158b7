/**
 * Watches one folder by listing it every poll interval (network shares do not
 * deliver change events reliably, so none are used), and takes each complete
 * file exactly once:
 *
 *   seen -> still for the settle time (or its marker) -> read -> unchanged
 *   while read -> stored in the journal by content hash -> handed on -> its
 *   results delivered -> unchanged since it was taken -> moved to done/ (or
 *   kept and remembered)
 *
 * A file that changes while it is read is read again once it is still: a torn
 * copy is never stored. A file that cannot be taken (unreadable, too big, not
 * understood by the message node) goes to error/ with `<name>.reason.txt`. The
 * same bytes under another name are stored as a repeat and not handed on.
 * Plain TypeScript over node:fs; the node (nodes/folder-link.ts) is the adapter.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { extname, join } from 'node:path';
import { messageOf } from '../../../errors';
import { globMatcher } from './glob';
import { DONE_DIR, ERROR_DIR, isMarker, isPartialOrHidden, markerNames, REASON_SUFFIX } from './names';
import type { FileFacts, FolderOptions } from './options';
import { type FolderStore, type TakeOutcome } from './folder-store';
import { type Observed, sameLook, SettleTracker } from './settle';

/** A file stored in the journal, to hand on. */
export interface TakenFile {
  id: string;
  bytes: Buffer;
  facts: FileFacts;
}

export type Finished = 'done' | 'kept' | 'error';

export interface FolderEvents {
  /** A new file, stored: hand it on (its results come back through the journal). */
  file(file: TakenFile): void;
  /** The same bytes as an earlier file: stored as its repeat, not handed on. */
  duplicate(facts: FileFacts, of: { id: string; name: string }): void;
  /** A file left the watch: moved to done/ or error/, or kept in place; `reason` for error/. */
  finished(name: string, where: Finished, reason?: string): void;
  /** The folder can be listed (true) or not (false, with why): missing, not a folder, no permission. */
  folder(ok: boolean, why?: string): void;
  /** Something an operator must fix (a file that cannot be moved, the journal refusing a file). */
  problem(text: string, code: FolderProblem): void;
  /** What an operator may want to know, nothing to fix (a file read again because it changed). */
  warn(text: string): void;
  /** A poll ended: what waits now (status, Lab sidebar, metrics). */
  polled?(counts: FolderCounts): void;
}

export type FolderProblem = 'FILE_NOT_MOVED' | 'FILE_CHANGED' | 'JOURNAL';

interface Taken {
  id: string;
  facts: FileFacts;
  look: Observed;
}

export interface FolderCounts {
  /** Files seen and not yet complete. */
  settling: number;
  /** Files taken whose results have not all been delivered yet. */
  taken: number;
  /** Of those, held for an operator (a batch failed or uncertain, or the message stuck). */
  held: number;
}

export class FolderWatcher {
  private readonly tracker = new SettleTracker();
  private readonly taken = new Map<string, Taken>();
  /** Files not to look at again while they stay as they are: kept after delivery, or in error but not movable. */
  private readonly remembered = new Map<string, Observed>();
  private readonly matches: (name: string) => boolean;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private closed = false;
  private folderOk: boolean | undefined;
  private held = 0;

  constructor(
    private readonly options: FolderOptions,
    private readonly store: FolderStore,
    private readonly events: FolderEvents,
  ) {
    this.matches = globMatcher(options.pattern);
  }

  /** Polls now and then every poll interval, each poll after the previous one ended. */
  start(): void {
    const loop = (): void => {
      if (this.closed) return;
      // Whatever a poll meets is reported, never thrown: a rejection here would take Node-RED down.
      this.running = this.poll()
        .catch((err: unknown) => this.events.warn(`the folder ${this.options.folder} could not be looked at (${messageOf(err)}): tried again at the next poll`))
        .finally(() => {
          this.running = undefined;
          if (!this.closed) this.timer = setTimeout(loop, this.options.pollMs);
        });
    };
    loop();
  }

  /** Stops polling; resolves once a poll under way has ended (a file being stored is stored). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  get counts(): FolderCounts {
    return { settling: this.tracker.size, taken: this.taken.size, held: this.held };
  }

  /** One look at the folder (exported for tests, which pass their own clock to skip the settle time's wait). */
  async poll(now = Date.now()): Promise<void> {
    await this.scan(now);
    if (!this.closed) this.events.polled?.(this.counts);
  }

  private async scan(now: number): Promise<void> {
    const { folder } = this.options;
    let entries;
    try {
      entries = await fs.readdir(folder, { withFileTypes: true });
    } catch (err) {
      return this.setFolder(false, messageOf(err));
    }
    this.setFolder(true);
    const names = new Set(entries.filter((e) => e.isFile() || e.isSymbolicLink()).map((e) => e.name));
    const present = new Set<string>();
    for (const name of [...names].sort()) {
      if (this.closed) return;
      if (isPartialOrHidden(name) || isMarker(name, this.options.marker) || !this.matches(name)) continue;
      present.add(name);
      if (!this.taken.has(name)) await this.look(name, names, now);
    }
    this.tracker.keepOnly(present);
    for (const name of this.remembered.keys()) if (!present.has(name)) this.remembered.delete(name);
    this.held = 0;
    for (const [name, t] of [...this.taken]) {
      if (this.closed) return;
      await this.check(name, t);
    }
  }

  private setFolder(ok: boolean, why?: string): void {
    if (this.folderOk === ok) return;
    this.folderOk = ok;
    this.events.folder(ok, why);
  }

  private async look(name: string, names: ReadonlySet<string>, now: number): Promise<void> {
    const path = join(this.options.folder, name);
    let look: Observed;
    try {
      const st = await fs.stat(path);
      if (!st.isFile()) return;
      look = { size: st.size, mtimeMs: st.mtimeMs };
    } catch {
      return; // gone since the listing
    }
    const known = this.remembered.get(name);
    if (known && sameLook(known, look)) return;
    this.remembered.delete(name);
    if (this.options.after === 'keep' && now - look.mtimeMs > this.options.rememberMs) {
      // Kept files older than the journal's memory would be read again as new: left alone.
      this.remembered.set(name, look);
      this.events.warn(`${name} is older than the journal remembers (its retention): with "keep" it is not read; move it away or set "after" to move`);
      return;
    }
    if (look.size > this.options.maxBytes) {
      this.tracker.forget(name);
      return this.toError(name, look, `it is ${look.size} bytes, more than the largest file taken (${this.options.maxBytes} bytes; the setting Largest file)`);
    }
    const { marker } = this.options;
    const complete = marker !== '' ? markerNames(name, marker).some((m) => names.has(m)) : this.tracker.observe(name, look, now, this.options.settleMs);
    // An empty file is a file about to be written (some instruments create it at the run's start): never taken.
    if (!complete || look.size === 0) {
      if (marker !== '') this.tracker.observe(name, look, now, Infinity);
      return;
    }
    this.tracker.forget(name);
    await this.take(name, path, look, now);
  }

  private async take(name: string, path: string, look: Observed, now: number): Promise<void> {
    let bytes: Buffer;
    let after: Observed;
    try {
      bytes = await fs.readFile(path);
      const st = await fs.stat(path);
      after = { size: st.size, mtimeMs: st.mtimeMs };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return this.events.warn(`${name} vanished before it could be read: nothing was taken`);
      return this.toError(name, look, code === 'EACCES' || code === 'EPERM' ? `it cannot be read: permission denied (${code}); give the Node-RED user read access to it` : `it cannot be read: ${messageOf(err)}`);
    }
    if (bytes.length !== look.size || !sameLook(look, after)) {
      // Still being written (or rewritten): never store a torn copy. Read again once it is still.
      this.tracker.observe(name, after, now, this.options.settleMs);
      this.events.warn(`${name} changed while it was read (${look.size} -> ${after.size} bytes): it is read again once it stays the same`);
      return;
    }
    const facts: FileFacts = { name, path, size: bytes.length, mtime: new Date(look.mtimeMs).toISOString(), hash: sha256(bytes) };
    let outcome: TakeOutcome;
    try {
      outcome = await this.store.take(bytes, facts);
    } catch (err) {
      // Not in the journal: not taken; the next polls try again.
      return this.events.problem(`${name} could not be stored in the result journal (${messageOf(err)}): it stays in the folder and is tried again`, 'JOURNAL');
    }
    this.taken.set(name, { id: outcome.id, facts, look });
    if (outcome.kind === 'new') this.events.file({ id: outcome.id, bytes, facts });
    else if (outcome.kind === 'duplicate') this.events.duplicate(facts, { id: outcome.of, name: outcome.ofName });
  }

  /** A taken file whose results are all delivered leaves the folder (or is remembered), unless it changed since it was taken. */
  private async check(name: string, t: Taken): Promise<void> {
    const state = this.store.state(t.id);
    if (state.kind === 'waiting') {
      if (state.held) this.held++;
      return;
    }
    const path = join(this.options.folder, name);
    let bytes: Buffer;
    let look: Observed;
    try {
      const st = await fs.stat(path);
      look = { size: st.size, mtimeMs: st.mtimeMs };
      bytes = await fs.readFile(path);
    } catch (err) {
      this.taken.delete(name);
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return this.events.warn(`${name} left the folder before it could be moved (its content is in the journal)`);
      return this.events.problem(`${name} could not be read again before it is moved (${messageOf(err)}): left where it is`, 'FILE_NOT_MOVED');
    }
    if (!sameLook(t.look, look) || sha256(bytes) !== t.facts.hash) {
      this.taken.delete(name);
      this.events.problem(
        `${name} changed after it was taken (${t.look.size} bytes then, ${look.size} now): the version taken (journal ${t.id}) went on as it was; the new version is read as a new file once it stays the same (file-message sends none of its values delivered already, and holds changed ones as corrections). Set a marker, or a longer settle time, if the instrument pauses while it writes`,
        'FILE_CHANGED',
      );
      return;
    }
    this.taken.delete(name);
    if (state.kind === 'unreadable') return this.toError(name, look, state.reason);
    if (this.options.after === 'keep') {
      this.remembered.set(name, look);
      return this.events.finished(name, 'kept');
    }
    try {
      await this.moveInto(DONE_DIR, name);
      this.events.finished(name, 'done');
    } catch (err) {
      this.remembered.set(name, look);
      this.events.problem(`${name}: its results were delivered, but it could not be moved to ${DONE_DIR}/ (${messageOf(err)}); it stays where it is and is not read again while it is unchanged`, 'FILE_NOT_MOVED');
    }
  }

  private async toError(name: string, look: Observed, reason: string): Promise<void> {
    try {
      await this.moveInto(ERROR_DIR, name, reason);
      this.events.finished(name, 'error', reason);
    } catch (err) {
      this.remembered.set(name, look);
      this.events.finished(name, 'error', reason);
      this.events.problem(`${name} could not be moved to ${ERROR_DIR}/ (${messageOf(err)}): it stays where it is and is not read again while it is unchanged`, 'FILE_NOT_MOVED');
    }
  }

  /** Moves a file (and its marker) into a subfolder, under a free name; with `reason`, writes `<name>.reason.txt` beside it first. */
  private async moveInto(dir: string, name: string, reason?: string): Promise<void> {
    const target = join(this.options.folder, dir);
    await fs.mkdir(target, { recursive: true });
    const free = await freeName(target, name);
    if (reason !== undefined) await fs.writeFile(join(target, free + REASON_SUFFIX), `${new Date().toISOString()}\n${name}: ${reason}\n`);
    await fs.rename(join(this.options.folder, name), join(target, free));
    for (const m of markerNames(name, this.options.marker)) {
      await fs.rename(join(this.options.folder, m), join(target, await freeName(target, m))).catch(() => undefined);
    }
  }
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** `name`, or `stem.2.ext`, `stem.3.ext` ...: an instrument reuses names (run.csv every day), and done/ keeps each. */
async function freeName(dir: string, name: string): Promise<string> {
  const ext = extname(name);
  const stem = ext === '' ? name : name.slice(0, -ext.length);
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? name : `${stem}.${n}${ext}`;
    try {
      await fs.access(join(dir, candidate));
    } catch {
      try {
        await fs.access(join(dir, candidate + REASON_SUFFIX));
      } catch {
        return candidate;
      }
    }
  }
}
