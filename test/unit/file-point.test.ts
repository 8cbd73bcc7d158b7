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
import { pointFileAt, pointFileAtInSlices, previewFileSite, type FilePointAnswer } from '../../lib/protocols/file';

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
    assert.deepEqual(answer.roles, ['sampleNumber', 'testCode', 'value', 'units', 'flags']);
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
