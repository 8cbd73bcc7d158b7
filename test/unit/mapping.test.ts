import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { MappingRow } from '../../lib/mapping/model';
import { ROWS } from '../support/mapping-rows';
import { toInstrumentTests } from '../../lib/mapping/to-instrument';
import { orderTestsOf, resultItemsOf } from '../../lib/mapping/directions';
import { csvMappingRows } from '../../lib/mapping/csv';
import { toLisResults } from '../../lib/mapping/to-lis';
import { formatCsv, parseCsv } from '../../lib/mapping/csv';
import { mergeCatalog } from '../../lib/mapping/catalog-merge';
import { detectDirection } from '../../lib/mapping/directions';


describe('LIS -> instrument', () => {
  it('maps test IDs to instrument codes in order, each once, and lists the unmapped', () => {
    assert.deepEqual(toInstrumentTests(['T-WBC', 'T-GLU', 'T-HGB', 'T-LIP', 'T-NEW', 'T-XX'], ROWS), {
      instrumentTests: ['CBC', 'GLUC', 'CHOL', 'TRIG'],
      unmapped: ['T-NEW', 'T-XX'],
    });
  });
});

describe('instrument -> LIS', () => {
  const r = (instrumentCode: string, Result: string, extra: Record<string, unknown> = {}) => ({ SampleNumber: 'S1', instrumentCode, Result, ...extra });

  it('maps panel components and component tests to TestCode and SubTestCode', () => {
    const out = toLisResults([r('GLUC', '5.4'), r('CBC', '7.1', { instrumentSubCode: 'WBC' }), r('CBC', '13.9', { instrumentSubCode: 'HGB' }), r('CHOL', '4.2'), r('TRIG', '1.1')], ROWS);
    assert.deepEqual(out.items, [
      { SampleNumber: 'S1', TestCode: 'GLU', Result: '5.4' },
      { SampleNumber: 'S1', TestCode: 'WBC', Result: '7.1' },
      { SampleNumber: 'S1', TestCode: 'HGB', Result: '13.9' },
      { SampleNumber: 'S1', TestCode: 'LIPID', SubTestCode: 'CHOL', Result: '4.2' },
      { SampleNumber: 'S1', TestCode: 'LIPID', SubTestCode: 'TG', Result: '1.1' },
    ]);
    assert.deepEqual(out.processedTests, ['T-GLU', 'T-WBC', 'T-HGB', 'T-LIP']);
    assert.deepEqual(out.processed, [{ SampleNumber: 'S1', Tests: ['T-GLU', 'T-WBC', 'T-HGB', 'T-LIP'] }]);
    assert.deepEqual(out.rejected, []);
  });

  it('hands back, with the reason, what it cannot map to exactly one LIS test', () => {
    const out = toLisResults([r('NA', '140'), r('CBC', '4.5', { instrumentSubCode: 'RBC' }), r('CBC', '4.5'), r('CRP', '3'), { SampleNumber: 'S1', Result: '1' }], ROWS);
    assert.deepEqual(out.items, []);
    assert.equal(out.rejected.length, 5);
    assert.match(out.rejected[0]!.reason, /no LIS test is mapped to instrument test NA/);
    assert.match(out.rejected[1]!.reason, /CBC\/RBC/);
    assert.match(out.rejected[3]!.reason, /several LIS tests \(T-CRP, T-HSCRP\)/);
    assert.match(out.rejected[4]!.reason, /instrumentCode/);
  });

  it('refuses a result that two rows of one LIS test map to different LIS sub-tests', () => {
    const rows: MappingRow[] = [
      { lisTestId: 'T-LIP', lisCode: 'LIPID', lisName: 'Lipids', instrumentCode: 'CHOL', lisSubCode: 'CHOL' },
      { lisTestId: 'T-LIP', lisCode: 'LIPID', lisName: 'Lipids', instrumentCode: 'CHOL', lisSubCode: 'TC' },
    ];
    const out = toLisResults([r('CHOL', '4')], rows);
    assert.deepEqual(out.items, []);
    assert.match(out.rejected[0]!.reason, /several LIS sub-tests of T-LIP \(CHOL, TC\)/);
  });

  it('uses the ordered tests to choose among LIS tests sharing an instrument code', () => {
    const out = toLisResults([r('CRP', '3')], ROWS, { orderedTests: ['T-HSCRP'] });
    assert.deepEqual(out.items, [{ SampleNumber: 'S1', TestCode: 'HSCRP', Result: '3' }]);
  });

  it('groups processed tests per sample', () => {
    const out = toLisResults([r('GLUC', '5'), { SampleNumber: 'S2', instrumentCode: 'GLUC', Result: '6' }], ROWS);
    assert.deepEqual(out.processed, [
      { SampleNumber: 'S1', Tests: ['T-GLU'] },
      { SampleNumber: 'S2', Tests: ['T-GLU'] },
    ]);
  });
});

