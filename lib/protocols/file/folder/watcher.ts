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
 * Nothing outside the folder is read (open-file.ts): a symbolic link is never
 * followed, but left where it is and reported once, as a file not taken.
 * Names are kept as the bytes the folder holds (byte-names.ts): a name that
 * is not UTF-8 is taken like any other. With a claim (readers.ts), nothing is
 * taken while another link or process reads the folder for the same names.
 * Plain TypeScript over node:fs; the node (nodes/folder-link.ts) is the adapter.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { extname, join, sep } from 'node:path';
import { messageOf } from '../../../errors';
import { fitName, shownName } from './byte-names';
import { globMatcher } from './glob';
import { DONE_DIR, ERROR_DIR, isMarker, isPartialOrHidden, markerNames, REASON_SUFFIX } from './names';
import type { FileFacts, FolderOptions } from './options';
import { type FolderStore, type TakeOutcome } from './folder-store';
import { type FolderRead, lookOf, readInFolder, type Refusal } from './open-file';
import type { FolderClash, FolderReader, FolderReaders } from './readers';
import { endsMidLine } from './line-end';
import { type Observed, sameLook, SettleTracker } from './settle';

/** How long a file that ends mid-line must stay the same before it is taken whole: this many settle times, and at least MIN_MID_LINE_MS. */
const MID_LINE_SETTLES = 5;
const MIN_MID_LINE_MS = 10_000;
/** How long a file moved to done/ is watched for growth: this many settle times, and at least MIN_MOVED_WATCH_MS. */
const MOVED_WATCH_SETTLES = 12;
const MIN_MOVED_WATCH_MS = 60_000;

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
  /** A file left in the folder and not taken (a symbolic link, a name that cannot be opened), said once while it stays as it is. */
  untaken(name: string, reason: string): void;
  /** A file left the watch: moved to done/ or error/, or kept in place; `reason` for error/. */
  finished(name: string, where: Finished, reason?: string): void;
  /** The folder can be listed (true) or not (false, with why): missing, not a folder, no permission. */
  folder(ok: boolean, why?: string): void;
  /** Something an operator must fix (a file that cannot be moved, the journal refusing a file). */
  problem(text: string, code: FolderProblem): void;
  /** What an operator may want to know, nothing to fix (a file read again because it changed). */
  warn(text: string): void;
  /** Another link or process reads the folder for the same names (nothing is taken), or no longer (undefined); said when it changes. */
  shared?(clash: FolderClash | undefined): void;
  /** A poll ended: what waits now (status, Lab sidebar, metrics). */
  polled?(counts: FolderCounts): void;
}

export type FolderProblem = 'FILE_NOT_MOVED' | 'FILE_CHANGED' | 'FILE_GREW_AFTER_MOVE' | 'JOURNAL';

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
  /** Files in the folder not taken, each reported once: links, names that cannot be opened. */
  untaken: number;
}

export class FolderWatcher {
  private readonly tracker = new SettleTracker();
  /** Files read while they ended mid-line: how they looked and since when, until they end a line or stay so long. */
  private readonly midLine = new Map<string, Observed & { since: number }>();
  /** Files moved to done/ lately, watched in case the instrument was still writing into them (by their name there). */
  private readonly moved = new Map<string, { name: string; raw: Buffer; look: Observed; until: number }>();
  private readonly taken = new Map<string, Taken>();
  /** Files not to look at again while they stay as they are: kept after delivery, or in error but not movable. */
  private readonly remembered = new Map<string, Observed>();
  /** Files reported as not taken, with how they looked then: reported again only once they change. */
  private readonly untaken = new Map<string, Observed>();
  /** The folder's real path, as of the last listing: no file is read whose real path is elsewhere. */
  private real = Buffer.alloc(0);
  /** Each name of the last listing as shown, and its bytes: every file operation uses the bytes. */
  private listing = new Map<string, Buffer>();
  private readonly matches: (name: string) => boolean;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private closed = false;
  private folderOk: boolean | undefined;
  private held = 0;
  private clash = '';
  private unlockedSaid = false;

  constructor(
    private readonly options: FolderOptions,
    private readonly store: FolderStore,
    private readonly events: FolderEvents,
    /** The registry the link claims its folder in, and how it is named there. */
    private readonly claim?: { readers: FolderReaders; reader: FolderReader },
  ) {
    this.matches = globMatcher(options.pattern);
    claim?.readers.enter(claim.reader);
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
    await this.claim?.readers.release(this.claim.reader.id);
  }

