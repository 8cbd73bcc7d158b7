/**
 * The folder link's lib (lib/protocols/file/folder) against real temporary
 * folders and a real journal: when a file is complete (settle time, marker),
 * which names are never taken, exactly once (a renamed duplicate, a restart
 * mid-file, a file that grows after it looked complete), done/ and error/ with
 * the reason, and what the journal holds. Each poll is given its time, so the
 * settle time passes without waiting for it; file times and bytes are real.
 */
import { describe, it, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ResultJournal } from '../../lib/journal/journal';
import { FolderStore, FolderWatcher, FOLDER_DEFAULTS, globMatcher, type FileFacts, type FolderOptions, type TakenFile, sha256 } from '../../lib/protocols/file';
import { readInFolder } from '../../lib/protocols/file/folder/open-file';
import { endsMidLine } from '../../lib/protocols/file/folder/line-end';

const LINK = 'folder-1';
const SETTLE = 5000;
let root: string;
let inbox: string;
let journal: ResultJournal;

const openJournal = () => ResultJournal.open({ file: join(root, 'journal', 'journal.jsonl'), retentionMs: 30 * 86_400_000 });

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'folder-watch-'));
  inbox = join(root, 'inbox');
  mkdirSync(inbox);
  journal = await openJournal();
});
afterEach(async () => {
  await journal.close().catch(() => undefined);
  rmSync(root, { recursive: true, force: true });
});

interface Seen {
  files: TakenFile[];
  duplicates: Array<{ facts: FileFacts; of: { id: string; name: string } }>;
  finished: Array<{ name: string; where: string; reason?: string }>;
  problems: Array<{ text: string; code: string }>;
  untaken: Array<{ name: string; reason: string }>;
  warnings: string[];
  folder: Array<{ ok: boolean; why?: string }>;
  /** The journal's lines when each file was handed on. */
  linesAtHandOn: number[];
}

function watcher(options: Partial<FolderOptions> = {}, j: ResultJournal = journal): { w: FolderWatcher; seen: Seen; store: FolderStore } {
  const seen: Seen = { files: [], duplicates: [], finished: [], problems: [], untaken: [], warnings: [], folder: [], linesAtHandOn: [] };
  const store = new FolderStore(j, LINK);
  const w = new FolderWatcher({ ...FOLDER_DEFAULTS, folder: inbox, settleMs: SETTLE, rememberMs: 30 * 86_400_000, ...options }, store, {
    file: (f) => {
      seen.files.push(f);
      seen.linesAtHandOn.push(journalLines().filter((l) => l.e === 'rx' && l.id === f.id).length);
    },
    duplicate: (facts, of) => seen.duplicates.push({ facts, of }),
    finished: (name, where, reason) => seen.finished.push({ name, where, ...(reason === undefined ? {} : { reason }) }),
    problem: (text, code) => seen.problems.push({ text, code }),
    untaken: (name, reason) => seen.untaken.push({ name, reason }),
    warn: (text) => seen.warnings.push(text),
    folder: (ok, why) => seen.folder.push({ ok, ...(why === undefined ? {} : { why }) }),
  });
  return { w, seen, store };
}

