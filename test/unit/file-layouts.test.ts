/**
 * Layouts real instruments write, read value by value against the values
 * Benchling's allotropy reads from the same files (test/fixtures/allotropy,
 * expected.json):
 * - plates: a 384-well plate with no sample labels (BMG MARS), read only with
 *   a plate map, every well it does not name held by its well; a Gen5 export
 *   whose grids have a row of column numbers and three lines per plate row,
 *   each named in its last cell, and one whose two lines per plate row are
 *   each a test (DAPI, GFP); a well's position never a sample number;
 * - the test named once: in the file's name (NanoDrop One: `dsDNA …csv`), in
 *   a line above a plate (MARS: `Test name:`), or a constant;
 * - the unit inside a header cell: `Nucleic Acid(ng/uL)` (NanoDrop One),
 *   `Concentration` over `(ng/ul)` in one cell (Lunatic's workbook);
 * - lines that are each one quoted field holding a whole row, and a test code
 *   made of two columns (HACH DR3900, SENAITE's test data; UTF-8 and UTF-16),
 *   against the file's own cells read here;
 * - the assay of each row part of its test codes (QuantStudio genotyping:
 *   `SNP Assay Name` and each allele's Ct column), against the file's own
 *   cells read here;
 * - tables repeated in blocks, each with its own header and its test in its
 *   title (QIAGEN Rotor-Gene, three assays), and the test named once in the
 *   section title above a single table;
 * - a sample named on its first well's row only, its replicate wells below
 *   with the cell empty, each well a result (SoftMax Pro, replicatesBelow);
 * - a legacy code page: a Gen5 export in Windows-1252 decoded cell by cell,
 *   GBK across a slice boundary, and a paste in such a dialect read as text;
 * - an XML export read into a table by a reader made for it (Bio-Plex
 *   Manager, format bioplex-xml), against the file's own tags read here.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileLabEvents, fileRows, fileRowsInSlices, previewFileSite, siteFileProfile, type FileDialectProfile } from '../../lib/protocols/file';
import { FileReadError, headerUnit } from '../../lib/protocols/file/read';
import { pendingColumns } from '../../lib/protocols/file/validate';
import { zip } from '../support/zip';
import type { InstrumentResult, LabEvent, UnassignedResult } from '../../lib/lab';

const SUITE = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'allotropy');
type Row = [sample: string | null, test: string, value: number, unit: string | null, well: string];
const EXPECTED = JSON.parse(readFileSync(join(SUITE, 'expected.json'), 'utf8')) as Record<string, { results: Row[] }>;

const site = (base: string, overrides: unknown): FileDialectProfile => {
  const built = siteFileProfile({ base, overrides });
  assert.deepEqual(built.issues, []);
  return built.profile!;
};
const read = (file: string, p: FileDialectProfile): LabEvent[] => fileLabEvents(readFileSync(join(SUITE, file)), p, { timeZone: 'UTC', fileName: file });
const sent = (events: LabEvent[]): InstrumentResult[] => events.flatMap((e) => (e.type === 'results' || e.type === 'qc' ? e.results : []));
const held = (events: LabEvent[]): UnassignedResult[] => events.flatMap((e) => (e.type === 'unassigned' ? e.items : []));
/** Rows as a multiset: the file-message sends a sample's results together, allotropy lists them in the file's order. */
const sorted = (rows: unknown[][]) => rows.map((r) => JSON.stringify(r)).sort();

