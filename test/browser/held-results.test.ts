/**
 * Held results resolved by people, in a real editor on the packed package, with an analyzer on TCP and a loopback
 * LIS: a code the test map lacks is listed in the Lab sidebar and in the map's "seen, not mapped", mapped there
 * with one click, deployed and sent from the sidebar, and reaches the LIS once with its own processed
 * notification; a result whose sample number could not be trusted is placed under the right one once the LIS
 * order holds its test, and another is dismissed with a reason.
 */
import { waitUntil } from '../support/wait';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { anOrder, LisStub } from '../support/lis-stub';
import type { NodeRedProcess } from '../support/node-red-process';
import { closeConfigThenNode, deploy, editNode, startEditorSession, waitForText, type EditorSession } from '../support/browser';
import { astmUpload, benchChemistryFlow, keepElementShot, keepScreenshot, sendAstmTransfer } from '../support/lis-editor';
import { freePort } from '../support/ports';

const TOKEN = 'held-results-token-7f21';
const HOLDS = '.lis-lab-holds .lis-lab-hold';
const CATALOG = [
  { ID: 'T-GLU', Code: 'GLU', Name: 'Glucose' },
  { ID: 'T-K', Code: 'K', Name: 'Potassium' },
  { ID: 'T-CREA', Code: 'CREA', Name: 'Creatinine' },
  { ID: 'T-HCG', Code: 'HCG', Name: 'hCG, qualitative' },
];

let work: string;
let stub: LisStub;
let red: NodeRedProcess | undefined;
let page: Page;
let pageErrors: string[];
let session: EditorSession | undefined;
let port: number;

function flows(): Array<Record<string, unknown>> {
  return benchChemistryFlow({ stub, port, token: TOKEN, trace: true, processed: true, mapping: [
    { lisTestId: 'T-GLU', lisCode: 'GLU', lisName: 'Glucose', instrumentCode: 'GLU' },
    { lisTestId: 'T-K', lisCode: 'K', lisName: 'Potassium', instrumentCode: '' },
    { lisTestId: 'T-CREA', lisCode: 'CREA', lisName: 'Creatinine', instrumentCode: 'CREA' },
    // A coded test: its texts and the LIS values they become.
    { lisTestId: 'T-HCG', lisCode: 'HCG', lisName: 'hCG, qualitative', instrumentCode: 'HCGQ', use: 'results', values: [{ text: 'Positive', lis: 'POS' }, { text: 'Negative', lis: 'NEG' }] },
  ] });
}

/** Each result the LIS accepted, as "sample test value". */
const atLis = () => stub.to('/results').flatMap((r) => ((r.json as { results?: Array<{ SampleNumber: string; TestCode: string; Result: string }> }).results ?? []).map((i) => `${i.SampleNumber} ${i.TestCode} ${i.Result}`));
/** Each processed notification, as "sample tests". */
const processed = () => stub.to('/processed').map((r) => { const b = r.json as { SampleNumber: string; Tests: string }; return `${b.SampleNumber} ${(JSON.parse(b.Tests) as string[]).join(',')}`; });

async function showLabSidebar(): Promise<void> {
  await page.evaluate(() => (globalThis as unknown as { RED: { sidebar: { show(id: string): void } } }).RED.sidebar.show('lis-lab'));
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'lis-held-browser-'));
  stub = await new LisStub().start();
  stub.reply('/tests', { body: { tests: CATALOG } });
  stub.reply('/results', { body: { status: 'success' } });
  stub.reply('/processed', { body: { status: 'success' } });
  port = await freePort();
  const userDir = join(work, 'userDir');
  mkdirSync(userDir);
  session = await startEditorSession(userDir, flows(), 'tm', { width: 1400, height: 1100 });
  ({ red, page, pageErrors } = session);
});