describe('mapping CSV', () => {
  it('round-trips every row, with quotes, commas, line breaks and formula-like text', () => {
    const rows: MappingRow[] = [...ROWS, { lisTestId: 'T,1', lisCode: 'A"B', lisName: 'two\nlines', instrumentCode: '=SUM(A1)', note: '+1 dilution' }];
    const back = parseCsv(formatCsv(rows));
    assert.deepEqual(back.problems, []);
    assert.deepEqual(back.rows, rows.map((r) => ({ ...r })));
    assert.ok(!formatCsv(rows).includes(',=SUM'), 'formula-like cells are neutralised for spreadsheets');
  });

  it('reads semicolon CSV, columns in any order, a BOM, and reports unusable lines', () => {
    const text = '\uFEFFinstrumentCode;lisCode;lisTestId;lisName\r\nGLUC;GLU;T-GLU;Glucose\r\n;CREA;;Creatinine\r\n\r\nX;;T-X;\r\n';
    const { rows, problems } = parseCsv(text);
    assert.deepEqual(rows, [{ lisTestId: 'T-GLU', lisCode: 'GLU', lisName: 'Glucose', instrumentCode: 'GLUC' }]);
    assert.equal(problems.length, 2);
    assert.match(problems[0]!, /^line 3: lisTestId must not be empty/);
    assert.match(problems[1]!, /^line 5: lisCode must not be empty/);
  });

  it('refuses a file without the required columns', () => {
    assert.match(parseCsv('a,b\n1,2\n').problems[0]!, /lacks column\(s\) lisTestId, lisCode, instrumentCode/);
  });
});

describe('catalog merge', () => {
  it('updates known tests, adds new ones, and keeps vanished ones marked stale', () => {
    const merged = mergeCatalog(
      [
        { lisTestId: 'T-GLU', lisCode: 'GLU-OLD', lisName: 'Glucose (old)', instrumentCode: 'GLUC' },
        { lisTestId: 'T-GONE', lisCode: 'GONE', lisName: 'Retired', instrumentCode: 'OLD' },
      ],
      [
        { ID: 'T-GLU', Code: 'GLU', Name: 'Glucose', Type: 'Serum' },
        { ID: 'T-CREA', Code: 'CREA', Name: 'Creatinine' },
      ],
    );
    assert.deepEqual(merged, [
      { lisTestId: 'T-GLU', lisCode: 'GLU', lisName: 'Glucose', lisType: 'Serum', instrumentCode: 'GLUC' },
      { lisTestId: 'T-GONE', lisCode: 'GONE', lisName: 'Retired', instrumentCode: 'OLD', stale: true },
      { lisTestId: 'T-CREA', lisCode: 'CREA', lisName: 'Creatinine', instrumentCode: '' },
    ]);
  });
});

describe('direction detection', () => {
  it('tells an order from results and refuses anything else', () => {
    assert.equal(detectDirection({ SampleNumber: 'S', Tests: [] }), 'toInstrument');
    assert.equal(detectDirection([{ instrumentCode: 'X' }]), 'toLis');
    assert.equal(detectDirection({ results: [{ instrumentCode: 'X' }] }), 'toLis');
    for (const bad of [[], [{ TestCode: 'X' }], 'S1', null, { SampleNumber: 'S' }]) assert.equal(detectDirection(bad), undefined);
  });
});

describe('what the test-mapper maps', () => {
  it('reads an order\'s LIS test IDs, and results as a list or { results }', () => {
    assert.deepEqual(orderTestsOf({ SampleNumber: 'S1', Tests: ['T1', 'T2'] }), ['T1', 'T2']);
    assert.equal(orderTestsOf({ Tests: ['T1', 2] }), undefined);
    assert.equal(orderTestsOf(null), undefined);
    assert.deepEqual(resultItemsOf([{ instrumentCode: 'GLU' }]), [{ instrumentCode: 'GLU' }]);
    assert.deepEqual(resultItemsOf({ results: [] }), []);
    assert.equal(resultItemsOf({ results: 'x' }), undefined);
  });

  it('refuses a mapping CSV with any unusable line, naming it', () => {
    assert.throws(() => csvMappingRows('lisTestId,instrumentCode\nT1\n'), (err: Error & { code?: string }) => err.code === 'INVALID_INPUT');
  });
});
