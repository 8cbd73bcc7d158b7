/**
 * QC in a real Node-RED over a real folder: folder-link, file-message with its analyzer's lis-qc, test-mapper and
 * lis-send-results to the loopback LIS. Control rows are recorded and judged; a rejected run holds that test's
 * patient results (not at the LIS), lists those sent since the last good control, refuses their release until a
 * technologist accepts the event with a corrective action, then sends them once. An unidentified control is held
 * and evaluated once the deployed table names it. The day's endings add up.
 */
import { describe, it, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useLisStub } from '../support/lifecycle';
import { ALL_LIS_NODES, helper, nodeModules, waitUntil } from '../support/red';

const ctx = useLisStub();
let root: string;
let inbox: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'qc-gate-'));
  inbox = join(root, 'inbox');
  mkdirSync(inbox);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const TABLE = [
  { code: 'QUAL2-L1', material: 'L1', lot: 'LOT-A' },
  { code: 'QUAL2-L2', material: 'L2', lot: 'LOT-A' },
];

function flow(controls: Array<Record<string, string>> = TABLE) {
  return [
    { id: 'lisCfg', type: 'lis-config', resultApiUrl: ctx.stub.url('/results'), timeout: 2000 },
    { id: 'qc1', type: 'lis-qc', analyzer: 'Chem 1', controls, controlsPerRun: '2', establishing: 'hold' },
    { id: 'folder', type: 'folder-link', folder: inbox, pattern: '*.csv', pollMs: '100', settleMs: '150', wires: [['m']] },
    { id: 'm', type: 'file-message', dialect: 'generic-csv', dialectOverrides: JSON.stringify({ qc: [{ by: 'sample', pattern: '^(QUAL2|LIQ)' }] }), qc: 'qc1', wires: [['mapper'], []] },
    { id: 'mapper', type: 'test-mapper', direction: 'toLis', unmapped: 'warn', mapping: [{ lisTestId: 'T-GLU', lisCode: 'GLU', lisName: 'Glucose', instrumentCode: 'GLU' }, { lisTestId: 'T-NA', lisCode: 'NA', lisName: 'Sodium', instrumentCode: 'NA' }], wires: [['sender'], []] },
    { id: 'sender', type: 'lis-send-results', lis: 'lisCfg', wires: [[]] },
  ];
}

async function load(): Promise<void> {
  ctx.stub.reply('/results', { body: { status: 'success' } });
  await helper.load(nodeModules(...ALL_LIS_NODES, 'file-message', 'folder-link') as never, flow() as never, { lisCfg: { bearerToken: 'qc-test-token' } } as never);
}

const csv = (...rows: string[]) => `Sample,Test,Result\n${rows.map((r) => `${r}\n`).join('')}`;
let files = 0;
async function drop(...rows: string[]): Promise<void> {
  const name = `run-${++files}.csv`;
  writeFileSync(join(inbox, name), csv(...rows));
  await waitUntil(() => existsSync(join(inbox, 'done', name)), 10_000, `${name} read and in done/`);
}
const atLis = () => ctx.stub.to('/results').flatMap((r) => (r.json as { results: Array<Record<string, unknown>> }).results.map((x) => `${x.SampleNumber} ${x.TestCode} ${x.Result}`));
type Today = Record<'results' | 'delivered' | 'heldForPerson' | 'notForLis' | 'discarded' | 'released' | 'dismissed' | 'evaluated', number>;
async function today(): Promise<Today> {
  const res = await helper.request().get('/lis-bridge/links').expect(200);
  return (res.body as { links: Array<{ node: string; today: Today }> }).links.find((l) => l.node === 'folder')!.today;
}
async function allEnded(): Promise<Today> {
  let t!: Today;
  await waitUntil(async () => {
    t = await today();
    return t.delivered + t.heldForPerson + t.discarded + t.notForLis === t.results;
  }, 10_000, 'every result read ended');
  return t;
}
async function holds(): Promise<Array<Record<string, unknown>>> {
  return ((await helper.request().get('/lis-bridge/held').expect(200)).body as { holds: Array<Record<string, unknown>> }).holds;
}
interface QcTest {
  test: string;
  state: string;
  rules: string;
  events: Array<{ run: string; violations: Array<{ rule: string }>; review: { items: Array<{ sample: string }>; more: number } }>;
  series: Array<{ material: string; lot: string; count: number; target: { mean: number; source: string; by: string } | null }>;
}
async function qcOf(test: string): Promise<QcTest | undefined> {
  const body = (await helper.request().get('/lis-bridge/qc').expect(200)).body as { analyzers: Array<{ analyzer: string; error?: string; tests: QcTest[] }> };
  const a = body.analyzers.find((x) => x.analyzer === 'Chem 1');
  assert.ok(a, JSON.stringify(body));
  assert.equal(a.error, undefined);
  return a.tests.find((t) => t.test === test);
}
async function targets(): Promise<void> {
  for (const [material, mean, sd] of [['L1', 5, 0.1], ['L2', 10, 0.2]] as const) {
    await helper.request().post('/lis-bridge/qc/target').send({ analyzer: 'Chem 1', test: 'GLU', material, lot: 'LOT-A', mean, sd }).expect(200);
  }
}