after(async () => {
  await session?.stop();
  await stub?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('held results, resolved by people', () => {
  it('an unmapped code: held and seen, mapped with one click in the test map, deployed, sent from the sidebar, at the LIS once with its own processed notification', async () => {
    await sendAstmTransfer(port, astmUpload('S-300', [['GLU', '5.1'], ['K', '4.2']]));
    await waitUntil(() => atLis().includes('S-300 GLU 5.1'), 15000, 'the mapped glucose at the LIS', 50);
    await waitUntil(() => processed().includes('S-300 T-GLU'), 15000, 'the processed notification for glucose', 50);
    await showLabSidebar();
    const hold = page.locator(`${HOLDS}[data-code="K"]`);
    await waitForText(hold.locator('.lis-lab-hold-title'), /^K: 1 results, 1 samples, since /);
    await waitForText(page.locator('.lis-lab-verdict'), /^Not everything received has reached the LIS: 1 waiting for a person/);

    // The map's dialog, from the test-mapper: what was seen and not mapped, mapped with one click.
    await editNode(page, 'tm');
    await waitForText(page.locator('#node-input-map-note'), /Uses the test map "Bench chemistry"/);
    await page.locator('#node-input-btn-map-edit, #node-input-lookup-map').first().click();
    await page.locator('#node-config-dialog-ok').waitFor({ state: 'visible' });
    const seen = page.locator('.lis-tmap-seen-item[data-code="K"]');
    await waitForText(seen.locator('.lis-tmap-seen-counts'), /^1 results, 1 samples since .*: no LIS test$/);
    await seen.locator('.lis-tmap-seen-test').selectOption('T-K');
    await keepScreenshot(page, 'test-map-seen.png');
    await seen.locator('.lis-tmap-seen-map').click();
    await waitForText(page.locator('.lis-tmap-seen-done'), /^K: Mapped in the table below/);
    // A coded test's row: the way it works and the values its texts become.
    await page.locator('#node-config-input-mapping-filter').pressSequentially('hCG');
    await page.waitForFunction(`[...document.querySelectorAll('#node-config-input-mapping-container > li')].filter((li) => li.style.display !== 'none').length === 1`);
    const hcg = page.locator('#node-config-input-mapping-container > li').filter({ has: page.locator('.node-input-mapping-lisName', { hasText: /^hCG, qualitative$/ }) });
    assert.equal(await hcg.locator('.node-input-mapping-values').inputValue(), 'Positive=POS|Negative=NEG');
    assert.equal(await hcg.locator('.node-input-mapping-use').inputValue(), 'results');
    await keepScreenshot(page, 'test-map-values.png');
    await page.locator('#node-config-dialog-edit-form .lis-tm-filter-row .red-ui-searchBox-clear').click();
    const potassium = page.locator('#node-config-input-mapping-container > li').filter({ has: page.locator('.node-input-mapping-lisName', { hasText: /^Potassium$/ }) });
    assert.equal(await potassium.locator('.node-input-mapping-instrumentCode').inputValue(), 'K');
    await closeConfigThenNode(page);
    await deploy(page);

    // Sent from the sidebar; a second send of it is refused: it reaches the LIS once.
    await showLabSidebar();
    const ids = await heldIds('K');
    assert.equal(ids.length, 1);
    await hold.locator('.lis-lab-hold-send').click();
    await waitUntil(() => atLis().includes('S-300 K 4.2'), 15000, 'the held potassium at the LIS', 50);
    await hold.waitFor({ state: 'detached', timeout: 15000 });
    const again = await fetch(`${red!.url}/lis-bridge/holds/send`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ids }) });
    assert.equal(again.status, 409, 'a second send is refused');
    assert.match(((await again.json()) as { message: string }).message, /already/);
    await waitUntil(() => processed().includes('S-300 T-K'), 15000, 'a second processed notification, for potassium', 50);
    assert.deepEqual(atLis().filter((r) => r.startsWith('S-300')), ['S-300 GLU 5.1', 'S-300 K 4.2'], 'each result of S-300 once');
    assert.deepEqual(processed(), ['S-300 T-GLU', 'S-300 T-K'], 'the second notification names only the test delivered since');
    assert.deepEqual(pageErrors, []);
  });

  it('results whose sample number cannot be trusted: one placed under the right sample once the LIS order holds its test, another dismissed with why', async () => {
    stub.reply('/orders', { body: { status: 'success', order: anOrder('S-401', { Tests: ['T-GLU'] }) } });
    const before = atLis().length;
    // A NUL in the sample number: the number did not come through whole, so nothing of it may reach the LIS as sent.
    await sendAstmTransfer(port, astmUpload('S-4\u000001', [['GLU', '6.3'], ['CREA', '91']]));
    await showLabSidebar();
    const glucose = page.locator(`${HOLDS}[data-kind="unassigned"][data-code="GLU"]`);
    const creatinine = page.locator(`${HOLDS}[data-kind="unassigned"][data-code="CREA"]`);
    await glucose.waitFor({ state: 'visible', timeout: 15000 });
    await creatinine.waitFor({ state: 'visible', timeout: 15000 });
    await keepElementShot(page.locator('.lis-lab-holds'), 'held-results.png');

    // Creatinine placed under S-401: the LIS order does not hold it, so nothing is sent and the sidebar says why.
    page.once('dialog', (d) => void d.accept('S-401'));
    await creatinine.locator('.lis-lab-hold-place').click();
    await waitForText(page.locator('.lis-lab-problem'), /the LIS order for S-401 does not hold T-CREA: nothing was sent/);
    // Glucose placed under S-401, whose order holds it: at the LIS once, under S-401.
    page.once('dialog', (d) => {
      assert.match(d.message(), /R\|1\|\^\^\^GLU\|6\.3\|/, 'the prompt shows the record');
      void d.accept('S-401');
    });
    await glucose.locator('.lis-lab-hold-place').click();
    await waitUntil(() => atLis().includes('S-401 GLU 6.3'), 15000, 'the placed glucose at the LIS', 50);
    await glucose.waitFor({ state: 'detached', timeout: 15000 });
    // Creatinine dismissed, with why.
    page.once('dialog', (d) => void d.accept('entered by hand at the LIS under S-401'));
    await creatinine.locator('.lis-lab-hold-dismiss').click();
    await creatinine.waitFor({ state: 'detached', timeout: 15000 });
    assert.deepEqual(atLis().slice(before), ['S-401 GLU 6.3'], 'only the placed result reached the LIS, once');
    const placedBy = await fetch(`${red!.url}/lis-bridge/held`).then((r) => r.json() as Promise<{ holds: unknown[] }>);
    assert.deepEqual(placedBy.holds, []);
    // Every result of the day has its end now: delivered, or dismissed by a person.
    await waitForText(page.locator('.lis-lab-verdict'), /^Every result received reached the LIS, was dismissed by a person, or is not for the LIS/);
    // Each of the day's 4 results counted once where it ended first, and the 3 held ones once more as people resolved them.
    const card = page.locator('.lis-lab-link[data-node="link"]');
    await waitForText(card.locator('.lis-lab-counts'), /· results 4 ·/);
    await waitForText(card.locator('.lis-lab-endings'), 'ended today: delivered 1 · held for a person 3 · discarded 0 · not for the LIS 0');
    await waitForText(card.locator('.lis-lab-resolved'), 'held results, by a person today: sent 2 · dismissed 1 · still waiting 0');
    assert.deepEqual(pageErrors, []);
  });
});

/** The ids of the open holds of a code, as GET /lis-bridge/held lists them. */
async function heldIds(code: string): Promise<string[]> {
  const body = (await (await fetch(`${red!.url}/lis-bridge/held`)).json()) as { holds: Array<{ id: string; code: string }> };
  return body.holds.filter((h) => h.code === code).map((h) => h.id);
}
