/**
 * Shaping a file dialect by pointing, in a real editor (Chromium on a Node-RED
 * process with the package installed from its packed tarball): file-message on the
 * generic CSV dialect, a Beckman Coulter Access 2 export pasted (its sample
 * column is `Sample ID`, not `Sample`: the preview says so and shows no
 * result). The integrator clicks the `Sample ID` column name in the file and
 * says "sample number", `Test Name` and says "test code", a unit and says
 * "units", `Flags` and says "flags"; the preview fills in, counting the
 * results each click changed.
 * Deployed, the export read from disk (core file-in node) reaches a loopback
 * LIS once per result through test-mapper and lis-send-results; "No Value"
 * never does.
 *
 * Then a Roche Cedex Bio HT export, which has no header row at all, loaded
 * in a second file-message on the generic CSV dialect and shaped by clicks
 * alone: the tab chosen as the delimiter, line 2 said to be the first result
 * line, then each column pointed at by position, no JSON typed.
 *
 * Keeps screenshots in test/artifacts/pointing-file.png and
 * pointing-headerless.png; with UPDATE_SCREENSHOTS=1 also in docs/.
 */
import { fileRunFlow, injectAndCollect } from '../support/file-run-flow';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { LisStub } from '../support/lis-stub';
import { deploy, editNode, startEditorSession, type EditorSession } from '../support/browser';
import { waitUntil } from '../support/wait';

const ROOT = join(__dirname, '..', '..', '..');
const TOKEN = 'browser-test-token';
const FILE = '#file-message-dialect-editor';
const EXPORT = join(ROOT, 'test', 'fixtures', 'file', 'beckman-access-2-results.csv');
const HEADERLESS = join(ROOT, 'test', 'fixtures', 'file', 'roche-cedex-bioht-results.txt');

let work: string;
let stub: LisStub;
let session: EditorSession | undefined;
let page: Page;
let pageErrors: string[];

const MAPPING = [
  { lisTestId: 'T-HBSAG', lisCode: 'L-HBSAG', lisName: 'HBsAg', instrumentCode: 'HBsAgV3' },
  { lisTestId: 'T-HIV', lisCode: 'L-HIV', lisName: 'HIV Ag/Ab', instrumentCode: 'HIVco' },
];

const flows = () => [
  ...fileRunFlow({ stub, token: TOKEN, instrument: 'Access 2', file: EXPORT, fileName: 'access2.csv', timeZone: 'Africa/Johannesburg', mapping: MAPPING }),
  { id: 'fm-cedex', type: 'file-message', z: 'tab1', name: 'Cedex Bio HT', dialect: 'generic-csv', dialectOverrides: '', timeZone: 'UTC', x: 600, y: 200, wires: [[], []] },
];

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'lis-file-pointing-ui-'));
  stub = await new LisStub().start();
  stub.reply('/results', { status: 200, body: {} });
  const userDir = join(work, 'userDir');
  mkdirSync(userDir);
  session = await startEditorSession(userDir, flows(), 'fm', { width: 1280, height: 1200 });
  ({ page, pageErrors } = session);
});

after(async () => {
  await session?.stop();
  await stub?.stop();
  rmSync(work, { recursive: true, force: true });
});

const resultRows = () => page.locator(`${FILE} .lis-dialect-results tbody tr`);