describe('QC in the flow', () => {
  it('holds a test\'s patient results behind a rejected run, lists those sent since the last good control, and releases them once after the event is accepted', async () => {
    await load();
    // Before any control: nothing known, patient results go (a test with no QC here is not gated).
    await drop('QUAL2-L1,GLU,5.02', 'QUAL2-L2,GLU,10.1');
    await targets();
    await waitUntil(async () => (await qcOf('GLU'))?.series.length === 2, 5000, 'both levels recorded');
    await drop('QUAL2-L1,GLU,5.05', 'QUAL2-L2,GLU,9.9', 'S1,GLU,5.4', 'S1,NA,140');
    await waitUntil(() => atLis().length === 2, 10_000, 'S1 at the LIS');
    assert.equal((await qcOf('GLU'))!.state, 'in-control');
    await drop('S2,GLU,6.1');
    await waitUntil(() => atLis().length === 3, 10_000, 'S2 at the LIS');

    // L1 5 SD above its mean: 1-3s. GLU of S3 is held; NA (no QC here) goes.
    await drop('QUAL2-L1,GLU,5.50', 'QUAL2-L2,GLU,10.0', 'S3,GLU,7.2', 'S3,NA,141');
    await waitUntil(async () => (await holds()).length === 1, 10_000, 'the GLU result held');
    await waitUntil(() => atLis().length === 4, 10_000, 'S3 NA at the LIS');
    const [hold] = await holds();
    assert.equal(hold!.kind, 'qc');
    assert.equal(hold!.code, 'GLU');
    assert.deepEqual(hold!.samples, ['S3']);
    assert.match(String(hold!.reason), /^QC rejected on Chem 1: the control run of test GLU at .* violated 1-3s, R-4s; accept the QC event/);
    assert.deepEqual(atLis(), ['S1 GLU 5.4', 'S1 NA 140', 'S2 GLU 6.1', 'S3 NA 141']);
    const glu = (await qcOf('GLU'))!;
    assert.equal(glu.state, 'rejected');
    assert.equal(glu.rules, '1-3s/2-2s/R-4s/4-1s/8x (1-2s warning)');
    assert.equal(glu.events.length, 1);
    assert.ok(glu.events[0]!.violations.some((v) => v.rule === '1-3s'));
    assert.deepEqual(glu.events[0]!.review.items.map((i) => i.sample), ['S1', 'S2'], 'sent since the last good control');

    // Out of the editor: the state and the violations in Prometheus's text, the history as CSV.
    const metrics = (await helper.request().get('/lis-bridge/metrics').expect(200)).text;
    assert.match(metrics, /^lisbridge_qc_state\{analyzer="Chem 1",test="GLU",state="rejected"\} 1$/m);
    assert.match(metrics, /^lisbridge_qc_state\{analyzer="Chem 1",test="GLU",state="in-control"\} 0$/m);
    assert.match(metrics, /^lisbridge_qc_open_events\{analyzer="Chem 1",test="GLU"\} 1$/m);
    assert.match(metrics, /^lisbridge_qc_violations_total\{analyzer="Chem 1",test="GLU",rule="1-3s"\} 1$/m);
    assert.doesNotMatch(metrics, /QUAL2|S3|5\.50/, 'no control, sample or value in a label');
    const day = new Date().toISOString().slice(0, 10);
    const csv = await helper.request().get(`/lis-bridge/qc/export.csv?from=${day}&to=${day}`).expect(200).expect('content-type', /text\/csv/);
    const rows = csv.text.trim().split('\n');
    assert.equal(rows.length, 1 + 6, `a header and the 6 control points:\n${csv.text}`);
    assert.deepEqual(rows.slice(1).map((r) => r.split(',').slice(1, 5).concat(r.split(',')[6]!).join(' ')).sort(), [
      'Chem 1 GLU L1 LOT-A 5.02', 'Chem 1 GLU L1 LOT-A 5.05', 'Chem 1 GLU L1 LOT-A 5.5',
      'Chem 1 GLU L2 LOT-A 10', 'Chem 1 GLU L2 LOT-A 10.1', 'Chem 1 GLU L2 LOT-A 9.9',
    ]);
    await helper.request().get(`/lis-bridge/qc/export.csv?from=${day}`).expect(400);

    // Held while the event is open: the release is refused, and so are later GLU results.
    const refused = await helper.request().post('/lis-bridge/holds/send').send({ ids: [hold!.id] }).expect(409);
    assert.match(String(refused.body.message), /the QC of GLU on Chem 1 still holds its results \(rejected\)/);
    await drop('S4,GLU,5.0');
    await waitUntil(async () => (await holds()).length === 2, 10_000, 'S4 GLU held too');

    // The technologist accepts it: a reason and a corrective action, recorded with the user.
    await helper.request().post('/lis-bridge/qc/accept').send({ analyzer: 'Chem 1', test: 'GLU', run: glu.events[0]!.run, reason: 'lamp replaced', action: 'bad' }).expect(400);
    const accepted = await helper.request().post('/lis-bridge/qc/accept').send({ analyzer: 'Chem 1', test: 'GLU', run: glu.events[0]!.run, reason: 'lamp replaced', action: 'recalibrated' }).expect(200);
    assert.equal(accepted.body.gate, null);
    await helper.request().post('/lis-bridge/qc/accept').send({ analyzer: 'Chem 1', test: 'GLU', run: glu.events[0]!.run, reason: 'again', action: 'recalibrated' }).expect(409);
    assert.equal((await qcOf('GLU'))!.events.length, 0);

    const ids = (await holds()).map((h) => h.id as string);
    await helper.request().post('/lis-bridge/holds/send').send({ ids }).expect(200);
    await waitUntil(() => atLis().length === 6, 10_000, 'the released results at the LIS');
    assert.deepEqual(atLis().slice(4).sort(), ['S3 GLU 7.2', 'S4 GLU 5.0']);
    await helper.request().post('/lis-bridge/holds/send').send({ ids }).expect(409);
    await waitUntil(async () => (await today()).released === 2, 5000, 'counted as released by a person');
    const t = await allEnded();
    // 6 controls (not for the LIS), 6 patient results: 4 delivered, 2 held first (then released).
    assert.deepEqual({ results: t.results, notForLis: t.notForLis, delivered: t.delivered, held: t.heldForPerson }, { results: 12, notForLis: 6, delivered: 4, held: 2 });
    assert.equal(atLis().length, new Set(atLis()).size, 'none at the LIS twice');
  });

  it('holds a control the table does not identify, refuses to evaluate it until the deployed table names it, then judges it', async () => {
    await load();
    await drop('LIQ-9,GLU,5.1', 'S1,GLU,5.4');
    await waitUntil(async () => (await holds()).length === 1, 10_000, 'the control held');
    const [hold] = await holds();
    assert.equal(hold!.kind, 'control');
    assert.equal(hold!.code, 'LIQ-9');
    assert.match(String(hold!.reason), /control "LIQ-9" of GLU: .* add it \(control "LIQ-9", its material and lot\) in the lis-qc node, deploy, then Evaluate/);
    await waitUntil(() => atLis().length === 1, 10_000, 'S1 at the LIS: GLU has no QC yet');
    const refused = await helper.request().post('/lis-bridge/holds/send').send({ ids: [hold!.id] }).expect(409);
    assert.match(String(refused.body.message), /add it .* then Evaluate again/);

    await helper.setFlows(flow([...TABLE, { code: 'LIQ-9', material: 'L3', lot: 'LOT-9' }]) as never, 'full');
    await waitUntil(async () => (await holds())[0]?.deployed === true, 5000, 'the message node deployed again');
    await helper.request().post('/lis-bridge/holds/send').send({ ids: [hold!.id] }).expect(200);
    assert.deepEqual(await holds(), []);
    const glu = (await qcOf('GLU'))!;
    assert.deepEqual(glu.series.map((s) => [s.material, s.lot, s.count]), [['L3', 'LOT-9', 1]]);
    assert.equal(glu.state, 'establishing');
    await waitUntil(async () => (await today()).evaluated === 1, 5000, 'counted as evaluated');
    const t = await allEnded();
    assert.deepEqual({ results: t.results, delivered: t.delivered, held: t.heldForPerson, notForLis: t.notForLis }, { results: 2, delivered: 1, held: 1, notForLis: 0 });
  });

  it('holds patient results while the lot establishes (the lab\'s default), and lets them go once a target is entered', async () => {
    await load();
    await drop('QUAL2-L1,GLU,5.0', 'QUAL2-L2,GLU,10.0');
    await waitUntil(async () => (await qcOf('GLU'))?.state === 'establishing', 5000, 'establishing');
    await drop('S1,GLU,5.4');
    await waitUntil(async () => (await holds()).length === 1, 10_000, 'S1 held');
    assert.match(String((await holds())[0]!.reason), /^QC establishing on Chem 1/);
    await targets();
    // The next run is judged against the entered targets.
    await drop('QUAL2-L1,GLU,5.01', 'QUAL2-L2,GLU,10.05', 'S2,GLU,6.0');
    await waitUntil(() => atLis().length === 1, 10_000, 'S2 at the LIS');
    assert.equal((await qcOf('GLU'))!.state, 'in-control');
    assert.equal((await qcOf('GLU'))!.series[0]!.target!.by, 'admin:anonymous');
    await helper.request().post('/lis-bridge/holds/send').send({ ids: [(await holds())[0]!.id] }).expect(200);
    await waitUntil(() => atLis().length === 2, 10_000, 'S1 released');
  });
});
