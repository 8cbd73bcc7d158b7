/**
 * The analyzer links' dialogs in a real browser: astm-link and hl7-link share
 * their journal, trace and alarm rows (nodes/_include, put in place by the
 * build). Each dialog shows those rows in the same words from the shared
 * catalog, its own name placeholder, the weekday boxes Monday first, hides the
 * redaction box with the trace off, and keeps the ticked weekdays and the
 * alarm minutes on the node when Done is pressed.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { editNode, startEditorSession, type EditorRed, type EditorSession } from '../support/browser';

let work: string;
let session: EditorSession | undefined;
let page: Page;
let pageErrors: string[];

const LINKS = [
  { id: 'astm', type: 'astm-link', placeholder: 'ASTM link' },
  { id: 'hl7', type: 'hl7-link', placeholder: 'HL7 link' },
];

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'lis-link-dialog-'));
  const userDir = join(work, 'userDir');
  mkdirSync(userDir);
  const flows = [
    { id: 'tab1', type: 'tab', label: 'Links' },
    // Serial, with nothing wired: the dialogs are what is looked at, not the lines.
    { id: 'astm', type: 'astm-link', z: 'tab1', name: '', transport: 'serial', x: 200, y: 80, wires: [[], [], []] },
    { id: 'hl7', type: 'hl7-link', z: 'tab1', name: '', transport: 'serial', x: 200, y: 160, wires: [[], [], []] },
  ];
  session = await startEditorSession(userDir, flows, 'hl7');
  ({ page, pageErrors } = session);
});

after(async () => {
  await session?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** A property of a node as the editor holds it. */
const property = (id: string, key: string) =>
  page.evaluate(([nodeId, name]) => ((globalThis as unknown as { RED: EditorRed }).RED.nodes.node(nodeId!) as Record<string, unknown>)[name!], [id, key]);

describe('analyzer link dialogs', () => {
  for (const link of LINKS) {
    it(`${link.type}: the shared rows in the shared words, and the alarm fields kept on Done`, async () => {
      await editNode(page, link.id);
      assert.equal(await page.locator('#node-input-name').getAttribute('placeholder'), link.placeholder);
      assert.equal(await page.locator('label[for="node-input-quietMinutes"]').textContent(), ' Quiet after (min)');
      assert.equal(await page.locator('label[for="node-input-journal"]').textContent(), 'Store each message in the result journal before it is acknowledged');
      assert.equal(await page.locator('#node-input-quietMinutes').getAttribute('placeholder'), '0');
      assert.deepEqual(await page.locator('#lis-link-quiet-days label').allTextContents(), ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun']);

      await page.locator('#node-input-traceRedact').waitFor({ state: 'visible' });
      await page.locator('#node-input-trace').uncheck();
      await page.locator('#node-input-traceRedact').waitFor({ state: 'hidden' });

      // Monday to Saturday by default; Sunday ticked too, Saturday not.
      await page.locator('#lis-link-quiet-days input[data-day="0"]').check();
      await page.locator('#lis-link-quiet-days input[data-day="6"]').uncheck();
      await page.locator('#node-input-quietMinutes').fill('45');
      await page.locator('#node-input-downMinutes').fill('5');
      await page.locator('#node-dialog-ok').click();
      await page.locator('#node-dialog-ok').waitFor({ state: 'detached' });
      assert.equal(await property(link.id, 'quietDays'), '0,1,2,3,4,5');
      assert.equal(await property(link.id, 'quietMinutes'), '45');
      assert.equal(await property(link.id, 'downMinutes'), '5');
      assert.equal(await property(link.id, 'trace'), false);
      assert.equal(await property(link.id, 'valid'), true);
      assert.deepEqual(pageErrors, []);
    });
  }
});
