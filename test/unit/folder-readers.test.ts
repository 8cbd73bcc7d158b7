/**
 * One file, one reader (lib/protocols/file/folder/readers.ts and
 * folder-lock.ts) over real temporary folders and a real journal: two folder
 * watchers whose real folders and patterns overlap (the second refused,
 * naming the first, taking nothing until the first stops), two with disjoint
 * patterns (both take theirs), which patterns overlap, and the folder's lock
 * file against another process (respected, said; taken over once stale).
 */
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ResultJournal } from '../../lib/journal/journal';
import { type FolderClash, FolderReaders, FolderStore, FolderWatcher, FOLDER_DEFAULTS, globsOverlap, LOCK_NAME, LOCK_STALE_MS, type TakenFile } from '../../lib/protocols/file';

const SETTLE = 5000;
const CSV = 'Sample,Test,Value\nS1,GLU,5.4\n';
let root: string;
let inbox: string;
let journal: ResultJournal;
const opened: FolderWatcher[] = [];

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'folder-readers-'));
  inbox = join(root, 'inbox');
  mkdirSync(inbox);
  journal = await ResultJournal.open({ file: join(root, 'journal', 'journal.jsonl'), retentionMs: 86_400_000 });
});
afterEach(async () => {
  for (const w of opened.splice(0)) await w.close();
  await journal.close();
  rmSync(root, { recursive: true, force: true });
});

const ME = { host: hostname(), pid: process.pid, token: 'this-process' };

function watcher(readers: FolderReaders, id: string, pattern: string, folder = inbox) {
  const seen = { files: [] as TakenFile[], clashes: [] as Array<FolderClash | undefined>, warnings: [] as string[] };
  const w = new FolderWatcher(
    { ...FOLDER_DEFAULTS, folder, pattern, settleMs: SETTLE, rememberMs: 86_400_000 },
    new FolderStore(journal, id),
    {
      file: (f) => seen.files.push(f),
      duplicate: () => undefined,
      finished: () => undefined,
      folder: () => undefined,
      problem: (text) => seen.warnings.push(text),
      untaken: (_name, text) => seen.warnings.push(text),
      warn: (text) => seen.warnings.push(text),
      shared: (clash) => seen.clashes.push(clash),
    },
    { readers, reader: { id, label: `link ${id}`, pattern } },
  );
  opened.push(w);
  return { w, seen };
}
const names = (files: TakenFile[]) => files.map((f) => f.facts.name).sort();

describe('which patterns may take one name', () => {
  it('tells apart only patterns whose every part ends in literal extensions none of the other has', () => {
    const apart: Array<[string, string]> = [['*.csv', '*.txt'], ['run_??.{csv,dat}', 'plate*.TXT;*.xls'], ['*.CSV', '*.xlsx']];
    const overlap: Array<[string, string]> = [['*.csv', 'run*.CSV'], ['*.{csv,txt}', '*.txt'], ['*', '*.csv'], ['', '*.txt'], ['*.c*', '*.txt'], ['{a.csv,b.txt}', '*.dat'], ['run*', 'run*.csv']];
    for (const [a, b] of apart) assert.equal(globsOverlap(a, b), false, `${a} / ${b}`);
    for (const [a, b] of overlap) {
      assert.equal(globsOverlap(a, b), true, `${a} / ${b}`);
      assert.equal(globsOverlap(b, a), true, `${b} / ${a}`);
    }
  });
});