describe('plates', () => {
  const MARS = 'bmg_mars/16-03-03 16-54-03 472 ABS 384 QC.csv';
  // The MARS export names no sample: its grid's title, the test, and a plate map for three wells, as a lab's worklist would.
  const marsDialect = (wells?: Record<string, string>) =>
    site('thermo-multiskan-go', { encoding: 'utf8', delimiter: 'comma', decimalComma: false, sampleNumber: { take: null }, qc: [], layout: { samples: null, values: 'Raw Data (484)', test: '484nm', units: 'mAU', ...(wells ? { wells } : {}) } });

  it('a 384-well plate without sample labels (BMG MARS): the wells a plate map names are sent, every other well held by its name, each value as allotropy reads it', () => {
    const expected = EXPECTED[MARS]!.results;
    const valueAt = new Map(expected.map((r) => [r[4], r[2]]));
    const events = read(MARS, marsDialect({ C1: 'S-1001', C2: 'S-1002', P24: 'S-1003' }));
    assert.deepEqual(
      sent(events).map((r) => [r.SampleNumber, r.instrumentCode, Number(r.Result), r.units, r.well]),
      [
        ['S-1001', '484nm', valueAt.get('C1'), 'mAU', 'C1'],
        ['S-1002', '484nm', valueAt.get('C2'), 'mAU', 'C2'],
        ['S-1003', '484nm', valueAt.get('P24'), 'mAU', 'P24'],
      ],
    );
    // The other 96 wells with a value are held, each naming its well, with the value allotropy reads there.
    const others = held(events).map((u) => [/well ([A-P]\d+) names no sample/.exec(u.reason)?.[1], Number(u.Result)]);
    assert.equal(others.length, expected.length - 3);
    assert.deepEqual(
      others.sort(),
      expected.filter((r) => !['C1', 'C2', 'P24'].includes(r[4])).map((r) => [r[4], r[2]]).sort(),
    );
    assert.match(held(events)[0]!.reason, /^line 10: well A1 names no sample \(no label in the file, and layout\.wells does not name it\): not sent$/);
  });

  it('a plate without labels is not a dialect until a plate map names its wells; a map names wells, not places', () => {
    const issues = (wells: unknown) => siteFileProfile({ base: 'thermo-multiskan-go', overrides: { layout: { samples: null, wells } } }).issues.map((i) => i.path);
    assert.deepEqual(issues(undefined), ['layout.wells']);
    assert.deepEqual(issues({}), ['layout.wells']);
    assert.deepEqual(issues({ A1: 'S-1', '1A': 'S-2', B2: ' ' }), ['layout.wells.1A', 'layout.wells.B2']);
  });

  it('a label that is a well position is held, whatever the pattern: A1 would collide across every plate', () => {
    const text = 'Sample;1;2\nA;A1;S-77\n\nAbs;1;2\nA;0,5;0,6\n';
    const events = fileLabEvents(Buffer.from(text, 'latin1'), site('thermo-multiskan-go', { sampleNumber: { take: null } }), { timeZone: 'UTC' });
    assert.deepEqual(sent(events).map((r) => [r.SampleNumber, r.Result, r.well]), [['S-77', '0.6', 'A2']]);
    assert.deepEqual(held(events).map((u) => u.reason), ['line 5: sample number "A1" is a plate well\'s position, which every plate has: not sent (name the sample, or map the well in layout.wells)']);
  });

  it('Gen5: grids with a row of column numbers and three lines per plate row, the labels from "Well ID", the values from "[Concentration]", all 96 as allotropy reads them', () => {
    const GEN5 = 'agilent_gen5/absorbance/endpoint_stdcurve_singleplate.txt';
    const gen5 = (valuesLine: string) => ({
      encoding: 'utf8',
      delimiter: 'tab',
      decimalComma: false,
      sampleNumber: { take: null },
      qc: [{ by: 'sample', pattern: '^(?:STD|BLK)' }],
      layout: { samples: 'Layout', samplesLine: 'Well ID', values: 'Results', valuesLine, test: '[Concentration]' },
    });
    const p = site('thermo-multiskan-go', gen5('[Concentration]'));
    const events = read(GEN5, p);
    const ours = sent(events).map((r) => [r.SampleNumber, r.instrumentCode, Number(r.Result), r.well]);
    const theirs = EXPECTED[GEN5]!.results.map((r) => [r[0], r[1], r[2], r[4]]);
    const byWell = (a: unknown[], b: unknown[]) => String(a[3]).localeCompare(String(b[3]));
    assert.deepEqual(ours.sort(byWell), theirs.sort(byWell));
    assert.equal(ours.length, 96);
    assert.equal(held(events).length, 0);
    // Standards and the blank are QC, the SPL wells patients' (SPL1:1 is sample 1 at its first dilution, as the file names it).
    assert.deepEqual([...new Set(events.flatMap((e) => (e.type === 'qc' ? e.results.map((r) => r.SampleNumber) : [])))], ['STD1', 'STD2', 'STD3', 'STD4', 'STD5', 'STD6', 'STD7', 'BLK']);
    // A grid line asked for that a plate row lacks refuses the file, naming the lines it has.
    assert.throws(() => read(GEN5, site('thermo-multiskan-go', gen5('Conc'))), /plate row A of the grid on line 48 has no line named "Conc" in its last cell \(layout\.valuesLine\); its lines are named "630nmAbsRead:630", "Blank 630nmAbsRead:630", "\[Concentration\]"/);
    // No line named where a plate row has several: the rows below the first would go unread, so the file is refused, naming the lines.
    const unnamed = (key: 'valuesLine' | 'samplesLine') => site('agilent-gen5-concentration', { layout: { [key]: null } });
    assert.throws(() => read(GEN5, unnamed('valuesLine')), /^FileReadError: line 50: plate row A of the grid on line 48 has several lines, named "630nmAbsRead:630", "Blank 630nmAbsRead:630", "\[Concentration\]" in their last cell; set layout\.valuesLine to the one to read$/);
    assert.throws(() => read(GEN5, unnamed('samplesLine')), /line 31: plate row A of the grid on line 29 has several lines, named "Well ID", "Conc\/Dil" in their last cell; set layout\.samplesLine/);
  });

  it('Gen5: a well read as no result (OVRFLW) is counted with the text of its plate row, which names the well and its sample', () => {
    const A260 = 'agilent_gen5/absorbance/absorbance_error_document_example.txt';
    const p = site('thermo-multiskan-go', { encoding: 'utf8', delimiter: 'tab', decimalComma: false, noResult: ['OVRFLW'], sampleNumber: { take: null }, qc: [], layout: { samples: 'Layout', samplesLine: 'Well ID', values: 'Results', valuesLine: '260:260', test: 'A260' } });
    const events = read(A260, p);
    assert.equal(sent(events).length, 11);
    assert.deepEqual(held(events).map((u) => [u.reason, u.text.split('\t').slice(0, 2).join(' '), u.notForLis]), [['line 49: A260 is "OVRFLW", a value the dialect reads as no result (noResult): not sent', 'well A1 "SPL1": A OVRFLW', true]]);
  });

  it('Gen5: two lines of each plate row read (layout.valuesLine a list), each value its line\'s test (layout.test from "line"), all 192 as allotropy reads them', () => {
    const DAPI = 'agilent_gen5/fluorescence/endpoint_singleplate.txt';
    const gen5 = (valuesLine: unknown, test: unknown = { from: 'line' }) => ({
      encoding: 'utf8',
      delimiter: 'tab',
      decimalComma: false,
      sampleNumber: { take: null },
      qc: [{ by: 'sample', pattern: '^(?:POS|NEG)$' }],
      layout: { samples: 'Layout', samplesLine: 'Well ID', values: 'Results', valuesLine, test },
    });
    const events = read(DAPI, site('thermo-multiskan-go', gen5(['normDAPI', 'normGFP'])));
    const ours = sent(events).map((r) => [r.SampleNumber, r.instrumentCode, Number(r.Result), r.well]);
    const theirs = EXPECTED[DAPI]!.results.map((r) => [r[0], r[1], r[2], r[4]]);
    assert.deepEqual(sorted(ours), sorted(theirs));
    assert.equal(ours.length, 192);
    // Well A1 (POS, a control) has both tests, each from its own line of plate row A.
    assert.deepEqual(events.flatMap((e) => (e.type === 'qc' ? e.results.filter((r) => r.well === 'A1').map((r) => [r.instrumentCode, r.Result]) : [])), [['normDAPI', '0.992'], ['normGFP', '0.988']]);
    // One line a plate row lacks refuses the file, as one line alone does.
    assert.throws(() => read(DAPI, site('thermo-multiskan-go', gen5(['normDAPI', 'meanGFP']))), /plate row A of the grid on line 47 has no line named "meanGFP" in its last cell \(layout\.valuesLine\)/);
    // Several lines under one test code would send two measures as one test; a line test needs a plate's valuesLine.
    const issues = (overrides: unknown) => siteFileProfile({ base: 'thermo-multiskan-go', overrides }).issues.map((i) => i.path);
    assert.deepEqual(issues(gen5(['normDAPI', 'normGFP'], 'NORM')), ['layout.valuesLine']);
    assert.deepEqual(issues(gen5(['normDAPI', 'normDAPI'])), ['layout.valuesLine']);
    assert.deepEqual(issues(gen5([])), ['layout.valuesLine']);
    assert.deepEqual(issues(gen5(['normDAPI'])), []);
    assert.deepEqual(issues({ layout: { test: { from: 'line' } } }), ['layout.test.from']);
    assert.deepEqual(siteFileProfile({ base: 'generic-csv', overrides: { layout: { test: { from: 'line' } } } }).issues.map((i) => i.path), ['layout.test.from']);
  });
});