function journalLines(): Array<Record<string, unknown>> {
  const file = join(root, 'journal', 'journal.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** What lis-send-results does with a file's one result batch: journaled as sending, then delivered. */
async function deliver(id: string, state: 'delivered' | 'failed' = 'delivered', j: ResultJournal = journal): Promise<void> {
  await j.planned(id, 1, undefined, ['S1']);
  await j.beginSend({ key: `${id}#0`, node: 'sender', message: id, part: 0, samples: ['S1'], body: [{ SampleNumber: 'S1', Result: '1' }], msg: {} });
  await j.settle(`${id}#0`, state);
}

/** `name` written, taken a settle time later, its results delivered and the file moved to done/ at the poll after. */
async function takenAndMoved(w: FolderWatcher, seen: Seen, name: string): Promise<void> {
  write(name);
  await w.poll(0);
  await w.poll(SETTLE);
  await deliver(seen.files.at(-1)!.id);
  await w.poll(SETTLE + 1);
}

const CSV = 'Sample,Test,Value\nS1,GLU,5.4\nS2,GLU,6.1\n';
const write = (name: string, text: string = CSV) => writeFileSync(join(inbox, name), text);
const inDir = (dir: string) => (existsSync(join(inbox, dir)) ? readdirSync(join(inbox, dir)).sort() : []);

describe('when a file is complete', () => {
  it('takes a file once its size and mtime stayed the same for the settle time, not before', async () => {
    const { w, seen } = watcher();
    write('run1.csv');
    await w.poll(1000);
    await w.poll(1000 + SETTLE - 1);
    assert.equal(seen.files.length, 0);
    await w.poll(1000 + SETTLE);
    assert.equal(seen.files.length, 1);
    const f = seen.files[0]!;
    assert.equal(f.bytes.toString(), CSV);
    assert.deepEqual({ name: f.facts.name, size: f.facts.size, hash: f.facts.hash, path: f.facts.path }, { name: 'run1.csv', size: CSV.length, hash: sha256(Buffer.from(CSV)), path: join(inbox, 'run1.csv') });
    assert.match(f.facts.mtime, /^\d{4}-\d\d-\d\dT/);
  });

  it('starts the settle time again whenever the file grows', async () => {
    const { w, seen } = watcher();
    write('run1.csv', 'Sample,Test,Value\n');
    await w.poll(0);
    appendFileSync(join(inbox, 'run1.csv'), 'S1,GLU,5.4\n');
    await w.poll(SETTLE);
    assert.equal(seen.files.length, 0, 'grew: not complete');
    appendFileSync(join(inbox, 'run1.csv'), 'S2,GLU,6.1\n');
    await w.poll(2 * SETTLE);
    await w.poll(3 * SETTLE - 1);
    assert.equal(seen.files.length, 0);
    await w.poll(3 * SETTLE);
    assert.equal(seen.files.length, 1);
    assert.equal(seen.files[0]!.bytes.toString(), CSV, 'the whole file, never a torn copy');
  });

  it('waits for a text file that ends in the middle of a line (a value cut short) until it ends its line, or stays the same long enough', async () => {
    const { w, seen } = watcher();
    // The instrument paused inside "25.711": read now, the value would be 25.7.
    write('run1.csv', 'Sample,Test,Value\nS1,GLU,5.4\nS2,GLU,25.7');
    await w.poll(0);
    await w.poll(SETTLE);
    assert.equal(seen.files.length, 0, 'not taken with its last line cut');
    assert.equal(seen.warnings.filter((t) => /ends in the middle of a line/.test(t)).length, 1, 'said once');
    await w.poll(2 * SETTLE);
    appendFileSync(join(inbox, 'run1.csv'), '11\n');
    await w.poll(3 * SETTLE);
    await w.poll(4 * SETTLE);
    assert.equal(seen.files.length, 1);
    assert.equal(seen.files[0]!.bytes.toString(), 'Sample,Test,Value\nS1,GLU,5.4\nS2,GLU,25.711\n', 'the whole line');
    assert.equal(seen.warnings.filter((t) => /ends in the middle of a line/.test(t)).length, 1);

    // An export that simply has no line break at its end is taken whole once it stays the same that long.
    write('run2.csv', 'Sample,Test,Value\nS3,GLU,6.0');
    await w.poll(10 * SETTLE);
    await w.poll(11 * SETTLE);
    assert.equal(seen.files.length, 1);
    await w.poll(11 * SETTLE + Math.max(5 * SETTLE, 10_000) - 1);
    assert.equal(seen.files.length, 1, 'not yet');
    // Taken at the first poll a settle time after the wait is over.
    await w.poll(11 * SETTLE + Math.max(5 * SETTLE, 10_000) + SETTLE);
    assert.deepEqual(seen.files.map((f) => f.bytes.toString()), ['Sample,Test,Value\nS1,GLU,5.4\nS2,GLU,25.711\n', 'Sample,Test,Value\nS3,GLU,6.0']);
  });

  it('moves a file back that grows in done/ after it was moved there (the instrument still writing), to be read as its grown version; reports one whose name is taken again', async () => {
    const { w, seen } = watcher();
    await takenAndMoved(w, seen, 'run1.csv');
    assert.deepEqual(inDir('done'), ['run1.csv']);
    appendFileSync(join(inbox, 'done', 'run1.csv'), 'S3,GLU,7.0\n');
    await w.poll(SETTLE + 2);
    assert.deepEqual(inDir('done'), [], 'moved back');
    assert.ok(seen.warnings.some((t) => /run1\.csv grew after it was moved to done\/run1\.csv .*moved back/.test(t)), seen.warnings.join('\n'));
    await w.poll(2 * SETTLE + 2);
    await w.poll(3 * SETTLE + 2);
    assert.deepEqual(seen.files.map((f) => f.bytes.toString()), [CSV, CSV + 'S3,GLU,7.0\n'], 'the grown version taken');

    // Its name taken again in the folder: said, for a person to move it back.
    await deliver(seen.files[1]!.id);
    await w.poll(3 * SETTLE + 3);
    assert.deepEqual(inDir('done'), ['run1.csv']);
    write('run1.csv', 'Sample,Test,Value\nS9,GLU,4.4\n');
    appendFileSync(join(inbox, 'done', 'run1.csv'), 'S4,GLU,7.5\n');
    await w.poll(3 * SETTLE + 4);
    assert.deepEqual(seen.problems.filter((p) => p.code === 'FILE_GREW_AFTER_MOVE').length, 1);
    assert.match(seen.problems.find((p) => p.code === 'FILE_GREW_AFTER_MOVE')!.text, /move done\/run1\.csv back by hand/);

    // Watched for a while only: a file appended to long after is the instrument's business no more.
    const late = watcher();
    await takenAndMoved(late.w, late.seen, 'run2.csv');
    appendFileSync(join(inbox, 'done', 'run2.csv'), 'S5,GLU,8.0\n');
    await late.w.poll(SETTLE + 1 + Math.max(12 * SETTLE, 60_000) + 1);
    assert.ok(inDir('done').includes('run2.csv'), 'left in done/');
  });

  it('tells a text file that ends mid-line from one that ends its line, and never judges a workbook or binary file so', () => {
    assert.equal(endsMidLine(Buffer.from('a,b\n1,2')), true);
    assert.equal(endsMidLine(Buffer.from('a,b\r1,2')), true);
    assert.equal(endsMidLine(Buffer.from('a,b\r\n1,2\r\n')), false);
    assert.equal(endsMidLine(Buffer.from('one line, no break')), false, 'no line ends anywhere: no line to finish');
    assert.equal(endsMidLine(Buffer.from('\ufeffa\n1', 'utf16le').subarray(0)), true, 'UTF-16 LE with its BOM');
    assert.equal(endsMidLine(Buffer.from('\ufeffa\n1\n', 'utf16le')), false);
    assert.equal(endsMidLine(Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from('x\ny')])), false, 'a ZIP (xlsx)');
    assert.equal(endsMidLine(Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0]), Buffer.from('x\ny')])), false, 'an xls');
    assert.equal(endsMidLine(Buffer.from('x\u0000\ny')), false, 'a NUL: no text');
    assert.equal(endsMidLine(Buffer.alloc(0)), false);
  });

  it('with a marker, takes a file when <name><marker> or <stem><marker> appears, however long it was still before, and moves the marker along', async () => {
    const { w, seen } = watcher({ marker: '.done' });
    write('run1.csv');
    write('run2.csv', CSV + 'S3,GLU,7.0\n');
    await w.poll(0);
    await w.poll(100 * SETTLE);
    assert.equal(seen.files.length, 0, 'no marker yet');
    write('run1.csv.done', '');
    write('run2.done', '');
    await w.poll(100 * SETTLE + 1);
    assert.deepEqual(seen.files.map((f) => f.facts.name).sort(), ['run1.csv', 'run2.csv']);
    for (const f of seen.files) await deliver(f.id);
    await w.poll(100 * SETTLE + 2);
    assert.deepEqual(inDir('done'), ['run1.csv', 'run1.csv.done', 'run2.csv', 'run2.done']);
    assert.deepEqual(readdirSync(inbox).sort(), ['done']);
  });

  it('never takes hidden or partial names, subfolders or names outside the pattern (matched without regard to case)', async () => {
    const { w, seen } = watcher({ pattern: '*.csv;*.TXT' });
    for (const name of ['.run.csv', '~$run.csv', 'run.csv.tmp', 'run.csv.part', 'run.csv.crdownload', 'notes.xlsx', 'plate.txt', 'a.csv']) write(name, `${name}\n${CSV}`);
    mkdirSync(join(inbox, 'sub.csv'));
    await w.poll(0);
    await w.poll(SETTLE);
    assert.deepEqual(seen.files.map((f) => f.facts.name), ['a.csv', 'plate.txt']);
  });

  it('never takes an empty file, however long it stays empty; takes it once written', async () => {
    const { w, seen } = watcher();
    write('run1.csv', '');
    await w.poll(0);
    await w.poll(100 * SETTLE);
    assert.deepEqual(seen.files, []);
    assert.equal(w.counts.settling, 1, 'counted as waiting');
    write('run1.csv');
    await w.poll(101 * SETTLE);
    await w.poll(102 * SETTLE);
    assert.equal(seen.files.length, 1);
  });

  it('never takes a marker itself', async () => {
    const { w, seen } = watcher({ marker: '.ok' });
    write('orphan.ok', 'x');
    await w.poll(0);
    await w.poll(SETTLE);
    assert.deepEqual(seen.files, []);
  });
});

