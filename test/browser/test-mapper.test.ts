/**
 * The test-mapper dialog in a real browser: Node-RED runs as its own process with the
 * package installed from its packed tarball, a loopback LIS stands in for the
 * LabTestsAPI, and Chromium drives the editor the way an operator does.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { LisStub } from '../support/lis-stub';
import type { NodeRedProcess } from '../support/node-red-process';
import { deploy, editNode, startEditorSession, waitForText, type EditorSession } from '../support/browser';

const ROOT = join(__dirname, '..', '..', '..');
const TOKEN = 'browser-test-token';

const CATALOG = [
  { ID: 'T-GLU', Name: 'Glucose', Code: 'GLU', Type: 'Serum' },
  { ID: 'T-CREA', Name: 'Creatinine', Code: 'CREA', Type: 'Serum' },
  { ID: 'T-CBC', Name: 'Complete blood count', Code: 'CBC', Type: 'EDTA' },
  { ID: 'T-HGB', Name: 'Haemoglobin', Code: 'HGB', Type: 'EDTA' },
  { ID: 'T-HCT', Name: 'Haematocrit', Code: 'HCT', Type: 'EDTA' },
];

/** The mapping deployed before the dialog is opened: a panel (CBC), components, and a test the LIS dropped. */
const DEPLOYED_MAPPING = [
  { lisTestId: 'T-CREA', lisCode: 'CREA', lisName: 'Creatinine (Jaffe)', instrumentCode: 'CREJ2', note: 'rate-blanked' },
  { lisTestId: 'T-CBC', lisCode: 'CBC', lisName: 'Complete blood count', instrumentCode: 'CBC', instrumentSubCode: 'WBC', lisSubCode: 'WBC' },
  { lisTestId: 'T-CBC', lisCode: 'CBC', lisName: 'Complete blood count', instrumentCode: 'CBC', instrumentSubCode: 'PLT', lisSubCode: 'PLT' },
  { lisTestId: 'T-HGB', lisCode: 'HGB', lisName: 'Haemoglobin', instrumentCode: 'CBC', instrumentSubCode: 'HGB' },
  { lisTestId: 'T-HCT', lisCode: 'HCT', lisName: 'Haematocrit', instrumentCode: 'CBC', instrumentSubCode: 'HCT' },
  { lisTestId: 'T-ESR', lisCode: 'ESR', lisName: 'Erythrocyte sedimentation rate', instrumentCode: 'ESR', note: 'moved to the ESR analyzer' },
];

/**
 * An older flow's second analyzer: three test-mappers with a table each, as flows had them before test maps. They
 * agree on glucose; the pushed-order table codes urea differently and never mapped creatinine; the order tables
 * order the lipid panel, which the results table has no row for; only the results table has the analyzer's eGFR.
 */