describe('the test named once, and the unit inside a header cell', () => {
  const NANODROP = 'thermo_fisher_nanodrop_one/dsDNA 7_19_2023 3_27_29 PM.csv';
  // NanoDrop One names its application only in the file name; the value column's header holds the unit.
  const nanodrop = (format?: 'xlsx') => site('generic-csv', { ...(format ? { format } : {}), layout: { sample: 'Sample Name', test: { from: 'name', pattern: '^(\\S+) ' }, value: 'Nucleic Acid(ng/uL)', headerUnits: true } });

  it('NanoDrop One: the test from the file name, the unit from the value column\'s header, as a CSV and as a workbook, each value as allotropy reads it', () => {
    const expected = EXPECTED[NANODROP]!.results.map((r) => [r[0], r[1], r[2]]);
    for (const [file, name, p] of [[NANODROP, NANODROP.split('/')[1]!, nanodrop()], ['thermo_fisher_nanodrop_one/example1.xlsx', 'dsDNA example1.xlsx', nanodrop('xlsx')]] as const) {
      const events = fileLabEvents(readFileSync(join(SUITE, file)), p, { timeZone: 'UTC', fileName: name });
      assert.deepEqual(sorted(sent(events).map((r) => [r.SampleNumber, r.instrumentCode, Number(r.Result)])), sorted(expected), file);
      // allotropy writes the unit as µg; the export as ug, which is what is sent.
      assert.deepEqual([...new Set(sent(events).map((r) => r.units))], ['ng/uL'], file);
    }
    assert.throws(() => fileLabEvents(readFileSync(join(SUITE, NANODROP)), nanodrop(), { timeZone: 'UTC', fileName: 'export.csv' }), /the file name "export\.csv" does not match layout\.test\.pattern ".+": the file does not name its test where the dialect looks; set layout\.test/);
  });

  it('Lunatic workbook: "Concentration" over "(ng/ul)" in one header cell, split into the test and its unit', () => {
    const LUNATIC = 'unchained_labs_lunatic_stunner/2024-07-12_CW288_Plate1.xlsx';
    const p = site('generic-csv', { format: 'xlsx', table: { headerFirstCell: 'Plate ID' }, layout: { form: 'row-per-sample', sample: 'Sample name', tests: ['Concentration\n(ng/ul)'], headerUnits: true } });
    const events = read(LUNATIC, p);
    assert.deepEqual(
      sorted(sent(events).map((r) => [r.SampleNumber, r.instrumentCode, Number(r.Result), r.units])),
      sorted(EXPECTED[LUNATIC]!.results.map((r) => [r[0], r[1], r[2], 'ng/ul'])),
    );
  });

  it('a plate\'s test from the line above it (MARS: "Test name: …"), or a constant the integrator sets', () => {
    const MARS = 'bmg_mars/16-03-03 16-54-03 472 ABS 384 QC.csv';
    const plate = (test: unknown) => site('thermo-multiskan-go', { encoding: 'utf8', delimiter: 'comma', decimalComma: false, sampleNumber: { take: null }, qc: [], layout: { samples: null, values: 'Raw Data (484)', test, wells: { C1: 'S-1001' } } });
    assert.deepEqual(sent(read(MARS, plate({ from: 'header', pattern: '^Test name: ([^,]+)' }))).map((r) => [r.SampleNumber, r.instrumentCode]), [['S-1001', '472 ABS 384 QC']]);
    assert.deepEqual(sent(read(MARS, plate({ constant: 'ABS484' }))).map((r) => r.instrumentCode), ['ABS484']);
    // The run's date from the same lines above the plate's grid.
    const dated = site('thermo-multiskan-go', { encoding: 'utf8', delimiter: 'comma', decimalComma: false, sampleNumber: { take: null }, qc: [], runDate: { from: 'header', pattern: 'Date: (\\d\\d/\\d\\d/\\d{4})', format: 'DD/MM/YYYY' }, layout: { samples: null, values: 'Raw Data (484)', test: 'ABS', wells: { C1: 'S-1001' } } });
    assert.deepEqual(sent(read(MARS, dated)).map((r) => [r.completedAtRaw, r.completedAt]), [['03/03/2016', '2016-03-03T00:00:00.000Z']]);
    const issues = (test: unknown) => siteFileProfile({ base: 'generic-csv', overrides: { layout: { test } } }).issues.map((i) => i.path);
    assert.deepEqual(issues({ constant: ' ' }), ['layout.test.constant']);
    assert.deepEqual(issues({ from: 'header', pattern: '(' }), ['layout.test.pattern']);
    assert.deepEqual(siteFileProfile({ base: 'generic-csv', overrides: { table: { header: false }, layout: { sample: 1, test: 2, value: 3, headerUnits: true } } }).issues.map((i) => i.path), ['layout.headerUnits']);
  });

  it('a header cell\'s unit: the brackets that close it (nested kept), or its second line; nothing else is a unit', () => {
    assert.deepEqual(headerUnit('WBC(10^9/L)'), { test: 'WBC', unit: '10^9/L' });
    assert.deepEqual(headerUnit('HCT(10^(-1)%)'), { test: 'HCT', unit: '10^(-1)%' });
    assert.deepEqual(headerUnit('Conc. [cp/µL]'), { test: 'Conc.', unit: 'cp/µL' });
    assert.deepEqual(headerUnit('Na 589.592\n(mg/L)'), { test: 'Na 589.592', unit: 'mg/L' });
    assert.deepEqual(headerUnit('Concentration\r\nng/ul'), { test: 'Concentration', unit: 'ng/ul' });
    assert.deepEqual(headerUnit('(+)'), { test: '(+)' });
    assert.deepEqual(headerUnit('A260/A280'), { test: 'A260/A280' });
    assert.deepEqual(headerUnit('Ratio()'), { test: 'Ratio()' });
    assert.deepEqual(headerUnit('x)'), { test: 'x)' });
  });
});

describe('quoted whole-row lines, and a test code of two columns', () => {
  const FILES = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'file');
  // What the export holds, read here on its own: each line's outer quotes dropped, then cut at commas.
  const cellsOf = (text: string) => text.split('\n').filter((l) => l !== '').map((l) => l.replace(/^"|"$/g, '').split(','));
  const dr3900 = (overrides: Record<string, unknown> = {}) =>
    site('generic-csv', { table: { skipRows: 2, quotedLines: true }, layout: { sample: 'Sample ID:', test: ['Program', 'Name'], value: 'Result', units: 'Unit' }, ...overrides });

  it('HACH DR3900: every line one quoted field, cut again inside; the test is Program and Name joined; UTF-8 and UTF-16 alike', () => {
    const text = readFileSync(join(FILES, 'hach-dr3900-quoted-lines.csv'), 'utf8');
    const [head, ...data] = cellsOf(text).slice(2);
    const col = (n: string) => head!.indexOf(n);
    const expected = data.map((c) => [c[col('Sample ID:')], `${c[col('Program')]} ${c[col('Name')]}`, c[col('Result')]!.trim(), c[col('Unit')]]);
    assert.deepEqual(expected[0], ['DU-0001', 'P656 SiO₂', '32.9', 'mg/L']);
    for (const [file, p] of [['hach-dr3900-quoted-lines.csv', dr3900()], ['hach-dr3900-quoted-lines-utf16.csv', dr3900({ encoding: 'utf16le' })]] as const) {
      const events = fileLabEvents(readFileSync(join(FILES, file)), p, { timeZone: 'UTC', fileName: file });
      assert.deepEqual(sent(events).map((r) => [r.SampleNumber, r.instrumentCode, r.Result, r.units]), expected, file);
      assert.equal(held(events).length, 0, file);
    }
    // Without quotedLines each line is one cell, and the header names no column: refused, naming the setting's column.
    assert.throws(() => fileLabEvents(readFileSync(join(FILES, 'hach-dr3900-quoted-lines.csv')), dr3900({ table: { skipRows: 2, quotedLines: false } }), { timeZone: 'UTC' }), /no column "Sample ID:" \(layout\.sample\)/);
  });

  it('one sample measured for two parameters: the test of two columns keeps them apart; one column of them empty leaves no test code', () => {
    const events = fileLabEvents(readFileSync(join(FILES, 'hach-dr3900-two-analyses.csv')), dr3900({ layout: { sample: 'Sample ID:', test: ['Parameter:', 'Name'], value: 'Result', units: 'Unit' } }), { timeZone: 'UTC' });
    assert.deepEqual(sent(events).map((r) => [r.SampleNumber, r.instrumentCode, r.Result]), [['DU-0001', 'FNU SiO₂', '32.9'], ['DU-0001', 'Mg SiO₂', '34.5']]);
    const gap = fileLabEvents(Buffer.from('Sample,Program,Name,Result\nS-1,P656,,3.2\n'), site('generic-csv', { layout: { sample: 'Sample', test: ['Program', 'Name'], value: 'Result' } }), { timeZone: 'UTC' });
    assert.deepEqual(held(gap).map((u) => u.reason), ['line 2: no test code: not sent']);
    assert.deepEqual(siteFileProfile({ base: 'generic-csv', overrides: { layout: { test: [] } } }).issues.map((i) => i.path), ['layout.test']);
    assert.deepEqual(siteFileProfile({ base: 'generic-csv', overrides: { format: 'xlsx', table: { quotedLines: true } } }).issues.map((i) => i.path), ['table.quotedLines']);
  });
});

