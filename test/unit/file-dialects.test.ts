/**
 * The built-in file dialects: each usable, frozen and held to its schema; a
 * site's overrides merged, diffed and checked with the path of each setting;
 * and each instrument's own export (test/fixtures/file, SOURCES.md) read
 * value by value, against the file's cells read here independently.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as XLSX from '@e965/xlsx';
import {
  ABBOTT_M2000RT,
  APPBIO_QUANTSTUDIO,
  BECKMAN_ACCESS_2,
  FILE_PROFILES,
  FileDialectProfileSchema,
  FileReadError,
  MOLDEV_SOFTMAX_PRO,
  fileLabEvents,
  fileProfileIssues,
  SENAITE_TWO_DIMENSION,
  siteFileDialectOf,
  siteFileProfile,
  THERMO_MULTISKAN_GO,
  THERMO_SKANIT_XLSX,
  VARIAN_VISTA_PRO,
  type FileDialectProfile,
} from '../../lib/protocols/file';
import type { InstrumentResult, LabEvent } from '../../lib/lab';

const FIXTURES = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'file');
const fixture = (name: string) => readFileSync(join(FIXTURES, name));
const read = (name: string, p: FileDialectProfile, timeZone = 'UTC') => fileLabEvents(fixture(name), p, { timeZone, fileName: name });
const of = (events: LabEvent[], type: 'results' | 'qc') => events.flatMap((e) => (e.type === type ? e.results : []));
const brief = (rs: InstrumentResult[]) => rs.map((r) => [r.SampleNumber, r.instrumentCode, r.Result]);

describe('built-in file dialects', () => {
  it('are usable, frozen, unique, and what the schema accepts', () => {
    assert.equal(new Set(FILE_PROFILES.map((p) => p.id)).size, FILE_PROFILES.length);
    for (const p of FILE_PROFILES) {
      assert.deepEqual(fileProfileIssues(p), [], p.id);
      assert.ok(Object.isFrozen(p) && Object.isFrozen(p.layout), p.id);
      assert.ok(FileDialectProfileSchema.safeParse(p).success, p.id);
    }
  });

  it('export, JSON and import give the same dialect for every pair of built-ins', () => {
    for (const base of FILE_PROFILES) {
      for (const target of FILE_PROFILES) {
        const site = siteFileDialectOf(base, target);
        const back = siteFileProfile(JSON.parse(JSON.stringify(site)) as { base: string; overrides: unknown });
        assert.deepEqual(back.issues, [], `${base.id} -> ${target.id}`);
        assert.deepEqual(back.profile, target, `${base.id} -> ${target.id}`);
      }
    }
  });

  it("a site's overrides: objects merge, a layout of another form is replaced whole, null removes", () => {
    const site = siteFileProfile({ base: 'appbio-quantstudio', overrides: JSON.stringify({ layout: { value: 'Ct Mean' }, runDate: null }) });
    assert.equal(site.profile?.layout.form === 'row-per-result' && site.profile.layout.value, 'Ct Mean');
    assert.equal(site.profile?.layout.form === 'row-per-result' && site.profile.layout.sample, 'Sample Name');
    assert.equal(site.profile?.runDate, undefined);
    const other = siteFileProfile({ base: 'appbio-quantstudio', overrides: { layout: { form: 'row-per-sample', sample: 'Sample Name', tests: ['CT'] } } });
    assert.deepEqual(other.profile?.layout, { form: 'row-per-sample', sample: 'Sample Name', tests: ['CT'] });
  });

  it('problems carry the path of their setting', () => {
    const issues = (overrides: unknown) => siteFileProfile({ base: 'generic-csv', overrides }).issues.map((i) => i.path);
    assert.deepEqual(issues({ layout: { valu: 'CT' } }), ['layout.valu']);
    assert.deepEqual(issues({ sampleNumber: { pattern: '([' } }), ['sampleNumber.pattern']);
    assert.deepEqual(issues({ layout: { value: 0 } }), ['layout.value']);
    assert.deepEqual(issues({ qc: [{ by: 'column', column: 'Type', anyOf: [] }] }), ['qc[0].anyOf']);
    assert.deepEqual(issues({ runDate: { from: 'name', pattern: '(.*)', format: 'HH:mm' } }), ['runDate.format']);
    assert.deepEqual(issues({ table: { header: false } }), ['layout.sample', 'layout.test', 'layout.value']);
    assert.deepEqual(issues({ delimiter: { widths: [] } }), ['delimiter.widths']);
    assert.deepEqual(issues({ format: 'xlsx', sheet: [] }), ['sheet']);
    assert.deepEqual(issues({ format: 'xlsx', sheet: ['Results', ' '] }), ['sheet[1]']);
    assert.deepEqual(siteFileProfile({ base: 'no-such' }).issues.map((i) => i.path), ['base']);
  });
});

describe('Applied Biosystems QuantStudio exports (allotropy test data)', () => {
  it('7 Flex results export: every Ct of every sample, standards as QC, the run end time in the site zone', () => {
    const events = read('quantstudio-7-flex-results.txt', APPBIO_QUANTSTUDIO, 'America/New_York');
    assert.deepEqual(events.map((e) => e.type), ['results', 'results', 'results', 'results', 'results', 'results', 'qc']);
    assert.deepEqual(brief(of(events, 'results')), [
      ['5000018696625', "3'UTR", '25.711'], ['5000018696625', "3'UTR", '25.536'], ['5000018696625', "3'UTR", '25.589'],
      ['5000018696649', "3'UTR", '25.410'], ['5000018696649', "3'UTR", '25.295'], ['5000018696649', "3'UTR", '25.414'],
      ['5000018696673', "3'UTR", '26.456'], ['5000018696673', "3'UTR", '26.262'], ['5000018696673', "3'UTR", '26.607'],
      ['5000018696628', "3'UTR", '25.400'], ['5000018696628', "3'UTR", '25.485'], ['5000018696628', "3'UTR", '25.599'],
      ['5000018696652', "3'UTR", '28.996'], ['5000018696652', "3'UTR", '29.220'], ['5000018696652', "3'UTR", '29.110'],
      ['5000018696676', "3'UTR", '26.692'], ['5000018696676', "3'UTR", '26.638'], ['5000018696676', "3'UTR", '26.592'],
    ]);
    assert.deepEqual(of(events, 'results').map((r) => r.record), [23, 24, 25, 26, 27, 28, 29, 30, 31, 35, 36, 37, 38, 39, 40, 41, 42, 43]);
    assert.ok(of(events, 'results').every((r) => r.completedAt === '2024-10-01T19:02:50.000Z' && r.completedAtRaw === '2024-10-01 15:02:50'));
    // Triplicate wells: all three sent (as ASTM does with a test reported twice), and the batch says so.
    assert.deepEqual((events[0] as Extract<LabEvent, { type: 'results' }>).problems, [
      "lines 23 and 24 both report test 3'UTR for sample 5000018696625",
      "lines 23 and 25 both report test 3'UTR for sample 5000018696625",
    ]);
    assert.deepEqual(brief(of(events, 'qc')), [
      ['Standard 1 (1e8)', "3'UTR", '16.484'], ['Standard 1 (1e8)', "3'UTR", '16.442'], ['Standard 1 (1e8)', "3'UTR", '16.458'],
      ['Standard 2 (1e7)', "3'UTR", '19.525'], ['Standard 2 (1e7)', "3'UTR", '19.704'], ['Standard 2 (1e7)', "3'UTR", '19.561'],
    ]);
  });

  it('a well the operator omitted (Omit true) is counted as not for the LIS, never sent; its replicates are', () => {
    // The same export with one patient well marked omitted, as the software writes it (the capture itself is not edited).
    const text = fixture('quantstudio-7-flex-results.txt').toString('latin1').split('\n');
    assert.match(text[23]!, /^5\tA5\tfalse\t5000018696625\t/);
    text[23] = text[23]!.replace(/^5\tA5\tfalse\t/, '5\tA5\ttrue\t');
    const events = fileLabEvents(Buffer.from(text.join('\n'), 'latin1'), APPBIO_QUANTSTUDIO, { timeZone: 'UTC', fileName: 'omitted.txt' });
    assert.deepEqual(of(events, 'results').filter((r) => r.SampleNumber === '5000018696625').map((r) => [r.record, r.Result]), [[23, '25.711'], [25, '25.589']]);
    const held = events.flatMap((e) => (e.type === 'unassigned' ? e.items : []));
    assert.equal(held.length, 1);
    assert.ok(held[0]!.notForLis);
    assert.match(held[0]!.reason, /^line 24: Omit is "true", not one of validWhen\[0\]\.anyOf \["FALSE","false"\]: not sent$/);
  });

  it('6 Flex presence/absence export: [Results] found after four other sections; Undetermined never sent; controls by Task', () => {
    const events = read('quantstudio-6-flex-presence-absence.txt', APPBIO_QUANTSTUDIO);
    assert.equal(of(events, 'results').length, 0);
    assert.deepEqual(of(events, 'qc').map((r) => [r.SampleNumber, r.instrumentCode, r.Result, r.record]), [
      ['NAC', 'IPC', 'Undetermined', 863], ['NAC', 'TGFb', 'Undetermined', 864],
      ['NAC', 'IPC', 'Undetermined', 887], ['NAC', 'TGFb', 'Undetermined', 888],
      ['NAC', 'IPC', 'Undetermined', 911], ['NAC', 'TGFb', 'Undetermined', 912],
      ['NAC', 'IPC', 'Undetermined', 935], ['NAC', 'TGFb', 'Undetermined', 936],
    ]);
    const items = events.flatMap((e) => (e.type === 'unassigned' ? e.items : []));
    const reasons = new Map<string, number>();
    for (const i of items) {
      const r = i.reason.replace(/^line \d+: /, '');
      reasons.set(r, (reasons.get(r) ?? 0) + 1);
    }
    assert.deepEqual(Object.fromEntries(reasons), {
      'sample number "(-)" does not match sampleNumber.pattern (a letter or digit first, then words joined by single spaces): not sent': 20,
      'TGFb is "Undetermined", a value the dialect reads as no result (noResult): not sent': 20,
      'sample number "(+)" does not match sampleNumber.pattern (a letter or digit first, then words joined by single spaces): not sent': 48,
    });
    // Every row of [Results] is accounted for: 96 wells × 2 targets.
    assert.equal(items.length + of(events, 'qc').length, 96);
    const first = items[0]!;
    assert.equal(first.record, 865);
    assert.equal(first.instrumentCode, 'IPC');
    assert.equal(first.Result, '32.874');
  });
});

describe('Thermo Scientific Multiskan GO plate export (SENAITE sample)', () => {
  it('every well: the label grid and the absorbance grid matched, decimal comma read, dilution suffix dropped', () => {
    const text = fixture('multiskan-go-babesia.csv').toString('latin1');
    // The two grids read here by hand: rows A-H after "Sample" and after "Abs", columns 1-3.
    const lines = text.split('\r').map((l) => l.split(';'));
    const grid = (title: string) => {
      const at = lines.findIndex((l) => l[0] === title);
      return lines.slice(at + 1, at + 9);
    };
    const labels = grid('Sample');
    const values = grid('Abs');
    const expected: string[][] = [];
    for (let r = 0; r < 8; r++) for (let c = 1; c <= 3; c++) expected.push([labels[r]![c]!.split(' ')[0]!, 'Abs', values[r]![c]!.replace(',', '.')]);
    // As shipped: the sample's wells all carry SkanIt's default labels (Un_0001 ...), no sample numbers: kept aside, never sent.
    const shipped = read('multiskan-go-babesia.csv', THERMO_MULTISKAN_GO);
    assert.equal(of(shipped, 'results').length, 0);
    const aside = shipped.flatMap((e) => (e.type === 'unassigned' ? e.items : []));
    assert.equal(aside.length, 24);
    assert.ok(aside.every((i) => /sample number "Un_\d{4}" does not match sampleNumber\.pattern /.test(i.reason)), aside[0]?.reason);
    // A site whose layout names its wells Un_... on purpose says so in its pattern: the plate as SkanIt wrote it.
    const events = read('multiskan-go-babesia.csv', { ...THERMO_MULTISKAN_GO, sampleNumber: { ...THERMO_MULTISKAN_GO.sampleNumber, pattern: '[A-Za-z0-9][A-Za-z0-9._/-]*' } });
    assert.equal(expected.length, 24);
    assert.deepEqual(brief(of(events, 'results')), expected);
    assert.deepEqual(brief(of(events, 'results')).slice(0, 4), [['Un_0001', 'Abs', '0.1225'], ['Un_0009', 'Abs', '0.8436'], ['Un_0017', 'Abs', '0.8407'], ['Un_0002', 'Abs', '0.1264']]);
    assert.ok(of(events, 'results').every((r) => r.rawResult === r.Result.replace('.', ',')));
    assert.equal(events.filter((e) => e.type !== 'results').length, 0);
  });
});

describe('Varian Vista-PRO ICP-OES export (SENAITE sample)', () => {
  it('every row: samples sent, blanks, standards and LCS as QC, "-" (over range) never sent', () => {
    const text = fixture('varian-vista-pro-icp.csv').toString('latin1');
    const rows = text
      .split('\r\n')
      .filter((l) => l !== '')
      .slice(1)
      .map((l) => l.split(',').map((c) => c.replace(/^"(.*)"$/, '$1')));
    const events = read('varian-vista-pro-icp.csv', VARIAN_VISTA_PRO, 'Africa/Johannesburg');
    const isQc = (r: string[]) => ['Blk', 'Std', 'LCS'].includes(r[4]!) || r[0]!.trim() === 'BLANK';
    const sent = rows.filter((r) => !isQc(r) && r[7] !== '-');
    assert.equal(rows.length, 287);
    assert.deepEqual(
      brief(of(events, 'results')).sort(),
      sent.map((r) => [r[0]!.split('*')[0]!.trim(), r[5]!, r[7]!]).sort(),
    );
    assert.equal(of(events, 'results').length, 209);
    assert.deepEqual(
      brief(of(events, 'qc')),
      rows.filter(isQc).map((r) => [r[0]!.trim(), r[5]!, r[7]!]),
    );
    const items = events.flatMap((e) => (e.type === 'unassigned' ? e.items : []));
    assert.deepEqual(items.map((i) => i.record), [79, 80, 81, 94, 95, 96, 253]);
    const first = of(events, 'results')[0]!;
    assert.deepEqual(
      { SampleNumber: first.SampleNumber, instrumentCode: first.instrumentCode, Result: first.Result, units: first.units, completedAt: first.completedAt, completedAtRaw: first.completedAtRaw, record: first.record },
      { SampleNumber: 'A00035524001', instrumentCode: 'Mn 257.610', Result: '0.00833809', units: 'mg/L', completedAt: '2016-02-08T12:22:31.000Z', completedAtRaw: '08/02/2016 14:22:31', record: 22 },
    );
    assert.deepEqual(of(events, 'results').find((r) => r.flags !== undefined)?.flags, ['uv']);
  });
});

describe('SENAITE two-dimension CSV', () => {
  it('a column per test; -----, ND and the end column and row never sent', () => {
    const events = read('senaite-two-dimension.csv', SENAITE_TWO_DIMENSION);
    assert.deepEqual(brief(of(events, 'results')), [
      ['1-0001-R01', 'Mg', '2'], ['1-0001-R01', 'Ca', '0'], ['1-0001-R01', 'pest1', '1'], ['1-0001-R01', 'pest2', '1'], ['1-0001-R01', 'pest3', '1'],
      ['1-0002-R01', 'Mg', '5'], ['1-0002-R01', 'Ca', '6'], ['1-0002-R01', 'pest1', '0'], ['1-0002-R01', 'pest2', '0'], ['1-0002-R01', 'pest3', '0'],
    ]);
    assert.deepEqual(
      events.flatMap((e) => (e.type === 'unassigned' ? e.items.map((i) => i.reason) : [])),
      ['line 2: Pentachloronitrobenzene is "-----", a value the dialect reads as no result (noResult): not sent', 'line 3: Pentachloronitrobenzene is "ND", a value the dialect reads as no result (noResult): not sent'],
    );
  });
});

describe('Beckman Coulter Access 2 results export (SENAITE sample)', () => {
  it('every row: the result as written (">822.00" with its OVR flag), "No Value" never sent, the completion time day first', () => {
    const text = fixture('beckman-access-2-results.csv').toString('latin1');
    const rows = text
      .split('\n')
      .filter((l) => l !== '')
      .slice(1)
      .map((l) => l.split(','));
    const events = read('beckman-access-2-results.csv', BECKMAN_ACCESS_2, 'Africa/Johannesburg');
    const sent = rows.filter((r) => r[6] !== 'No Value');
    assert.equal(rows.length, 48);
    assert.deepEqual(
      of(events, 'results').map((r) => [r.SampleNumber, r.instrumentCode, r.Result, r.units, r.flags?.[0] ?? '', r.completedAtRaw]),
      // Grouped by sample in the order the file first names each, rows kept in file order within a sample.
      [...new Set(sent.map((r) => r[1]!))].flatMap((s) => sent.filter((r) => r[1] === s).map((r) => [r[1]!, r[4]!, r[6]!, r[7]!, r[9]!, r[8]!])),
    );
    assert.equal(of(events, 'results').length, 47);
    const over = of(events, 'results').find((r) => r.SampleNumber === 'HUS1')!;
    assert.deepEqual([over.instrumentCode, over.Result, over.units, over.flags, over.completedAt], ['HBAb3', '>822.00', 'mIU/mL', ['OVR'], '2015-02-21T12:43:42.000Z']);
    const items = events.flatMap((e) => (e.type === 'unassigned' ? e.items : []));
    assert.deepEqual(items.map((i) => [i.record, i.reason]), [[48, 'line 48: HIVco is "No Value", a value the dialect reads as no result (noResult): not sent']]);
  });
});

describe('Abbott m2000rt results log (SENAITE sample)', () => {
  it('the Result Information table past its banner: every patient result as reported ("< 40 Copies / mL", never FinalResult 18), controls apart, the run end time', () => {
    const lines = fixture('abbott-m2000rt-results.log').toString('utf8').split('\r\n');
    const results = lines.slice(lines.findIndex((l) => l.includes('Result Information')));
    const header = results.find((l) => l.startsWith('Location'))!.split('\t');
    const rows = results.slice(results.findIndex((l) => l.startsWith('Location')) + 1).filter((l) => l.includes('\t')).map((l) => l.split('\t'));
    const col = (name: string) => header.indexOf(name);
    const events = read('abbott-m2000rt-results.log', ABBOTT_M2000RT, 'UTC');
    const expected = (type: string) => rows.filter((r) => r[col('SampleType')] === type).map((r) => [r[col('SampleId')]!, r[col('AssayName')]!, r[col('InvariantReportedResult')]!]);
    assert.equal(rows.length, 24);
    assert.deepEqual(brief(of(events, 'results')), expected('Patient'));
    assert.deepEqual(brief(of(events, 'qc')), expected('Control'));
    const below = of(events, 'results').find((r) => r.SampleNumber === 'IIIIIIII')!;
    assert.equal(below.Result, '< 40 Copies / mL');
    assert.equal(rows.find((r) => r[col('SampleId')] === 'IIIIIIII')![col('FinalResult')], '18', 'the number the report does not give');
    assert.ok(of(events, 'results').every((r) => r.completedAt === '2012-11-23T15:49:09.000Z' && r.completedAtRaw === '2012/11/23 03:49:09 PM'));
    assert.equal(events.filter((e) => e.type === 'unassigned').length, 0);
  });
});

describe('Thermo Scientific SkanIt 7 measurement results workbook (allotropy sample, Varioskan LUX)', () => {
  it('every well of the first sheet: the Sample grid and the Abs grid matched, replicates both sent, standards and the blank as QC', () => {
    // The two grids read here with SheetJS directly: the rows after "Abs" and after "Sample", columns 1-12.
    const wb = XLSX.read(fixture('skanit-7-varioskan-lux-elisa.xlsx'));
    assert.equal(wb.SheetNames[0], 'Absorbance 1_01');
    const cells = XLSX.utils.sheet_to_json<unknown[]>(wb.Sheets[wb.SheetNames[0]!]!, { header: 1, raw: true, defval: '' });
    const grid = (title: string) => cells.slice(cells.findIndex((r) => r[0] === title) + 1).slice(0, 8);
    const labels = grid('Sample');
    const values = grid('Abs');
    const wells: string[][] = [];
    for (let r = 0; r < 8; r++) for (let c = 1; c <= 12; c++) wells.push([String(labels[r]![c]), 'Abs', String(values[r]![c])]);
    assert.equal(wells.length, 96);
    const isQc = (w: string[]) => /^(?:Std|Blank)/.test(w[0]!);
    const patients = wells.filter((w) => !isQc(w));
    // As shipped: SkanIt's default labels (Un0001 ...) are no sample numbers; every unknown well is kept aside with the reason.
    const shipped = read('skanit-7-varioskan-lux-elisa.xlsx', THERMO_SKANIT_XLSX);
    assert.equal(of(shipped, 'results').length, 0, 'nothing sent under SkanIt\'s own labels');
    const aside = shipped.flatMap((e) => (e.type === 'unassigned' ? e.items : []));
    assert.equal(aside.length, 80);
    assert.ok(aside.every((i) => /^line \d+: sample number "Un\d{4}" does not match sampleNumber\.pattern /.test(i.reason)), aside[0]?.reason);
    assert.deepEqual(brief(of(shipped, 'qc')), wells.filter(isQc), 'standards and blanks still QC');
    // A site whose layout names its wells Un... on purpose says so in its pattern: the plate as SkanIt wrote it.
    const events = read('skanit-7-varioskan-lux-elisa.xlsx', { ...THERMO_SKANIT_XLSX, sampleNumber: { pattern: '[A-Za-z0-9][A-Za-z0-9._/-]*' } });
    // Grouped by sample in the order the plate first names each (row by row), wells in plate order within a sample.
    assert.deepEqual(brief(of(events, 'results')), [...new Set(patients.map((w) => w[0]!))].flatMap((s) => patients.filter((w) => w[0] === s)));
    assert.equal(of(events, 'results').length, 80);
    assert.deepEqual(brief(of(events, 'results')).slice(0, 3), [['Un0001', 'Abs', '0.0805'], ['Un0001', 'Abs', '0.0865'], ['Un0002', 'Abs', '0.0743']]);
    assert.deepEqual(brief(of(events, 'qc')), wells.filter(isQc));
    assert.deepEqual([...new Set(of(events, 'qc').map((r) => r.SampleNumber))], ['Std0001', 'Std0002', 'Std0003', 'Std0004', 'Std0005', 'Std0006', 'Std0007', 'Blank1']);
    // Each row of Excel is a line: Un0001's wells A3 and A4 are on row 11.
    assert.deepEqual(of(events, 'results').slice(0, 2).map((r) => r.record), [11, 11]);
    const un1 = events.find((e) => e.type === 'results')!;
    assert.deepEqual(un1.type === 'results' && un1.problems, ['lines 11 and 11 both report test Abs for sample Un0001']);
    assert.equal(events.filter((e) => e.type === 'unassigned' || e.type === 'other').length, 0);
  });

  it('a workbook of three plates at two wavelengths is refused, never sent as its first plate alone', () => {
    // Its first sheet: plate 1's Abs grids on rows 10 and 24 and Sample grid on row 34, plate 2's Sample grid on row 73.
    assert.throws(
      () => read('skanit-7-multi-plate-two-wavelengths.xlsx', THERMO_SKANIT_XLSX),
      (err: unknown) => err instanceof FileReadError && err.line === 73 && err.setting === 'layout.samples' && /^line 73: a second grid starts with "Sample" \(layout\.samples\), after the one on line 34 /.test(err.message),
    );
  });
});

describe('Molecular Devices SoftMax Pro text export (allotropy sample)', () => {
  const text = fixture('softmax-pro-elisa-groups.txt').toString('utf8');
  const lines = text.split('\n');
  const at = lines.indexOf('Group: Samples');
  const header = lines[at + 1]!.split('\t');
  const rows = lines.slice(at + 2, lines.indexOf('', at)).map((l) => l.split('\t'));

  it('the Samples group: one result per sample, AdjConc of its first row, replicate rows passed over, standards and controls not read', () => {
    const col = (name: string) => header.indexOf(name);
    assert.equal(rows.length, 60);
    const firsts = rows.filter((r) => r[col('Sample')]!.trim() !== '');
    const events = read('softmax-pro-elisa-groups.txt', MOLDEV_SOFTMAX_PRO);
    assert.deepEqual(brief(of(events, 'results')), firsts.map((r) => [r[col('Sample')]!, 'AdjConc', r[col('AdjConc')]!]));
    assert.equal(firsts.length, 30);
    assert.deepEqual(brief(of(events, 'results')).slice(0, 2), [['01', 'AdjConc', '20979.025'], ['02', 'AdjConc', '34935.920']]);
    assert.deepEqual(of(events, 'results').map((r) => r.record).slice(0, 3), [at + 3, at + 5, at + 7]);
    // The Standards and Controls groups name samples 01-06 and 01-02 too: none of their values is read.
    assert.equal(of(events, 'results').some((r) => ['100.000', '34.779', '11.760'].includes(r.Result)), false);
    assert.deepEqual(events.map((e) => e.type), Array(30).fill('results'));
  });

  it('"Range?" (outside the standard curve) is never sent: the per-well Conc read by a site\'s change', () => {
    const site = { ...MOLDEV_SOFTMAX_PRO, layout: { ...MOLDEV_SOFTMAX_PRO.layout, tests: ['Conc'] } } as FileDialectProfile;
    const events = read('softmax-pro-elisa-groups.txt', site);
    const items = events.flatMap((e) => (e.type === 'unassigned' ? e.items : []));
    const range = rows.flatMap((r, i) => (r[header.indexOf('Conc')] === 'Range?' ? [at + 3 + i] : []));
    assert.equal(range.length, 2);
    assert.deepEqual(items.filter((i) => i.Result === 'Range?').map((i) => i.reason), range.map((l) => `line ${l}: Conc is "Range?", a value the dialect reads as no result (noResult): not sent`));
    assert.equal(of(events, 'results').some((r) => r.Result === 'Range?'), false);
    // A replicate well's row names no sample: its value is kept unassigned, never given to the sample above it.
    assert.equal(items.filter((i) => i.reason.endsWith('no sample number: not sent')).length, 28);
  });

  it("SoftMax's Unicode export (UTF-16): refused under the dialect's utf8, naming encoding; read with a site's changes for its Unknowns group", () => {
    assert.throws(() => read('softmax-pro-unknowns-utf16.txt', MOLDEV_SOFTMAX_PRO), (err: unknown) => err instanceof FileReadError && err.setting === 'encoding' && /set encoding to utf16le/.test(err.message));
    const site = siteFileProfile({ base: 'moldev-softmax-pro', overrides: { encoding: 'utf16le', table: { startsAfter: 'Group: Unknowns' }, layout: { tests: ['MeanResult'] } } });
    assert.deepEqual(site.issues, []);
    const utf16 = fixture('softmax-pro-unknowns-utf16.txt');
    assert.deepEqual([...utf16.subarray(0, 2)], [0xff, 0xfe]);
    const lines16 = utf16.toString('utf16le').slice(1).split('\r\n');
    const from = lines16.indexOf('Group: Unknowns');
    const head = lines16[from + 1]!.split('\t');
    const table = lines16.slice(from + 2, lines16.indexOf('', from)).map((l) => l.split('\t'));
    const firsts = table.filter((r) => r[head.indexOf('Sample')]!.trim() !== '');
    assert.equal(firsts.length, 14);
    const events = read('softmax-pro-unknowns-utf16.txt', site.profile!);
    assert.deepEqual(brief(of(events, 'results')), firsts.map((r) => [r[head.indexOf('Sample')]!, 'MeanResult', r[head.indexOf('MeanResult')]!]));
    assert.deepEqual(brief(of(events, 'results')).slice(0, 2), [['01', 'MeanResult', '-1.442'], ['02', 'MeanResult', '-1.114']]);
    assert.deepEqual(events.map((e) => e.type), Array(14).fill('results'));
  });
});
