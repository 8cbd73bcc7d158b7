/**
 * Reading a file without holding the event loop (lib/protocols/file/slices.ts,
 * workbook-thread.ts): the same answer as the reading in one go on every
 * sample export, a big CSV read while a heartbeat keeps ticking, the row limit
 * (maxRows) refusing a 2-million-row file whole, and a workbook beyond its
 * worker's heap cap or time refused with the reason, nothing of it delivered.
 *
 * The heartbeat bound is generous (a loaded 2-core machine), and a gap spent
 * waiting for a core rather than working is not counted (../support/heartbeat.ts):
 * it proves the loop is never held for seconds; the figures are the bench's
 * (bench/file-stall.ts).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FILE_PROFILES, FileReadError, GENERIC_CSV, fileLabEvents, fileLabEventsInSlices, fileRows, fileRowsInSlices, pointFileAt, pointFileAtInSlices, previewFile, previewFileInSlices, previewFileSite, previewFileSiteInSlices, workbookRowsOffLoop, type FileDialectProfile } from '../../lib/protocols/file';
import { WorkbookError } from '../../lib/protocols/file/workbook';
import { jsonPieces } from '../../lib/util';
import { bigCsv, csvOfSize, sharedStringsWorkbook } from '../../bench/file-inputs';
import { fileSample } from '../support/file-samples';
import { loopHeld } from '../support/heartbeat';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Longest pause between heartbeats allowed: far above the ~10 ms slices, far below the seconds the one-go reading took. */
const MAX_GAP_MS = 500;

/** Runs `work` beside a heartbeat (../support/heartbeat.ts): the longest the loop was held at once, and what work gave. */
async function heartbeat<T>(work: () => Promise<T>): Promise<{ gap: number; value: T }> {
  const { heldMs, value } = await loopHeld(work);
  return { gap: heldMs, value };
}

const OTHER_FIXTURES: Array<[string, string]> = [
  ['appbio-quantstudio', 'quantstudio-6-flex-presence-absence.txt'],
  ['moldev-softmax-pro', 'softmax-pro-unknowns-utf16.txt'],
  ['thermo-skanit-xlsx', 'skanit-7-multi-plate-two-wavelengths.xlsx'],
];
const FIXTURES = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'file');

/** Each dialect's sample export, and the others in test/fixtures/file, with their dialect. */
function samples(): Array<{ profile: FileDialectProfile; name: string; bytes: Buffer }> {
  const out = FILE_PROFILES.flatMap((profile) => {
    const s = fileSample(profile.id);
    return s === undefined ? [] : [{ profile, ...s }];
  });
  for (const [id, name] of OTHER_FIXTURES) out.push({ profile: FILE_PROFILES.find((p) => p.id === id)!, name, bytes: readFileSync(join(FIXTURES, name)) });
  return out;
}

/** What a reading gave, or the error it threw, comparable. */
async function outcome(read: () => unknown): Promise<unknown> {
  try {
    return { value: await read() };
  } catch (err) {
    return { error: err instanceof Error ? [err.name, err.message, (err as FileReadError).setting, (err as FileReadError).line] : err };
  }
}