describe('tables repeated in blocks', () => {
  const FILES = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'file');
  const TITLE = '^Quantitative analysis of .*\\((.+)\\)$';
  // The export read here on its own: each title's assay, then the rows under its header row up to an empty row.
  function tablesOf(text: string): Array<[string, string, string]> {
    const out: Array<[string, string, string]> = [];
    let assay: string | undefined;
    let names: string[] | undefined;
    for (const line of text.replace(/^\uFEFF/, '').split('\r\n')) {
      const c = line.split(';');
      const title = new RegExp(TITLE).exec(c[0]!);
      if (title) [assay, names] = [title[1], undefined];
      else if (assay !== undefined && c[0] === 'No.') names = c;
      else if (names !== undefined && c[0] !== '') out.push([c[names.indexOf('Name')]!, assay!, c[names.indexOf('Ct')]!]);
      else names = undefined;
    }
    return out;
  }

  it('Rotor-Gene: three assays, each a table under its own title and header, read as one file, the test from each title', () => {
    const text = readFileSync(join(FILES, 'rotor-gene-three-assays.csv'), 'utf8');
    const p = site('generic-csv', { delimiter: 'semicolon', table: { blocks: TITLE, headerFirstCell: 'No.', endsAtEmptyRow: true }, layout: { sample: 'Name', test: { from: 'block' }, value: 'Ct' } });
    const events = fileLabEvents(Buffer.from(text, 'utf8'), p, { timeZone: 'UTC' });
    const expected = tablesOf(text);
    assert.equal(expected.length, 72);
    assert.deepEqual([...new Set(expected.map((r) => r[1]))], ['28S', 'HNRNPL protein', 'HNRNPL NMD']);
    assert.deepEqual(sorted(sent(events).map((r) => [r.SampleNumber, r.instrumentCode, r.Result])), sorted(expected));
    assert.equal(held(events).length, 0);
    // One block without the header row the dialect looks for refuses the file, naming the block.
    const broken = text.replace(/(HNRNPL NMD\);+\r\n;+\r\n)No\./, '$1Nr.');
    assert.throws(() => fileLabEvents(Buffer.from(broken, 'utf8'), p, { timeZone: 'UTC' }), /the block on line 65 \("HNRNPL NMD"\): no row after line 66 starts with "No\." \(table\.headerFirstCell\)/);
    assert.deepEqual(siteFileProfile({ base: 'generic-csv', overrides: { layout: { test: { from: 'block' } } } }).issues.map((i) => i.path), ['layout.test.from']);
  });

  it('Rotor-Gene, one assay: the test named once in the section title above its table', () => {
    const text = readFileSync(join(FILES, 'rotor-gene-one-assay.csv'), 'utf8');
    const p = site('generic-csv', { delimiter: 'semicolon', table: { headerFirstCell: 'No.', endsAtEmptyRow: true }, layout: { sample: 'Name', test: { from: 'header', pattern: TITLE.replace('$', '') }, value: 'Ct' } });
    const events = fileLabEvents(Buffer.from(text, 'utf8'), p, { timeZone: 'UTC' });
    assert.deepEqual(sorted(sent(events).map((r) => [r.SampleNumber, r.instrumentCode, r.Result])), sorted(tablesOf(text)));
    assert.equal(sent(events).length, 24);
  });
});

describe('SoftMax Pro: every group a block, each with the mean column it has, groups of controls as QC', () => {
  const FILE = 'moldev_softmax_pro/group_cols_with_int_sample_names.txt';
  const p = site('moldev-softmax-pro-groups', {});
  const utf16 = (text: string) => Buffer.from(text, 'utf16le');
  const text = readFileSync(join(SUITE, FILE)).toString('utf16le');
  // The file read here on its own: each group's name and the named rows' MeanResult, up to the group's empty row.
  function groupsOf(): Array<[group: string, sample: string, value: string]> {
    const out: Array<[string, string, string]> = [];
    let group: string | undefined;
    let names: string[] | undefined;
    for (const line of text.replace(/^\uFEFF/, '').split('\r\n')) {
      const c = line.split('\t');
      if (c[0]!.startsWith('Group: ')) [group, names] = [c[0]!.slice(7), undefined];
      else if (group !== undefined && names === undefined && c[0] === 'Sample') names = c;
      else if (names !== undefined && line === '') [group, names] = [undefined, undefined];
      else if (names !== undefined && c[0]!.trim() !== '' && names.includes('MeanResult')) out.push([group!, c[0]!, c[names.indexOf('MeanResult')]!]);
    }
    return out;
  }

  it('reads Ctrl and LOQ to QC, the three sample groups as results, the standard curve\'s group not at all, Range? held as no result', () => {
    const events = fileLabEvents(utf16(text), p, { timeZone: 'UTC' });
    const rows = groupsOf();
    assert.deepEqual([...new Set(rows.map((r) => r[0]))], ['Ctrl', 'LOQ', 'group_1', 'group_2', 'group_3']);
    const qc = events.flatMap((e) => (e.type === 'qc' ? e.results : []));
    const results = events.flatMap((e) => (e.type === 'results' ? e.results : []));
    assert.deepEqual(sorted(qc.map((r) => [r.SampleNumber, r.instrumentCode, r.Result])), sorted(rows.filter((r) => /^(Ctrl|LOQ)$/.test(r[0])).map((r) => [r[1], 'MeanResult', r[2]])));
    const samples = rows.filter((r) => r[0].startsWith('group_'));
    assert.deepEqual(sorted(results.map((r) => [r.SampleNumber, r.instrumentCode, r.Result])), sorted(samples.filter((r) => r[2] !== 'Range?').map((r) => [r[1], 'MeanResult', r[2]])));
    assert.equal(held(events).length, samples.filter((r) => r[2] === 'Range?').length);
    assert.equal(held(events).length, 13);
  });

  it('a group with none of the mean columns refuses the file naming it; without someTests every group must have every listed column', () => {
    const renamed = text.replace('Group: Std\r\n', 'Group: Calibration\r\n');
    assert.throws(() => fileLabEvents(utf16(renamed), p, { timeZone: 'UTC' }), /the block on line 27 \("Calibration"\): line 28: none of layout\.tests \[?"?MeanResult"?, "?AvgConc"?, "?AdjConc"?, "?MeanResults"?\]? is a column of this table/);
    const every = site('moldev-softmax-pro-groups', { layout: { someTests: false } });
    assert.throws(() => fileLabEvents(utf16(text), every, { timeZone: 'UTC' }), /no column "AvgConc" \(layout\.tests\[1\]\)/);
    const issues = (overrides: unknown) => siteFileProfile({ base: 'moldev-softmax-pro', overrides }).issues.map((i) => i.path);
    assert.deepEqual(issues({ layout: { someTests: true } }), ['layout.someTests']);
    assert.deepEqual(issues({ qc: [{ by: 'block', pattern: '^Ctrl$' }] }), ['qc[0].by']);
    assert.deepEqual(issues({ qc: [{ by: 'block', pattern: '(' }] }).sort(), ['qc[0].by', 'qc[0].pattern']);
  });
});

describe('a table whose columns say it is another dialect\'s refuses the file (layout.notWith)', () => {
  it("a MeanValue dialect reads a protocol without a curve, and refuses one whose group has the curve's MeanResult beside its MeanValue", () => {
    const WITH_CURVE = 'moldev_softmax_pro/group_with_partial_rows.txt';
    const lines = readFileSync(join(SUITE, WITH_CURVE)).toString('utf16le').replace(/^\uFEFF/, '').split('\r\n');
    // The file's own first group read (the standard curve's is not) with both: the mean reading and the curve's mean result.
    const at = lines.findIndex((l, i) => /^Group: (?!(?:Std|Standards?)(?: \d+)?$)/.test(l) && ['MeanValue', 'MeanResult'].every((c) => lines[i + 1]!.split('\t').includes(c)));
    assert.ok(at >= 0);
    const p = site('moldev-softmax-pro-values', {});
    assert.throws(() => read(WITH_CURVE, p), (err: unknown) => err instanceof FileReadError && err.setting === 'layout.notWith'
      && new RegExp(`line ${at + 2}: the table has the column "MeanResult" \\(layout\\.notWith\\)`).test(err.message));
    // Without the rule, that group's mean readings would be sent as its results.
    const readings = sent(read(WITH_CURVE, site('moldev-softmax-pro-values', { layout: { notWith: null } })));
    assert.ok(readings.length > 0 && readings.every((r) => r.instrumentCode === 'MeanValue'));
    assert.ok(sent(read('moldev_softmax_pro/MD_SMP_fluorescence_endpoint_example06.txt', p)).length > 0);
    const issues = (overrides: unknown) => siteFileProfile({ base: 'moldev-softmax-pro-values', overrides }).issues.map((i) => i.path);
    assert.deepEqual(issues({ layout: { notWith: [] } }), ['layout.notWith']);
    assert.deepEqual(issues({ layout: { notWith: ['MeanValue'] } }), ['layout.notWith']);
  });

  it("one row per result or per sample alike: VISIONlite's per-wavelength CSV refuses a method's Result, NanoDrop's custom method a report with NA Type", () => {
    const refusedBy = (file: string, id: string, column: string) =>
      assert.throws(() => read(file, site(id, {})), (err: unknown) => err instanceof FileReadError && err.setting === 'layout.notWith' && err.message.includes(`the table has the column ${JSON.stringify(column)} (layout.notWith)`));
    const VL = 'thermo_fisher_visionlite/';
    assert.ok(readFileSync(join(SUITE, `${VL}Fixed_with_Result_Multi.csv`), 'utf8').split(/\r?\n/)[0]!.split(',').includes('Result'));
    refusedBy(`${VL}Fixed_with_Result_Multi.csv`, 'thermo-visionlite-fixed-csv', 'Result');
    refusedBy(`${VL}Thermo_VISIONlite_example_quant.csv`, 'thermo-visionlite-fixed-csv', 'Concentration [mg/L]');
    assert.ok(sent(read(`${VL}Thermo_VISIONlite_example_fixed.csv`, site('thermo-visionlite-fixed-csv', {}))).length > 0);
    refusedBy('thermo_fisher_nanodrop_8000/Thermo_NanoDrop_8000_example03.txt', 'thermo-nanodrop-8000-custom', 'NA Type');
    assert.ok(sent(read('thermo_fisher_nanodrop_8000/Thermo_NanoDrop_mRNA.txt', site('thermo-nanodrop-8000-custom', {}))).length > 0);
    const issues = (overrides: unknown) => siteFileProfile({ base: 'thermo-nanodrop-8000-custom', overrides }).issues.map((i) => i.path);
    assert.deepEqual(issues({ layout: { notWith: ['Conc.'] } }), ['layout.notWith']);
  });
});

