/**
 * Shaping a dialect by pointing with the keyboard alone, in a real editor
 * (Chromium on a Node-RED process with the package loaded from the
 * repository): astm-message on the generic dialect and the Mindray CL-2000i
 * capture of pointing.test.ts. The capture is one Tab stop; arrow keys reach
 * the bar code and the code, Enter opens the menu of roles, arrow keys and
 * Enter choose; the preview fills in, the status line says what changed and
 * focus is back on the value pointed at. Escape closes a menu without writing
 * anything. The ARCHITECT capture's sample number, reached in the results
 * table by Tab and arrow keys, is at two places: the choices prompt is worked
 * with keys too, and hl7-message's OBX-4 on a URIT 8030 capture. No token,
 * cell or menu item is clicked except in the last test, which checks that a
 * mouse user sees no focus ring and keeps focus where the click put it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { loadFixture } from '../support/fixtures';
import { editNode, startEditorSession, type EditorSession } from '../support/browser';
import { traceText } from '../../lib/trace';
import { ASTM_NAMING } from '../../lib/protocols/astm';

const ROOT = join(__dirname, '..', '..', '..');
const ASTM = '#astm-message-dialect-editor';
const HL7 = '#hl7-message-dialect-editor';

let work: string;
let session: EditorSession | undefined;
let page: Page;
let pageErrors: string[];
/** The pointing requests the page made: Escape must make none. */
const points: string[] = [];

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'lis-pointing-keys-'));
  const userDir = join(work, 'userDir');
  mkdirSync(userDir);
  const flows = [
    { id: 'tab1', type: 'tab', label: 'Analyzers' },
    { id: 'am', type: 'astm-message', z: 'tab1', name: '', dialect: 'generic-lis2a2', dialectOverrides: '', timeZone: 'UTC', x: 300, y: 120, wires: [[], [], [], []] },
    { id: 'hm', type: 'hl7-message', z: 'tab1', name: '', dialect: 'generic-oru', dialectOverrides: '', timeZone: 'UTC', x: 300, y: 220, wires: [[], [], [], []] },
  ];
  session = await startEditorSession(userDir, flows, 'am', { width: 1280, height: 1200 });
  ({ page, pageErrors } = session);
  page.on('request', (req) => {
    if (req.method() === 'POST' && new URL(req.url()).pathname.endsWith('/lis-bridge/dialects/point')) points.push(req.postData() ?? '');
  });
});

after(async () => {
  await session?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** What has focus: its aria-label (or text) and classes. */
async function focused(): Promise<{ label: string; text: string; classes: string; role: string }> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    return { label: el?.getAttribute('aria-label') ?? '', text: el?.textContent ?? '', classes: el?.className ?? '', role: el?.getAttribute('role') ?? '' };
  });
}

/** Presses `key` until the focused element's aria-label is `label` (at most `max` times). */
async function pressUntil(key: string, label: string, max = 30): Promise<void> {
  for (let i = 0; i < max && (await focused()).label !== label; i++) await page.keyboard.press(key);
  assert.equal((await focused()).label, label, `${key} reaches ${label}`);
}

async function overrides(): Promise<string> {
  return page.locator('#node-input-dialectOverrides').inputValue();
}

async function pasteByKeys(text: string, editor = ASTM): Promise<void> {
  await page.locator(`${editor} .lis-dialect-paste`).focus();
  await page.keyboard.insertText(text);
}

/** The tray with the focus ring and the open menu, for a look at test/artifacts/pointing-keyboard*.png. */
async function shoot(name: string): Promise<void> {
  mkdirSync(join(ROOT, 'test', 'artifacts'), { recursive: true });
  await page.locator('#red-ui-editor-stack .red-ui-tray').last().screenshot({ path: join(ROOT, 'test', 'artifacts', `${name}.png`) });
}

const column = (index: number) => page.locator(`${ASTM} .lis-dialect-results tbody tr td:nth-child(${index + 1})`).allTextContents();

