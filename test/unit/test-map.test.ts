import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { MappingRow } from '../../lib/mapping/model';
import { MappingSchema } from '../../lib/mapping/model';
import { toInstrumentTests } from '../../lib/mapping/to-instrument';
import { toLisResults } from '../../lib/mapping/to-lis';
import { formatCsv, parseCsv } from '../../lib/mapping/csv';
import { applyMerge, type MapperTable, planMerge } from '../../lib/mapping/merge';

const row = (lisTestId: string, instrumentCode: string, extra: Partial<MappingRow> = {}): MappingRow => ({ lisTestId, lisCode: lisTestId.replace('T-', ''), lisName: lisTestId, instrumentCode, ...extra });
const result = (instrumentCode: string, Result: string) => ({ SampleNumber: 'S1', instrumentCode, Result });

describe('a row works the way it says', () => {
  const rows = [row('T-GLU', 'GLU'), row('T-UREA', 'UREAL', { use: 'orders' }), row('T-UREA', 'UREA2', { use: 'results' })];

  it('sends an orders-only code in downloads and never reads it in results', () => {
    assert.deepEqual(toInstrumentTests(['T-GLU', 'T-UREA'], rows).instrumentTests, ['GLU', 'UREAL']);
    const out = toLisResults([result('UREAL', '5')], rows);
    assert.equal(out.rejected[0]?.kind, 'unmapped');
  });

  it('reads a results-only code in results and never sends it in downloads', () => {
    assert.deepEqual(toLisResults([result('UREA2', '5')], rows).items, [{ SampleNumber: 'S1', TestCode: 'UREA', Result: '5' }]);
    assert.ok(!toInstrumentTests(['T-UREA'], rows).instrumentTests.includes('UREA2'));
  });

  it('reads "both" as no restriction, and refuses any other word, naming it', () => {
    assert.equal(MappingSchema.parse([{ ...row('T-GLU', 'GLU'), use: 'both' }])[0]!.use, undefined);
    const bad = MappingSchema.safeParse([{ ...row('T-GLU', 'GLU'), use: 'sometimes' }]);
    assert.ok(!bad.success);
    assert.match(bad.error.issues[0]!.message, /use must be orders, results/);
  });
});

