/**
 * An instrument that exports Excel workbooks, shaped in file-message's dialog
 * in a real editor (Chromium on a Node-RED process with the package loaded
 * from the repository): the node starts on the generic CSV dialect; the
 * integrator picks the QuantStudio Design & Analysis workbook dialect and
 * loads the real workbook (test/fixtures/file, SOURCES.md) with "Load a
 * file…": the capture shows the sheet's rows as clickable cells, the results
 * table Sample001's T4 Cq and the controls' UNDETERMINED apart as QC.
 * Pointing at the `Well` header cell as the sample number writes
 * layout.sample, and the well `A01` is then held, named as a well's position
 * (never a sample number: every plate has one); pointing back at `Sample`
 * reads Sample001 again. A workbook dropped on the capture loads the same
 * way; one over the preview's limit is refused, naming it. Done, Deploy: the
 * workbook read from disk (core file-in node, a single Buffer) reaches a
 * loopback LIS under its sample, once.
 *
 * Keeps a screenshot in test/artifacts/file-message-workbook.png.
 */
import { fileRunFlow, injectAndCollect } from '../support/file-run-flow';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { LisStub } from '../support/lis-stub';
import { deploy, editNode, startEditorSession, type EditorSession } from '../support/browser';

const ROOT = join(__dirname, '..', '..', '..');
const TOKEN = 'browser-test-token';
const FILE = '#file-message-dialect-editor';
const WORKBOOK = join(ROOT, 'test', 'fixtures', 'file', 'quantstudio-7-pro-diomni-presence-absence.xlsx');
const XLSX_DIALECT = 'appbio-quantstudio-design-analysis-xlsx';

let work: string;
let stub: LisStub;
let session: EditorSession | undefined;
let page: Page;
let pageErrors: string[];

const MAPPING = [
  { lisTestId: 'T-T4', lisCode: 'L-T4', lisName: 'T4 target', instrumentCode: 'T4' },
  { lisTestId: 'T-GLOBIN', lisCode: 'L-GLOBIN', lisName: 'Globin', instrumentCode: 'Globin' },
];

const flows = () => fileRunFlow({ stub, token: TOKEN, instrument: 'QuantStudio 7 Pro', file: WORKBOOK, fileName: 'RUN-01.xlsx', timeZone: 'America/New_York', mapping: MAPPING });

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'lis-file-workbook-ui-'));
  stub = await new LisStub().start();
  stub.reply('/results', { status: 200, body: {} });
  const userDir = join(work, 'userDir');
  mkdirSync(userDir);
  session = await startEditorSession(userDir, flows(), 'fm', { width: 1280, height: 1400 });
  ({ page, pageErrors } = session);
});

after(async () => {
  await session?.stop();
  await stub?.stop();
  rmSync(work, { recursive: true, force: true });
});

const RESULTS = `${FILE} .lis-dialect-results tbody tr`;

async function column(table: string, index: number): Promise<string[]> {
  return page.locator(`${FILE} .lis-dialect-${table} tbody tr td:nth-child(${index + 1})`).allTextContents();
}

/** The results table reads `rows` (sample, test, value each), waited for. */
async function resultsRead(rows: string[][]): Promise<void> {
  const wanted = JSON.stringify(rows);
  await page
    .waitForFunction(
      ({ selector, wanted }) => JSON.stringify([...document.querySelectorAll(selector)].map((tr) => [...tr.querySelectorAll('td')].slice(1, 4).map((td) => td.textContent))) === wanted,
      { selector: RESULTS, wanted },
      { timeout: 10000 },
    )
    .catch(async (err: unknown) => {
      throw new Error(`${String(err)}; the results read ${JSON.stringify(await page.locator(RESULTS).allTextContents())}, the section ${JSON.stringify(await page.locator(FILE).innerText())}`);
    });
}