describe('file reading in slices', () => {
  it('reads every sample export exactly as the reading in one go: events, rows, preview and pointing', async () => {
    const all = samples();
    assert.ok(all.length >= 12, `${all.length} sample exports`);
    // A workbook is cut in a worker thread, about 2 s a read here: every role is pointed at in the first two (one
    // mechanism whatever the layout, which is the dialect's and read alike after the cut), one role in the others.
    let workbooks = 0;
    for (const { profile, name, bytes } of all) {
      const allRoles = profile.format !== 'xlsx' || ++workbooks <= 2;
      const options = { timeZone: 'Europe/Berlin', fileName: name };
      assert.deepEqual(await outcome(() => fileLabEventsInSlices(bytes, profile, options)), await outcome(() => fileLabEvents(bytes, profile, options)), name);
      assert.deepEqual(await outcome(() => fileRowsInSlices(bytes, profile)), await outcome(() => fileRows(bytes, profile)), name);
      const site = { base: profile.id };
      assert.deepEqual(await previewFileSiteInSlices(site, bytes, 'UTC', name), previewFileSite(site, bytes, 'UTC', name), name);
      // Pointing at the second cell of a row after the first, as each role (a file the dialect cannot cut: at line 2).
      const rows = (() => {
        try {
          return fileRows(bytes, profile);
        } catch {
          return [];
        }
      })();
      const at = rows.find((r) => r.cells.length > 1 && r.line > 1) ?? { line: 2 };
      for (const role of allRoles ? (['sampleNumber', 'testCode', 'value', 'units'] as const) : (['value'] as const)) {
        const request = { base: profile.id, text: '', bytes, fileName: name, timeZone: 'UTC', role, place: { row: at.line, column: 2 } };
        assert.deepEqual(await pointFileAtInSlices(request), pointFileAt(request), `${name} ${role}`);
      }
    }
    // A paste (text, not bytes), pointed at by value.
    const text = 'Sample,Test,Result\nGX-1,GLU,5.4\nGX-2,GLU,6.1\n';
    const pasted = { base: GENERIC_CSV.id, text, timeZone: 'UTC', role: 'value' as const, value: '5.4' };
    assert.deepEqual(await pointFileAtInSlices(pasted), pointFileAt(pasted));
    assert.deepEqual(await previewFileSiteInSlices({ base: GENERIC_CSV.id }, text, 'UTC'), previewFileSite({ base: GENERIC_CSV.id }, text, 'UTC'));
  });

  it('reads a 400,000-row CSV (3 MB) while a heartbeat keeps ticking, with the same results as in one go', async () => {
    const bytes = bigCsv(400_000);
    const once = fileLabEvents(bytes, GENERIC_CSV, { timeZone: 'UTC' });
    const { gap, value } = await heartbeat(() => fileLabEventsInSlices(bytes, GENERIC_CSV, { timeZone: 'UTC' }));
    assert.equal(value.length, 10_000, 'a batch per sample');
    assert.deepEqual(value, once);
    assert.ok(gap < MAX_GAP_MS, `the event loop was held ${gap.toFixed(0)} ms at once`);
  });

  it('refuses a 2-million-row CSV (16 MB) whole, naming maxRows, without holding the loop; a site may raise maxRows', async () => {
    const bytes = bigCsv(2_000_000);
    assert.ok(bytes.length > 15e6 && bytes.length < 50 * 1024 * 1024, 'under the folder\'s 50 MB limit');
    const { gap, value } = await heartbeat(() => outcome(() => fileLabEventsInSlices(bytes, GENERIC_CSV, { timeZone: 'UTC' })));
    assert.deepEqual(value, { error: ['FileReadError', "the file has more than maxRows 500,000 rows (row 500,001 starts on line 500001): refused whole, none of its results sent; a run's export is far smaller (one run per file), or raise maxRows in the dialect for a file this large you trust", 'maxRows', 500_001] });
    assert.ok(gap < MAX_GAP_MS, `the event loop was held ${gap.toFixed(0)} ms at once`);
    // The same limit in the reading in one go, and lower or higher as the dialect says.
    assert.throws(() => fileLabEvents(bigCsv(20), { ...GENERIC_CSV, maxRows: 20 }, { timeZone: 'UTC' }), (err: unknown) => err instanceof FileReadError && err.setting === 'maxRows' && /more than maxRows 20 rows \(row 21 starts on line 21\)/.test(err.message));
    assert.equal(fileLabEvents(bigCsv(20), { ...GENERIC_CSV, maxRows: 21 }, { timeZone: 'UTC' }).length, 1);
  });

  it('answers a preview and a pointing request on a 2.5 MB CSV while a heartbeat keeps ticking', async () => {
    const bytes = csvOfSize(2.5 * 1024 * 1024);
    const site = { base: GENERIC_CSV.id };
    const preview = await heartbeat(async () => {
      const answer = await previewFileSiteInSlices(site, bytes, 'UTC', 'big.csv');
      // The route sends it as JSON in slices too.
      let n = 0;
      for (const piece of jsonPieces(answer)) n += piece.length;
      return { answer, n };
    });
    assert.ok(preview.value.answer.preview!.results.length > 300_000);
    assert.equal(preview.value.n, JSON.stringify(preview.value.answer).length);
    assert.ok(preview.gap < MAX_GAP_MS, `preview: the event loop was held ${preview.gap.toFixed(0)} ms at once`);
    const point = await heartbeat(() => pointFileAtInSlices({ base: GENERIC_CSV.id, text: '', bytes, timeZone: 'UTC', role: 'testCode', place: { row: 2, column: 2 } }));
    assert.ok('changed' in point.value && point.value.setting === 'layout.test' && point.value.already, JSON.stringify(point.value).slice(0, 300));
    assert.ok(point.gap < MAX_GAP_MS, `pointing: the event loop was held ${point.gap.toFixed(0)} ms at once`);
  });

  it('previews a file whose 150,000 results are all QC (one event) in slices as in one go', async () => {
    // Every sample a control: the preview's QC list is made from one event of them all, in pieces.
    const profile: FileDialectProfile = { ...GENERIC_CSV, qc: [{ by: 'sample', pattern: '.' }] };
    const bytes = bigCsv(150_000);
    const once = previewFile(profile, bytes, 'UTC', 'qc.csv');
    assert.equal(once.qc.length, 150_000);
    assert.deepEqual(await previewFileInSlices(profile, bytes, 'UTC', 'qc.csv'), once);
  });

  it('JSON in pieces is JSON.stringify', () => {
    const value = { a: [1, 'x', null, undefined, { b: [[], {}], c: undefined }], d: 'é"\n', e: Array.from({ length: 100 }, (_, i) => ({ i, f: () => i })), g: new Date(0), h: Buffer.from('ab') };
    assert.equal([...jsonPieces(value)].join(''), JSON.stringify(value));
  });
});

