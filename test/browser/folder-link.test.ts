/**
 * folder-link in the editor (Chromium, Node-RED as its own process with the
 * package from the repository): its dialog (the folder's own rows, the shared
 * alarm rows, no journal or trace switch), and its row in the Lab sidebar with
 * a file waiting in the folder: "watching the folder", the last file, files
 * waiting, duplicates and error/ counts, and LINK_QUIET as "no run file since"
 * (quiet after 1.2 s; checked every TEST_BRIDGE_SETTINGS.checkEveryMs,
 * test/support/runtime-settings.ts, which the session's settings.js sets).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { editNode, startEditorSession, type EditorSession } from '../support/browser';

const ROW = '.lis-lab-links .lis-lab-link[data-node="folder"]';
let work: string;
let session: EditorSession | undefined;
let page: Page;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'folder-browser-'));
  const folder = join(work, 'export');
  mkdirSync(folder);
  const userDir = join(work, 'userDir');
  mkdirSync(userDir);
  const flows = [
    { id: 'tab1', type: 'tab', label: 'PCR' },
    { id: 'folder', type: 'folder-link', z: 'tab1', name: 'PCR room', analyzer: 'QS7-LAB2', folder, pattern: '*.txt', pollMs: '200', settleMs: '300', quietMinutes: '0.02', quietDays: '', quietFrom: '', quietTo: '', x: 200, y: 100, wires: [[]] },
  ];
  session = await startEditorSession(userDir, flows, 'folder', { width: 1400, height: 1200 });
  page = session.page;
  // Taken and waiting: nothing downstream delivers its results.
  writeFileSync(join(folder, 'run1.txt'), 'Sample,Test,Value\nS1,GLU,5.4\n');
});

after(async () => {
  await session?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('folder-link in the editor', () => {
  it('its dialog has the folder\'s rows and the shared alarm rows, and no journal or trace switch', async () => {
    await editNode(page, 'folder');
    assert.equal(await page.locator('#node-input-folder').inputValue(), join(work, 'export'));
    assert.equal(await page.locator('#node-input-pattern').inputValue(), '*.txt');
    assert.equal(await page.locator('#node-input-after').inputValue(), 'move');
    assert.equal(await page.locator('#node-input-pollMs').getAttribute('placeholder'), '2000');
    assert.equal(await page.locator('#node-input-settleMs').getAttribute('placeholder'), '5000');
    assert.equal(await page.locator('#node-input-maxSizeMB').getAttribute('placeholder'), '50');
    assert.equal(await page.locator('#node-input-journal').count(), 0);
    assert.equal(await page.locator('#node-input-trace').count(), 0);
    assert.equal(await page.locator('#lis-link-quiet-days input').count(), 7);
    assert.match(await page.locator('.form-tips').first().innerText(), /listed every poll interval/);
    await page.locator('#node-dialog-cancel').click();
    assert.deepEqual(session!.pageErrors, []);
  });

  it('shows the link in the Lab sidebar: watching, the file waiting, and LINK_QUIET as "no run file since"', async () => {
    await page.evaluate(() => (globalThis as unknown as { RED: { sidebar: { show(id: string): void } } }).RED.sidebar.show('lis-lab'));
    const row = page.locator(ROW);
    await row.waitFor({ state: 'visible', timeout: 15000 });
    // "waiting 1" shows as soon as the file is seen; its name and the day's count once it is taken, a poll later.
    await page.waitForFunction((sel) => {
      const text = document.querySelector(sel)?.textContent ?? '';
      return /waiting 1 /.test(text) && /\(run1\.txt\)/.test(text) && /files 1 /.test(text);
    }, ROW, { timeout: 15000 });
    const text = await row.innerText();
    assert.match(text, /PCR room · QS7-LAB2 \(FILE\)/);
    assert.match(text, /watching the folder since/);
    assert.match(text, /last file .+ ago \(run1\.txt\)/);
    assert.match(text, /today: files 1 · results 0/);
    assert.match(text, /files waiting 1 \(0 for an operator\) · duplicates 0 · in error\/ 0/);
    const quiet = page.locator(`${ROW} .lis-lab-alarm[data-code="LINK_QUIET"]`);
    await quiet.waitFor({ state: 'visible', timeout: 15000 });
    assert.match(await quiet.innerText(), /^no run file since .+ \(LINK_QUIET\)$/);
    assert.deepEqual(session!.pageErrors, []);
  });
});
