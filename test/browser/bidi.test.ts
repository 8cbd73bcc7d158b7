/**
 * Analyzer text with a right-to-left override (U+202E) in a real browser
 * (issue 23: `HOLD-H2<U+202E>987` drew the next sample of the Held row
 * reversed). Every value an analyzer sent is drawn isolated: in the Lab
 * sidebar's held row, and in the dialect editor's preview table. Checked as
 * Chromium lays it out: the isolating element's computed unicode-bidi, and
 * the next value's characters left to right on screen.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { editNode, startEditorSession, type EditorSession } from '../support/browser';
import { writeJournal } from '../support/journal-file';

const RLO = '\u202e';
const SPOOFED = `HOLD-H2${RLO}987`;
const NEXT = 'HOLD-H3';

let work: string;
let session: EditorSession | undefined;
let page: Page;
let pageErrors: string[];

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'lis-bidi-'));
  const userDir = join(work, 'userDir');
  mkdirSync(userDir);
  // A batch the LIS refused, with the spoofed sample number first: held for an operator.
  await writeJournal(join(userDir, 'lis-bridge'), async (j) => {
    const body = [SPOOFED, NEXT].map((s) => ({ SampleNumber: s, TestCode: 'GLU', Result: '5.4' }));
    await j.beginSend({ key: 'b-spoof', node: 'send', samples: [SPOOFED, NEXT], body, msg: {} });
    await j.settle('b-spoof', 'failed', { error: { code: 'HTTP_STATUS', message: 'LIS said no', status: 500 } });
  });
  const flows = [
    { id: 'tab1', type: 'tab', label: 'Analyzer' },
    { id: 'cfg', type: 'lis-config', name: 'LIS', resultApiUrl: 'http://127.0.0.1:9/results', timeout: 1000 },
    { id: 'am', type: 'astm-message', z: 'tab1', dialect: 'generic-lis2a2', dialectOverrides: '', timeZone: 'UTC', x: 300, y: 80, wires: [[], ['send'], [], []] },
    { id: 'send', type: 'lis-send-results', z: 'tab1', lis: 'cfg', autoResend: false, x: 500, y: 80, wires: [[]] },
  ];
  session = await startEditorSession(userDir, flows, 'am', { width: 1400, height: 1100 });
  ({ page, pageErrors } = session);
});

after(async () => {
  await session?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** Each value's element, its computed unicode-bidi, and where its first and last characters are drawn. */
async function layout(values: Locator): Promise<Array<{ text: string; bidi: string; left: number; right: number; firstX: number; lastX: number }>> {
  return values.evaluateAll((els) =>
    els.map((el) => {
      const text = el.textContent ?? '';
      const node = el.firstChild;
      const at = (i: number) => {
        if (node === null) return 0;
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        return range.getBoundingClientRect().left;
      };
      const box = el.getBoundingClientRect();
      return { text, bidi: getComputedStyle(el).unicodeBidi, left: box.left, right: box.right, firstX: at(0), lastX: at(text.length - 1) };
    }),
  );
}

function assertIsolated(drawn: Awaited<ReturnType<typeof layout>>, where: string): void {
  const spoofed = drawn.find((d) => d.text === SPOOFED);
  const next = drawn.find((d) => d.text === NEXT);
  assert.ok(spoofed && next, `${where}: both values drawn in elements of their own: ${JSON.stringify(drawn)}`);
  assert.equal(spoofed.bidi, 'isolate', where);
  assert.equal(next.bidi, 'isolate', where);
  // The next value reads left to right, H first, and is drawn after the spoofed one.
  assert.ok(next.firstX < next.lastX, `${where}: ${NEXT} drawn reversed: ${JSON.stringify(next)}`);
}

describe('analyzer text drawn isolated', () => {
  it('in the Lab sidebar, a sample number with U+202E does not reverse the next sample of the held row', async () => {
    await page.evaluate(() => (globalThis as unknown as { RED: { sidebar: { show(id: string): void } } }).RED.sidebar.show('lis-lab'));
    const samples = page.locator('.lis-lab-held .lis-lab-batch .lis-lab-samples');
    await samples.waitFor({ timeout: 15000 });
    assert.equal(await samples.textContent(), `${SPOOFED}, ${NEXT}`, 'the text itself is as the analyzer sent it');
    // Drawn as the analyzer's bytes would draw unisolated: the next sample's first character right of its last.
    const next = await samples.evaluate((el, word) => {
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      const x = (index: number) => {
        let seen = 0;
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          const len = n.textContent!.length;
          if (index < seen + len) {
            const range = document.createRange();
            range.setStart(n, index - seen);
            range.setEnd(n, index - seen + 1);
            walker.currentNode = el;
            return range.getBoundingClientRect().left;
          }
          seen += len;
        }
        throw new Error(`no character ${index}`);
      };
      const start = el.textContent!.indexOf(word);
      return { firstX: x(start), lastX: x(start + word.length - 1) };
    }, NEXT);
    assert.ok(next.firstX < next.lastX, `${NEXT} is drawn left to right: ${JSON.stringify(next)}`);
    const drawn = await layout(samples.locator('bdi'));
    assertIsolated(drawn, 'held row');
    const [first, second] = drawn;
    assert.ok(second!.left >= first!.right - 1, `the next sample after the first: ${JSON.stringify(drawn)}`);
  });

  it('in the dialect editor\'s preview table, cells show each sample number isolated', async () => {
    await editNode(page, 'am');
    const paste = page.locator('#astm-message-dialect-editor .lis-dialect-paste');
    await paste.waitFor({ state: 'visible' });
    // An analyzer that writes UTF-8 (in Latin-1 the override could not be sent at all).
    await page.locator('#node-input-dialectOverrides').fill('{"charset": "utf8"}');
    const message = (sample: string, n: number) => `H|\\^&|||ANALYZER^1\nP|1\nO|1|${sample}||^^^GLU|R\nR|1|^^^GLU|5.${n}|mmol/L||N||F\nL|1|N\n`;
    await paste.fill(message(SPOOFED, 1) + message(NEXT, 2));
    const cells = page.locator('#astm-message-dialect-editor .lis-dialect-results tbody td bdi');
    await page.waitForFunction(`document.querySelectorAll('#astm-message-dialect-editor .lis-dialect-results tbody tr').length === 2`, undefined, { timeout: 10000 });
    assertIsolated(await layout(cells), 'preview table');
    assert.deepEqual(pageErrors, []);
  });
});