describe('value maps', () => {
  const rows = [row('T-HIV', 'HIV', { values: [{ text: 'Reactive', lis: 'POS' }, { text: 'Nonreactive', lis: 'NEG' }] }), row('T-GLU', 'GLU')];

  it("sends a coded result's LIS value, and a numeric test's value as it came", () => {
    const out = toLisResults([result('HIV', ' Reactive '), result('GLU', '5.4')], rows);
    assert.deepEqual(out.items, [
      { SampleNumber: 'S1', TestCode: 'HIV', Result: 'POS' },
      { SampleNumber: 'S1', TestCode: 'GLU', Result: '5.4' },
    ]);
  });

  it('holds a text the map does not hold, never sending it as it came or as a default', () => {
    const out = toLisResults([result('HIV', 'Indeterminate'), result('HIV', 'reactive')], rows);
    assert.deepEqual(out.items, []);
    assert.deepEqual(out.rejected.map((r) => [r.kind, r.code]), [['unvalued', 'HIV'], ['unvalued', 'HIV']]);
    assert.match(out.rejected[0]!.reason, /no LIS value is mapped for result "Indeterminate" of instrument test HIV/);
    assert.deepEqual(out.processed, []);
  });

  it('holds every result of a coded test whose map is still empty', () => {
    const out = toLisResults([result('HIV', 'Reactive')], [row('T-HIV', 'HIV', { values: [] })]);
    assert.equal(out.rejected[0]?.kind, 'unvalued');
  });

  it('refuses a value map giving one text two LIS values', () => {
    const bad = MappingSchema.safeParse([row('T-HIV', 'HIV', { values: [{ text: 'R', lis: 'POS' }, { text: 'R', lis: 'NEG' }] })]);
    assert.ok(!bad.success);
    assert.match(bad.error.issues[0]!.message, /"R" is given two LIS values/);
  });

  it('keeps ways and value maps through CSV, with |, = and \\ in the texts', () => {
    const rows2: MappingRow[] = [row('T-HIV', 'HIV', { use: 'results', values: [{ text: 'A|B', lis: 'x=y' }, { text: 'C\\D', lis: 'NEG' }] }), row('T-GLU', 'GLU', { use: 'orders' }), row('T-ALT', 'ALT')];
    const back = parseCsv(formatCsv(rows2));
    assert.deepEqual(back.problems, []);
    assert.deepEqual(back.rows, rows2);
  });

  it('names a CSV value pair with no "=" as unusable', () => {
    const csv = 'lisTestId,lisCode,instrumentCode,values\r\nT-HIV,HIV,HIV,Reactive\r\n';
    assert.match(parseCsv(csv).problems[0]!, /line 2: a value row's LIS value must not be empty/);
  });
});

describe("merging an older flow's three tables", () => {
  const table = (node: string, direction: MapperTable['direction'], rows: MappingRow[]): MapperTable => ({ node, name: node, direction, rows });

  it('merges identical tables into rows that work both ways', () => {
    const rows = [row('T-GLU', 'GLU'), row('T-NEW', '')];
    const plan = planMerge([table('queries', 'toInstrument', rows), table('results', 'toLis', rows), table('pushed', 'toInstrument', rows)]);
    assert.deepEqual(plan.differences, []);
    assert.deepEqual(plan.rows, [row('T-GLU', 'GLU'), row('T-NEW', '')]);
  });

  it('keeps a code only the results table has as results-only, and one only the order tables have as orders-only', () => {
    const plan = planMerge([
      table('queries', 'toInstrument', [row('T-UREA', 'UREAL'), row('T-GLU', 'GLU')]),
      table('results', 'toLis', [row('T-UREA', 'UREA2'), row('T-GLU', 'GLU'), row('T-K', 'K')]),
      table('pushed', 'toInstrument', [row('T-UREA', 'UREAL'), row('T-GLU', 'GLU'), row('T-K', '')]),
    ]);
    assert.deepEqual(plan.differences, []);
    assert.deepEqual(plan.rows, [row('T-UREA', 'UREAL', { use: 'orders' }), row('T-UREA', 'UREA2', { use: 'results' }), row('T-GLU', 'GLU'), row('T-K', 'K', { use: 'results' })]);
    // Every behaviour of the three tables holds in the one map.
    assert.deepEqual(toInstrumentTests(['T-UREA', 'T-GLU', 'T-K'], plan.rows), { instrumentTests: ['UREAL', 'GLU'], unmapped: ['T-K'] });
    assert.deepEqual(toLisResults([result('UREA2', '1'), result('K', '4'), result('UREAL', '2')], plan.rows).items.map((i) => i.TestCode), ['UREA', 'K']);
  });

  it('shows the tables of one way that differ side by side, and merges only once each is chosen', () => {
    const plan = planMerge([
      table('queries', 'toInstrument', [row('T-UREA', 'UREAL'), row('T-GLU', 'GLU')]),
      table('results', 'toLis', [row('T-UREA', 'UREAL'), row('T-GLU', 'GLU')]),
      table('pushed', 'toInstrument', [row('T-UREA', 'UREA-P'), row('T-GLU', '')]),
    ]);
    assert.deepEqual(plan.differences.map((d) => [d.id, d.options.map((o) => [o.nodes, o.rows.map((r) => r.instrumentCode)])]), [
      ['orders:T-UREA', [[['queries'], ['UREAL']], [['pushed'], ['UREA-P']]]],
      ['orders:T-GLU', [[['queries'], ['GLU']], [['pushed'], []]]],
    ]);
    assert.throws(() => applyMerge(plan, { 'orders:T-UREA': 1 }), /choose a version for T-GLU \(orders\)/);
    const merged = applyMerge(plan, { 'orders:T-UREA': 1, 'orders:T-GLU': 1 });
    assert.deepEqual(merged, [row('T-UREA', 'UREA-P', { use: 'orders' }), row('T-UREA', 'UREAL', { use: 'results' }), row('T-GLU', 'GLU', { use: 'results' })]);
  });

  it("keeps every table's note of a row they share", () => {
    const plan = planMerge([table('queries', 'toInstrument', [row('T-GLU', 'GLU', { note: 'hexokinase' })]), table('results', 'toLis', [row('T-GLU', 'GLU', { note: 'rerun above 30' })])]);
    assert.deepEqual(plan.rows, [row('T-GLU', 'GLU', { note: 'hexokinase / rerun above 30' })]);
  });

  it('keeps a single table of results (a file flow) working both ways', () => {
    const plan = planMerge([table('results', 'toLis', [row('T-GLU', 'GLU'), row('T-K', 'K', { instrumentSubCode: 'x', note: 'kept' })])]);
    assert.deepEqual(plan.rows, [row('T-GLU', 'GLU'), row('T-K', 'K', { instrumentSubCode: 'x', note: 'kept' })]);
  });
});
