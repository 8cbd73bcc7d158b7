/**
 * The file-exporting instrument's simulator (lib/sim/file) writing into a real
 * temporary folder while a folder watcher polls it on its own timer, as in
 * production: a file written in parts with pauses shorter than the settle time
 * is taken once, whole; one written under a temporary name, or with a marker,
 * only once it is complete; the same bytes twice make one file and a duplicate.
 */
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ResultJournal } from '../../lib/journal/journal';
import { FolderStore, FolderWatcher, FOLDER_DEFAULTS, type FolderOptions, type TakenFile } from '../../lib/protocols/file';
import { FileExporter, fromTemplate, MALFORMED } from '../../lib/sim';
import { sleep, waitUntil } from '../support/wait';

let root: string;
let journal: ResultJournal;
let watcher: FolderWatcher | undefined;
beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'folder-sim-'));
  journal = await ResultJournal.open({ file: join(root, 'journal', 'journal.jsonl'), retentionMs: 86_400_000 });
});
afterEach(async () => {
  await watcher?.close();
  watcher = undefined;
  await journal.close();
  rmSync(root, { recursive: true, force: true });
});

const TEMPLATE = 'Well,Sample Name,Target Name,CT\r\nA1,S001,N1,24.31\r\nA2,S002,N1,Undetermined\r\n';

function watch(options: Partial<FolderOptions> = {}): { files: TakenFile[]; duplicates: string[]; warnings: string[] } {
  const seen = { files: [] as TakenFile[], duplicates: [] as string[], warnings: [] as string[] };
  watcher = new FolderWatcher({ ...FOLDER_DEFAULTS, folder: join(root, 'export'), pollMs: 20, settleMs: 400, rememberMs: 86_400_000, ...options }, new FolderStore(journal, 'sim-link'), {
    file: (f) => seen.files.push(f),
    duplicate: (facts) => seen.duplicates.push(facts.name),
    finished: () => undefined,
    folder: () => undefined,
    problem: (text) => seen.warnings.push(text),
    untaken: (_name, text) => seen.warnings.push(text),
    warn: (text) => seen.warnings.push(text),
  });
  watcher.start();
  return seen;
}