describe('two links on one folder', () => {
  it('overlapping patterns on one real folder (one of them through a link to it): the second refused, naming the first, taking nothing; it takes over once the first stops', async () => {
    const readers = new FolderReaders(ME);
    const alias = join(root, 'share');
    symlinkSync(inbox, alias);
    const first = watcher(readers, 'first', '*.csv');
    const second = watcher(readers, 'second', 'run*.csv', alias);
    writeFileSync(join(inbox, 'run1.csv'), CSV);
    for (const t of [0, SETTLE, 2 * SETTLE]) await Promise.all([first.w.poll(t), second.w.poll(t)]);
    assert.deepEqual(names(first.seen.files), ['run1.csv']);
    assert.deepEqual(second.seen.files, [], 'nothing taken by the second');
    assert.deepEqual(second.seen.clashes, [{ kind: 'link', folder: realpathSync(inbox), holder: { id: 'first', label: 'link first', pattern: '*.csv' } }], 'said once, naming the first');
    assert.deepEqual(first.seen.clashes, []);
    await first.w.close();
    writeFileSync(join(inbox, 'run2.csv'), `${CSV}S2,GLU,6.1\n`);
    for (const t of [3 * SETTLE, 4 * SETTLE]) await second.w.poll(t);
    assert.equal(second.seen.clashes.at(-1), undefined, 'the clash is over');
    assert.ok(names(second.seen.files).includes('run2.csv'), 'the second reads the folder now');
  });

  it('disjoint patterns (*.csv and *.txt) on one folder: both take their own files', async () => {
    const readers = new FolderReaders(ME);
    const csv = watcher(readers, 'csv', '*.csv');
    const txt = watcher(readers, 'txt', '*.txt');
    writeFileSync(join(inbox, 'run1.csv'), CSV);
    writeFileSync(join(inbox, 'plate1.txt'), `${CSV}S3,GLU,7.0\n`);
    for (const t of [0, SETTLE]) await Promise.all([csv.w.poll(t), txt.w.poll(t)]);
    assert.deepEqual(names(csv.seen.files), ['run1.csv']);
    assert.deepEqual(names(txt.seen.files), ['plate1.txt']);
    assert.deepEqual([...csv.seen.clashes, ...txt.seen.clashes], []);
    const lock = JSON.parse(readFileSync(join(inbox, LOCK_NAME), 'utf8')) as Record<string, unknown>;
    assert.deepEqual({ host: lock.host, pid: lock.pid, token: lock.token }, ME, 'one lock for the process');
    await csv.w.close();
    assert.ok(existsSync(join(inbox, LOCK_NAME)), 'kept while a link of the process reads the folder');
    await txt.w.close();
    assert.ok(!existsSync(join(inbox, LOCK_NAME)), 'removed by the last');
  });
});

describe("the folder's lock against another process", () => {
  const lockOf = (owner: Record<string, unknown>) => writeFileSync(join(inbox, LOCK_NAME), JSON.stringify({ since: '2026-01-01T00:00:00.000Z', ...owner }));

  it("another host's lock is respected and said, and taken over once it has not changed for the stale time", async () => {
    lockOf({ host: 'lab-pc-2', pid: 4242, token: 'other' });
    const { w, seen } = watcher(new FolderReaders(ME), 'link', '*.csv');
    writeFileSync(join(inbox, 'run1.csv'), CSV);
    await w.poll(0);
    await w.poll(SETTLE);
    assert.deepEqual(seen.files, []);
    assert.deepEqual(seen.clashes, [{ kind: 'process', folder: realpathSync(inbox), by: { host: 'lab-pc-2', pid: 4242, token: 'other', since: '2026-01-01T00:00:00.000Z' } }]);
    await w.poll(LOCK_STALE_MS - 1);
    assert.equal(seen.clashes.length, 1, 'still respected just before the stale time');
    await w.poll(LOCK_STALE_MS);
    await w.poll(LOCK_STALE_MS + SETTLE);
    assert.equal(seen.clashes.at(-1), undefined);
    assert.deepEqual(names(seen.files), ['run1.csv']);
    assert.equal((JSON.parse(readFileSync(join(inbox, LOCK_NAME), 'utf8')) as { token: string }).token, ME.token);
  });

  it('a lock left on this host by a process that no longer runs is taken over at once', async () => {
    const ended = spawnSync(process.execPath, ['-e', '']).pid;
    lockOf({ host: ME.host, pid: ended, token: 'dead' });
    const { w, seen } = watcher(new FolderReaders(ME), 'link', '*.csv');
    writeFileSync(join(inbox, 'run1.csv'), CSV);
    await w.poll(0);
    await w.poll(SETTLE);
    assert.deepEqual(seen.clashes, []);
    assert.deepEqual(names(seen.files), ['run1.csv']);
  });
});