const CHEM = 'Cobas c311';
const QUERY_MAPPING = [
  { lisTestId: 'T-GLU', lisCode: 'GLU', lisName: 'Glucose', lisType: 'Serum', instrumentCode: 'GLU' },
  { lisTestId: 'T-UREA', lisCode: 'UREA', lisName: 'Urea', lisType: 'Serum', instrumentCode: 'UREA' },
  { lisTestId: 'T-CREA', lisCode: 'CREA', lisName: 'Creatinine', lisType: 'Serum', instrumentCode: 'CREJ2', note: 'rate-blanked' },
  { lisTestId: 'T-LIPID', lisCode: 'LIPID', lisName: 'Lipid panel', lisType: 'Serum', instrumentCode: 'LIPID' },
];
const RESULTS_MAPPING = [
  { lisTestId: 'T-GLU', lisCode: 'GLU', lisName: 'Glucose', lisType: 'Serum', instrumentCode: 'GLU' },
  { lisTestId: 'T-UREA', lisCode: 'UREA', lisName: 'Urea', lisType: 'Serum', instrumentCode: 'UREA' },
  { lisTestId: 'T-CREA', lisCode: 'CREA', lisName: 'Creatinine', lisType: 'Serum', instrumentCode: 'CREJ2', note: 'rate-blanked' },
  { lisTestId: 'T-EGFR', lisCode: 'EGFR', lisName: 'eGFR (CKD-EPI)', lisType: 'Serum', instrumentCode: 'EGFR', note: 'calculated by the analyzer' },
];
const PUSHED_MAPPING = [
  { lisTestId: 'T-GLU', lisCode: 'GLU', lisName: 'Glucose', lisType: 'Serum', instrumentCode: 'GLU' },
  { lisTestId: 'T-UREA', lisCode: 'UREA', lisName: 'Urea', lisType: 'Serum', instrumentCode: 'BUN' },
  { lisTestId: 'T-CREA', lisCode: 'CREA', lisName: 'Creatinine', lisType: 'Serum', instrumentCode: '' },
  { lisTestId: 'T-LIPID', lisCode: 'LIPID', lisName: 'Lipid panel', lisType: 'Serum', instrumentCode: 'LIPID' },
];
const OLDER_TABLES = [
  { id: 'chemQuery', name: 'LIS -> analyzer codes', direction: 'toInstrument', mapping: QUERY_MAPPING },
  { id: 'chemResults', name: 'analyzer -> LIS codes', direction: 'toLis', mapping: RESULTS_MAPPING },
  { id: 'chemPushed', name: 'pushed order -> analyzer codes', direction: 'toInstrument', mapping: PUSHED_MAPPING },
];

const ROWS = '#node-input-mapping-container > li';
const MESSAGE = '#node-input-mapping-message';

let work: string;
let stub: LisStub;
let red: NodeRedProcess | undefined;
let page: Page;
let pageErrors: string[];
let session: EditorSession | undefined;

function flows(): Array<Record<string, unknown>> {
  const urls = (path: string) => ({
    labTestsApiUrl: stub.url(path),
    transactionInfoApiUrl: stub.url('/orders'),
    resultApiUrl: stub.url('/results'),
    timeout: 5000,
  });
  return [
    { id: 'tab1', type: 'tab', label: 'Analyzers' },
    { id: 'cfg', type: 'lis-config', name: 'site LIS', ...urls('/tests'), credentials: { bearerToken: TOKEN } },
    { id: 'cfg401', type: 'lis-config', name: 'LIS with an expired token', ...urls('/tests-401') },
    {
      id: 'tm1',
      type: 'test-mapper',
      z: 'tab1',
      name: '',
      lis: 'cfg',
      instrument: 'Sysmex XN-1000 #2',
      direction: 'auto',
      unmapped: 'warn',
      mapping: DEPLOYED_MAPPING,
      x: 260,
      y: 120,
      wires: [[], []],
    },
    {
      id: 'tm2',
      type: 'test-mapper',
      z: 'tab1',
      name: 'second analyzer',
      lis: 'cfg401',
      instrument: 'spare',
      direction: 'auto',
      unmapped: 'fail',
      mapping: [{ lisTestId: 'T-GLU', lisCode: 'GLU', lisName: 'Glucose', instrumentCode: 'GLU2' }],
      x: 260,
      y: 200,
      wires: [[], []],
    },
    // Its own tab, so the merge (which takes the tab's tables) leaves tm1 and tm2 alone.
    { id: 'tab2', type: 'tab', label: 'Chemistry (older flow)' },
    ...OLDER_TABLES.map((t, i) => ({
      id: t.id,
      type: 'test-mapper',
      z: 'tab2',
      name: t.name,
      lis: 'cfg',
      instrument: CHEM,
      direction: t.direction,
      unmapped: 'warn',
      mapping: t.mapping,
      x: 300,
      y: 100 + 80 * i,
      wires: [[], []],
    })),
  ];
}

/** The row of the table whose LIS name is `name` (the first, for a test with components). */
function row(name: string): Locator {
  return page.locator(ROWS).filter({ has: page.locator('.node-input-mapping-lisName', { hasText: new RegExp(`^${name}$`) }) }).first();
}

