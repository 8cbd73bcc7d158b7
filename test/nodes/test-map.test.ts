import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { anOrder } from '../support/lis-stub';
import { useLisStub } from '../support/lifecycle';
import { ALL_LIS_NODES, collect, helper, lastStatus, nodeModules, waitUntil } from '../support/red';
import type { MappingRow } from '../../lib/mapping/model';

useLisStub();

const ROWS: MappingRow[] = [
  { lisTestId: 'T-GLU', lisCode: 'GLU', lisName: 'Glucose', instrumentCode: 'GLUC' },
  { lisTestId: 'T-UREA', lisCode: 'UREA', lisName: 'Urea', instrumentCode: 'UREAL', use: 'orders' },
  { lisTestId: 'T-UREA', lisCode: 'UREA', lisName: 'Urea', instrumentCode: 'UREA2', use: 'results' },
  { lisTestId: 'T-HIV', lisCode: 'HIV', lisName: 'HIV Ag/Ab', instrumentCode: 'HIVCOMBO', values: [{ text: 'Reactive', lis: 'POS' }, { text: 'Nonreactive', lis: 'NEG' }] },
];

/** One analyzer's map, shared by a test-mapper for orders and one for results. */
async function load(mapping: unknown = ROWS): Promise<void> {
  const flow = [
    { id: 'map', type: 'lis-test-map', name: '', instrument: 'cobas pro', mapping },
    { id: 'orders', type: 'test-mapper', map: 'map', direction: 'toInstrument', unmapped: 'warn', wires: [['o1'], []] },
    { id: 'results', type: 'test-mapper', map: 'map', direction: 'toLis', unmapped: 'warn', wires: [['r1'], ['r2']] },
    { id: 'o1', type: 'helper' },
    { id: 'r1', type: 'helper' },
    { id: 'r2', type: 'helper' },
    { id: 'catcher', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', type: 'helper' },
  ];
  await helper.load(nodeModules(...ALL_LIS_NODES) as never, flow as never);
}

const result = (instrumentCode: string, Result: string, SampleNumber = 'S1') => ({ SampleNumber, instrumentCode, Result });

describe('one test map shared by the test-mappers of an analyzer', () => {
  it('maps orders and results from the one table, each row the way it says', async () => {
    await load();
    const orders = collect('o1');
    const results = collect('r1');
    helper.getNode('orders').receive({ payload: anOrder('S1', { Tests: ['T-GLU', 'T-UREA'] }) } as never);
    helper.getNode('results').receive({ payload: [result('GLUC', '5.4'), result('UREA2', '6.1')] } as never);
    await waitUntil(() => orders.length === 1 && results.length === 1);
    assert.deepEqual((orders[0]!.payload as { instrumentTests: string[] }).instrumentTests, ['GLUC', 'UREAL']);
    assert.deepEqual(results[0]!.payload, [
      { SampleNumber: 'S1', TestCode: 'GLU', Result: '5.4' },
      { SampleNumber: 'S1', TestCode: 'UREA', Result: '6.1' },
    ]);
    assert.deepEqual(lastStatus(helper.getNode('orders')), { fill: 'green', shape: 'dot', text: '2 instrument tests, 0 unmapped' });
  });

  it("sends a coded result's LIS value and holds a text the map does not hold", async () => {
    await load();
    const mapped = collect('r1');
    const unmapped = collect('r2');
    helper.getNode('results').receive({ payload: [result('HIVCOMBO', 'Reactive'), result('HIVCOMBO', 'Grey zone', 'S2')] } as never);
    await waitUntil(() => mapped.length === 1 && unmapped.length === 1);
    assert.deepEqual(mapped[0]!.payload, [{ SampleNumber: 'S1', TestCode: 'HIV', Result: 'POS' }]);
    const rejected = unmapped[0]!.payload as Array<{ kind: string; code: string; reason: string }>;
    assert.deepEqual(rejected.map((r) => [r.kind, r.code]), [['unvalued', 'HIVCOMBO']]);
    await waitUntil(async () => ((await helper.request().get('/lis-bridge/held').expect(200)).body.holds as unknown[]).length === 1, 3000, 'the unvalued result held');
    const seen = (await helper.request().get('/lis-bridge/test-map/seen').query({ nodes: 'results,orders' }).expect(200)).body.seen as Array<Record<string, unknown>>;
    assert.deepEqual(seen.map((s) => [s.kind, s.code, s.text, s.results, s.samples]), [['unvalued', 'HIVCOMBO', 'Grey zone', 1, 1]]);
    const other = (await helper.request().get('/lis-bridge/test-map/seen').query({ nodes: 'orders' }).expect(200)).body.seen as unknown[];
    assert.deepEqual(other, [], "only the holds of the test-mappers asked about");
  });

  it('a "mapping" message to one test-mapper replaces the rows for every test-mapper of the map, until the next deploy', async () => {
    await load();
    const orders = collect('o1');
    helper.getNode('results').receive({ topic: 'mapping', payload: [{ lisTestId: 'T-GLU', lisCode: 'GLU', lisName: 'Glucose', instrumentCode: 'GLU-NEW' }] } as never);
    await waitUntil(() => lastStatus(helper.getNode('orders'))?.text === '1 tests mapped');
    helper.getNode('orders').receive({ payload: anOrder('S1', { Tests: ['T-GLU'] }) } as never);
    await waitUntil(() => orders.length === 1);
    assert.deepEqual((orders[0]!.payload as { instrumentTests: string[] }).instrumentTests, ['GLU-NEW']);
  });

  it('fails every message of its test-mappers, for Catch nodes, while the deployed map is invalid', async () => {
    await load([{ lisTestId: '', lisCode: 'X', instrumentCode: 'X' }]);
    const caught = collect('caught');
    helper.getNode('orders').receive({ payload: anOrder('S1', { Tests: ['T-GLU'] }) } as never);
    await waitUntil(() => caught.length === 1);
    assert.equal((caught[0]!.error as { code: string }).code, 'INVALID_INPUT');
    assert.match(String((caught[0]!.error as { message: string }).message), /test map .*mapping is invalid/);
  });
});

describe('merging per-node tables (POST /lis-bridge/mapping/merge)', () => {
  const tables = [
    { node: 'q', name: 'queries', direction: 'toInstrument', rows: [{ lisTestId: 'T-UREA', lisCode: 'UREA', lisName: 'Urea', instrumentCode: 'UREAL' }] },
    { node: 'p', name: 'pushed', direction: 'toInstrument', rows: [{ lisTestId: 'T-UREA', lisCode: 'UREA', lisName: 'Urea', instrumentCode: 'UREA-P' }] },
    { node: 'r', name: 'results', direction: 'toLis', rows: [{ lisTestId: 'T-UREA', lisCode: 'UREA', lisName: 'Urea', instrumentCode: 'UREAL' }] },
  ];

  it('lists where the tables differ, refuses to merge before each is chosen, and merges once chosen', async () => {
    await load();
    const plan = (await helper.request().post('/lis-bridge/mapping/merge').send({ tables }).expect(200)).body as { differences: Array<{ id: string; options: Array<{ nodes: string[] }> }> };
    assert.deepEqual(plan.differences.map((d) => [d.id, d.options.map((o) => o.nodes)]), [['orders:T-UREA', [['q'], ['p']]]]);
    const refused = await helper.request().post('/lis-bridge/mapping/merge').send({ tables, choices: {} }).expect(400);
    assert.match(String(refused.body.message), /choose a version for T-UREA \(orders\)/);
    const merged = (await helper.request().post('/lis-bridge/mapping/merge').send({ tables, choices: { 'orders:T-UREA': 0 } }).expect(200)).body as { rows: MappingRow[] };
    assert.deepEqual(merged.rows.map((r) => [r.instrumentCode, r.use]), [['UREAL', undefined]]);
  });

  it('refuses tables that are not tables, naming what is wrong', async () => {
    await load();
    const refused = await helper.request().post('/lis-bridge/mapping/merge').send({ tables: [{ node: 'q', name: 'q', direction: 'sideways', rows: [] }] }).expect(400);
    assert.match(String(refused.body.message), /the tables to merge are unusable: .*direction/);
  });
});
