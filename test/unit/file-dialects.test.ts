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
import {
  ABBOTT_M2000RT,
  APPBIO_QUANTSTUDIO,
  BECKMAN_ACCESS_2,
  FILE_PROFILES,
  FileDialectProfileSchema,
  fileLabEvents,
  fileProfileIssues,
  SENAITE_TWO_DIMENSION,
  siteFileDialectOf,
  siteFileProfile,
  THERMO_MULTISKAN_GO,
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
      'sample number "(-)" does not match sampleNumber.pattern "[A-Za-z0-9][A-Za-z0-9._/-]*": not sent': 20,
      'TGFb is "Undetermined", a value the dialect reads as no result (noResult): not sent': 20,
      'sample number "(+)" does not match sampleNumber.pattern "[A-Za-z0-9][A-Za-z0-9._/-]*": not sent': 48,
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
    const events = read('multiskan-go-babesia.csv', THERMO_MULTISKAN_GO);
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