describe('globMatcher', () => {
  it('reads *, ?, [..], [!..], {a,b} and ; between patterns', () => {
    const m = globMatcher('run_??.{csv,txt};plate[0-9]*.xls;[!x]*.dat');
    for (const yes of ['run_01.csv', 'RUN_AB.TXT', 'plate7-final.xls', 'a.dat']) assert.ok(m(yes), yes);
    for (const no of ['run_1.csv', 'run_012.csv', 'plateX.xls', 'x.dat', 'run_01.csv.tmp']) assert.ok(!m(no), no);
    assert.ok(globMatcher('')('anything'));
    assert.ok(globMatcher('a.b+c(1).csv')('a.b+c(1).csv'), 'regular expression characters are plain');
    assert.ok(globMatcher('*.csv')('run\n1.csv'), '* takes a line end too');
    assert.ok(globMatcher('run?1.csv')('run\n1.csv'), '? takes a line end too');
  });
});

describe('exactly once', () => {
  it('stores a file in the journal before it is handed on, with its name, size, mtime and hash', async () => {
    const { w, seen } = watcher();
    write('run1.csv');
    await w.poll(0);
    await w.poll(SETTLE);
    assert.deepEqual(seen.linesAtHandOn, [1], 'its rx line was on disk when it was handed on');
    const rx = journalLines().find((l) => l.e === 'rx')!;
    assert.equal(rx.link, LINK);
    assert.equal(rx.end, 'file');
    assert.equal(Buffer.from(String(rx.data), 'base64').toString(), CSV);
    const source = rx.source as Record<string, unknown>;
    assert.deepEqual({ name: source.name, size: source.size, hash: source.hash }, { name: 'run1.csv', size: CSV.length, hash: sha256(Buffer.from(CSV)) });
  });

  it('moves a file to done/ only once its results are delivered, and keeps each of two files of the same name', async () => {
    const { w, seen } = watcher();
    write('run.csv');
    await w.poll(0);
    await w.poll(SETTLE);
    await w.poll(SETTLE + 1);
    assert.deepEqual(readdirSync(inbox), ['run.csv'], 'handed on, results not delivered: still in the folder');
    await deliver(seen.files[0]!.id);
    await w.poll(SETTLE + 2);
    assert.deepEqual(inDir('done'), ['run.csv']);
    write('run.csv', CSV + 'S3,GLU,7.0\n');
    await w.poll(10 * SETTLE);
    await w.poll(11 * SETTLE);
    await deliver(seen.files[1]!.id);
    await w.poll(11 * SETTLE + 1);
    assert.deepEqual(inDir('done'), ['run.2.csv', 'run.csv']);
    assert.deepEqual(seen.finished.map((f) => f.where), ['done', 'done']);
  });

  it('does not hand on the same bytes under another name: stored as a repeat of the first file (on the record), moved to done/', async () => {
    const { w, seen } = watcher();
    await takenAndMoved(w, seen, 'run1.csv');
    write('run1 (copy).csv');
    await w.poll(2 * SETTLE);
    await w.poll(3 * SETTLE);
    assert.equal(seen.files.length, 1, 'handed on once');
    assert.equal(seen.duplicates.length, 1);
    assert.deepEqual(seen.duplicates[0]!.of, { id: seen.files[0]!.id, name: 'run1.csv' });
    const rx = journalLines().filter((l) => l.e === 'rx');
    assert.equal(rx.length, 2);
    assert.equal(rx[1]!.repeatOf, seen.files[0]!.id, 'the duplicate is in the journal, marked a repeat of the first');
    assert.equal((rx[1]!.source as Record<string, unknown>).name, 'run1 (copy).csv');
    await w.poll(3 * SETTLE + 1);
    assert.deepEqual(inDir('done'), ['run1 (copy).csv', 'run1.csv']);
  });

  it('the same bytes twice in one listing: one handed on, the other a duplicate', async () => {
    const { w, seen } = watcher();
    write('a.csv');
    write('b.csv');
    await w.poll(0);
    await w.poll(SETTLE);
    assert.equal(seen.files.length, 1);
    assert.equal(seen.duplicates.length, 1);
  });

  it('after a restart mid-file (handed on, results not delivered), a file still in the folder is not handed on again; the journal lists it to replay; delivered, it moves', async () => {
    const first = watcher();
    write('run1.csv');
    await first.w.poll(0);
    await first.w.poll(SETTLE);
    const id = first.seen.files[0]!.id;
    await first.w.close();
    await journal.close();
    // The restart: the journal read back from its file, a new store and watcher over the same folder.
    journal = await openJournal();
    assert.deepEqual(journal.toReplay(LINK).map((m) => m.id), [id], 'the journal says what was handed on and not done');
    assert.equal(journal.message(id)!.source!.name, 'run1.csv', 'with what the replay puts on msg.file');
    const second = watcher();
    assert.deepEqual(second.store.facts(id), first.seen.files[0]!.facts);
    await second.w.poll(10 * SETTLE);
    await second.w.poll(11 * SETTLE);
    assert.equal(second.seen.files.length, 0, 'known by its content: not handed on a second time');
    assert.equal(second.seen.duplicates.length, 0, 'and not a duplicate: it is the same file');
    assert.equal(second.w.counts.taken, 1, 'waiting for its results');
    await deliver(id);
    await second.w.poll(11 * SETTLE + 1);
    assert.deepEqual(inDir('done'), ['run1.csv']);
    assert.equal(journalLines().filter((l) => l.e === 'rx').length, 1, 'stored once');
  });

  it('a duplicate still in the folder after a restart (stored, not yet moved) is not recorded a second time', async () => {
    write('run1 copy.csv');
    write('run1.csv');
    // The first life stored both, the copy first (its name sorts first), and died before moving the duplicate.
    const first = new FolderStore(journal, LINK);
    const facts = (name: string): FileFacts => ({ name, path: join(inbox, name), size: CSV.length, mtime: new Date().toISOString(), hash: sha256(Buffer.from(CSV)) });
    assert.equal((await first.take(Buffer.from(CSV), facts('run1 copy.csv'))).kind, 'new');
    assert.equal((await first.take(Buffer.from(CSV), facts('run1.csv'))).kind, 'duplicate');
    await journal.close();
    journal = await openJournal();
    const second = watcher();
    await second.w.poll(0);
    await second.w.poll(SETTLE);
    assert.deepEqual(second.seen.duplicates, [], 'known as the duplicate it was');
    assert.deepEqual(second.seen.files, [], 'and the file as the file it was');
    assert.equal(journalLines().filter((l) => l.e === 'rx').length, 2, 'each stored once');
    assert.deepEqual(inDir('done'), ['run1.csv'], 'the duplicate moved on');
  });

  it('a file that grows after it looked complete is not moved as delivered: the change is reported and the grown file is taken as a new one', async () => {
    const { w, seen } = watcher();
    write('run1.csv', 'Sample,Test,Value\nS1,GLU,5.4\n');
    await w.poll(0);
    await w.poll(SETTLE);
    assert.equal(seen.files.length, 1, 'still for the settle time: looked complete');
    appendFileSync(join(inbox, 'run1.csv'), 'S2,GLU,6.1\n');
    utimesSync(join(inbox, 'run1.csv'), new Date(), new Date(Date.now() + 5000));
    await deliver(seen.files[0]!.id);
    await w.poll(SETTLE + 1);
    assert.deepEqual(inDir('done'), [], 'not moved');
    assert.equal(seen.problems.length, 1);
    assert.equal(seen.problems[0]!.code, 'FILE_CHANGED');
    assert.match(seen.problems[0]!.text, /run1\.csv changed after it was taken/);
    await w.poll(2 * SETTLE);
    await w.poll(3 * SETTLE);
    assert.equal(seen.files.length, 2);
    assert.equal(seen.files[1]!.bytes.toString(), CSV, 'the whole file, read again');
    await deliver(seen.files[1]!.id);
    await w.poll(3 * SETTLE + 1);
    assert.deepEqual(inDir('done'), ['run1.csv']);
  });

  it('leaves a file whose batch is held for an operator where it is, counted as held', async () => {
    const { w, seen } = watcher();
    write('run1.csv');
    await w.poll(0);
    await w.poll(SETTLE);
    await deliver(seen.files[0]!.id, 'failed');
    await w.poll(SETTLE + 1);
    assert.deepEqual(readdirSync(inbox), ['run1.csv']);
    assert.deepEqual(w.counts, { settling: 0, taken: 1, held: 1, untaken: 0 });
    await journal.settle(`${seen.files[0]!.id}#0`, 'discarded', { by: 'operator' });
    await w.poll(SETTLE + 2);
    assert.deepEqual(inDir('done'), ['run1.csv'], 'discarded by the operator: done');
  });

  it('with after "keep", leaves a delivered file in place and does not read it again, nor after a restart', async () => {
    const first = watcher({ after: 'keep' });
    write('run1.csv');
    await first.w.poll(0);
    await first.w.poll(SETTLE);
    await deliver(first.seen.files[0]!.id);
    await first.w.poll(SETTLE + 1);
    await first.w.poll(10 * SETTLE);
    assert.deepEqual(readdirSync(inbox), ['run1.csv']);
    assert.deepEqual(first.seen.finished, [{ name: 'run1.csv', where: 'kept' }]);
    assert.equal(first.seen.files.length, 1);
    const second = watcher({ after: 'keep' });
    await second.w.poll(20 * SETTLE);
    await second.w.poll(21 * SETTLE);
    await second.w.poll(21 * SETTLE + 1);
    assert.equal(second.seen.files.length, 0);
    assert.deepEqual(second.seen.finished, [{ name: 'run1.csv', where: 'kept' }]);
    assert.equal(journalLines().filter((l) => l.e === 'rx').length, 1);
  });
});