async function rowCount(): Promise<number> {
  return page.locator(ROWS).count();
}

async function waitForRows(n: number): Promise<void> {
  await page.waitForFunction(`document.querySelectorAll(${JSON.stringify(ROWS)}).length === ${n}`, undefined, { timeout: 10000 });
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'lis-browser-'));
  stub = await new LisStub().start();
  stub.reply('/tests', { body: { tests: CATALOG } });
  stub.reply('/tests-401', { status: 401, body: { message: 'token expired', errors: ['the Bearer token is not valid any more'] } });
  const userDir = join(work, 'userDir');
  mkdirSync(userDir);
  session = await startEditorSession(userDir, flows(), 'tm1', { width: 1280, height: 1000 });
  ({ red, page, pageErrors } = session);
});

after(async () => {
  await session?.stop();
  await stub?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('test-mapper dialog', () => {
  it('loads the LIS catalog with the stored token, edits a row and deploys it', async () => {
    await editNode(page, 'tm1');
    await waitForRows(DEPLOYED_MAPPING.length);

    const catalogRequest = page.waitForRequest((req) => req.url().endsWith('/lis-bridge/catalog'));
    await page.locator('#node-input-mapping-load').click();
    const sent = (await catalogRequest).postDataJSON() as { config: Record<string, unknown>; bearerToken?: string; rows: unknown[] };
    await waitForRows(7);
    await page.locator(MESSAGE).waitFor({ state: 'visible' });

    // The editor cannot know the stored token: the runtime adds it, towards the deployed URL only.
    assert.equal(sent.bearerToken, undefined);
    assert.equal(sent.config.id, 'cfg');
    assert.equal(sent.config.labTestsApiUrl, stub.url('/tests'));
    assert.equal(sent.rows.length, DEPLOYED_MAPPING.length);
    const lis = stub.to('/tests');
    assert.equal(lis.length, 1);
    assert.equal(lis[0]!.headers.authorization, `Bearer ${TOKEN}`);

    // Grouped by LIS test, ordered by name; the dropped test is kept and marked.
    assert.deepEqual(await page.locator(`${ROWS} .node-input-mapping-lisName`).allTextContents(), [
      'Complete blood count',
      'Complete blood count',
      'Creatinine',
      'Erythrocyte sedimentation rate',
      'Glucose',
      'Haematocrit',
      'Haemoglobin',
    ]);
    assert.match((await page.locator(MESSAGE).textContent()) ?? '', /lists 5 tests.*7 rows: 1 new.*1 not in the catalog/);
    const stale = row('Erythrocyte sedimentation rate');
    assert.match((await stale.locator('.lis-tm-item').getAttribute('class')) ?? '', /lis-tm-stale/);
    assert.equal(await stale.locator('.lis-tm-badge-stale').textContent(), 'not in catalog');
    assert.equal(await page.locator(`${ROWS} .lis-tm-badge-panel`, { hasText: 'panel: 3 LIS tests' }).count(), 4);
    assert.deepEqual(await page.locator(`${ROWS} .lis-tm-badge-component`).allTextContents(), ['component 1/2', 'component 2/2']);
    assert.equal(await row('Glucose').locator('.node-input-mapping-instrumentCode').inputValue(), '');

    // The operator maps the new test.
    await row('Glucose').locator('.node-input-mapping-instrumentCode').fill('GLU');

    // "add component" duplicates a row with empty instrument fields, right under it; then it is removed again.
    await row('Creatinine').locator('.node-input-mapping-addComponent').click();
    await waitForRows(8);
    const added = page.locator(ROWS).nth(3);
    assert.equal(await added.locator('.node-input-mapping-lisName').textContent(), 'Creatinine');
    assert.equal(await added.locator('.node-input-mapping-instrumentCode').inputValue(), '');
    assert.equal(await added.locator('.node-input-mapping-note').inputValue(), '');
    assert.equal(await added.locator('.lis-tm-badge-component').textContent(), 'component 2/2');
    // Same instrument code and sub-code as the first row of the test: flagged on both.
    await added.locator('.node-input-mapping-instrumentCode').fill('CREJ2');
    await page.locator(`${ROWS} .lis-tm-badge-ambiguous`, { hasText: 'duplicate' }).nth(1).waitFor();
    assert.equal(await row('Creatinine').locator('.lis-tm-badge-ambiguous').textContent(), 'duplicate');
    await added.locator('.red-ui-editableList-item-remove').click();
    await waitForRows(7);
    assert.equal(await row('Creatinine').locator('.lis-tm-badge-ambiguous').count(), 0);

    // The filter matches LIS names and codes and instrument codes, case-insensitive.
    const filter = page.locator('#node-input-mapping-filter');
    await filter.pressSequentially('cbc');
    await page.waitForFunction(`[...document.querySelectorAll(${JSON.stringify(ROWS)})].filter((li) => li.style.display !== 'none').length === 4`);
    assert.deepEqual(await page.locator(`${ROWS}:visible .node-input-mapping-lisName`).allTextContents(), [
      'Complete blood count',
      'Complete blood count',
      'Haematocrit',
      'Haemoglobin',
    ]);
    await page.locator('.lis-tm-filter-row .red-ui-searchBox-clear').click();
    await page.waitForFunction(`[...document.querySelectorAll(${JSON.stringify(ROWS)})].every((li) => li.style.display !== 'none')`);

    // Export CSV downloads the table as it is in the dialog.
    const download = page.waitForEvent('download');
    await page.locator('#node-input-mapping-export').click();
    const file = await download;
    assert.equal(file.suggestedFilename(), 'Sysmex XN-1000 #2.csv');
    const csv = readFileSync(await file.path(), 'utf8');
    assert.match(csv, /^\uFEFFlisTestId,lisCode,lisName,instrumentCode,instrumentSubCode,lisSubCode,note,use,values\r\n/);
    assert.match(csv, /\r\nT-GLU,GLU,Glucose,GLU,,,,,\r\n/);

    await page.locator('.lis-tm-message-close').click();
    await page.evaluate(`$('#node-input-mapping-container').parent().scrollTop(0); document.activeElement && document.activeElement.blur()`);
    const shot = join(ROOT, 'test', 'artifacts', 'test-mapper.png');
    mkdirSync(join(ROOT, 'test', 'artifacts'), { recursive: true });
    await page.locator('#red-ui-editor-stack .red-ui-tray').last().screenshot({ path: shot });
    // The README's copy changes only on request, so a test run leaves the work tree clean.
    if (process.env.UPDATE_SCREENSHOTS) copyFileSync(shot, join(ROOT, 'docs', 'test-mapper.png'));

    await page.locator('#node-dialog-ok').click();
    await page.locator('#node-dialog-ok').waitFor({ state: 'detached' });
    await deploy(page);

    const deployed = (await (await fetch(`${red!.url}/flows`, { headers: { 'Node-RED-API-Version': 'v2' } })).json()) as {
      flows: Array<{ id: string; mapping?: Array<Record<string, unknown>> }>;
    };
    const mapping = deployed.flows.find((n) => n.id === 'tm1')?.mapping;
    assert.ok(mapping, 'tm1 in the deployed flows');
    assert.equal(mapping.length, 7);
    assert.deepEqual(
      mapping.filter((r) => r.lisTestId === 'T-GLU'),
      [{ lisTestId: 'T-GLU', lisCode: 'GLU', lisName: 'Glucose', lisType: 'Serum', instrumentCode: 'GLU' }],
    );
    assert.deepEqual(
      mapping.filter((r) => r.lisTestId === 'T-CREA'),
      [{ lisTestId: 'T-CREA', lisCode: 'CREA', lisName: 'Creatinine', lisType: 'Serum', instrumentCode: 'CREJ2', note: 'rate-blanked' }],
    );
    assert.deepEqual(
      mapping.filter((r) => r.lisTestId === 'T-CBC').map((r) => r.instrumentSubCode),
      ['WBC', 'PLT'],
    );
    assert.equal(mapping.find((r) => r.lisTestId === 'T-ESR')?.stale, true);
    assert.deepEqual(pageErrors, []);
  });

  it('shows a LIS failure inside the dialog and keeps editing', async () => {
    await editNode(page, 'tm2');
    await waitForRows(1);
    const before = stub.to('/tests-401').length;

    await page.locator('#node-input-mapping-load').click();
    const message = page.locator(`${MESSAGE}.lis-tm-message-error`);
    await message.waitFor({ state: 'visible' });
    const text = (await message.textContent()) ?? '';
    assert.match(text, /Could not load the LIS catalog/);
    assert.match(text, /401/);
    assert.match(text, /token expired/);
    assert.match(text, /the Bearer token is not valid any more/);
    assert.equal(stub.to('/tests-401').length, before + 1);
    assert.equal(stub.to('/tests-401').at(-1)!.headers.authorization, undefined);
    assert.equal(await rowCount(), 1);

    // Still editable: the row, the other fields, and a CSV import.
    const code = row('Glucose').locator('.node-input-mapping-instrumentCode');
    assert.equal(await code.inputValue(), 'GLU2');
    await code.fill('GLU3');
    assert.equal(await code.inputValue(), 'GLU3');
    await page.locator('#node-input-name').fill('renamed');
    await page.locator('#node-input-mapping-import-file').setInputFiles({
      name: 'spare.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('lisTestId;lisCode;lisName;instrumentCode\nT-GLU;GLU;Glucose;G1\n;CREA;Creatinine;C1\nT-HGB;HGB;Haemoglobin;H1\n'),
    });
    await page.locator(`${MESSAGE}.lis-tm-message-warning`).waitFor({ state: 'visible' });
    await waitForRows(2);
    assert.match((await page.locator(MESSAGE).textContent()) ?? '', /Imported 2 rows from spare\.csv.*1 line skipped.*line 3: lisTestId must not be empty/);

    // Cancel leaves the node as deployed.
    await page.locator('#node-dialog-cancel').click();
    await page.locator('#node-dialog-cancel').waitFor({ state: 'detached' });
    const mapping = await page.evaluate(`RED.nodes.node('tm2').mapping`);
    assert.deepEqual(mapping, [{ lisTestId: 'T-GLU', lisCode: 'GLU', lisName: 'Glucose', instrumentCode: 'GLU2' }]);
    assert.deepEqual(pageErrors, []);
  });

  it('merges an older flow\'s three tables into one test map once each difference is chosen', async () => {
    const note = page.locator('#node-input-map-note');
    const difference = (id: string) => note.locator(`fieldset.lis-tm-merge-difference[data-difference="${id}"]`);
    const testMaps = () =>
      page.evaluate(() => {
        const RED = (globalThis as unknown as { RED: { nodes: { eachConfig(f: (n: { id: string; type: string }) => void): void } } }).RED;
        const ids: string[] = [];
        // eachConfig stops at a callback answering false: this one answers nothing.
        RED.nodes.eachConfig((n) => {
          if (n.type === 'lis-test-map') ids.push(n.id);
        });
        return ids;
      });
    const editorState = (id: string) => page.evaluate(`(({ map, mapping }) => ({ map, mapping }))(RED.nodes.node(${JSON.stringify(id)}))`);
    const merge = () => page.waitForResponse((res) => res.request().method() === 'POST' && res.url().endsWith('/lis-bridge/mapping/merge'));
    const openPlan = async () => {
      await editNode(page, 'chemQuery');
      await waitForRows(QUERY_MAPPING.length);
      await waitForText(note, /keeps its own table/);
      const planned = merge();
      await page.locator('#node-input-map-merge').click();
      assert.equal((await planned).status(), 200);
      await note.locator('fieldset.lis-tm-merge-difference').nth(1).waitFor();
    };

    await openPlan();
    assert.match(
      (await note.textContent()) ?? '',
      /Merge 3 tables \(LIS -> analyzer codes, analyzer -> LIS codes, pushed order -> analyzer codes\) into one new test map of 5 rows/,
    );
    assert.match((await note.textContent()) ?? '', /The tables differ on 2 tests/);
    // Only the order tables differ (creatinine not mapped for pushed orders, urea's code); the results table is alone
    // in its way. Tests come in the order of the opened dialog's table (by LIS name), then the other tables'.
    assert.deepEqual(await note.locator('fieldset.lis-tm-merge-difference').evaluateAll((els) => els.map((e) => e.getAttribute('data-difference'))), [
      'orders:T-CREA',
      'orders:T-UREA',
    ]);
    assert.deepEqual(await difference('orders:T-UREA').locator('label').allTextContents(), [
      'UREA — LIS -> analyzer codes',
      'BUN — pushed order -> analyzer codes',
    ]);
    assert.deepEqual(await difference('orders:T-CREA').locator('label').allTextContents(), [
      'CREJ2 — LIS -> analyzer codes',
      'not mapped — pushed order -> analyzer codes',
    ]);
    assert.equal(await difference('orders:T-UREA').locator('legend').textContent(), 'Urea: the order tables differ');

    // Merge with nothing chosen: the runtime refuses, and the editor creates nothing and moves no node.
    const refused = merge();
    await page.locator('#node-input-map-merge-now').click();
    const answer = await refused;
    assert.equal(answer.status(), 400);
    assert.match(((await answer.json()) as { message: string }).message, /^choose a version for T-CREA \(orders\), T-UREA \(orders\)/);
    await waitForText(note, /^Could not merge: choose a version for T-CREA \(orders\), T-UREA \(orders\).*Nothing was changed\.Merge 3 tables/);
    assert.deepEqual(await testMaps(), []);
    for (const t of OLDER_TABLES) {
      const { map, mapping } = (await editorState(t.id)) as { map?: string; mapping: unknown };
      assert.equal(map ?? '', '', `${t.id} uses no map`);
      assert.deepEqual(mapping, t.mapping, `${t.id} keeps its table`);
    }

    // The refusal keeps the plan and its choices above: they are completed there. Merged, then the dialog cancelled:
    // the merge is taken back, the new map and the other test-mappers' moves with it.
    await difference('orders:T-UREA').getByText('UREA — LIS -> analyzer codes').click();
    await difference('orders:T-CREA').getByText('CREJ2 — LIS -> analyzer codes').click();
    const first = merge();
    await page.locator('#node-input-map-merge-now').click();
    assert.equal((await first).status(), 200);
    await waitForText(note, /^Merged into the new test map/);
    assert.equal((await testMaps()).length, 1);
    await page.locator('#node-dialog-cancel').click();
    await page.locator('#node-dialog-cancel').waitFor({ state: 'detached' });
    assert.deepEqual(await testMaps(), [], 'Cancel took the new map back');
    for (const t of OLDER_TABLES) {
      const { map, mapping } = (await editorState(t.id)) as { map?: string; mapping: unknown };
      assert.equal(map ?? '', '', `${t.id} uses no map after Cancel`);
      assert.deepEqual(mapping, t.mapping, `${t.id} keeps its table after Cancel`);
    }

    await openPlan();
    await difference('orders:T-UREA').getByText('UREA — LIS -> analyzer codes').click();
    await difference('orders:T-CREA').getByText('CREJ2 — LIS -> analyzer codes').click();
    const accepted = merge();
    await page.locator('#node-input-map-merge-now').click();
    assert.equal((await accepted).status(), 200);
    await waitForText(note, new RegExp(`^Merged into the new test map "${CHEM}" \\(5 rows\\), now used by 3 test-mappers`));
    const [mapId] = await testMaps();
    assert.ok(mapId, 'a test map created in the editor');
    assert.equal(await page.locator('#node-input-map').inputValue(), mapId);

    await page.locator('#node-dialog-ok').click();
    await page.locator('#node-dialog-ok').waitFor({ state: 'detached' });
    await deploy(page);

    const deployed = (await (await fetch(`${red!.url}/flows`, { headers: { 'Node-RED-API-Version': 'v2' } })).json()) as {
      flows: Array<{ id: string; type: string; map?: string; instrument?: string; lis?: string; mapping?: Array<Record<string, unknown>> }>;
    };
    const maps = deployed.flows.filter((n) => n.type === 'lis-test-map');
    assert.equal(maps.length, 1, 'exactly one test map deployed');
    const map = maps[0]!;
    assert.equal(map.id, mapId);
    assert.equal(map.instrument, CHEM);
    assert.equal(map.lis, 'cfg');
    // Agreeing rows work both ways (no use); the chosen versions agree with the results table; the lipid panel is
    // ordered only, eGFR comes back only.
    assert.deepEqual(map.mapping, [
      { lisTestId: 'T-CREA', lisCode: 'CREA', lisName: 'Creatinine', lisType: 'Serum', instrumentCode: 'CREJ2', note: 'rate-blanked' },
      { lisTestId: 'T-GLU', lisCode: 'GLU', lisName: 'Glucose', lisType: 'Serum', instrumentCode: 'GLU' },
      { lisTestId: 'T-LIPID', lisCode: 'LIPID', lisName: 'Lipid panel', lisType: 'Serum', instrumentCode: 'LIPID', use: 'orders' },
      { lisTestId: 'T-UREA', lisCode: 'UREA', lisName: 'Urea', lisType: 'Serum', instrumentCode: 'UREA' },
      { lisTestId: 'T-EGFR', lisCode: 'EGFR', lisName: 'eGFR (CKD-EPI)', lisType: 'Serum', instrumentCode: 'EGFR', note: 'calculated by the analyzer', use: 'results' },
    ]);
    for (const t of OLDER_TABLES) {
      const n = deployed.flows.find((f) => f.id === t.id);
      assert.equal(n?.map, mapId, `${t.id} uses the new map`);
      assert.deepEqual(n?.mapping, [], `${t.id} keeps no table of its own`);
    }
    // Every mapped row of the three tables is in the map for its table's way, but for the version not chosen.
    const declined = [{ table: 'chemPushed', lisTestId: 'T-UREA', instrumentCode: 'BUN' }];
    for (const t of OLDER_TABLES) {
      const way = t.direction === 'toInstrument' ? 'orders' : 'results';
      for (const r of t.mapping.filter((x) => x.instrumentCode !== '')) {
        const kept = map.mapping!.some((m) => m.lisTestId === r.lisTestId && m.instrumentCode === r.instrumentCode && (m.use === undefined || m.use === way));
        const chosenAway = declined.some((d) => d.table === t.id && d.lisTestId === r.lisTestId && d.instrumentCode === r.instrumentCode);
        assert.ok(kept !== chosenAway, `${t.id}'s ${r.lisTestId} -> ${r.instrumentCode}: ${kept ? 'kept though declined' : 'lost without being chosen'}`);
      }
    }
    assert.deepEqual(await testMaps(), [mapId]);

    // Opened again, a test-mapper says which map it uses and that the three share it.
    await editNode(page, 'chemResults');
    await waitForText(note, new RegExp(`^Uses the test map "${CHEM}", which 3 test-mappers of this analyzer share`));
    assert.equal(await page.locator('#node-input-map-merge').count(), 0);
    await page.locator('#node-dialog-cancel').click();
    await page.locator('#node-dialog-cancel').waitFor({ state: 'detached' });
    assert.deepEqual(pageErrors, []);
  });
});