describe('SoftMax Pro: a sample named on its first well\'s row only, each well a result (layout.replicatesBelow)', () => {
  const FILE = 'moldev_softmax_pro/MD_SMP_absorbance_endpoint_partial_plate_example03.txt';
  const p = site('moldev-softmax-pro-well-conc', {});
  const text = readFileSync(join(SUITE, FILE)).toString('utf16le');
  // The file read here on its own: the group's rows, each well's concentration under the sample last named above it.
  function wells(): Array<[sample: string, value: string]> {
    const lines = text.replace(/^\uFEFF/, '').split('\r\n');
    const at = lines.findIndex((l) => l.startsWith('Group: '));
    const names = lines[at + 1]!.split('\t');
    const out: Array<[string, string]> = [];
    let sample = '';
    for (const line of lines.slice(at + 2)) {
      if (line === '') break;
      const c = line.split('\t');
      if (c[0]!.trim() !== '') sample = c[0]!;
      out.push([sample, c[names.indexOf('Concentration (ng/uL)')]!]);
    }
    return out;
  }

  it('sends each well\'s concentration under the sample named above it, its unit split from the column\'s name', () => {
    const results = read(FILE, p).flatMap((e) => (e.type === 'results' ? e.results : []));
    const own = wells();
    assert.equal(own.length, 21);
    assert.equal(new Set(own.map((w) => w[0])).size, 7);
    assert.deepEqual(results.map((r) => [r.SampleNumber, r.Result]), own);
    assert.ok(results.every((r) => r.instrumentCode === 'Concentration' && r.units === 'ng/uL'));
  });

  it('without it the replicate wells are held with no sample number; it needs the table to end at its empty row', () => {
    const events = read(FILE, site('moldev-softmax-pro-well-conc', { layout: { replicatesBelow: false } }));
    assert.equal(events.flatMap((e) => (e.type === 'results' ? e.results : [])).length, 7);
    assert.equal(held(events).filter((i) => /no sample number/.test(i.reason)).length, 14);
    const issues = siteFileProfile({ base: 'moldev-softmax-pro-well-conc', overrides: { table: { endsAtEmptyRow: false } } }).issues.map((i) => i.path);
    assert.deepEqual(issues, ['layout.replicatesBelow']);
  });
});

describe('a section titled over two cells, and a count column that is no test (Luminex xPONENT)', () => {
  const FILE = 'luminex_xponent/luminex_xPONENT_example02.csv';
  const text = readFileSync(join(SUITE, FILE), 'latin1');
  const p = site('luminex-xponent', {});
  // The file read here on its own: the rows under the header after the line "DataType:","Net MFI", up to an empty line.
  function netMfi(): Array<[string, string, string]> {
    const lines = text.split('\r\n').map((l) => l.split(',').map((c) => c.replace(/^"|"$/g, '')));
    const at = lines.findIndex((c) => c[0] === 'DataType:' && c[1] === 'Net MFI');
    const names = lines[at + 1]!;
    const out: Array<[string, string, string]> = [];
    // Location is quoted with a comma inside ("1(1,A1)"): the row's cells shift by one against the header.
    for (const c of lines.slice(at + 2)) {
      if (c.length < 2) break;
      const cells = [`${c[0]},${c[1]}`, ...c.slice(2)];
      for (const analyte of names.slice(2, names.indexOf('Total Events'))) out.push([cells[1]!, analyte, cells[names.indexOf(analyte)]!]);
    }
    return out;
  }

  it('reads the Net MFI section, not the Median or Count ones titled the same way, each analyte a test and Total Events none', () => {
    const events = read(FILE, p);
    const expected = netMfi();
    assert.equal(expected.length, 8);
    assert.deepEqual(sorted(sent(events).map((r) => [r.SampleNumber, r.instrumentCode, r.Result])), sorted(expected));
    assert.ok(!sent(events).some((r) => r.instrumentCode === 'Total Events'));
    // A second section of the same title refuses the file: one of them alone would leave the other's results unsent.
    const twice = text.replace('"DataType:","Avg Net MFI"', '"DataType:","Net MFI"');
    assert.throws(() => fileLabEvents(Buffer.from(twice, 'latin1'), p, { timeZone: 'UTC' }), /a second section starts with \["DataType:","Net MFI"\] \(table\.startsAfter\)/);
    const none = text.replaceAll('"Net MFI"', '"Net mfi"');
    assert.throws(() => fileLabEvents(Buffer.from(none, 'latin1'), p, { timeZone: 'UTC' }), /no row starts with \["DataType:","Net MFI"\] \(table\.startsAfter\)/);
    const issues = (overrides: unknown) => siteFileProfile({ base: 'luminex-xponent', overrides }).issues.map((i) => i.path);
    assert.deepEqual(issues({ table: { startsAfter: [] } }), ['table.startsAfter']);
    assert.deepEqual(issues({ layout: { tests: ['alpha'] } }), ['layout.notTests']);
  });
});

describe('an analyte and a statistic in one header cell (Luminex INTELLIFLEX)', () => {
  it('reads each `<analyte> AVERAGE MFI` column as the analyte\'s result, its MEDIAN and COUNT beside it not at all', () => {
    const FILE = 'luminex_intelliflex/luminex_intelliflex_single_dataset.csv';
    const p = site('luminex-intelliflex', {});
    const [names, ...rows] = readFileSync(join(SUITE, FILE), 'utf8').replace(/^\uFEFF/, '').trimEnd().split(/\r?\n/).map((l) => l.split(','));
    const expected = rows.flatMap((r) => names!.flatMap((n, i) => (n.endsWith(' AVERAGE MFI') ? [[r[names!.indexOf('SAMPLE ID')]!, n.slice(0, -' AVERAGE MFI'.length), r[i]!]] : [])));
    assert.equal(expected.length, 84);
    assert.deepEqual(sorted(sent(read(FILE, p)).map((r) => [r.SampleNumber, r.instrumentCode, r.Result])), sorted(expected));
    // Without the pattern every column after the sample's is a test: the statistics and the well counts too.
    const all = site('luminex-intelliflex', { layout: { testPattern: null } });
    assert.ok(sent(read(FILE, all)).some((r) => r.instrumentCode === 'R25: RP1 MEDIAN'));
    const issues = (overrides: unknown) => siteFileProfile({ base: 'luminex-intelliflex', overrides }).issues.map((i) => i.path);
    assert.deepEqual(issues({ layout: { testPattern: '(' } }), ['layout.testPattern']);
    assert.deepEqual(issues({ layout: { tests: ['R25: RP1 AVERAGE MFI'] } }), ['layout.testPattern']);
  });

  it("a held result of a row too wide for its text names the row's sample first (its cell comes after the run's columns)", () => {
    const FILE = 'luminex_intelliflex/luminex_intelliflex_v2_2.csv';
    const [names, ...rows] = readFileSync(join(SUITE, FILE), 'utf8').replace(/^\uFEFF/, '').trimEnd().split(/\r?\n/).map((l) => l.split(','));
    const items = held(read(FILE, site('luminex-intelliflex', {})));
    assert.equal(items.length, 112);
    for (const item of items) {
      const sample = rows[item.record - 2]![names!.indexOf('SAMPLE ID')]!;
      assert.ok(item.text.startsWith(`sample ${JSON.stringify(sample)}: `) && item.text.endsWith('…'), item.text.slice(0, 60));
    }
  });
});

