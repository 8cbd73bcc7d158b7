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
import { deploy, editNode, startEditorSession, type EditorSession } from '../support/browser';

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
});
