/**
 * The file dialect in the dialect editor (lib/protocols/file/preview.ts,
 * point.ts): the preview of a pasted export with its capture (rows as
 * clickable cells, `place: { row, column }`), and pointing at a cell or a
 * value to set the column a role is read from, by name or by position.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CAPTURE_LIMITS } from '../../lib/dialect';
import { fileLabEvents, pointFileAt, pointFileAtInSlices, previewFileSite, siteFileProfile, type FilePointAnswer, type FilePointRequest } from '../../lib/protocols/file';

const FIXTURES = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'file');
const QS = readFileSync(join(FIXTURES, 'quantstudio-7-flex-results.txt'), 'utf8');
const CSV = 'Sample,Test,Result,Conc,Units\nS-1,GLU,5.4,5.4,mmol/L\nS-2,GLU,6.1,7.0,mmol/L\n';

function ok(answer: FilePointAnswer) {
  assert.ok('overrides' in answer, JSON.stringify(answer));
  return answer;
}

describe('file dialect preview', () => {
  it('shows the results, QC and the capture of the table, each cell with its line and column', () => {
    const answer = previewFileSite({ base: 'appbio-quantstudio' }, QS, 'UTC');
    assert.deepEqual(answer.issues, []);
    assert.deepEqual(answer.overrides, {});
    assert.equal(answer.preview?.results.length, 18);
    assert.equal(answer.preview?.qc.length, 6);
    assert.deepEqual(answer.preview?.results[0], { message: 1, record: 23, sampleNumber: '5000018696625', testCode: "3'UTR", value: '25.711', completedAt: '2024-10-01T15:02:50.000Z', completedAtRaw: '2024-10-01 15:02:50' });
    assert.deepEqual(answer.roles, ['sampleNumber', 'testCode', 'value', 'units', 'flags', 'headerRow', 'firstRow']);
    const lines = answer.capture!.messages[0]!.lines;
    // The capture starts at the table's header row (line 19), after the section title.
    assert.equal(lines[0]!.label, 'line 19');
    assert.deepEqual(lines[0]!.tokens.slice(0, 3), [{ text: 'Well', place: { row: 19, column: 1 } }, { text: '\t' }, { text: 'Well Position', place: { row: 19, column: 2 } }]);
    assert.equal(answer.capture!.truncated, undefined);
  });

  it('a file the dialect cannot read: the reason as the preview\'s problem at its line, the capture from the file start', () => {
    const answer = previewFileSite({ base: 'generic-csv' }, 'ID;Analyte;Value\nS-1;GLU;5\n', 'UTC');
    assert.deepEqual(answer.preview!.results, []);
    assert.deepEqual(answer.preview!.problems, [{ message: 1, record: 1, text: 'line 1: no column "Sample" (layout.sample); the column names on line 1 are "ID;Analyte;Value"; set layout.sample to one of them' }]);
    assert.equal(answer.capture!.messages[0]!.lines[0]!.label, 'line 1');
  });

  it('caps the capture and says so', () => {
    const big = `Sample,Test,Result\n${Array.from({ length: 500 }, (_, i) => `S-${i},GLU,${i}`).join('\n')}\n`;
    const answer = previewFileSite({ base: 'generic-csv' }, big, 'UTC');
    assert.equal(answer.capture!.messages[0]!.lines.length, CAPTURE_LIMITS.linesPerMessage);
    assert.equal(answer.capture!.truncated, true);
    assert.equal(answer.preview!.results.length, 500);
  });

  it('shows the dialect problems with their paths, and the capture in the base (no preview until the dialect is usable, as for ASTM and HL7)', () => {
    const answer = previewFileSite({ base: 'generic-csv', overrides: '{"layout":{"valu":"x"}}' }, CSV, 'UTC');
    assert.deepEqual(answer.issues.map((i) => i.path), ['layout.valu']);
    assert.equal(answer.preview, undefined);
    assert.equal(answer.capture!.messages[0]!.lines.length, 3);
  });
});

describe('pointing at a column of a file', () => {
  it('a cell sets the role\'s column by its name, and says how many results changed', () => {
    const answer = ok(pointFileAt({ base: 'generic-csv', text: CSV, timeZone: 'UTC', role: 'value', place: { row: 2, column: 4 } }));
    assert.deepEqual(answer.overrides, { layout: { value: 'Conc' } });
    assert.equal(answer.setting, 'layout.value');
    assert.equal(answer.changed, 1, 'S-2 reads 7.0 now; S-1 reads 5.4 both ways');
    assert.equal(answer.already, false);
    assert.deepEqual(answer.preview.preview!.results.map((r) => r.value), ['5.4', '7.0']);
  });

  it('a cell of the column the dialect reads already (its default, or an earlier click) says so', () => {
    const byDefault = ok(pointFileAt({ base: 'generic-csv', text: CSV, timeZone: 'UTC', role: 'value', place: { row: 2, column: 3 } }));
    assert.deepEqual([byDefault.setting, byDefault.already, byDefault.changed], ['layout.value', true, 0]);
    const again = ok(pointFileAt({ base: 'generic-csv', overrides: { layout: { value: 'Conc' } }, text: CSV, timeZone: 'UTC', role: 'value', place: { row: 3, column: 4 } }));
    assert.deepEqual([again.already, again.changed], [true, 0]);
  });

  it('each role of one row per result: sample, test, value, units', () => {
    const text = 'Tube,Code,Ct,Unit,Sample,Test,Result\nA-1,N1,22,cyc,x,y,z\n';
    const overrides: Record<string, unknown> = {};
    let current: unknown = {};
    for (const [role, column, setting, name] of [
      ['sampleNumber', 1, 'sample', 'Tube'],
      ['testCode', 2, 'test', 'Code'],
      ['value', 3, 'value', 'Ct'],
      ['units', 4, 'units', 'Unit'],
    ] as const) {
      const answer = ok(pointFileAt({ base: 'generic-csv', overrides: current, text, timeZone: 'UTC', role, place: { row: 2, column } }));
      assert.equal(answer.setting, `layout.${setting}`);
      overrides[setting] = name;
      assert.deepEqual(answer.overrides, { layout: overrides });
      current = answer.overrides;
    }
    const last = previewFileSite({ base: 'generic-csv', overrides: current }, text, 'UTC');
    assert.deepEqual(last.preview!.results.map((r) => [r.sampleNumber, r.testCode, r.value, r.units]), [['A-1', 'N1', '22', 'cyc']]);
  });

  it('flags: a column of their own, pointed at like the others, and read into the results', () => {
    const text = 'Sample,Test,Result,Flag\nS-1,GLU,9.9,H\nS-2,GLU,5.0,\n';
    const answer = ok(pointFileAt({ base: 'generic-csv', text, timeZone: 'UTC', role: 'flags', value: 'H' }));
    assert.deepEqual(answer.overrides, { layout: { flags: 'Flag' } });
    assert.equal(answer.setting, 'layout.flags');
    assert.equal(answer.changed, 1, 'the flagged result');
    assert.deepEqual(answer.preview.preview?.results.map((r) => [r.sampleNumber, r.flags?.join(',') ?? null]), [['S-1', 'H'], ['S-2', null]]);
    const perSample = pointFileAt({ base: 'generic-csv', overrides: { layout: { form: 'row-per-sample', sample: 'Sample', tests: ['Result'] } }, text, timeZone: 'UTC', role: 'flags', value: 'H' });
    assert.match('refused' in perSample ? perSample.refused : '', /flags are not read: flags is not read from a column/);
  });

  it('a value of the table found in two columns: the editor is asked which', () => {
    const answer = pointFileAt({ base: 'generic-csv', text: CSV, timeZone: 'UTC', role: 'value', value: '5.4' });
    assert.deepEqual(answer, {
      choices: [
        { place: { row: 2, column: 3 }, label: 'column 3 ("Result"), line 2' },
        { place: { row: 2, column: 4 }, label: 'column 4 ("Conc"), line 2' },
      ],
    });
    const one = ok(pointFileAt({ base: 'generic-csv', text: CSV, timeZone: 'UTC', role: 'value', value: '7.0' }));
    assert.deepEqual(one.overrides, { layout: { value: 'Conc' } });
  });

  it('by position when the table has no header row', () => {
    const answer = ok(pointFileAt({ base: 'generic-csv', overrides: { table: { header: false }, layout: { sample: 1, test: 2, value: 3 } }, text: 'S-1,GLU,5,9\n', timeZone: 'UTC', role: 'value', place: { row: 1, column: 4 } }));
    assert.deepEqual(answer.overrides, { table: { header: false }, layout: { sample: 1, test: 2, value: 4 } });
  });

  it('one row per sample: the value adds a test column, the sample sets the sample column; a unit is refused', () => {
    const text = 'ID,Na,K\nP-1,140,4.1\n';
    const base = { layout: { form: 'row-per-sample', sample: 'ID', tests: ['Na'] } };
    const added = ok(pointFileAt({ base: 'generic-csv', overrides: base, text, timeZone: 'UTC', role: 'value', place: { row: 2, column: 3 } }));
    assert.deepEqual(added.overrides, { layout: { form: 'row-per-sample', sample: 'ID', tests: ['Na', 'K'] } });
    assert.equal(added.changed, 1);
    const refused = pointFileAt({ base: 'generic-csv', overrides: base, text, timeZone: 'UTC', role: 'units', place: { row: 2, column: 3 } });
    assert.match('refused' in refused ? refused.refused : '', /units is not read from a column/);
  });

  it('one row per sample: a test column the dialect names and this file lacks is left out by the click, and said (SoftMax Pro\'s Unknowns group, UTF-16)', async () => {
    const bytes = readFileSync(join(FIXTURES, 'softmax-pro-unknowns-utf16.txt'));
    const overrides = { encoding: 'utf16le', table: { startsAfter: 'Group: Unknowns' } };
    // Line 57, column 6: the first sample's MeanResult; the built-in dialect reads AdjConc, which this protocol has not.
    const request = { base: 'moldev-softmax-pro', overrides, text: bytes.toString('utf16le'), bytes, timeZone: 'UTC', role: 'value' as const, place: { row: 57, column: 6 } };
    for (const answer of [pointFileAt(request), await pointFileAtInSlices(request)]) {
      const set = ok(answer);
      assert.deepEqual(set.overrides, { ...overrides, layout: { tests: ['MeanResult'] } });
      assert.deepEqual(set.dropped, ['AdjConc']);
      assert.deepEqual(set.preview.preview?.problems, []);
      assert.ok(set.changed > 0, 'the file is read now');
    }
  });

  it('refuses what it cannot read, with the reason: a plate, a place outside the file, a value in no column', () => {
    const plate = pointFileAt({ base: 'thermo-multiskan-go', text: 'Sample;1\nA;x\n', timeZone: 'UTC', role: 'value', place: { row: 2, column: 2 } });
    assert.match('refused' in plate ? plate.refused : '', /layout\.samples and layout\.values/);
    const outside = pointFileAt({ base: 'generic-csv', text: CSV, timeZone: 'UTC', role: 'value', place: { row: 9, column: 1 } });
    assert.match('refused' in outside ? outside.refused : '', /line 9, column 1 is not in the file/);
    const none = pointFileAt({ base: 'generic-csv', text: CSV, timeZone: 'UTC', role: 'value', value: '42' });
    assert.match('refused' in none ? none.refused : '', /"42" is in no column/);
  });
});

describe('pointing at where the table starts', () => {
  const CEDEX_NAME = 'roche-cedex-bioht-results.txt';
  const CEDEX = readFileSync(join(FIXTURES, CEDEX_NAME));

  it('a file with no header row is shaped from the generic dialect by clicks alone, then read value by value (Roche Cedex Bio HT)', async () => {
    // The tab is what the dialog's "cells separated by" choice writes; every other setting comes from a click.
    let overrides: unknown = { delimiter: 'tab' };
    const point = async (role: FilePointRequest['role'], row: number, column: number) => {
      const request: FilePointRequest = { base: 'generic-csv', overrides, text: '', bytes: CEDEX, fileName: CEDEX_NAME, timeZone: 'UTC', role, place: { row, column } };
      const answer = ok(await pointFileAtInSlices(request));
      assert.deepEqual(ok(pointFileAt(request)).overrides, answer.overrides, 'at once and in slices alike');
      overrides = answer.overrides;
      return answer;
    };
    // Line 1 is the file's own record (`0 … #ARC-FILE#`); results start on line 2.
    const start = await point('firstRow', 2, 1);
    assert.deepEqual(start.overrides, { delimiter: 'tab', table: { skipRows: 1, header: false } });
    assert.equal(start.setting, 'table.header, table.skipRows');
    assert.deepEqual(start.pending, ['layout.sample', 'layout.test', 'layout.value']);
    assert.equal(start.changed, 0);
    assert.equal(start.preview.preview, undefined, 'no results until every column is pointed at');
    assert.equal(start.preview.capture!.messages[0]!.lines[0]!.label, 'line 2', 'the capture drawn as the draft cuts the file');
    assert.deepEqual((await point('sampleNumber', 2, 3)).pending, ['layout.test', 'layout.value']);
    assert.deepEqual((await point('testCode', 2, 7)).pending, ['layout.value']);
    const value = await point('value', 2, 11);
    assert.equal(value.pending, undefined);
    assert.equal(value.changed, 26);
    await point('units', 2, 9);
    const flags = await point('flags', 3, 10);
    assert.deepEqual(flags.overrides, { delimiter: 'tab', table: { skipRows: 1, header: false }, layout: { sample: 3, test: 7, value: 11, units: 9, flags: 10 } });

    const site = siteFileProfile({ base: 'generic-csv', overrides });
    assert.deepEqual(site.issues, []);
    const results = fileLabEvents(CEDEX, site.profile!, { timeZone: 'UTC', fileName: CEDEX_NAME }).flatMap((e) => (e.type === 'results' ? e.results : []));
    // The file's cells read here on their own: every line after the first, cut at tabs.
    const lines = CEDEX.toString('ascii').split('\n').slice(1).filter((l) => l !== '').map((l) => l.split('\t'));
    assert.equal(lines.length, 26);
    const flagOf = (c: string) => (c.trim() === '' ? [] : [c.trim()]);
    assert.deepEqual(
      results.map((r) => [r.SampleNumber, r.instrumentCode, r.Result, r.units, r.flags ?? []]),
      lines.map((c) => [c[2], c[6], c[10]!.trim(), c[8], flagOf(c[9]!)]),
    );
  });

  it('a column clicked on the line read as the header row says that line is column names, not results', () => {
    const answer = ok(pointFileAt({ base: 'generic-csv', text: 'S-1,GLU,5.4\nS-2,GLU,6.1\n', timeZone: 'UTC', role: 'sampleNumber', place: { row: 1, column: 1 } }));
    assert.equal(answer.headerLine, 1);
    assert.deepEqual(answer.overrides, { layout: { sample: 'S-1' } });
    const below = ok(pointFileAt({ base: 'generic-csv', text: CSV, timeZone: 'UTC', role: 'sampleNumber', place: { row: 2, column: 1 } }));
    assert.equal(below.headerLine, undefined);
  });

  it('the header row below a banner; the named units cleared when the file has no header row, and said', () => {
    const text = 'Run 12\n\nSample,Test,Result,Units\nS-1,GLU,5.4,mmol/L\n';
    const header = ok(pointFileAt({ base: 'generic-csv', text, timeZone: 'UTC', role: 'headerRow', place: { row: 3, column: 2 } }));
    assert.deepEqual(header.overrides, { table: { skipRows: 2 } });
    assert.equal(header.changed, 1);
    const none = ok(pointFileAt({ base: 'generic-csv', overrides: { layout: { units: 'Units' }, table: { headerFirstCell: 'Sample' } }, text: 'S-1,GLU,5.4,mmol/L\n', timeZone: 'UTC', role: 'firstRow', place: { row: 1, column: 1 } }));
    assert.deepEqual(none.overrides, { table: { header: false } });
    assert.deepEqual(none.cleared, ['table.headerFirstCell', 'layout.units']);
    assert.deepEqual(none.pending, ['layout.sample', 'layout.test', 'layout.value']);
  });

  it('a draft goes on only while its problems are columns to point at; a line is pointed at in the capture, not in the results', () => {
    const text = 'S-1,GLU,5.4\n';
    const other = pointFileAt({ base: 'generic-csv', overrides: { table: { header: false }, sampleNumber: { pattern: '(' } }, text, timeZone: 'UTC', role: 'value', place: { row: 1, column: 3 } });
    assert.match('refused' in other ? other.refused : '', /the dialect has problems/);
    const byValue = pointFileAt({ base: 'generic-csv', text: CSV, timeZone: 'UTC', role: 'firstRow', value: 'S-1' });
    assert.match('refused' in byValue ? byValue.refused : '', /a line is pointed at by a cell of the capture/);
  });
});