describe('error/', () => {
  it('moves a file larger than the size cap to error/ unread, with <name>.reason.txt saying why', async () => {
    const { w, seen } = watcher({ maxBytes: 10 });
    write('big.csv');
    await w.poll(0);
    assert.deepEqual(inDir('error'), ['big.csv', 'big.csv.reason.txt']);
    assert.match(readFileSync(join(inbox, 'error', 'big.csv.reason.txt'), 'utf8'), new RegExp(`big\\.csv: it is ${CSV.length} bytes, more than the largest file taken \\(10 bytes`));
    assert.deepEqual(seen.files, []);
    assert.equal(seen.finished[0]!.where, 'error');
    assert.equal(journalLines().length, 0, 'nothing of it in the journal');
  });

  it('moves a file the message node could not read to error/ with the journal\'s reason', async () => {
    const { w, seen } = watcher();
    write('bad.csv', 'garbage');
    await w.poll(0);
    await w.poll(SETTLE);
    await journal.planned(seen.files[0]!.id, 0, 'not understood: no header row with Sample and Value');
    await w.poll(SETTLE + 1);
    assert.deepEqual(inDir('error'), ['bad.csv', 'bad.csv.reason.txt']);
    assert.match(readFileSync(join(inbox, 'error', 'bad.csv.reason.txt'), 'utf8'), /bad\.csv: not understood: no header row with Sample and Value/);
    assert.deepEqual(seen.finished, [{ name: 'bad.csv', where: 'error', reason: 'not understood: no header row with Sample and Value' }]);
  });

  it('says when the folder is missing, and picks up once it is there', async () => {
    rmSync(inbox, { recursive: true });
    const { w, seen } = watcher();
    await w.poll(0);
    await w.poll(1);
    assert.equal(seen.folder.length, 1, 'said once');
    assert.equal(seen.folder[0]!.ok, false);
    assert.match(seen.folder[0]!.why!, /ENOENT/);
    mkdirSync(inbox);
    write('run1.csv');
    await w.poll(2);
    await w.poll(2 + SETTLE);
    assert.deepEqual(seen.folder.map((f) => f.ok), [false, true]);
    assert.equal(seen.files.length, 1);
  });
});

