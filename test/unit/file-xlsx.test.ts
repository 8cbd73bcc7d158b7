/**
 * Excel workbooks under a file dialect (format xlsx): the QuantStudio 7 Pro /
 * Diomni results workbook (test/fixtures/file, SOURCES.md) read value by
 * value, a sheet chosen by name or position, cells as raw values, the ZIP
 * checked before the spreadsheet library sees it (a bomb refused naming
 * maxUnpackedMB), a legacy .xls (BIFF8) read by the same dialects, anything
 * that is no workbook refused naming format, and the
 * settings held to the schema with the path of each.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as XLSX from '@e965/xlsx';
import {
  APPBIO_QUANTSTUDIO_DA_XLSX,
  findFileProfile,
  workbookRowsOffLoop,
  captureOf,
  FileDialectProfileSchema,
  fileLabEvents,
  FileReadError,
  fileRows,
  GENERIC_CSV,
  previewFile,
  previewFileSite,
  siteFileProfile,
  type FileDialectProfile,
} from '../../lib/protocols/file';
import type { InstrumentResult, LabEvent, UnassignedResult } from '../../lib/lab';
import { zip } from '../support/zip';

const FIXTURES = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'file');
const FIXTURE = readFileSync(join(FIXTURES, 'quantstudio-7-pro-diomni-presence-absence.xlsx'));
const QS = APPBIO_QUANTSTUDIO_DA_XLSX;
const read = (bytes: Buffer, p: FileDialectProfile, timeZone = 'America/New_York') => fileLabEvents(bytes, p, { timeZone });
const of = (events: LabEvent[], type: 'results' | 'qc') => events.flatMap((e) => (e.type === type ? e.results : []));
const unassigned = (events: LabEvent[]): UnassignedResult[] => events.flatMap((e) => (e.type === 'unassigned' ? e.items : []));
const brief = (rs: InstrumentResult[]) => rs.map((r) => [r.SampleNumber, r.instrumentCode, r.Result, r.record]);
const site = (overrides: unknown) => {
  const s = siteFileProfile({ base: QS.id, overrides });
  assert.deepEqual(s.issues, []);
  return s.profile!;
};
const refused = (bytes: Buffer, p: FileDialectProfile, setting: string, message: RegExp) =>
  assert.throws(
    () => read(bytes, p),
    (err: unknown) => err instanceof FileReadError && err.setting === setting && message.test(err.message),
  );

describe('file reading: Excel workbooks (format xlsx)', () => {
  it('reads the QuantStudio 7 Pro / Diomni results workbook value by value', () => {
    const events = read(FIXTURE, QS);
    // One patient result: Sample001's T4 amplified (Cq 39.54, a number cell); the run date from the header block.
    const results = of(events, 'results');
    assert.deepEqual(brief(results), [['Sample001', 'T4', '39.54', 31]]);
    assert.equal(results[0]!.completedAtRaw, '2026-02-13 02:39:53 PM');
    assert.equal(results[0]!.completedAt, '2026-02-13T19:39:53.000Z'); // 2:39:53 PM in New York (EST, UTC-5)
    const first = events[0];
    assert.deepEqual(first?.type === 'results' && first.problems, []);
    // The no-template and positive controls by Task, their values as written.
    assert.deepEqual(brief(of(events, 'qc')), [
      ['Negative Control', 'Globin', 'UNDETERMINED', 34],
      ['Negative Control', 'T4', 'UNDETERMINED', 35],
      ['Positive Control', 'Globin', 'UNDETERMINED', 36],
      ['Positive Control', 'T4', 'UNDETERMINED', 37],
    ]);
    // UNDETERMINED (did not amplify) is no result: never sent, kept with the reason and the row's cells.
    const kept = unassigned(events);
    assert.deepEqual(
      kept.map((u) => [u.record, u.instrumentCode, u.Result]),
      [
        [30, 'Globin', 'UNDETERMINED'],
        [32, 'Globin', 'UNDETERMINED'],
        [33, 'T4', 'UNDETERMINED'],
      ],
    );
    assert.match(kept[0]!.reason, /^line 30: Globin is "UNDETERMINED", a value the dialect reads as no result \(noResult\): not sent$/);
    assert.equal(kept[0]!.text, 'A01\tFALSE\tSample001\tGlobin\tUNKNOWN\tFAM\tNFQ-MGB\tUNDETERMINED\t\t\tFALSE\t0.04\tTRUE\t3\t39');
  });

  it('gives the sheet as rows of text cells, each line the Excel row number, as a text export would', () => {
    const rows = fileRows(FIXTURE, QS);
    assert.equal(rows.length, 37);
    assert.deepEqual(rows[0], { line: 1, cells: ['File Name', 'C:\\ProgramData\\Diomni\\files\\runs\\RUN-01\\RUN-01.eds'] });
    assert.deepEqual(rows[11], { line: 12, cells: ['Run End Data/Time', '2026-02-13 02:39:53 PM EST'] });
    assert.deepEqual(rows[27], { line: 28, cells: [] });
    assert.deepEqual(rows[28]!.cells, ['Well', 'Omit', 'Sample', 'Target', 'Task', 'Reporter', 'Quencher', 'Cq', 'Cq Mean', 'Cq SD', 'Auto Threshold', 'Threshold', 'Auto Baseline', 'Baseline Start', 'Baseline End']);
    assert.deepEqual(rows[30], { line: 31, cells: ['A01', 'FALSE', 'Sample001', 'T4', 'UNKNOWN', 'ABY', 'QSY2', '39.54', '', '', 'FALSE', '0.03', 'TRUE', '3', '39'] });
    // The editor's capture shows the table from its header row, tab between cells.
    const capture = captureOf(QS, rows);
    const first = capture.messages[0]!.lines[0]!;
    assert.equal(first.label, 'line 1'); // no startsAfter: the capture starts at the file's top, as for a text file
    assert.ok(capture.messages[0]!.lines.some((l) => l.label === 'line 29' && l.tokens[0]!.text === 'Well' && l.tokens[1]!.text === '\t'));
  });

  it('reads another sheet by name or position: the qualitative call of each target', () => {
    const calls = site({ sheet: 'Target Call', layout: { value: 'Call' }, qc: [{ by: 'column', column: 'Sample type', anyOf: ['NTC', 'POSITIVE_CONTROL'] }] });
    const events = read(FIXTURE, calls);
    assert.deepEqual(brief(of(events, 'results')), [
      ['Sample001', 'Globin', 'NEGATIVE', 30],
      ['Sample001', 'T4', 'POSITIVE', 31],
      ['Sample002', 'Globin', 'NEGATIVE', 32],
      ['Sample002', 'T4', 'NEGATIVE', 33],
    ]);
    assert.deepEqual(
      of(events, 'qc').map((r) => [r.SampleNumber, r.instrumentCode, r.Result]),
      [
        ['Negative Control', 'Globin', 'NEGATIVE'],
        ['Negative Control', 'T4', 'NEGATIVE'],
        ['Positive Control', 'Globin', 'NEGATIVE'],
        ['Positive Control', 'T4', 'NEGATIVE'],
      ],
    );
    assert.deepEqual(fileRows(FIXTURE, site({ sheet: 5 })), fileRows(FIXTURE, site({ sheet: 'Target Call' })));
    refused(FIXTURE, site({ sheet: 'Results' }), 'sheet', /no sheet "Results" \(sheet\); its sheets are 1 "Primary_result", 2 "Amplification Data", 3 "Multicomponent", 4 "Raw Data", 5 "Target Call"; set sheet/);
    refused(FIXTURE, site({ sheet: 6 }), 'sheet', /no sheet 6 \(sheet\)/);
    // A list: the first name of it the workbook has, in the dialect's order, not the workbook's.
    assert.deepEqual(fileRows(FIXTURE, site({ sheet: ['Results', 'Target Call', 'Primary_result'] })), fileRows(FIXTURE, site({ sheet: 5 })));
    refused(FIXTURE, site({ sheet: ['Results', 'Summary'] }), 'sheet', /no sheet "Results" or "Summary" \(sheet\)/);
  });

  it('an omitted well (Omit TRUE) is never sent', () => {
    const sheet = XLSX.utils.aoa_to_sheet([
      ['Run End Date/Time', '2024-02-12 05:36:23 PM EST'],
      [],
      ['Well', 'Omit', 'Sample', 'Target', 'Task', 'Cq'],
      ['A1', 'FALSE', 'S-1', 'N1', 'UNKNOWN', 31.2],
      ['A2', 'TRUE', 'S-2', 'N1', 'UNKNOWN', 25.5],
    ]);
    const book = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(book, sheet, 'Results');
    const events = read(XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer, QS);
    assert.deepEqual(brief(of(events, 'results')), [['S-1', 'N1', '31.2', 4]]);
    assert.equal(of(events, 'results')[0]!.completedAt, '2024-02-12T22:36:23.000Z');
    assert.match(unassigned(events)[0]!.reason, /^line 5: Omit is "TRUE", not one of validWhen\[0\]\.anyOf \["FALSE","false"\]: not sent$/);
  });

  it('reads cells as raw values: numbers unrounded by their display format, dates as YYYY-MM-DD HH:mm:ss', () => {
    const sheet = XLSX.utils.aoa_to_sheet([
      ['Sample', 'Test', 'Result', 'Done', 'Ok'],
      ['S-1', 'CT', 28.53378323812079, 45335.6109606481, true],
      ['S-2', 'CT', 17.8, 45335.5, false],
      ['S-3', 'GLU', '5,4', '', ''],
    ]);
    sheet['C2']!.z = '0.00'; // Excel would show 28.53
    sheet['C3']!.z = '0.00'; // and 17.80
    sheet['D2']!.z = 'm/d/yy h:mm';
    sheet['D3']!.z = 'dd.mm.yyyy';
    const book = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(book, sheet, 'Data');
    const bytes = XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer;
    const p: FileDialectProfile = { ...GENERIC_CSV, format: 'xlsx', decimalComma: true, layout: { form: 'row-per-result', sample: 'Sample', test: 'Test', value: 'Result', time: { columns: ['Done'], format: 'YYYY-MM-DD HH:mm:ss' } } };
    const rows = fileRows(bytes, p);
    assert.deepEqual(rows[1]!.cells, ['S-1', 'CT', '28.53378323812079', '2024-02-13 14:39:47', 'TRUE']);
    assert.deepEqual(rows[2]!.cells, ['S-2', 'CT', '17.8', '2024-02-13 12:00:00', 'FALSE']);
    const results = of(fileLabEvents(bytes, p, { timeZone: 'UTC' }), 'results');
    assert.deepEqual(
      results.map((r) => [r.SampleNumber, r.Result, r.completedAt ?? null]),
      [
        ['S-1', '28.53378323812079', '2024-02-13T14:39:47.000Z'],
        ['S-2', '17.8', '2024-02-13T12:00:00.000Z'],
        ['S-3', '5.4', null], // a text cell with a decimal comma: the dialect's decimalComma applies as for a text file
      ],
    );
  });

  it('refuses a ZIP bomb before inflating it, naming maxUnpackedMB', () => {
    // 64 KB of XML that declares 4 GB - 1: the directory alone refuses it.
    const bomb = zip([{ name: 'xl/workbook.xml', data: Buffer.alloc(64 * 1024, 0x20), declared: 0xffffffff }]);
    assert.ok(bomb.length < 2048);
    refused(bomb, QS, 'maxUnpackedMB', /^the workbook unpacks to 4096 MB by its directory, more than maxUnpackedMB 50 MB allows: not read/);
    // Many entries each under the limit, together over it.
    const many = zip(Array.from({ length: 3 }, (_, i) => ({ name: i === 0 ? 'xl/workbook.xml' : `xl/worksheets/sheet${i}.xml`, data: Buffer.alloc(10), declared: 20 * 1024 * 1024 })));
    refused(many, QS, 'maxUnpackedMB', /unpacks to 60 MB by its directory, more than maxUnpackedMB 50 MB/);
    // A directory that understates: 3 MB of spaces declared as 100 bytes, inflated against the allowance.
    const liar = zip([
      { name: 'xl/workbook.xml', data: Buffer.from('<workbook/>') },
      { name: 'xl/worksheets/sheet1.xml', data: Buffer.alloc(3 * 1024 * 1024, 0x20), declared: 100 },
    ]);
    refused(liar, site({ maxUnpackedMB: 1 }), 'maxUnpackedMB', /unpacks to more than its directory says \(the allowance ran out inflating "xl\/worksheets\/sheet1\.xml"\), more than maxUnpackedMB 1 MB allows/);
    // The real workbook is far under the default.
    assert.equal(of(read(FIXTURE, site({ maxUnpackedMB: 1 })), 'results').length, 1);
  });

  it('a legacy Excel 97-2003 workbook (.xls, BIFF8): a QuantStudio 384-well export read by the desktop dialect, every row of its Results table as the sheet holds it, off the event loop alike', async () => {
    const XLS = readFileSync(join(FIXTURES, 'quantstudio-384-results.xls'));
    const p = findFileProfile('appbio-quantstudio-xlsx')!;
    const events = fileLabEvents(XLS, p, { timeZone: 'UTC', fileName: 'run.xls' });
    // The Results sheet read here on its own: the rows under the header row that starts with Well.
    const sheet = XLSX.utils.sheet_to_json<unknown[]>(XLSX.read(XLS, { type: 'buffer', sheets: 'Results' }).Sheets.Results!, { header: 1, raw: true, defval: '' });
    const head = sheet.findIndex((r) => r[0] === 'Well');
    const names = sheet[head] as string[];
    const col = (n: string) => names.indexOf(n);
    const rows = sheet.slice(head + 1).filter((r) => r.some((c) => c !== ''));
    const isControl = (r: unknown[]) => ['STANDARD', 'NTC'].includes(String(r[col('Task')]));
    const expect = (keep: (r: unknown[]) => boolean) => rows.filter(keep).map((r) => [String(r[col('Sample Name')]), String(r[col('Target Name')]), String(r[col('CT')])]);
    assert.equal(rows.length, 216, 'the wells the run used, of 384');
    assert.deepEqual(of(events, 'results').map((r) => [r.SampleNumber, r.instrumentCode, r.Result]).sort(), expect((r) => !isControl(r)).sort());
    assert.deepEqual(of(events, 'qc').map((r) => [r.SampleNumber, r.instrumentCode, r.Result]).sort(), expect(isControl).sort());
    assert.deepEqual(await workbookRowsOffLoop(XLS, p), fileRows(XLS, p));
    refused(XLS, site({ maxUnpackedMB: 1 }), 'maxUnpackedMB', /the \.xls workbook is 2 MB, more than maxUnpackedMB 1 MB allows/);
  });

  it('refuses what is no workbook, saying what it is and naming format', () => {
    refused(Buffer.from('Well\tSample\tTarget\tCq\nA1\tS-1\tN1\t31.2\n'), QS, 'format', /^the file is not an Excel workbook \(it starts neither as a ZIP archive, \.xlsx, nor as an OLE2 file, \.xls\), and the dialect reads workbooks \(format xlsx\)/);
    // An .xls signature over nothing: the library's own reason, said as a damaged workbook.
    refused(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0]), QS, 'format', /^the workbook cannot be read \(.+\): the file is damaged or not an Excel workbook$/);
    refused(Buffer.alloc(0), QS, 'format', /the file is empty/);
    refused(zip([{ name: 'results.csv', data: Buffer.from('a,b\n') }]), QS, 'format', /a ZIP archive but holds no Excel workbook \(no xl\/workbook\.xml\)/);
    refused(FIXTURE.subarray(0, FIXTURE.length >> 1), QS, 'format', /has no ZIP directory at its end: the file is damaged: cut short, or read as text on its way \(a workbook must arrive as bytes/);
    // A workbook decoded as UTF-8 text on its way (file-in's default) has lost its bytes: said so, not guessed at.
    refused(Buffer.from(FIXTURE.toString('utf8'), 'utf8'), QS, 'format', /read as text on its way \(a workbook must arrive as bytes: Node-RED's file-in node set to "a single Buffer object"\)/);
    // And the other way round: the workbook under a text dialect names format too.
    refused(FIXTURE, GENERIC_CSV, 'format', /ZIP archive \(an Excel \.xlsx workbook\?\) and the dialect reads text \(format text\): set format to xlsx/);
  });

  it('the settings: strict schema, and each problem with its path', () => {
    assert.ok(FileDialectProfileSchema.safeParse(QS).success);
    assert.equal(FileDialectProfileSchema.safeParse({ ...QS, sheets: 1 }).success, false);
    const issues = (base: string, overrides: unknown) => siteFileProfile({ base, overrides }).issues.map((i) => i.path);
    assert.deepEqual(issues(QS.id, { sheets: 'Results' }), ['sheets']);
    assert.deepEqual(issues(QS.id, { format: 'xls' }), ['format']);
    assert.deepEqual(issues(QS.id, { sheet: 0 }), ['sheet']);
    assert.deepEqual(issues(QS.id, { sheet: ' ' }), ['sheet']);
    assert.deepEqual(issues(QS.id, { maxUnpackedMB: 0 }), ['maxUnpackedMB']);
    assert.deepEqual(issues(QS.id, { maxUnpackedMB: 5000 }), ['maxUnpackedMB']);
    assert.deepEqual(issues('generic-csv', { sheet: 'Results' }), ['sheet']);
    assert.deepEqual(issues('generic-csv', { maxUnpackedMB: 10 }), ['maxUnpackedMB']);
    assert.deepEqual(issues(QS.id, { format: null }), ['sheet']); // back to text: the sheet setting has no meaning left
  });

  it('the dialog: a paste is text, so a workbook dialect says so and how to load it; the bytes of a real file preview fully', () => {
    const pasted = previewFileSite({ base: QS.id }, 'Well\tSample\n', 'UTC');
    assert.match(JSON.stringify(pasted), /a paste is text: the preview cannot show a workbook pasted here; load the workbook itself with \\"Load a file…\\"/);
    assert.match(JSON.stringify(pasted), /the file is not an Excel workbook/);
    const preview = previewFile(QS, FIXTURE, 'UTC');
    assert.deepEqual(preview.problems, []);
    assert.match(JSON.stringify(preview), /Sample001/);
    // The file loaded in the dialog: its bytes, its sheet drawn as the capture from line 1 (the run date is in the header block), no note about pasting.
    const loaded = previewFileSite({ base: QS.id }, FIXTURE, 'UTC', 'run.xlsx');
    assert.deepEqual(loaded.paste, { form: 'file', framing: 'xlsx', notes: [], problems: [] });
    assert.deepEqual(loaded.preview?.results.map((r) => [r.sampleNumber, r.testCode, r.value]), [['Sample001', 'T4', '39.54']]);
    const header = loaded.capture?.messages[0]?.lines.find((l) => l.label === 'line 29');
    assert.deepEqual(header?.tokens.filter((t) => t.place).slice(0, 3), [
      { text: 'Well', place: { row: 29, column: 1 } },
      { text: 'Omit', place: { row: 29, column: 2 } },
      { text: 'Sample', place: { row: 29, column: 3 } },
    ]);
  });
});
