/**
 * file-message's dialog in a real editor (Chromium on a Node-RED process with
 * the package installed from its packed tarball), as an integrator first opens
 * it: the QuantStudio dialect, the instrument's own export pasted (the real
 * QuantStudio 7 Flex results export, test/fixtures/file): the results table
 * shows each patient well's Ct under its sample number and target, and the
 * standards apart as QC, before anything is deployed. Then another built-in
 * picked from the list (grouped by vendor), and a setting of its typed in the dialect's JSON.
 *
 * Keeps a screenshot in test/artifacts/file-message-dialog.png; with
 * UPDATE_SCREENSHOTS=1 also in docs/ for the README (docs/*.png ship with the package).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { editNode, startEditorSession, type EditorSession } from '../support/browser';

const ROOT = join(__dirname, '..', '..', '..');
const FILE = '#file-message-dialect-editor';
const EXPORT = join(ROOT, 'test', 'fixtures', 'file', 'quantstudio-7-flex-results.txt');
const XPONENT = join(ROOT, 'test', 'fixtures', 'allotropy', 'luminex_xponent', 'luminex_xPONENT_example02.csv');

let work: string;
let session: EditorSession | undefined;
let page: Page;
let pageErrors: string[];

function flows(folder: string): Array<Record<string, unknown>> {
  return [
    { id: 'tab1', type: 'tab', label: 'PCR cycler' },
    { id: 'fl', type: 'folder-link', z: 'tab1', name: 'QuantStudio 7 Flex', analyzer: '', folder, pattern: '*.txt', marker: '', after: 'move', x: 140, y: 80, wires: [['fm']] },
    { id: 'fm', type: 'file-message', z: 'tab1', name: '', dialect: 'appbio-quantstudio', dialectOverrides: '', timeZone: 'America/New_York', x: 360, y: 80, wires: [[], []] },
  ];
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'lis-file-dialog-ui-'));
  const userDir = join(work, 'userDir');
  const folder = join(work, 'exports');
  mkdirSync(userDir);
  mkdirSync(folder);
  session = await startEditorSession(userDir, flows(folder), 'fm', { width: 1280, height: 1750 });
  ({ page, pageErrors } = session);
});

after(async () => {
  await session?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('file-message dialog', () => {
  it('a QuantStudio export pasted: the results table shows each patient well, standards kept apart as QC', async () => {
    await editNode(page, 'fm');
    const paste = page.locator(`${FILE} .lis-dialect-paste`);
    await paste.waitFor({ state: 'visible' });
    // The file texts, not an ASTM capture's: the picker is the file dialect, the capture an export.
    assert.equal((await page.locator('label[for="node-input-dialect"]').textContent())?.trim(), 'File dialect');
    assert.match((await paste.getAttribute('placeholder')) ?? '', /^Paste an export \(its CSV or text lines\), or load the file/);
    assert.equal(await page.locator(`${FILE} .lis-dialect-links`).locator('xpath=..').locator('span').first().textContent(), 'Export');
    // folder-link keeps no frame trace and takes no replay: no picker of recent messages and no replay row that could only fail.
    assert.equal(await page.locator(`${FILE} .lis-dialect-links`).isVisible(), false);
    assert.equal(await page.locator(`${FILE} .lis-dialect-replay-run`).isVisible(), false);
    await paste.fill(readFileSync(EXPORT, 'latin1'));
    const rows = `${FILE} .lis-dialect-results tbody tr`;
    // 6 patient samples, 3 wells each.
    await page.waitForFunction(`document.querySelectorAll(${JSON.stringify(rows)}).length === 18`, undefined, { timeout: 10000 });
    const first = await page.locator(rows).first().locator('td').allTextContents();
    assert.deepEqual(first.slice(1, 4), ['5000018696625', "3'UTR", '25.711']);
    assert.equal((await page.locator(`${FILE} .lis-dialect-results thead th`).first().textContent())?.trim(), 'file:line');
    // The standards (Task STANDARD): 2 of 3 wells each, in the QC table, never among the results.
    const qc = await page.locator(`${FILE} .lis-dialect-qc tbody tr td:nth-child(2)`).allTextContents();
    assert.ok(qc.length > 0 && qc.every((s) => /^Standard \d/.test(s)), JSON.stringify(qc));
    assert.ok(!(await page.locator(rows).allTextContents()).some((r) => r.includes('Standard')));
    // The pasted export shown from its [Results] header row, the part the dialect reads.
    await paste.evaluate((el: HTMLTextAreaElement) => {
      const lines = el.value.split('\n');
      const header = lines.findIndex((l) => l.startsWith('[Results]'));
      el.scrollTop = (el.scrollHeight / lines.length) * header;
    });

    mkdirSync(join(ROOT, 'test', 'artifacts'), { recursive: true });
    const shot = join(ROOT, 'test', 'artifacts', 'file-message-dialog.png');
    await page.locator('#red-ui-editor-stack .red-ui-tray').last().screenshot({ path: shot });
    if (process.env.UPDATE_SCREENSHOTS) copyFileSync(shot, join(ROOT, 'docs', 'file-message-dialog.png'));
    await page.locator('#node-dialog-cancel').click();
    assert.deepEqual(pageErrors, []);
  });

  it("another built-in picked (Luminex xPONENT's batch CSV): its Net MFI section read; a section titled over two cells typed in the dialect's JSON, refused when empty, read when named", async () => {
    await editNode(page, 'fm');
    const paste = page.locator(`${FILE} .lis-dialect-paste`);
    await paste.waitFor({ state: 'visible' });
    // Dozens of file dialects: grouped by vendor, the generic ones first, then by name.
    const groups = await page.locator('#node-input-dialect optgroup').evaluateAll((els) => els.map((e) => e.getAttribute('label')));
    assert.equal(groups[0], 'Generic');
    assert.deepEqual(groups.slice(1), [...groups.slice(1)].sort((a, b) => a!.localeCompare(b!)));
    assert.equal(await page.locator('#node-input-dialect optgroup[label="Luminex"] option[value="luminex-xponent"]').count(), 1);
    await page.locator('#node-input-dialect').selectOption('luminex-xponent');
    await paste.fill(readFileSync(XPONENT, 'utf8'));
    const rows = `${FILE} .lis-dialect-results tbody tr`;
    const firstRow = async () => (await page.locator(rows).first().locator('td').allTextContents()).slice(1, 4);
    // 4 samples x 2 analytes; Total Events is a count, no test.
    await page.waitForFunction((selector) => document.querySelectorAll(selector).length === 8, rows, { timeout: 10000 });
    assert.deepEqual(await firstRow(), ['Unknown1', 'alpha', '10921.5']);
    assert.ok(!(await page.locator(rows).allTextContents()).some((r) => r.includes('Total Events')));

    const overrides = page.locator('#node-input-dialectOverrides');
    await overrides.fill(JSON.stringify({ table: { startsAfter: [] } }));
    await page.locator(`${FILE} .lis-dialect-issues li[data-path="table.startsAfter"]`, { hasText: /name the section title's cells/ }).waitFor({ timeout: 10000 });
    // The bead counts' section instead: the same wells, the counts as values.
    await overrides.fill(JSON.stringify({ table: { startsAfter: ['DataType:', 'Count'] } }));
    await page.waitForFunction((selector) => document.querySelectorAll(selector).length === 8 && document.querySelector(selector)?.textContent?.includes('30') === true, rows, { timeout: 10000 });
    assert.deepEqual(await firstRow(), ['Unknown1', 'alpha', '30']);
    assert.equal(await page.locator(`${FILE} .lis-dialect-issues li`).count(), 0);
    await page.locator('#node-dialog-cancel').click();
    assert.deepEqual(pageErrors, []);
  });
});