describe('the file-exporting instrument simulator against a folder watcher', () => {
  it('fromTemplate makes distinct exports of a real one', () => {
    const a = fromTemplate(TEMPLATE, { S001: 'S101', S002: 'S102' });
    assert.equal(a.toString('latin1'), TEMPLATE.replace('S001', 'S101').replace('S002', 'S102'));
    assert.deepEqual(fromTemplate(Buffer.from([0xe9, 0x41]), { A: 'B' }), Buffer.from([0xe9, 0x42]), 'bytes outside the text replaced are kept');
  });

  it('a file written in parts with pauses shorter than the settle time is taken once, whole', async () => {
    // Pauses of 150 ms against a settle time of 2 s: on a loaded CI machine a 400 ms settle time was once shorter
    // than the time one part took to be written, which is the instrument's misbehaviour, not the watcher's.
    const seen = watch({ settleMs: 2000 });
    const sim = new FileExporter(join(root, 'export'));
    const bytes = Buffer.from(TEMPLATE.repeat(20));
    await sim.halfWritten('run1.csv', bytes, 5, 150);
    await waitUntil(() => seen.files.length === 1, 10_000, 'the file', 20);
    await sleep(600);
    assert.equal(seen.files.length, 1);
    assert.deepEqual(seen.files[0]!.bytes, bytes, 'never a torn copy');
  });

  it('a file written at line ends and paused until the watcher took its first part: taken half-written, whole rows only, then written on', async () => {
    const seen = watch();
    const sim = new FileExporter(join(root, 'export'));
    const bytes = Buffer.from(TEMPLATE.repeat(3));
    const resumedAt: number[] = [];
    await sim.write('run1.csv', bytes, {
      parts: 2,
      atLines: true,
      // The instrument paused longer than the settle time: it writes on only once the first part was taken.
      resume: async (part) => {
        await waitUntil(() => seen.files.length === 1, 10_000, 'the first part taken', 20);
        resumedAt.push(part);
      },
    });
    assert.deepEqual(resumedAt, [1]);
    const first = seen.files[0]!.bytes;
    assert.ok(first.length > 0 && first.length < bytes.length, `a part, not the whole: ${first.length} of ${bytes.length} bytes`);
    assert.equal(first.at(-1), 0x0a, 'the part ends at a line end');
    assert.deepEqual(first, bytes.subarray(0, first.length));
    assert.deepEqual(readFileSync(join(root, 'export', 'run1.csv')), bytes, 'the rest written after the pause');
  });

  it('a file written under a temporary name and renamed, or followed by its marker, is taken only complete', async () => {
    const seen = watch({ marker: '.done' });
    const sim = new FileExporter(join(root, 'export'));
    const a = fromTemplate(TEMPLATE, { S001: 'S201' });
    const b = fromTemplate(TEMPLATE, { S001: 'S202' });
    await sim.write('a.csv', a, { parts: 4, pauseMs: 600, viaTemp: true, marker: '.done' });
    await sim.write('b.csv', b, { parts: 4, pauseMs: 600, marker: '.done' });
    await waitUntil(() => seen.files.length === 2, 10_000, 'both files', 20);
    assert.deepEqual(seen.files.map((f) => [f.facts.name, f.bytes.equals(f.facts.name === 'a.csv' ? a : b)]).sort(), [['a.csv', true], ['b.csv', true]]);
  });

  it('the same bytes twice make one file and a duplicate; a malformed file is taken like any (its reader refuses it)', async () => {
    const seen = watch();
    const sim = new FileExporter(join(root, 'export'));
    const first = await sim.write('run1.csv', Buffer.from(TEMPLATE));
    await sim.duplicate(first, 'run1_copy.csv');
    await sim.malformed('run2.csv');
    await waitUntil(() => seen.files.length === 2 && seen.duplicates.length === 1, 10_000, 'the files', 20);
    assert.deepEqual(seen.duplicates, ['run1_copy.csv']);
    assert.deepEqual(seen.files.map((f) => f.facts.name).sort(), ['run1.csv', 'run2.csv']);
    assert.deepEqual(seen.files.find((f) => f.facts.name === 'run2.csv')!.bytes, MALFORMED);
    // The duplicate's content went on once already: it is done at once. The others wait for their results.
    await waitUntil(() => readdirSync(join(root, 'export')).includes('done') && readdirSync(join(root, 'export', 'done')).length > 0, 10_000, 'done/', 20);
    assert.deepEqual(readdirSync(join(root, 'export', 'done')), ['run1_copy.csv']);
    assert.deepEqual(readdirSync(join(root, 'export')).sort(), ['done', 'run1.csv', 'run2.csv']);
  });

  it('a poll that fails (here the flow\'s handler throws) is reported and the next poll goes on: no unhandled rejection', async () => {
    const warnings: string[] = [];
    const taken: string[] = [];
    watcher = new FolderWatcher({ ...FOLDER_DEFAULTS, folder: join(root, 'export'), pollMs: 20, settleMs: 100, rememberMs: 86_400_000 }, new FolderStore(journal, 'sim-link'), {
      file: (f) => {
        taken.push(f.facts.name);
        if (taken.length === 1) throw new Error('a handler that breaks');
      },
      duplicate: () => undefined,
      finished: () => undefined,
      folder: () => undefined,
      problem: () => undefined,
      untaken: () => undefined,
      warn: (text) => warnings.push(text),
    });
    const sim = new FileExporter(join(root, 'export'));
    await sim.write('a.csv', fromTemplate(TEMPLATE, { S001: 'S301' }));
    watcher.start();
    await waitUntil(() => warnings.some((w) => /could not be looked at \(a handler that breaks\)/.test(w)), 10_000, 'the warning', 20);
    await sim.write('b.csv', fromTemplate(TEMPLATE, { S001: 'S302' }));
    await waitUntil(() => taken.includes('b.csv'), 10_000, 'the next file', 20);
  });
});