describe('a workbook in its worker thread', () => {
  const XLSX_CSV: FileDialectProfile = { ...GENERIC_CSV, format: 'xlsx' };

  it('reads the 400,000 shared-strings workbook (41 MB unpacked) off the event loop, as in one go', async () => {
    const bytes = sharedStringsWorkbook(400_000);
    const { gap, value } = await heartbeat(() => fileLabEventsInSlices(bytes, XLSX_CSV, { timeZone: 'UTC' }));
    assert.deepEqual(
      value.flatMap((e) => (e.type === 'results' ? e.results.map((r) => [r.SampleNumber, r.Result]) : [])),
      Array.from({ length: 10 }, (_, k) => [`S-${k + 2}`, `${k + 2}.5`]),
    );
    assert.ok(gap < MAX_GAP_MS, `the event loop was held ${gap.toFixed(0)} ms at once`);
  });

  it('refuses a workbook beyond its heap cap, or slower than its time limit, with the reason: the worker stopped, no row delivered', async () => {
    const bytes = sharedStringsWorkbook(400_000);
    await assert.rejects(workbookRowsOffLoop(bytes, XLSX_CSV, { heapMB: 32 }), (err: unknown) => err instanceof WorkbookError && err.setting === 'maxUnpackedMB' && /^reading the workbook needed more than the 32 MB of memory it was given \(96 MB and 12 times the \d+ MB its ZIP directory declares, at most lisBridge\.workbookHeapMB, 2048 MB\): stopped, not read, none of its results sent/.test(err.message));
    await assert.rejects(workbookRowsOffLoop(bytes, XLSX_CSV, { timeoutMs: 20 }), (err: unknown) => err instanceof WorkbookError && /^reading the workbook took longer than 0.02 s: stopped, not read, none of its results sent/.test(err.message));
    // The runtime's cap (lisBridge.workbookHeapMB) is the most any workbook gets.
    await assert.rejects(fileLabEventsInSlices(bytes, XLSX_CSV, { timeZone: 'UTC', workbookHeapMB: 40 }), (err: unknown) => err instanceof FileReadError && err.setting === 'maxUnpackedMB' && /needed more than the 40 MB of memory it was given .*at most lisBridge\.workbookHeapMB, 40 MB/.test(err.message));
    // A directory that understates its sizes gets the small heap it declares; SheetJS, which trusts those sizes, finds the XML cut short.
    const liar = sharedStringsWorkbook(400_000, { understated: true });
    await assert.rejects(fileLabEventsInSlices(liar, XLSX_CSV, { timeZone: 'UTC' }), (err: unknown) => err instanceof FileReadError && /^the workbook cannot be read/.test(err.message));
  });

  it('refuses a sheet of more rows than maxRows in the worker, as in one go', async () => {
    const bytes = sharedStringsWorkbook(100);
    const profile = { ...XLSX_CSV, maxRows: 5 };
    assert.deepEqual(await outcome(() => fileRowsInSlices(bytes, profile)), await outcome(() => fileRows(bytes, profile)));
    assert.match(String(((await outcome(() => fileRowsInSlices(bytes, profile))) as { error: unknown[] }).error[1]), /more than maxRows 5 rows \(row 6 starts on line 6\)/);
  });
});
