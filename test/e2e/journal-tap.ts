/**
 * Aimed kills: SIGKILL to Node-RED the moment its result journal gets a line
 * that marks the window a crash test aims at (a received message stored, a
 * replay mark, a batch journaled as sending).
 *
 * The journal's directory is watched through inotify (fs.watch), and the kill
 * is sent synchronously from inside the watch callback: Node-RED appends a
 * line with write() and only takes its next step (the final ACK, passing the
 * message on, sending the request) after the fdatasync that follows, so the
 * process dies with the line in the file (the kernel keeps what was written)
 * and the next step not taken, or at most begun.
 */
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync, watch } from 'node:fs';
import { basename, dirname } from 'node:path';

/** One journal line as written (entries.ts): only the fields the aims look at are typed. */
export interface JournalLine {
  e: string;
  id?: string;
  key?: string;
  message?: string;
  part?: number;
  parts?: number;
  replayed?: boolean;
  state?: string;
  data?: string;
  [field: string]: unknown;
}

/** What an aimed kill fired on. */
export interface Fired {
  line: JournalLine;
  /** performance.now() when the line was seen, and how long the kill took after that (ms). */
  seenAt: number;
  killMs: number;
}

export interface Killable {
  readonly journalFile: string;
  killNow(): void;
}

export interface JournalTap {
  /** True once the kill was sent (Node-RED's start may then fail: it was killed on purpose). */
  readonly fired: boolean;
  /** The line that triggered the kill, or undefined when none came within the time limit (the window was missed). */
  readonly result: Promise<Fired | undefined>;
  /** Stops watching without killing. */
  cancel(): void;
}

/**
 * Arms a kill for the first line appended from now on that `match` accepts.
 * Lines already in the file are not candidates, even when Node-RED rewrites
 * the file at start (a torn tail cut off, a compaction): the text of every
 * line present when armed is remembered and skipped if it is read again.
 */
export function killOnJournalLine(red: Killable, match: (line: JournalLine) => boolean, timeoutMs: number): JournalTap {
  const file = red.journalFile;
  const dir = dirname(file);
  const name = basename(file);
  // What is there now, read once: the offset is what was read, so a line appended meanwhile is not skipped.
  const existing = existsSync(file) ? readFileSync(file) : Buffer.alloc(0);
  let ino = existsSync(file) ? statSync(file).ino : -1;
  let offset = existing.length;
  const present = existing.toString('utf8').split('\n');
  // A line can arrive in two writes' worth of events: the incomplete end waits for the rest.
  let tail = present.pop() ?? '';
  const before = new Set(present.filter((l) => l !== ''));
  let fired = false;
  let finish: (value: Fired | undefined) => void = () => undefined;
  const result = new Promise<Fired | undefined>((resolve) => (finish = resolve));

  const check = (): void => {
    if (fired) return;
    const seenAt = performance.now();
    let st: ReturnType<typeof statSync>;
    try {
      st = statSync(file);
    } catch {
      return; // not created yet, or being renamed over by a compaction
    }
    if (st.ino !== ino || st.size < offset) {
      // Replaced (compaction renames a new file over it) or truncated (a torn tail cut off at open): read it again whole.
      ino = st.ino;
      offset = 0;
      tail = '';
    }
    if (st.size === offset) return;
    const buf = Buffer.alloc(st.size - offset);
    const fd = openSync(file, 'r');
    try {
      readSync(fd, buf, 0, buf.length, offset);
    } finally {
      closeSync(fd);
    }
    offset = st.size;
    const lines = (tail + buf.toString('utf8')).split('\n');
    tail = lines.pop() ?? '';
    for (const text of lines) {
      if (text === '' || before.has(text)) continue;
      let line: JournalLine;
      try {
        line = JSON.parse(text) as JournalLine;
      } catch {
        continue;
      }
      if (!match(line)) continue;
      red.killNow();
      fired = true;
      stop();
      finish({ line, seenAt, killMs: performance.now() - seenAt });
      return;
    }
  };

  // The directory, not the file: the file may not exist yet, and a compaction replaces it by rename.
  const watcher = watch(dir, (_event, changed) => {
    if (changed === name) check();
  });
  const timer = setTimeout(() => {
    stop();
    finish(undefined);
  }, timeoutMs);
  function stop(): void {
    clearTimeout(timer);
    watcher.close();
  }
  // Whatever was appended between reading `before` and the watch starting is looked at now.
  check();
  return {
    get fired() {
      return fired;
    },
    result,
    cancel: () => {
      stop();
      finish(undefined);
    },
  };
}