describe('the assay of each row part of its test codes (QuantStudio genotyping)', () => {
  const FILE = 'appbio_quantstudio/appbio_quantstudio_example03.txt';
  const text = readFileSync(join(SUITE, FILE), 'utf8');
  // The [Results] section read here on its own: each well row's sample, its assay with each allele's Ct column, the Ct.
  function cellsOf(t: string): string[][] {
    const lines = t.split(/\r?\n/);
    const start = lines.indexOf('[Results]') + 1;
    const end = lines.findIndex((l, i) => i > start && l.trim() === '');
    return lines.slice(start, end < 0 ? undefined : end).map((l) => l.split('\t'));
  }
  function expectedOf(t: string): string[][] {
    const [names, ...rows] = cellsOf(t);
    const col = (n: string) => names!.indexOf(n);
    return rows.flatMap((r) => ['Allele1 Ct', 'Allele2 Ct'].map((c) => [r[col('Sample Name')]!, `${r[col('SNP Assay Name')]} ${c}`, r[col(c)]!]));
  }

  it('reads every well\'s two allele Cts under its SNP assay, a second assay apart, a row without one held', () => {
    const p = site('appbio-quantstudio-genotyping', {});
    const expected = expectedOf(text);
    assert.equal(expected.length, 192);
    assert.deepEqual(sorted(sent(read(FILE, p)).map((r) => [r.SampleNumber, r.instrumentCode, r.Result])), sorted(expected));
    // Well A3 run with another assay: its two Cts are that assay's, not CYP19_2's.
    const other = text.replace(/^(3\tA3\tfalse\t[^\t]*\t)CYP19_2\t/m, '$1CYP19_3\t');
    assert.notEqual(other, text);
    const otherSent = sent(fileLabEvents(Buffer.from(other), p, { timeZone: 'UTC' }));
    assert.deepEqual(otherSent.filter((r) => r.instrumentCode.startsWith('CYP19_3')).map((r) => [r.SampleNumber, r.instrumentCode]), [['Allele 1', 'CYP19_3 Allele1 Ct'], ['Allele 1', 'CYP19_3 Allele2 Ct']]);
    assert.deepEqual(sorted(otherSent.map((r) => [r.SampleNumber, r.instrumentCode, r.Result])), sorted(expectedOf(other)));
    // A row without its assay has no test code: both its Cts held, saying which column has no assay, none sent under the bare column.
    const none = text.replace(/^(3\tA3\tfalse\t[^\t]*\t)CYP19_2\t/m, '$1\t');
    const events = fileLabEvents(Buffer.from(none), p, { timeZone: 'UTC' });
    assert.equal(sent(events).length, 190);
    assert.deepEqual(held(events).map((i) => i.reason.replace(/^line \d+: /, '')), ['no assay in "SNP Assay Name" (layout.assay) for "Allele1 Ct": not sent', 'no assay in "SNP Assay Name" (layout.assay) for "Allele2 Ct": not sent']);
    const issues = (overrides: unknown) => siteFileProfile({ base: 'appbio-quantstudio-genotyping', overrides }).issues.map((i) => i.path);
    assert.deepEqual(issues({ layout: { tests: ['Allele1 Ct', 'SNP Assay Name'] } }), ['layout.assay']);
    assert.deepEqual(issues({ layout: { assay: '' } }), ['layout.assay']);
    // Without a header row the assay's column is still to be pointed at: the dialect stays a draft, never read without it.
    assert.deepEqual(pendingColumns({ ...p, table: { ...p.table, header: false } }), ['layout.sample', 'layout.tests[0]', 'layout.tests[1]', 'layout.assay']);
  });
});