  get counts(): FolderCounts {
    return { settling: this.tracker.size, taken: this.taken.size, held: this.held, untaken: this.untaken.size };
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
      entries = await fs.readdir(folder, { withFileTypes: true, encoding: 'buffer' });
      this.real = await fs.realpath(folder, { encoding: 'buffer' });
    } catch (err) {
      await this.holdFolder(undefined, now);
      return this.setFolder(false, messageOf(err));
    }
    this.setFolder(true);
    if (!(await this.holdFolder(this.real.toString(), now))) return;
    this.listing = new Map(entries.filter((e) => e.isFile() || e.isSymbolicLink()).map((e) => [shownName(e.name), e.name]));
    const names = new Set(this.listing.keys());
    const present = new Set<string>();
    for (const name of [...names].sort()) {
      if (this.closed) return;
      if (isPartialOrHidden(name) || isMarker(name, this.options.marker) || !this.matches(name)) continue;
      present.add(name);
      if (!this.taken.has(name)) await this.look(name, names, now);
    }
    this.tracker.keepOnly(present);
    for (const seen of [this.remembered, this.untaken, this.midLine]) for (const name of seen.keys()) if (!present.has(name)) seen.delete(name);
    this.held = 0;
    for (const [name, t] of [...this.taken]) {
      if (this.closed) return;
      await this.check(name, t, now);
    }
    await this.watchMoved(names, now);
  }

  /**
   * An instrument still writing into a file when it was moved to done/ writes on into done/<name>, where nothing
   * reads it. A file that grows there within MOVED_WATCH_SETTLES settle times is moved back under its name, to be
   * read as its grown version (file-message sends only the values it did not deliver yet); when its name is taken in
   * the folder, it is reported, with what to do.
   */
  private async watchMoved(names: ReadonlySet<string>, now: number): Promise<void> {
    for (const [key, m] of [...this.moved]) {
      if (this.closed) return;
      const there = Buffer.concat([this.folderPath(DONE_DIR), m.raw]);
      const look = await this.lookAt(there);
      if (look === undefined || now > m.until) {
        this.moved.delete(key);
        continue;
      }
      if (sameLook(look, m.look)) continue;
      this.moved.delete(key);
      const shown = `${DONE_DIR}/${shownName(m.raw)}`;
      if (names.has(m.name)) {
        this.events.problem(`${m.name} grew after it was moved to ${shown} (${m.look.size} -> ${look.size} bytes): the instrument was still writing, and its new rows are not read; a file of that name is in the folder again, so move ${shown} back by hand once that one is done, and set a marker or a longer Still for`, 'FILE_GREW_AFTER_MOVE');
        continue;
      }
      try {
        await fs.rename(there, this.pathOf(m.name));
        this.events.warn(`${m.name} grew after it was moved to ${shown} (${m.look.size} -> ${look.size} bytes): the instrument was still writing; it is moved back and read as its grown version (only values not delivered yet are sent). Set a marker or a longer Still for`);
      } catch (err) {
        this.events.problem(`${m.name} grew after it was moved to ${shown} (${m.look.size} -> ${look.size} bytes) and could not be moved back (${messageOf(err)}): its new rows are not read; move it back into the folder by hand`, 'FILE_GREW_AFTER_MOVE');
      }
    }
  }

  /** Whether this link may read the folder (real path `folder`) now; a clash, or a folder that holds no lock, is said once. */
  private async holdFolder(folder: string | undefined, now: number): Promise<boolean> {
    if (!this.claim) return true;
    const hold = await this.claim.readers.hold(this.claim.reader.id, folder, now);
    if (hold.unlocked !== undefined && !this.unlockedSaid) {
      this.unlockedSaid = true;
      this.events.warn(`the folder ${this.options.folder} holds no lock file (${hold.unlocked}: this process may not write it): another Node-RED process watching it would take its files too`);
    }
    const clash = hold.clash === undefined ? '' : JSON.stringify(hold.clash);
    if (clash !== this.clash) {
      this.clash = clash;
      this.events.shared?.(hold.clash);
    }
    return hold.clash === undefined;
  }

  private setFolder(ok: boolean, why?: string): void {
    if (this.folderOk === ok) return;
    this.folderOk = ok;
    this.events.folder(ok, why);
  }

  /** The watched folder, or its subfolder `dir`, ending with the separator. */
  private folderPath(dir = ''): Buffer {
    return Buffer.from(join(this.options.folder, dir, sep));
  }

  /** The bytes of `name` as the folder holds it (a name need not be UTF-8). */
  private rawOf(name: string): Buffer {
    return this.listing.get(name) ?? Buffer.from(name);
  }

  private pathOf(name: string): Buffer {
    return Buffer.concat([this.folderPath(), this.rawOf(name)]);
  }

  private async look(name: string, names: ReadonlySet<string>, now: number): Promise<void> {
    const path = this.pathOf(name);
    let look: Observed;
    let link: boolean;
    try {
      const st = await fs.lstat(path);
      link = st.isSymbolicLink();
      if (!st.isFile() && !link) return;
      look = lookOf(st);
    } catch {
      return; // gone since the listing
    }
    const refused = this.untaken.get(name);
    if (refused && sameLook(refused, look)) return;
    this.untaken.delete(name);
    if (link) return this.notTaken(name, look, { kind: 'link' });
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

  private async take(name: string, path: Buffer, look: Observed, now: number): Promise<void> {
    let read: FolderRead;
    try {
      read = await readInFolder(path, this.real, look);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return this.events.warn(`${name} vanished before it could be read: nothing was taken`);
      return this.toError(name, look, code === 'EACCES' || code === 'EPERM' ? `it cannot be read: permission denied (${code}); give the Node-RED user read access to it` : `it cannot be read: ${messageOf(err)}`);
    }
    // Swapped for a link (or moved out) since it was looked at: the open refused it.
    if (read.kind === 'refused') return this.notTaken(name, (await this.lookAt(path)) ?? look, read.refusal);
    const after = read.kind === 'read' ? read.after : read.now;
    if (read.kind === 'changed' || read.bytes.length !== look.size || !sameLook(look, after)) {
      // Still being written (or rewritten): never store a torn copy. Read again once it is still.
      this.tracker.observe(name, after, now, this.options.settleMs);
      this.events.warn(`${name} changed while it was read (${look.size} -> ${after.size} bytes): it is read again once it stays the same`);
      return;
    }
    const bytes = read.bytes;
    if (this.options.marker === '' && this.endsTooSoon(name, bytes, look, now)) return;
    const facts: FileFacts = { name, path: join(this.options.folder, name), size: bytes.length, mtime: new Date(look.mtimeMs).toISOString(), hash: sha256(bytes) };
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

  /**
   * A text file whose last line has no line break while its others do is waited for (the instrument may be pausing
   * mid-line) until it ends its line, or stays the same for MID_LINE_SETTLES settle times: then it is taken whole.
   */
  private endsTooSoon(name: string, bytes: Buffer, look: Observed, now: number): boolean {
    if (!endsMidLine(bytes)) {
      this.midLine.delete(name);
      return false;
    }
    const known = this.midLine.get(name);
    const waitMs = Math.max(this.options.settleMs * MID_LINE_SETTLES, MIN_MID_LINE_MS);
    if (known !== undefined && sameLook(known, look)) {
      if (now - known.since >= waitMs) {
        this.midLine.delete(name);
        return false;
      }
    } else {
      if (known === undefined) this.events.warn(`${name} ends in the middle of a line: it is taken once it ends its line, or after it stays the same for ${Math.round(waitMs / 1000)} s (set a marker if the instrument pauses while it writes)`);
      this.midLine.set(name, { ...look, since: now });
    }
    // Looked at again at the next polls.
    this.tracker.observe(name, look, now, this.options.settleMs);
    return true;
  }

  /** A taken file whose results are all delivered leaves the folder (or is remembered), unless it changed since it was taken. */
  private async check(name: string, t: Taken, now: number): Promise<void> {
    const state = this.store.state(t.id);
    if (state.kind === 'waiting') {
      if (state.held) this.held++;
      return;
    }
    let read: FolderRead;
    try {
      read = await readInFolder(this.pathOf(name), this.real);
    } catch (err) {
      this.taken.delete(name);
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return this.events.warn(`${name} left the folder before it could be moved (its content is in the journal)`);
      return this.events.problem(`${name} could not be read again before it is moved (${messageOf(err)}): left where it is`, 'FILE_NOT_MOVED');
    }
    if (read.kind === 'refused') {
      this.taken.delete(name);
      return this.events.problem(`${name} is no longer the file taken (${refusalText(read.refusal)}): the version taken (journal ${t.id}) went on as it was; left where it is`, 'FILE_CHANGED');
    }
    const look = read.kind === 'read' ? read.before : read.now;
    if (read.kind === 'changed' || !sameLook(t.look, look) || sha256(read.bytes) !== t.facts.hash) {
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
      const raw = await this.moveInto(DONE_DIR, name);
      // A new version written over the name between the read above and the move went to done/ instead: back it goes.
      if (!(await this.movedIsTaken(raw, t))) return;
      this.moved.set(raw.toString('latin1'), { name, raw, look, until: now + Math.max(this.options.settleMs * MOVED_WATCH_SETTLES, MIN_MOVED_WATCH_MS) });
      this.events.finished(name, 'done');
    } catch (err) {
      this.remembered.set(name, look);
      this.events.problem(`${name}: its results were delivered, but it could not be moved to ${DONE_DIR}/ (${messageOf(err)}); it stays where it is and is not read again while it is unchanged`, 'FILE_NOT_MOVED');
    }
  }

  /** Whether done/<raw> holds the bytes taken; when not, it is moved back under its name (never over another file). */
  private async movedIsTaken(raw: Buffer, t: Taken): Promise<boolean> {
    const there = Buffer.concat([this.folderPath(DONE_DIR), raw]);
    const bytes = await fs.readFile(there).catch(() => undefined);
    if (bytes === undefined || sha256(bytes) === t.facts.hash) return true;
    const name = t.facts.name;
    try {
      // link, then unlink: unlike rename, link never replaces a file that took the name since.
      await fs.link(there, this.pathOf(name));
      await fs.unlink(there);
      this.events.warn(`${name} was written again while it was moved to ${DONE_DIR}/: the new version is back in the folder, to be read as a version of its own`);
    } catch (err) {
      this.events.problem(`${name} was written again while it was moved to ${DONE_DIR}/${shownName(raw)} and could not be moved back (${messageOf(err)}): that version is not read; move it back into the folder by hand`, 'FILE_GREW_AFTER_MOVE');
    }
    return false;
  }

  /** Leaves a file where it is, unread, and says why once (again only once it changes). */
  private notTaken(name: string, look: Observed, refusal: Refusal): void {
    this.tracker.forget(name);
    this.untaken.set(name, look);
    this.events.untaken(name, `${name} is not taken: ${refusalText(refusal)}`);
  }

  private async lookAt(path: Buffer): Promise<Observed | undefined> {
    return fs.lstat(path).then(lookOf, () => undefined);
  }

  private async toError(name: string, look: Observed, reason: string): Promise<void> {
    try {
      await this.moveInto(ERROR_DIR, name, reason);
      this.events.finished(name, 'error', reason);
    } catch (err) {
      // Not moved: never said to be in error/. It stays, said once, until it changes.
      this.remembered.set(name, look);
      this.events.problem(`${name} could not be moved to ${ERROR_DIR}/ (${messageOf(err)}), where it was to go because ${reason}: it stays where it is and is not read again while it is unchanged`, 'FILE_NOT_MOVED');
    }
  }

  /** Moves a file (and its marker) into a subfolder, under a free name; with `reason`, writes `<name>.reason.txt` beside it first. */
  /** Returns the name it got there. */
  private async moveInto(dir: string, name: string, reason?: string): Promise<Buffer> {
    const target = this.folderPath(dir);
    await fs.mkdir(target, { recursive: true });
    const free = await freeName(target, this.rawOf(name));
    const reasonFile = Buffer.concat([target, fitName(free, REASON_SUFFIX)]);
    if (reason !== undefined) await fs.writeFile(reasonFile, `${new Date().toISOString()}\n${name}: ${reason}\n`);
    try {
      await fs.rename(this.pathOf(name), Buffer.concat([target, free]));
    } catch (err) {
      if (reason !== undefined) await fs.rm(reasonFile, { force: true }).catch(() => undefined);
      throw err;
    }
    for (const m of markerNames(name, this.options.marker)) {
      if (this.listing.has(m)) await fs.rename(this.pathOf(m), Buffer.concat([target, await freeName(target, this.rawOf(m))])).catch(() => undefined);
    }
    return free;
  }
}

function refusalText(r: Refusal): string {
  switch (r.kind) {
    case 'link':
      return 'it is a symbolic link, and links are never followed (a link can bring in any file Node-RED may read); copy the file itself into the folder, or set Folder to the folder it is in';
    case 'not-a-file':
      return 'it is no regular file (a device, a pipe or a socket); remove it from the folder';
    case 'outside':
      return `its real path ${r.real} is outside the folder; copy the file itself into the folder`;
  }
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * `name`, or `stem.2.ext`, `stem.3.ext` ... (shortened to fit a name's length):
 * an instrument reuses names (run.csv every day), and done/ keeps each. `dir`
 * ends with the separator.
 */
async function freeName(dir: Buffer, name: Buffer): Promise<Buffer> {
  // Latin-1 maps each byte to one character and back: the extension is cut from the bytes as they are.
  const text = name.toString('latin1');
  const ext = extname(text);
  const stem = name.subarray(0, name.length - ext.length);
  const free = async (file: Buffer) => fs.access(Buffer.concat([dir, file])).then(() => false, () => true);
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? name : fitName(stem, Buffer.from(`.${n}${ext}`, 'latin1'));
    if ((await free(candidate)) && (await free(fitName(candidate, REASON_SUFFIX)))) return candidate;
  }
}
