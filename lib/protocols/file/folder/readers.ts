/**
 * One file, one reader: which folder links of this process read which real
 * folders, so no two of them take one file (each would deliver its results).
 * Links on one folder are fine when their patterns cannot take one name
 * (globsOverlap: `*.csv` and `*.txt`); otherwise the link that holds the
 * folder keeps it and the other is refused, taking nothing. Among links
 * started together, the one started first holds it: a link's first claim
 * waits until every link started before it has made its own (a few seconds
 * at most: a share that hangs holds up no other folder's link for longer).
 *
 * Across processes, the folder's lock file (folder-lock.ts) is held while any
 * link of this process reads the folder.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { FolderLock, type LockOwner } from './folder-lock';
import { globsOverlap } from './glob';

export interface FolderReader {
  /** The link's node id, and its name for the operator. */
  id: string;
  label: string;
  pattern: string;
}

/** Why a link may not read its folder now. */
export type FolderClash =
  /** Another link of this process reads it, with a pattern that may take the same names. */
  | { kind: 'link'; folder: string; holder: FolderReader }
  /** Another process holds the folder's lock (`by` undefined: a lock file that is not one of ours). */
  | { kind: 'process'; folder: string; by: LockOwner | undefined };

export interface FolderHold {
  clash?: FolderClash;
  /** Set when the folder can hold no lock file (not writable): read without one. */
  unlocked?: string;
}

interface Entered {
  reader: FolderReader;
  tried: Promise<void>;
  done: () => void;
}

export class FolderReaders {
  private readonly entered: Entered[] = [];
  private readonly folders = new Map<string, { readers: FolderReader[]; lock: FolderLock }>();

  constructor(
    private readonly me: Omit<LockOwner, 'since'> = { host: hostname(), pid: process.pid, token: randomUUID() },
    private readonly isRunning?: (pid: number) => boolean,
  ) {}

  /** A link starts: its place in the order of claims. */
  enter(reader: FolderReader): void {
    void this.release(reader.id);
    let done = () => undefined as void;
    const tried = new Promise<void>((resolve) => (done = resolve));
    this.entered.push({ reader, tried, done });
  }

  /**
   * The link reads `folder` (a real path) now, or cannot list its folder
   * (undefined): its claim, granted or refused. Called at every poll.
   */
  async hold(id: string, folder: string | undefined, now: number): Promise<FolderHold> {
    const at = this.entered.findIndex((e) => e.reader.id === id);
    if (at < 0) return {};
    const me = this.entered[at]!;
    await within(Promise.all(this.entered.slice(0, at).map((e) => e.tried)), EARLIER_WAIT_MS);
    try {
      for (const [f, shared] of this.folders) if (f !== folder && shared.readers.some((r) => r.id === id)) await this.leave(f, id);
      if (folder === undefined) return {};
      let shared = this.folders.get(folder);
      if (!shared) this.folders.set(folder, (shared = { readers: [], lock: new FolderLock(folder, this.me, this.isRunning) }));
      if (!shared.readers.some((r) => r.id === id)) {
        const holder = shared.readers.find((r) => globsOverlap(r.pattern, me.reader.pattern));
        if (holder) return { clash: { kind: 'link', folder, holder } };
        shared.readers.push(me.reader);
      }
      const lock = await shared.lock.hold(now);
      if ('unlockable' in lock) return { unlocked: lock.unlockable };
      return lock.held ? {} : { clash: { kind: 'process', folder, by: lock.by } };
    } finally {
      me.done();
    }
  }

  /** The link stopped (closed, redeployed, removed): resolves once its folder's lock is gone, when it was the last reader. */
  async release(id: string): Promise<void> {
    const at = this.entered.findIndex((e) => e.reader.id === id);
    if (at >= 0) this.entered.splice(at, 1)[0]!.done();
    await Promise.all([...this.folders].filter(([, shared]) => shared.readers.some((r) => r.id === id)).map(([f]) => this.leave(f, id)));
  }

  private async leave(folder: string, id: string): Promise<void> {
    const shared = this.folders.get(folder);
    if (!shared) return;
    shared.readers = shared.readers.filter((r) => r.id !== id);
    if (shared.readers.length > 0) return;
    this.folders.delete(folder);
    await shared.lock.release();
  }
}

/** How long a link's claim waits for the links started before it to make theirs. */
const EARLIER_WAIT_MS = 5000;

async function within(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms).unref()))]);
  clearTimeout(timer);
}

/** This process's registry, shared by every folder link in it. */
export const folderReaders = new FolderReaders();