describe('a column group per dye, the software\'s own summary row, and a run\'s exports in one ZIP (Absolute Q)', () => {
  const SUMMARY = 'appbio_absolute_q/Appbio_AbsoluteQ_summary.csv';
  const text = readFileSync(join(SUITE, SUMMARY), 'latin1');
  // The summary read here on its own: after the dye row and the header, each well row's Sample and every Target with the Conc. after it.
  function groupsOf(): Array<[string, string, string]> {
    const [, header, ...rows] = text.trimEnd().split(/\r?\n/).map((l) => l.split(','));
    const targets = header!.flatMap((n, i) => (n === 'Target' ? [i] : []));
    return rows.filter((r) => r[header!.indexOf('Well')] !== 'Average').flatMap((r) => targets.map((t) => [r[header!.indexOf('Sample')]!, r[t]!, r[t + 1]!] as [string, string, string]));
  }

  it('reads each dye\'s Target and Conc. as one result, the Average row counted as not for the LIS', () => {
    const events = read(SUMMARY, site('appbio-absolute-q-summary', {}));
    const expected = groupsOf();
    assert.equal(expected.length, 16);
    assert.deepEqual([...new Set(expected.map((r) => r[1]))], ['TARGET 1', 'TARGET 2']);
    assert.deepEqual(sorted(sent(events).map((r) => [r.SampleNumber, r.instrumentCode, r.Result])), sorted(expected));
    const notSent = held(events);
    assert.equal(notSent.length, 2);
    assert.ok(notSent.every((i) => i.notForLis && /Well is "Average", one of validWhen\[0\]\.noneOf \["Average"\]: not sent/.test(i.reason)));
    // A group without its value column refuses the file rather than leave the group unread.
    const cut = text.replace(/(,TARGET 2,)[^,]*(,[^\n]*\n)/, '$1$2').replace(/(Threshold,Target,)Conc\./, '$1Conc');
    assert.throws(() => fileLabEvents(Buffer.from(cut, 'latin1'), site('appbio-absolute-q-summary', {}), { timeZone: 'UTC' }), /the group starting at column 23 \("Target"\) has no column "Conc\." after it \(layout\.repeats\)/);
    // Without repeats, one result a row: the first dye's only.
    assert.equal(sent(read(SUMMARY, site('appbio-absolute-q-summary', { layout: { repeats: null } }))).length, 8);
    const issues = (overrides: unknown) => siteFileProfile({ base: 'appbio-absolute-q-summary', overrides }).issues.map((i) => i.path);
    assert.deepEqual(issues({ layout: { test: 8 } }), ['layout.repeats']);
    assert.deepEqual(issues({ validWhen: [{ column: 'Well', noneOf: [] }] }), ['validWhen[0].noneOf']);
  });

  it('multichannel: each sample and channel one result; the row of no channel (an empty Channels) counted as not for the LIS, not held for a person', () => {
    const MULTI = 'appbio_absolute_q/Appbio_AbsoluteQ_multichannel.csv';
    const [header, ...rows] = readFileSync(join(SUITE, MULTI), 'latin1').trimEnd().split(/\r?\n/).map((l) => l.split(','));
    const [sample, channel, value] = ['Sample', 'Channels', 'Copies per microliter'].map((n) => header!.indexOf(n)) as [number, number, number];
    const expected = rows.filter((r) => r[channel] !== '').map((r) => [r[sample]!, r[channel]!, r[value]!] as [string, string, string]);
    assert.equal(expected.length, 75);
    const events = read(MULTI, site('appbio-absolute-q-multichannel', {}));
    assert.deepEqual(sorted(sent(events).map((r) => [r.SampleNumber, r.instrumentCode, r.Result])), sorted(expected));
    const notSent = held(events);
    assert.deepEqual(notSent.map((i) => i.record), rows.flatMap((r, i) => (r[channel] === '' ? [i + 2] : [])));
    assert.ok(notSent.every((i) => i.notForLis && /Channels is "", one of validWhen\[0\]\.noneOf \[""\]: not sent/.test(i.reason)));
    // Without the dialect's rule, a row with no test code is held for a person, as in any dialect.
    const bare = held(read(MULTI, site('appbio-absolute-q-multichannel', { validWhen: null })));
    assert.ok(bare.length === 5 && bare.every((i) => !i.notForLis && /no test code: not sent/.test(i.reason)));
  });

  it('reads the one member of a ZIP archive its dialect names, as the CSV alone; refuses an archive without it, with two, a file that is none, and a member past maxUnpackedMB', () => {
    const archive = site('appbio-absolute-q-archive', {});
    const alone = sent(read(SUMMARY, site('appbio-absolute-q-summary', {})));
    const fromZip = sent(read('appbio_absolute_q/Appbio_AbsoluteQ_zip_test.zip', archive));
    assert.deepEqual(fromZip, alone);
    const csv = Buffer.from(text, 'latin1');
    const events = (bytes: Buffer, p = archive) => fileLabEvents(bytes, p, { timeZone: 'UTC' });
    assert.equal(sent(events(zip([{ name: 'run/Run_Summary.csv', data: csv }, { name: 'run/Run_fluorescence.csv', data: Buffer.from('x') }]))).length, 16);
    assert.throws(() => events(zip([{ name: 'fluorescence.csv', data: csv }])), /the archive holds no member whose name matches archive\.member ".+"; it holds "fluorescence\.csv"; set archive\.member/);
    assert.throws(() => events(zip([{ name: 'a_summary.csv', data: csv }, { name: 'b_summary.csv', data: csv }])), /2 members whose names match archive\.member .*the others' results would not be sent: narrow archive\.member/);
    assert.throws(() => events(csv), /the file is no ZIP archive, and the dialect reads one \(archive\.member\)/);
    assert.throws(() => events(zip([{ name: 'summary.csv', data: csv, declared: 3 * 1024 * 1024 * 1024 }])), /unpacks to 3072 MB by its directory, more than maxUnpackedMB 50 MB allows/);
    const small = site('appbio-absolute-q-archive', { maxUnpackedMB: 1 });
    assert.throws(() => events(zip([{ name: 'summary.csv', data: Buffer.alloc(2 * 1024 * 1024, 0x2c), declared: 10 }]), small), /unpacks to more than its directory says, more than maxUnpackedMB 1 MB allows/);
    assert.deepEqual(siteFileProfile({ base: 'appbio-absolute-q-archive', overrides: { archive: { member: '(' } } }).issues.map((i) => i.path), ['archive.member']);
  });
});

describe('legacy code pages', () => {
  const FILES = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'file');

  it('a Gen5 export in Windows-1252: every cell as Node\'s own Latin-1 decodes it (the file has no byte the two differ on), "28°C" where UTF-8 reads U+FFFD', async () => {
    const bytes = readFileSync(join(FILES, 'gen5-epoch2-growth-cp1252.csv'));
    assert.ok(![...bytes].some((b) => b >= 0x80 && b <= 0x9f), 'no byte where Windows-1252 and Latin-1 differ');
    const cp1252 = site('generic-csv', { encoding: 'windows-1252', table: { header: false }, layout: { sample: 1, test: 2, value: 3 } });
    const latin1 = { ...cp1252, encoding: 'latin1' as const };
    const rows = fileRows(bytes, cp1252);
    assert.deepEqual(rows, fileRows(bytes, latin1));
    assert.deepEqual(await fileRowsInSlices(bytes, cp1252), rows);
    assert.equal(rows.find((r) => r.cells[0] === 'Set Temperature')!.cells[1], 'Setpoint 28°C, Gradient 1 °C');
    assert.equal(fileRows(bytes, { ...cp1252, encoding: 'utf8' }).find((r) => r.cells[0] === 'Set Temperature')!.cells[1], 'Setpoint 28\uFFFDC, Gradient 1 \uFFFDC');
  });

  it('GBK, a character cut between two slices of a large file put together; a paste in such a dialect read as the text it is', async () => {
    // 中 is D6 D0 in GBK: its first byte the last of the first megabyte decoded.
    const head = Buffer.from(`S-1,GLU,${'1'.repeat((1 << 20) - 9)}`, 'latin1');
    const bytes = Buffer.concat([head, Buffer.from([0xd6, 0xd0]), Buffer.from('\nS-2,NA,140\n', 'latin1')]);
    const gbk = site('generic-csv', { encoding: 'gbk', table: { header: false }, layout: { sample: 1, test: 2, value: 3 } });
    const rows = await fileRowsInSlices(bytes, gbk);
    assert.equal(rows[0]!.cells[2]!.slice(-2), '1中');
    assert.deepEqual(rows[1]!.cells, ['S-2', 'NA', '140']);
    const preview = previewFileSite({ base: 'generic-csv', overrides: { encoding: 'gbk' } }, 'Sample,Test,Result\n样本-1,GLU,5.4\n', 'UTC');
    assert.deepEqual(preview.preview!.results.map((r) => [r.sampleNumber, r.value]), [['样本-1', '5.4']]);
  });
});