describe("the folder's edges", () => {
  const SECRET = 'db_password=hunter2';
  /** A file outside the watched folder that would be delivered if it were read. */
  const outside = () => {
    const path = join(root, 'elsewhere.csv');
    writeFileSync(path, `${CSV}S9,GLU,1.0\n${SECRET}\n`);
    return path;
  };
  const everything = (seen: Seen) => JSON.stringify([seen.untaken, seen.problems, seen.warnings, seen.finished]);

  it('never follows a symbolic link, to a file outside the folder or inside it: not read, not stored, reported once as not taken, left where it is', async () => {
    const { w, seen } = watcher();
    symlinkSync(outside(), join(inbox, 'link.csv'));
    write('real.csv');
    symlinkSync(join(inbox, 'real.csv'), join(inbox, 'alias.csv'));
    for (let i = 0; i < 4; i++) await w.poll(i * SETTLE);
    assert.deepEqual(seen.files.map((f) => f.facts.name), ['real.csv'], 'the file itself, once');
    assert.deepEqual(seen.untaken.map((u) => u.name), ['alias.csv', 'link.csv'], 'each link reported once');
    assert.match(seen.untaken[1]!.reason, /^link\.csv is not taken: it is a symbolic link, and links are never followed .*; copy the file itself into the folder, or set Folder/);
    assert.equal(w.counts.untaken, 2);
    assert.equal(journalLines().filter((l) => l.e === 'rx').length, 1, 'nothing of the links in the journal');
    assert.ok(!everything(seen).includes('hunter2'), 'nothing of the linked file in any report');
    assert.ok(lstatSync(join(inbox, 'link.csv')).isSymbolicLink(), 'left where it is');
    rmSync(join(inbox, 'link.csv'));
    await w.poll(5 * SETTLE);
    assert.equal(w.counts.untaken, 1, 'gone: no longer counted');
  });

  it('a file swapped for a link after it was looked at is refused by the open itself, and a file whose real path is outside the folder is not read', async () => {
    const real = realpathSync(inbox, { encoding: 'buffer' });
    write('run1.csv');
    const path = join(inbox, 'run1.csv');
    const look = lstatSync(path);
    assert.ok(look.isFile(), 'a regular file when it was looked at');
    rmSync(path);
    symlinkSync(outside(), path);
    assert.deepEqual(await readInFolder(Buffer.from(path), real, { size: look.size, mtimeMs: look.mtimeMs }), { kind: 'refused', refusal: { kind: 'link' } });
    const elsewhere = outside();
    assert.deepEqual(await readInFolder(Buffer.from(elsewhere), real), { kind: 'refused', refusal: { kind: 'outside', real: realpathSync(elsewhere) } });
  });

  it('a file taken, then swapped for a link before it is moved: not moved as delivered, the change reported, the link left and reported as not taken', async () => {
    const { w, seen } = watcher();
    write('run1.csv');
    await w.poll(0);
    await w.poll(SETTLE);
    assert.equal(seen.files.length, 1);
    rmSync(join(inbox, 'run1.csv'));
    symlinkSync(outside(), join(inbox, 'run1.csv'));
    await deliver(seen.files[0]!.id);
    await w.poll(SETTLE + 1);
    assert.deepEqual(inDir('done'), [], 'the link is not moved as the delivered file');
    assert.deepEqual(seen.problems.map((p) => p.code), ['FILE_CHANGED']);
    assert.match(seen.problems[0]!.text, /^run1\.csv is no longer the file taken \(it is a symbolic link/);
    await w.poll(SETTLE + 2);
    assert.deepEqual(seen.untaken.map((u) => u.name), ['run1.csv']);
    assert.equal(seen.files.length, 1);
    assert.ok(!everything(seen).includes('hunter2'));
  });
});

describe('names as bytes', () => {
  const LATIN1 = Buffer.concat([Buffer.from('caf'), Buffer.from([0xe9]), Buffer.from('.csv')]);
  const at = (dir: string, name: Buffer) => Buffer.concat([Buffer.from(join(dir, '/')), name]);
  const bytesIn = (dir: string) => (existsSync(join(inbox, dir)) ? readdirSync(join(inbox, dir), { encoding: 'buffer' }) : []);

  it('takes a file whose name is not UTF-8 (a Latin-1 é from a Windows share), shows it with the byte written out, and moves it to done/ under its own bytes', async () => {
    const { w, seen } = watcher();
    writeFileSync(at(inbox, LATIN1), CSV);
    await w.poll(0);
    await w.poll(SETTLE);
    assert.deepEqual(seen.files.map((f) => f.facts.name), ['caf\\xE9.csv']);
    assert.equal(seen.files[0]!.bytes.toString(), CSV);
    await deliver(seen.files[0]!.id);
    await w.poll(SETTLE + 1);
    assert.deepEqual(bytesIn('done'), [LATIN1]);
    assert.deepEqual(readdirSync(inbox), ['done']);
  });

  it('takes a file whose name holds a line end', async () => {
    const { w, seen } = watcher({ pattern: '*.csv' });
    write('run\n1.csv');
    await w.poll(0);
    await w.poll(SETTLE);
    assert.deepEqual(seen.files.map((f) => f.facts.name), ['run\n1.csv']);
    await deliver(seen.files[0]!.id);
    await w.poll(SETTLE + 1);
    assert.deepEqual(inDir('done'), ['run\n1.csv']);
  });

  it('a 255-byte name goes to error/ with its reason under a shortened name, and a second one of that name beside it', async () => {
    const { w, seen } = watcher({ maxBytes: 10 });
    const long = `${'r'.repeat(251)}.csv`;
    write(long);
    await w.poll(0);
    write(long);
    await w.poll(1);
    assert.deepEqual(seen.problems, [], 'no move failed');
    assert.deepEqual(seen.finished.map((f) => [f.name, f.where]), [[long, 'error'], [long, 'error']]);
    assert.deepEqual(readdirSync(inbox), ['error'], 'nothing left in the folder');
    const names = inDir('error');
    assert.equal(names.length, 4);
    assert.ok(names.includes(long));
    assert.ok(names.every((n) => Buffer.byteLength(n) <= 255));
    const reasons = names.filter((n) => n.endsWith('.reason.txt'));
    assert.equal(reasons.length, 2);
    for (const r of reasons) assert.match(readFileSync(join(inbox, 'error', r), 'utf8'), new RegExp(`\\n${long}: it is ${CSV.length} bytes, more than the largest file taken`));
    assert.match(names.find((n) => n !== long && !n.endsWith('.reason.txt'))!, /^r+~[0-9a-f]{8}\.2\.csv$/);
  });

  it('a file that cannot be moved to error/ is reported as not moved, never as in error/, and once', async () => {
    const { w, seen } = watcher({ pattern: '*.csv', maxBytes: 10 });
    write('error', 'a file where the folder error/ would be');
    write('big.csv');
    await w.poll(0);
    await w.poll(1);
    assert.deepEqual(seen.finished, [], 'not said to be in error/');
    assert.deepEqual(seen.problems.map((p) => p.code), ['FILE_NOT_MOVED']);
    assert.match(seen.problems[0]!.text, /^big\.csv could not be moved to error\/ \(.+\), where it was to go because it is \d+ bytes, more than the largest file taken .*: it stays where it is/);
    assert.deepEqual(readdirSync(inbox).sort(), ['big.csv', 'error']);
  });
});