/** Clicks the first cell of the capture that reads `text`, says it is `role`, and waits for the "changed" line. */
async function pointAt(text: string, role: string, changed: RegExp): Promise<void> {
  await page.locator(`${FILE} .lis-dialect-capture .lis-dialect-token`, { hasText: new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`) }).first().click();
  await page.locator(`${FILE} .lis-dialect-role-menu .lis-dialect-role-${role}`).click();
  await page.locator(`${FILE} .lis-dialect-pointed`, { hasText: changed }).waitFor({ timeout: 10000 }).catch(async (err: unknown) => {
    throw new Error(`${String(err)}; the line reads ${JSON.stringify(await page.locator(`${FILE} .lis-dialect-pointed`).textContent())}`);
  });
}

/** The same for the cell at a line and column of the capture (a padded value's text is no handle). */
async function pointAtCell(row: number, col: number, role: string, said: RegExp): Promise<void> {
  await page.locator(`${FILE} .lis-dialect-capture .lis-dialect-token[data-place='${JSON.stringify({ row, column: col })}']`).click();
  await page.locator(`${FILE} .lis-dialect-role-menu .lis-dialect-role-${role}`).click();
  await page.locator(`${FILE} .lis-dialect-pointed`, { hasText: said }).waitFor({ timeout: 10000 }).catch(async (err: unknown) => {
    throw new Error(`${String(err)}; the line reads ${JSON.stringify(await page.locator(`${FILE} .lis-dialect-pointed`).textContent())}`);
  });
}

async function column(index: number): Promise<string[]> {
  return page.locator(`${FILE} .lis-dialect-results tbody tr td:nth-child(${index + 1})`).allTextContents();
}

describe('pointing in the file dialect section', () => {
  it('file-message: the sample, test and units columns of an Access 2 export pointed at; deployed, its results reach the LIS once', async () => {
    await editNode(page, 'fm');
    await page.locator(`${FILE} .lis-dialect-paste`).waitFor({ state: 'visible' });
    await page.locator(`${FILE} .lis-dialect-paste`).fill(readFileSync(EXPORT, 'latin1'));
    await page.locator(`${FILE} .lis-dialect-other`, { hasText: /no column "Sample" \(layout\.sample\)/ }).waitFor({ timeout: 10000 });
    assert.equal(await resultRows().count(), 0);

    await pointAt('Sample ID', 'sampleNumber', /^0 results changed \(layout\.sample\)/);
    await pointAt('Test Name', 'testCode', /^47 results changed \(layout\.test\)/);
    // The same column again: said to be so already, not "0 results changed".
    await pointAt('Test Name', 'testCode', /^layout\.test reads this already: set as it was, no result changed; line 1 is read as the column names \(the header row\): a file without one starts “on the first result line”$/);
    await page.waitForFunction(`document.querySelectorAll(${JSON.stringify(`${FILE} .lis-dialect-results tbody tr`)}).length === 47`, undefined, { timeout: 10000 });
    await pointAt('S/CO', 'units', /^47 results changed \(layout\.units\)/);
    // The instrument's flags have a column of their own: two results carry some (the third flagged row is "No Value").
    await pointAt('Flags', 'flags', /^2 results changed \(layout\.flags\)/);
    assert.deepEqual((await column(1)).slice(0, 4), ['25255', '25255', '25255', '25255']);
    assert.deepEqual((await column(2)).slice(0, 4), ['HAV-IgM', 'HBc-Ab', 'HBc-IgM', 'HBsAgV3']);
    assert.deepEqual((await column(3)).slice(0, 4), ['0.22', '0.15', '0.02', '0.18']);
    assert.deepEqual((await column(4)).slice(0, 4), ['S/CO', 'S/CO', 'S/CO', 'S/CO']);
    // The results in the file's own order, line by line, on request: the same rows.
    const bySample = await column(0);
    await page.locator(`${FILE} .lis-dialect-results-order`).selectOption('file');
    await waitUntil(async () => (await page.locator(`${FILE} .lis-dialect-results-order`).inputValue()) === 'file' && (await column(0)).length === bySample.length, 10000, 'the results redrawn in file order');
    const inFileOrder = await column(0);
    const lineOf = (place: string) => Number(place.split(':')[1]);
    assert.deepEqual(inFileOrder.map(lineOf), [...inFileOrder.map(lineOf)].sort((x, y) => x - y), 'ascending lines');
    assert.deepEqual([...inFileOrder].sort(), [...bySample].sort(), 'the same results');
    await page.locator(`${FILE} .lis-dialect-results-order`).selectOption('sample');
    // "No Value" is kept aside with its reason.
    await page.locator(`${FILE} .lis-dialect-unassigned tbody tr`, { hasText: /HIVco is "No Value", a value the dialect reads as no result/ }).waitFor();
    assert.deepEqual(JSON.parse(await page.locator('#node-input-dialectOverrides').inputValue()), { layout: { sample: 'Sample ID', test: 'Test Name', units: 'Units', flags: 'Flags' } });

    mkdirSync(join(ROOT, 'test', 'artifacts'), { recursive: true });
    const shot = join(ROOT, 'test', 'artifacts', 'pointing-file.png');
    await page.locator('#red-ui-editor-stack .red-ui-tray').last().screenshot({ path: shot });
    if (process.env.UPDATE_SCREENSHOTS) {
      copyFileSync(shot, join(ROOT, 'docs', 'pointing-file.png'));
    }

    await page.locator('#node-dialog-ok').click();
    await page.locator('#node-dialog-ok').waitFor({ state: 'detached' });
    await deploy(page);
    const sent = await injectAndCollect(session!.red, stub, 6);
    assert.deepEqual(
      sent.map((r) => [r.SampleNumber, r.TestCode, r.Result]),
      [
        ['25255', 'L-HBSAG', '0.18'],
        ['25256', 'L-HBSAG', '0.2'],
        ['25256', 'L-HIV', '0.37'],
        ['25259', 'L-HBSAG', '3.69'],
        ['25259', 'L-HIV', '0.34'],
        ['25260', 'L-HBSAG', '0.17'],
        ['25260', 'L-HIV', '0.31'],
        ['25262', 'L-HBSAG', '0.19'],
        ['25262', 'L-HIV', '0.3'],
        ['25265', 'L-HBSAG', '305.5'],
      ],
      'each mapped result once; HIVco "No Value" of 25265 never',
    );
    assert.deepEqual(pageErrors, []);
  });

  it('a header-less export (Roche Cedex Bio HT) shaped from the generic dialect by clicks alone', async () => {
    await editNode(page, 'fm-cedex');
    await page.locator(`${FILE} .lis-dialect-load-file`).waitFor({ state: 'visible' });
    await page.locator(`${FILE} .lis-dialect-file-input`).setInputFiles(HEADERLESS);
    // Cut at commas, each line is one cell: the delimiter is the first thing to choose.
    await page.locator(`${FILE} .lis-dialect-delimiter`).waitFor({ state: 'visible', timeout: 10000 });
    assert.equal(await page.locator(`${FILE} .lis-dialect-delimiter`).inputValue(), 'comma');
    await page.locator(`${FILE} .lis-dialect-delimiter`).selectOption('tab');
    await page.locator(`${FILE} .lis-dialect-capture .lis-dialect-token[data-place='${JSON.stringify({ row: 2, column: 11 })}']`).waitFor({ timeout: 10000 });
    // Line 1 is the analyzer's file record, read as the header row: a column clicked there would say so.
    await pointAtCell(1, 3, 'sampleNumber', /; line 1 is read as the column names \(the header row\)/);
    await pointAtCell(2, 1, 'firstRow', /^0 results changed \(table\.header, table\.skipRows\); still to point at: the sample number, the test code, the value/);
    await page.locator(`${FILE} .lis-dialect-issues li[data-path="layout.test"]`).waitFor({ timeout: 10000 });
    await pointAtCell(2, 3, 'sampleNumber', /still to point at: the test code, the value/);
    await pointAtCell(2, 7, 'testCode', /still to point at: the value \(click a value of each\)$/);
    await pointAtCell(2, 11, 'value', /^26 results changed \(layout\.value\)$/);
    await pointAtCell(2, 9, 'units', /^26 results changed \(layout\.units\)$/);
    await pointAtCell(9, 10, 'flags', /^9 results changed \(layout\.flags\)$/);
    assert.equal(await page.locator(`${FILE} .lis-dialect-issues li`).count(), 0);
    const rows = page.locator(`${FILE} .lis-dialect-results tbody tr`);
    await waitUntil(async () => (await rows.count()) === 26, 10000, 'the 26 results listed');
    const cells = async (n: number) => page.locator(`${FILE} .lis-dialect-results tbody tr:nth-child(${n}) td`).allTextContents();
    assert.deepEqual((await cells(1)).slice(0, 6), ['1:2', 'SMPL1', 'GLN2B', '2.45', 'mmol/L', '']);
    assert.deepEqual(JSON.parse(await page.locator('#node-input-dialectOverrides').inputValue()), {
      delimiter: 'tab',
      table: { skipRows: 1, header: false },
      layout: { sample: 3, test: 7, value: 11, units: 9, flags: 10 },
    });
    const shot = join(ROOT, 'test', 'artifacts', 'pointing-headerless.png');
    await page.locator('#red-ui-editor-stack .red-ui-tray').last().screenshot({ path: shot });
    if (process.env.UPDATE_SCREENSHOTS) copyFileSync(shot, join(ROOT, 'docs', 'pointing-headerless.png'));
    await page.locator('#node-dialog-ok').click();
    await page.locator('#node-dialog-ok').waitFor({ state: 'detached' });
    assert.deepEqual(pageErrors, []);
  });
});