describe('an XML export read as a table its own reader makes (Bio-Plex Manager, format bioplex-xml)', () => {
  const FILE = 'biorad_bioplex_manager/bio-rad_bio-plex_manager_example_01.xml';
  const bytes = readFileSync(join(SUITE, FILE));
  const text = bytes.toString('utf8');
  const p = site('biorad-bioplex-manager-xml', {});
  const lineOf = (at: number) => text.slice(0, at).split('\n').length;

  /** The file read here on its own, by its tags: each measured well's regions of interest, its sample's label, kind and analyte names. */
  function ownCells(): Array<[string, string, string, string, number]> {
    const members = new Map<string, { kind: string; label: string; names: Map<string, string> }>();
    const samples = text.slice(text.indexOf('<Samples>'));
    for (const s of samples.matchAll(/<(Blank|Control|Standard|Unknown)>([\s\S]*?)<\/\1>/g)) {
      const label = /<Label>([^<]*)<\/Label>/.exec(s[2]!)![1]!;
      for (const mw of s[2]!.matchAll(/<MemberWell RowNo="(\d+)" ColNo="(\d+)"[^>]*>([\s\S]*?)<\/MemberWell>/g)) {
        const names = new Map([...mw[3]!.matchAll(/<MWAnalyte RegionNumber="(\d+)">\s*<AnalyteName>([^<]*)<\/AnalyteName>/g)].map((m) => [m[1]!, m[2]!]));
        members.set(`${String.fromCharCode(64 + Number(mw[1]))}${mw[2]}`, { kind: s[1]!, label, names });
      }
    }
    const out: Array<[string, string, string, string, number]> = [];
    const wells = text.slice(0, text.indexOf('</Wells>'));
    for (const w of wells.matchAll(/<Well RowNo="(\d+)" ColNo="(\d+)"[^>]*>([\s\S]*?)<\/Well>/g)) {
      const m = members.get(`${String.fromCharCode(64 + Number(w[1]))}${w[2]}`)!;
      const roi = new Set([...w[3]!.matchAll(/<Region RegionNumber="(\d+)" \/>/g)].map((r) => r[1]!));
      for (const b of w[3]!.matchAll(/<BeadRegion RegionNumber="(\d+)">\s*<RegionCount>\d+<\/RegionCount>\s*<Median>([^<]*)<\/Median>/g)) {
        if (roi.has(b[1]!)) out.push([m.kind, m.label, m.names.get(b[1]!)!, b[2]!, lineOf(w.index + w[0].indexOf(b[0]))]);
      }
    }
    return out;
  }

  it('reads each measured well\'s regions of interest as its sample\'s analytes, the median as written, each on its BeadRegion\'s line, as allotropy reads them', async () => {
    const events = read(FILE, p);
    const own = ownCells();
    assert.equal(own.length, 120);
    // Every well of this export holds a standard (S1 to S8): all QC, none a patient's.
    assert.ok(own.every(([kind]) => kind === 'Standard'));
    assert.equal(events.filter((e) => e.type === 'results').length, 0);
    assert.deepEqual(sorted(sent(events).map((r) => [r.SampleNumber, r.instrumentCode, r.Result, r.record])), sorted(own.map(([, label, analyte, median, line]) => [label, analyte, median, line])));
    // The export's Samples name 96 member wells, its Wells hold 8 (allotropy's example was cut down): each analyte of
    // the other 88 is held, no value, so that no sample's result goes missing without a word.
    const unmeasured = [...text.slice(text.indexOf('<Samples>')).matchAll(/<MemberWell RowNo="(\d+)" ColNo="(\d+)"[^>]*>([\s\S]*?)<\/MemberWell>/g)].filter((m) => !(m[1] === '1' && Number(m[2]) <= 8));
    const analytes = unmeasured.flatMap((m) => [...m[3]!.matchAll(/<AnalyteName>([^<]*)<\/AnalyteName>/g)].map((a) => `no value for ${a[1]!}: not sent`));
    assert.deepEqual([unmeasured.length, analytes.length], [88, 1320]);
    assert.deepEqual(held(events).map((u) => u.reason.replace(/^line \d+: /, '')).sort(), analytes.sort());
    const allotropy = EXPECTED[FILE]!.results.map(([sample, test, value]) => [sample, test, value]);
    assert.deepEqual(sorted(sent(events).map((r) => [r.SampleNumber, r.instrumentCode, Number(r.Result)])), sorted(allotropy));
    assert.equal(sent(events)[0]!.completedAt, '2023-05-09T18:55:02.000Z');
    // Region 0 (beads no region took) and the stray regions 43, 68, 74… are no rows; the table's columns as documented.
    const rows = fileRows(bytes, p);
    assert.deepEqual(rows[0]!.cells, ['Well', 'Type', 'Sample', 'Region', 'Analyte', 'Median', 'Count', 'Acquired']);
    assert.ok(!rows.some((r) => ['0', '43', '68', '74'].includes(r.cells[3]!)));
    assert.deepEqual(await fileRowsInSlices(bytes, p), rows);
  });

  it('a patient\'s wells each sent; a region with no bead, a member well not measured and a well no sample lists held; a well of two samples and malformed XML refused with the line', () => {
    const xml = (wells: string, samples: string) => `<?xml version="1.0"?>\n<bpm:BioPlexManager xmlns:bpm="urn:bio-rad">\n<Wells>\n${wells}</Wells>\n<Samples>\n${samples}</Samples>\n</bpm:BioPlexManager>\n`;
    const well = (row: number, col: number, medians: Record<string, string>) =>
      `<Well RowNo="${row}" ColNo="${col}"><AcquisitionTime>2026-05-09T10:00:00Z</AcquisitionTime><RunSettings><RegionsOfInterest><Region RegionNumber="12" /><Region RegionNumber="15" /></RegionsOfInterest></RunSettings><BeadRegions>\n${Object.entries(medians).map(([r, m]) => `<BeadRegion RegionNumber="${r}"><RegionCount>40</RegionCount><Median>${m}</Median></BeadRegion>\n`).join('')}</BeadRegions></Well>\n`;
    const member = (row: number, col: number) => `<MemberWell RowNo="${row}" ColNo="${col}"><MWAnalytes><MWAnalyte RegionNumber="12"><AnalyteName>alpha</AnalyteName></MWAnalyte><MWAnalyte RegionNumber="15"><AnalyteName>bravo</AnalyteName></MWAnalyte></MWAnalytes></MemberWell>`;
    const sample = (kind: string, label: string, ...wells: Array<[number, number]>) => `<${kind}s><${kind}><Label>${label}</Label><MemberWells>${wells.map(([r, c]) => member(r, c)).join('')}</MemberWells></${kind}></${kind}s>\n`;
    const file = xml(well(1, 1, { 0: '9', 12: '100.5', 15: '200' }) + well(2, 1, { 12: '101.5' }) + well(1, 2, { 12: '7', 15: '8' }) + well(1, 3, { 12: '1', 15: '2' }), sample('Unknown', 'PT-1', [1, 1], [2, 1], [3, 1]) + sample('Control', 'C1', [1, 2]));
    const events = fileLabEvents(Buffer.from(file), p, { timeZone: 'UTC' });
    const batch = events.find((e) => e.type === 'results');
    assert.ok(batch?.type === 'results');
    assert.deepEqual(batch.results.map((r) => [r.SampleNumber, r.instrumentCode, r.Result]), [['PT-1', 'alpha', '100.5'], ['PT-1', 'bravo', '200'], ['PT-1', 'alpha', '101.5']]);
    assert.match(batch.problems.join(), /both report test alpha for sample PT-1/);
    assert.deepEqual(sent(events).filter((r) => r.SampleNumber === 'C1').map((r) => r.instrumentCode), ['alpha', 'bravo']);
    // B1 counted no bead of bravo; A3 is no sample's; PT-1's third well, C1, has no measurement in the export.
    assert.deepEqual(
      held(events).map((u) => [u.reason.replace(/^line \d+: /, ''), u.text.split('\t')[0]]),
      [
        ['no value for bravo: not sent', 'B1'],
        ['no sample number: not sent', 'A3'],
        ['no sample number: not sent', 'A3'],
        ['no value for alpha: not sent', 'C1'],
        ['no value for bravo: not sent', 'C1'],
      ],
    );

    const refusedWith = (bad: string, line: number, message: RegExp) =>
      assert.throws(
        () => fileLabEvents(Buffer.from(bad), p, { timeZone: 'UTC' }),
        (err: unknown) => {
          const e = err as { name: string; line?: number; setting?: string; message: string };
          assert.deepEqual([e.name, e.line, e.setting], ['FileReadError', line, 'format'], e.message);
          assert.match(e.message, message);
          return true;
        },
      );
    refusedWith(xml(well(1, 1, {}), sample('Unknown', 'PT-1', [1, 1]) + sample('Standard', 'S1', [1, 1])), 9, /well A1 is a member of sample "S1" and of sample "PT-1" \(line 8\)/);
    refusedWith(xml(well(1, 1, {}) + well(1, 1, {}), sample('Unknown', 'PT-1', [1, 1])), 6, /well A1 is measured twice \(its <Well> on line 4 too\)/);
    // A file cut short, and one whose end tag closes another element: what was wrong, on its line.
    refusedWith(file.slice(0, file.indexOf('</Samples>')), 24, /the file is no well-formed XML: line 24: the file ends inside <Samples> opened on line 21/);
    refusedWith(file.replace('</BeadRegions></Well>', '</Well></BeadRegions>'), 8, /line 8: the end tag <\/Well> does not close <BeadRegions>, opened on line 4/);
    refusedWith('<?xml version="1.0"?>\n<Run><Wells/></Run>', 2, /the root element is <Run>, not <bpm:BioPlexManager>/);
    refusedWith('Sample,Test,Result\nS-1,GLU,5.4\n', 1, /text outside the root element/);
  });

  it('the reader makes the table: its settings and columns are checked, a plate refused', () => {
    const issues = (overrides: unknown) => siteFileProfile({ base: 'biorad-bioplex-manager-xml', overrides }).issues.map((i) => i.path);
    assert.deepEqual(issues({}), []);
    assert.deepEqual(issues({ table: { skipRows: 1 } }), ['table']);
    assert.deepEqual(issues({ table: { startsAfter: 'Wells' } }), ['table']);
    assert.deepEqual(issues({ layout: { value: 'Mean' } }), ['layout.value']);
    assert.deepEqual(issues({ layout: { value: 'Count' } }), []);
    assert.deepEqual(issues({ layout: { form: 'plate', values: 'Median', test: 'x', wells: { A1: 'S-1' } } }), ['layout.form']);
    assert.deepEqual(issues({ sheet: 'Results' }), ['sheet']);
  });
});