describe('file-message dialog: an Excel workbook loaded from disk', () => {
  it('the QuantStudio Design & Analysis workbook loaded, previewed and pointed at; deployed, its result reaches the LIS once', async () => {
    await editNode(page, 'fm');
    await page.locator(`${FILE} .lis-dialect-paste`).waitFor({ state: 'visible' });
    await page.locator('#node-input-dialect').selectOption(XLSX_DIALECT);

    // Through the hidden file input behind "Load a file…".
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.locator(`${FILE} .lis-dialect-load-file`).click()]);
    await chooser.setFiles(WORKBOOK);
    await resultsRead([['Sample001', 'T4', '39.54']]);
    assert.match(await page.locator(`${FILE} .lis-dialect-loaded`).innerText(), /^quantstudio-7-pro-diomni-presence-absence\.xlsx \(50 KB\) loaded: the preview reads its bytes as file-message does/);
    assert.equal(await page.locator(`${FILE} .lis-dialect-paste`).isVisible(), false, 'the paste gives way to the file');
    assert.deepEqual(await column('qc', 3), ['UNDETERMINED', 'UNDETERMINED', 'UNDETERMINED', 'UNDETERMINED']);
    assert.deepEqual(await column('qc', 1), ['Negative Control', 'Negative Control', 'Positive Control', 'Positive Control']);
    assert.match(await page.locator(`${FILE} .lis-dialect-paste-info`).innerText(), /read as file \(xlsx\)/);
    // The sheet drawn as the capture: a spreadsheet row a line, a cell a token.
    const header = page.locator(`${FILE} .lis-dialect-capture-line`, { has: page.locator('.lis-dialect-token', { hasText: /^Well$/ }) });
    assert.deepEqual((await header.locator('.lis-dialect-token').allTextContents()).slice(0, 8), ['Well', 'Omit', 'Sample', 'Target', 'Task', 'Reporter', 'Quencher', 'Cq']);

    // The Well column said to be the sample number: its well is held, named as a well's position, never sent.
    await header.locator('.lis-dialect-token', { hasText: /^Well$/ }).click();
    await page.locator(`${FILE} .lis-dialect-role-menu .lis-dialect-role-sampleNumber`).click();
    await page.locator(`${FILE} .lis-dialect-pointed`, { hasText: /^1 result changed \(layout\.sample\)/ }).waitFor({ timeout: 10000 });
    await page.locator(`${FILE} .lis-dialect-unassigned tbody tr`, { hasText: /sample number "A01" is a plate well's position, which every plate has: not sent/ }).waitFor({ timeout: 10000 });
    assert.equal(await page.locator(RESULTS).count(), 0);
    assert.deepEqual(JSON.parse(await page.locator('#node-input-dialectOverrides').inputValue()), { layout: { sample: 'Well' } });
    // Back to the Sample column: the dialect's own, so nothing is left to override.
    await header.locator('.lis-dialect-token', { hasText: /^Sample$/ }).click();
    await page.locator(`${FILE} .lis-dialect-role-menu .lis-dialect-role-sampleNumber`).click();
    await page.locator(`${FILE} .lis-dialect-pointed`, { hasText: /^1 result changed \(layout\.sample\)/ }).waitFor({ timeout: 10000 });
    await resultsRead([['Sample001', 'T4', '39.54']]);
    assert.deepEqual(JSON.parse(await page.locator('#node-input-dialectOverrides').inputValue()), {});

    mkdirSync(join(ROOT, 'test', 'artifacts'), { recursive: true });
    await page.locator('#red-ui-editor-stack .red-ui-tray').last().screenshot({ path: join(ROOT, 'test', 'artifacts', 'file-message-workbook.png') });

    // A file over the preview's limit is refused before it is sent, naming the limit; the workbook stays loaded.
    await page.locator(`${FILE} .lis-dialect-file-input`).setInputFiles({ name: 'huge.xlsx', mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', buffer: Buffer.alloc(3 * 1024 * 1024 + 1) });
    await page.locator(`${FILE} .lis-dialect-load-problem`, { hasText: /^huge\.xlsx is 3\.0 MB, more than the 3\.0 MB the preview takes/ }).waitFor({ timeout: 5000 });
    assert.match(await page.locator(`${FILE} .lis-dialect-loaded`).innerText(), /^quantstudio-7-pro-diomni-presence-absence\.xlsx \(50 KB\) loaded/);
    assert.equal(await page.locator(RESULTS).count(), 1);

    // Cleared, the paste is the capture again; the workbook dropped on it loads as through the button.
    const paste = page.locator(`${FILE} .lis-dialect-paste`);
    await page.locator(`${FILE} .lis-dialect-unload-file`).click();
    await page.waitForFunction((selector) => document.querySelectorAll(selector).length === 0, RESULTS, { timeout: 10000 });
    assert.equal(await paste.isVisible(), true);
    assert.equal(await page.locator(`${FILE} .lis-dialect-loaded`).isVisible(), false);
    const dropped = await page.evaluateHandle(
      ({ base64, name }) => {
        const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
        const transfer = new DataTransfer();
        transfer.items.add(new File([bytes], name));
        return transfer;
      },
      { base64: readFileSync(WORKBOOK).toString('base64'), name: 'RUN-01.xlsx' },
    );
    await paste.dispatchEvent('dragover', { dataTransfer: dropped });
    await paste.dispatchEvent('drop', { dataTransfer: dropped });
    await resultsRead([['Sample001', 'T4', '39.54']]);
    assert.match(await page.locator(`${FILE} .lis-dialect-loaded`).innerText(), /^RUN-01\.xlsx \(50 KB\) loaded/);

    await page.locator('#node-dialog-ok').click();
    await page.locator('#node-dialog-ok').waitFor({ state: 'detached' });
    await deploy(page);
    const sent = await injectAndCollect(session!.red, stub, 1);
    assert.deepEqual(
      sent.map((r) => [r.SampleNumber, r.TestCode, r.Result]),
      [['Sample001', 'L-T4', '39.54']],
      'the T4 Cq under its sample, once; the UNDETERMINED targets and the controls never',
    );
    assert.deepEqual(pageErrors, []);
  });

  it('a SoftMax Pro export of another protocol (UTF-16, its Unknowns group): a value pointed at is read, and the dialect\'s own test column it lacks is left out, said so', async () => {
    await editNode(page, 'fm');
    await page.locator(`${FILE} .lis-dialect-paste`).waitFor({ state: 'visible' });
    await page.locator('#node-input-dialect').selectOption('moldev-softmax-pro');
    // The protocol's group and SoftMax's "Unicode" export, as the dialect's help says to set them.
    await page.locator('#node-input-dialectOverrides').fill(JSON.stringify({ encoding: 'utf16le', table: { startsAfter: 'Group: Unknowns' } }));
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.locator(`${FILE} .lis-dialect-load-file`).click()]);
    await chooser.setFiles(join(ROOT, 'test', 'fixtures', 'file', 'softmax-pro-unknowns-utf16.txt'));
    await page.locator(`${FILE} .lis-dialect-other`, { hasText: /no column "AdjConc" \(layout\.tests\[0\]\)/ }).waitFor({ timeout: 10000 });
    assert.equal(await page.locator(RESULTS).count(), 0);

    // The first unknown's MeanResult.
    await page.locator(`${FILE} .lis-dialect-capture .lis-dialect-token`, { hasText: /^-1\.442$/ }).first().click();
    await page.locator(`${FILE} .lis-dialect-role-menu .lis-dialect-role-value`).click();
    await page.locator(`${FILE} .lis-dialect-pointed`, { hasText: /^14 results changed \(layout\.tests\); left out, not in this file: AdjConc$/ }).waitFor({ timeout: 10000 });
    assert.deepEqual(JSON.parse(await page.locator('#node-input-dialectOverrides').inputValue()), { encoding: 'utf16le', table: { startsAfter: 'Group: Unknowns' }, layout: { tests: ['MeanResult'] } });
    await page.waitForFunction((selector) => document.querySelectorAll(selector).length === 14, RESULTS, { timeout: 10000 });
    await page.locator('#node-dialog-cancel').click();
    assert.deepEqual(pageErrors, []);
  });
});
