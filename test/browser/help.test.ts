/**
 * What an integrator sees on a first day, in a real editor (Node-RED as its own process, Chromium): every node's
 * help in the help sidebar rendered as Node-RED renders its core nodes' help, with no raw `: name (type) :`
 * markup; lis-config's red warning shown only while *Allow untrusted certificates* is ticked; the dialect and
 * framing dropdowns inside their dialog and wide enough for their longest option.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { editNode, startEditorSession, type EditorSession } from '../support/browser';
import { assertHelpRenders, openHelp } from '../support/help-check';

const ROOT = join(__dirname, '..', '..', '..');
const TYPES = Object.keys((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { 'node-red': { nodes: Record<string, string> } })['node-red'].nodes);

let work: string;
let session: EditorSession | undefined;
let page: Page;
let pageErrors: string[];

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'lis-help-ui-'));
  const userDir = join(work, 'userDir');
  mkdirSync(userDir);
  const flows = [
    { id: 'tab1', type: 'tab', label: 'First day' },
    // Nothing is sent anywhere: only the editor is looked at.
    { id: 'cfg', type: 'lis-config', name: 'LIS', labTestsApiUrl: 'http://127.0.0.1:9/tests', transactionInfoApiUrl: 'http://127.0.0.1:9/orders', resultApiUrl: 'http://127.0.0.1:9/results' },
    { id: 'astm', type: 'astm-link', z: 'tab1', name: '', transport: 'serial', x: 200, y: 80, wires: [[], [], []] },
    { id: 'astmm', type: 'astm-message', z: 'tab1', name: '', dialect: 'generic-lis2a2', x: 200, y: 160, wires: [[], [], [], []] },
    { id: 'hl7m', type: 'hl7-message', z: 'tab1', name: '', dialect: 'generic-oru', x: 200, y: 240, wires: [[], [], [], []] },
  ];
  session = await startEditorSession(userDir, flows, 'hl7m');
  ({ page, pageErrors } = session);
});

after(async () => {
  await session?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('help sidebar', () => {
  for (const type of TYPES) {
    it(`${type}: renders as Node-RED renders its core nodes' help, with no raw property markup`, async () => {
      assertHelpRenders(type, await openHelp(page, type));
    });
  }
});

describe('lis-config dialog', () => {
  it('shows the red certificate warning only while "Allow untrusted certificates" is ticked', async () => {
    await page.evaluate(() => {
      (globalThis as unknown as { RED: { editor: { editConfig(name: string, type: string, id: string): void } } }).RED.editor.editConfig('', 'lis-config', 'cfg');
    });
    const box = page.locator('#node-config-input-allowUntrustedCertificates');
    const warning = page.locator('.form-tips', { hasText: 'skips all HTTPS certificate checks' });
    await box.waitFor({ state: 'visible' });
    assert.equal(await box.isChecked(), false);
    assert.equal(await warning.isVisible(), false);
    await box.check();
    await warning.waitFor({ state: 'visible' });
    await box.uncheck();
    await warning.waitFor({ state: 'hidden' });
    // Ticked and kept: the warning is there when the dialog opens again.
    await box.check();
    await page.locator('#node-config-dialog-ok').click();
    await page.locator('#node-config-dialog-ok').waitFor({ state: 'detached' });
    await page.evaluate(() => {
      (globalThis as unknown as { RED: { editor: { editConfig(name: string, type: string, id: string): void } } }).RED.editor.editConfig('', 'lis-config', 'cfg');
    });
    await warning.waitFor({ state: 'visible' });
    await page.locator('#node-config-dialog-cancel').click();
    await page.locator('#node-config-dialog-cancel').waitFor({ state: 'detached' });
    assert.deepEqual(pageErrors, []);
  });
});

/** The select's box and what its longest option needs: text, padding and Chromium's dropdown arrow. */
async function measureSelect(selector: string): Promise<{ right: number; formRight: number; width: number; needed: number; longest: string }> {
  return page.evaluate((sel) => {
    const select = document.querySelector(sel) as HTMLSelectElement;
    const form = select.closest('form')!;
    const style = getComputedStyle(select);
    const ctx = document.createElement('canvas').getContext('2d')!;
    ctx.font = style.font;
    const widths = Array.from(select.options).map((o) => ({ text: o.text, width: ctx.measureText(o.text).width }));
    const longest = widths.sort((a, b) => b.width - a.width)[0]!;
    // Chromium draws its arrow in the last ~16 px of the content box.
    const needed = longest.width + parseFloat(style.paddingLeft) + parseFloat(style.paddingRight) + 16;
    return { right: select.getBoundingClientRect().right, formRight: form.getBoundingClientRect().right, width: select.clientWidth, needed, longest: longest.text };
  }, selector);
}

describe('dropdowns wide enough for their options', () => {
  for (const { id, type, select } of [
    { id: 'astm', type: 'astm-link', select: '#node-input-framing' },
    { id: 'hl7m', type: 'hl7-message', select: '#node-input-dialect' },
    { id: 'astmm', type: 'astm-message', select: '#node-input-dialect' },
  ]) {
    it(`${type}: ${select} lies inside the dialog and shows its longest option whole`, async () => {
      await editNode(page, id);
      // The dialect lists come from an admin route after the dialog opens.
      await page.waitForFunction((sel) => ((document.querySelector(sel) as HTMLSelectElement | null)?.options.length ?? 0) > 1, select);
      const m = await measureSelect(select);
      assert.ok(m.right <= m.formRight + 0.5, `${type}: ${select} ends at ${m.right}, past the form's edge at ${m.formRight}`);
      assert.ok(m.needed <= m.width, `${type}: "${m.longest}" needs ${Math.ceil(m.needed)} px, ${select} is ${m.width} px wide`);
      await page.locator('#node-dialog-cancel').click();
      await page.locator('#node-dialog-cancel').waitFor({ state: 'detached' });
    });
  }
});

describe("the editor's message catalogs", () => {
  it('picks the singular or the plural form by count, as the runtime does', async () => {
    const texts = await page.evaluate(() => {
      const RED = (globalThis as unknown as { RED: { _(key: string, vars?: object): string } }).RED;
      const ns = '@lis-bridge/node-red-lis-bridge/';
      return [1, 2].flatMap((count) => [
        RED._(`${ns}lis-config:common.dialectEditor.replaySettled`, { count }),
        RED._(`${ns}lis-config:common.dialectEditor.replayQc`, { count }),
        RED._(`${ns}test-mapper:test-mapper.messages.importedWithProblems`, { rows: 4, file: 'map.csv', count }),
      ]);
    });
    assert.deepEqual(texts, [
      '1 message replayed',
      '1 QC result kept aside',
      'Imported 4 rows from map.csv; they replace the table. 1 line skipped (cancel the dialog to undo):',
      '2 messages replayed',
      '2 QC results kept aside',
      'Imported 4 rows from map.csv; they replace the table. 2 lines skipped (cancel the dialog to undo):',
    ]);
  });
});