describe('pointing with the keyboard', () => {
  it('astm-message: the bar code and the code reached with arrow keys and said with Enter; Escape writes nothing', async () => {
    await editNode(page, 'am');
    await page.locator(`${ASTM} .lis-dialect-paste`).waitFor({ state: 'visible' });
    await pasteByKeys(traceText(loadFixture('mindray-cl2000i-result.txt').bytes, ASTM_NAMING).replace(/<CR>/g, '<CR>\n'));
    await page.waitForFunction(`document.querySelectorAll(${JSON.stringify(`${ASTM} .lis-dialect-unassigned tbody tr`)}).length === 2`, undefined, { timeout: 10000 });
    await page.locator(`${ASTM} .lis-dialect-capture .lis-dialect-token`).first().waitFor();

    // From the paste, one Tab reaches the capture: its first value.
    await page.keyboard.press('Tab');
    const first = await focused();
    assert.match(first.classes, /lis-dialect-token/);
    assert.equal(first.role, 'button');
    assert.equal(first.label, 'H-5 component 1: Mindray');
    // Down to the O record, to its start, then along it to the bar code.
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Home');
    assert.equal((await focused()).label, 'O-2: 1');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    assert.equal((await focused()).label, 'O-4: SAMPLE123');
    await page.keyboard.press('Enter');
    // Focus is in the menu, on its first role.
    assert.deepEqual(await focused().then((f) => [f.role, f.text]), ['menuitem', 'the sample number']);
    await page.keyboard.press('Enter');
    await page.locator(`${ASTM} .lis-dialect-pointed`, { hasText: /^2 results changed \(sampleId: O-4 \(instrumentSpecimenId\)/ }).waitFor({ timeout: 10000 });
    assert.deepEqual(await column(1), ['SAMPLE123', 'SAMPLE123']);
    // The preview was redrawn; focus is back on the bar code.
    assert.equal((await focused()).label, 'O-4: SAMPLE123');

    // On to the code in the first R record: R-3 component 2.
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Home');
    await pressUntil('ArrowRight', 'R-3 component 2: CA125', 4);
    await page.keyboard.press('Enter');
    await page.keyboard.press('ArrowRight');
    assert.equal((await focused()).text, 'the test code');
    await page.keyboard.press('Enter');
    await page.locator(`${ASTM} .lis-dialect-pointed`, { hasText: /^2 results changed \(testId\.code: R-3 component 2\)/ }).waitFor({ timeout: 10000 });
    assert.deepEqual(await column(2), ['CA125', 'TPSA']);
    assert.equal((await focused()).label, 'R-3 component 2: CA125');
    const written = await overrides();
    assert.deepEqual(JSON.parse(written), { sampleId: { field: 'instrumentSpecimenId' }, testId: { code: { component: 2, trim: true } } });
    assert.equal(points.length, 2);

    // Escape closes the menu: nothing is written, focus goes back to the value.
    await page.keyboard.press('Enter');
    await page.locator(`${ASTM} .lis-dialect-role-menu`).waitFor({ state: 'visible' });
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    assert.equal((await focused()).text, 'the value', 'Tab moves among the roles');
    await shoot('pointing-keyboard-menu');
    await page.keyboard.press('Escape');
    await page.locator(`${ASTM} .lis-dialect-role-menu`).waitFor({ state: 'hidden' });
    assert.equal((await focused()).label, 'R-3 component 2: CA125');
    await shoot('pointing-keyboard-value');
    // Space opens it as Enter does; Escape again.
    await page.keyboard.press('Space');
    assert.deepEqual(await focused().then((f) => [f.role, f.text]), ['menuitem', 'the sample number']);
    await page.keyboard.press('Escape');
    await page.locator(`${ASTM} .lis-dialect-role-menu`).waitFor({ state: 'hidden' });
    assert.equal(await overrides(), written);
    assert.equal(points.length, 2, 'Escape sent nothing');
    assert.match(await page.locator(`${ASTM} .lis-dialect-pointed`).textContent().then((t) => t ?? ''), /^2 results changed \(testId\.code/);
    // The dialog is still open: the menu's Escape is its own.
    assert.ok(await page.locator('#node-dialog-ok').isVisible());
    // The capture is still a single Tab stop: Shift+Tab leaves it for the paste.
    await page.keyboard.press('Shift+Tab');
    assert.match((await focused()).classes, /lis-dialect-paste/);
    await page.locator('#node-dialog-cancel').click();
    assert.deepEqual(pageErrors, []);
  });

  it('astm-message: a sample number in the results table at two places, chosen in the prompt with keys', async () => {
    await editNode(page, 'am');
    await page.locator(`${ASTM} .lis-dialect-paste`).waitFor({ state: 'visible' });
    await pasteByKeys(traceText(loadFixture('abbott-architect-i-result-multi.txt').bytes, ASTM_NAMING).replace(/<CR>/g, '<CR>\n'));
    await page.waitForFunction(`document.querySelectorAll(${JSON.stringify(`${ASTM} .lis-dialect-results tbody tr`)}).length === 14`, undefined, { timeout: 10000 });
    await page.locator(`${ASTM} .lis-dialect-capture .lis-dialect-token`).first().waitFor();
    const before = points.length;

    // Paste, capture, then the results table: its first value, the sample number of the first row.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    const cell = await focused();
    assert.match(cell.classes, /lis-dialect-pointable/);
    assert.equal(cell.text, '276056250158121');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    await page.locator(`${ASTM} .lis-dialect-role-menu .lis-dialect-choice`).first().waitFor();
    // The prompt has focus, on its first place; Escape leaves it without writing.
    assert.equal((await focused()).text, 'O-3 (specimenId), message 1 record 3');
    await page.keyboard.press('Escape');
    await page.locator(`${ASTM} .lis-dialect-role-menu`).waitFor({ state: 'hidden' });
    assert.equal((await focused()).text, '276056250158121');
    assert.equal(await overrides(), '');
    assert.equal(points.length, before + 1, 'only the question was sent');

    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    await page.locator(`${ASTM} .lis-dialect-role-menu .lis-dialect-choice`).first().waitFor();
    await page.keyboard.press('ArrowDown');
    assert.equal((await focused()).text, 'O-4 (instrumentSpecimenId) component 1, message 1 record 3');
    await page.keyboard.press('Enter');
    await page.locator(`${ASTM} .lis-dialect-pointed`, { hasText: /^0 results changed \(sampleId: O-4/ }).waitFor({ timeout: 10000 });
    assert.deepEqual(JSON.parse(await overrides()), { sampleId: { field: 'instrumentSpecimenId', singleComponent: false } });
    // The table was redrawn; focus is on the same cell of it.
    const back = await focused();
    assert.match(back.classes, /lis-dialect-pointable/);
    assert.equal(back.text, '276056250158121');
    await page.locator('#node-dialog-cancel').click();
    assert.deepEqual(pageErrors, []);
  });

  it('hl7-message: the test name in OBX-4 reached with arrow keys and said with Enter', async () => {
    await editNode(page, 'hm');
    await page.locator(`${HL7} .lis-dialect-paste`).waitFor({ state: 'visible' });
    await pasteByKeys(readFileSync(join(ROOT, 'test', 'fixtures', 'hl7', 'urit-8030-oru-r01.txt'), 'latin1'), HL7);
    await page.waitForFunction(`document.querySelectorAll(${JSON.stringify(`${HL7} .lis-dialect-results tbody tr`)}).length === 1`, undefined, { timeout: 10000 });
    await page.locator(`${HL7} .lis-dialect-capture .lis-dialect-token`).first().waitFor();
    await page.keyboard.press('Tab');
    assert.match((await focused()).classes, /lis-dialect-token/);
    // Ctrl+End: the capture's last value (in the OBX); then back along the line to the name.
    await page.keyboard.press('Control+End');
    await pressUntil('ArrowLeft', 'OBX-4: GLI', 30);
    await page.keyboard.press('Enter');
    await page.keyboard.press('End');
    assert.equal((await focused()).text, 'Cancel');
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowDown');
    assert.equal((await focused()).text, 'the test code');
    await page.keyboard.press('Enter');
    await page.locator(`${HL7} .lis-dialect-pointed`, { hasText: /^1 result changed \(results\.code: OBX-4\)/ }).waitFor({ timeout: 10000 });
    await page.waitForFunction(`document.querySelector(${JSON.stringify(`${HL7} .lis-dialect-results tbody tr td:nth-child(3)`)})?.textContent === 'GLI'`);
    assert.equal((await focused()).label, 'OBX-4: GLI');
    assert.deepEqual(JSON.parse(await page.locator('#node-input-dialectOverrides').inputValue()), { results: { code: { segment: 'OBX', field: 4 } } });
    await page.locator('#node-dialog-cancel').click();
    assert.deepEqual(pageErrors, []);
  });

  it('a mouse user sees what they always saw: no focus ring on a clicked value, focus not moved into the menu', async () => {
    await editNode(page, 'am');
    await page.locator(`${ASTM} .lis-dialect-paste`).fill(traceText(loadFixture('mindray-cl2000i-result.txt').bytes, ASTM_NAMING).replace(/<CR>/g, '<CR>\n'));
    const token = page.locator(`${ASTM} .lis-dialect-capture .lis-dialect-token`, { hasText: /^SAMPLE123$/ });
    await token.click();
    await page.locator(`${ASTM} .lis-dialect-role-menu .lis-dialect-role-sampleNumber`).waitFor();
    const state = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement;
      return { text: el.textContent, ring: el.matches(':focus-visible'), outline: getComputedStyle(el).outlineStyle };
    });
    assert.deepEqual(state, { text: 'SAMPLE123', ring: false, outline: 'none' });
    await page.locator(`${ASTM} .lis-dialect-role-menu .lis-dialect-role-cancel`).click();
    await page.locator(`${ASTM} .lis-dialect-role-menu`).waitFor({ state: 'hidden' });
    assert.equal(await page.evaluate(() => document.activeElement?.matches('.lis-dialect-token') ?? false), false, 'Cancel left focus where the click put it');
    await page.locator('#node-dialog-cancel').click();
    assert.deepEqual(pageErrors, []);
  });
});
