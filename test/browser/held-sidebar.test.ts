/**
 * The "LIS held" sidebar in a real browser: Node-RED as its own process with the
 * package loaded from the repository, a loopback LIS that refuses results at
 * first, and Chromium resending and discarding held batches the way an
 * operator does.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { LisStub } from '../support/lis-stub';
import type { NodeRedProcess } from '../support/node-red-process';
import { startEditorSession, type EditorSession } from '../support/browser';

const ROOT = join(__dirname, '..', '..', '..');
const BATCHES = '.lis-held-list .lis-held-batch';

let work: string;
let stub: LisStub;
let red: NodeRedProcess | undefined;
let page: Page;
let pageErrors: string[];
let session: EditorSession | undefined;

const results = (sample: string) => JSON.stringify([{ SampleNumber: sample, TestCode: 'GLU', Result: '5.4' }]);

function flows(): Array<Record<string, unknown>> {
  return [
    { id: 'tab1', type: 'tab', label: 'Results' },
    { id: 'cfg', type: 'lis-config', name: 'site LIS', labTestsApiUrl: stub.url('/tests'), transactionInfoApiUrl: stub.url('/orders'), resultApiUrl: stub.url('/results'), orderCompletedApiUrl: stub.url('/processed'), timeout: 3000 },
    { id: 'inj1', type: 'inject', z: 'tab1', props: [{ p: 'payload' }], payload: results('S-100'), payloadType: 'json', repeat: '', once: false, x: 120, y: 80, wires: [['sender']] },
    { id: 'inj2', type: 'inject', z: 'tab1', props: [{ p: 'payload' }], payload: results('S-200'), payloadType: 'json', repeat: '', once: false, x: 120, y: 140, wires: [['sender']] },
    { id: 'sender', type: 'lis-send-results', z: 'tab1', name: 'send results', lis: 'cfg', x: 360, y: 110, wires: [[]] },
  ];
}

async function inject(id: string): Promise<void> {
  const res = await fetch(`${red!.url}/inject/${id}`, { method: 'POST' });
  assert.equal(res.status, 200, await res.text());
}

async function heldCount(): Promise<number> {
  const res = await fetch(`${red!.url}/lis-bridge/held`);
  return ((await res.json()) as { batches: unknown[] }).batches.length;
}

async function waitFor(check: () => Promise<boolean>, what: string): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > 10000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'lis-held-browser-'));
  stub = await new LisStub().start();
  const userDir = join(work, 'userDir');
  mkdirSync(userDir);
  session = await startEditorSession(userDir, flows(), 'sender');
  ({ red, page, pageErrors } = session);
});

after(async () => {
  await session?.stop();
  await stub?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('LIS held sidebar', () => {
  it('lists a batch the LIS refused, resends it, and discards another after confirmation', async () => {
    stub.reply('/results', { status: 500, body: { message: 'database offline', errors: [] } });
    await inject('inj1');
    await waitFor(async () => (await heldCount()) === 1, 'the refused batch to be held');

    // A flow from before the held-result settings existed (none set here) is still valid in the editor.
    assert.equal(await page.evaluate(() => (globalThis as unknown as { RED: { nodes: { node(id: string): { valid: boolean } } } }).RED.nodes.node('sender').valid), true);
    await page.evaluate(() => (globalThis as unknown as { RED: { sidebar: { show(id: string): void } } }).RED.sidebar.show('lis-held'));
    await page.locator(BATCHES).first().waitFor({ state: 'visible', timeout: 10000 });
    assert.equal(await page.locator(BATCHES).count(), 1);
    const batch = page.locator(BATCHES).first();
    assert.equal(await batch.locator('.lis-held-samples').textContent(), 'S-100');
    assert.match((await batch.locator('.lis-held-state').textContent()) ?? '', /^failed · 1 result/);
    assert.match((await batch.locator('.lis-held-error').textContent()) ?? '', /database offline/);
    // The README's picture of the sidebar, refreshed only when asked.
    if (process.env.UPDATE_SCREENSHOTS) await page.screenshot({ path: join(ROOT, 'docs', 'held-sidebar.png') });

    // The LIS is back: Resend (a failed batch needs no confirmation).
    stub.reply('/results', { status: 200, body: { status: 'ok' } });
    await batch.locator('.lis-held-resend').click();
    await page.locator(BATCHES).first().waitFor({ state: 'detached', timeout: 10000 });
    assert.match((await page.locator('.lis-held-summary').textContent()) ?? '', /No results are held/);
    const sent = stub.to('/results');
    assert.equal(sent.length, 2, 'sent once, resent once');
    assert.deepEqual(sent[1]!.json, sent[0]!.json, 'the resend carries the same results');
    assert.equal(await heldCount(), 0);

    // A second refusal, discarded: the operator confirms, and nothing more reaches the LIS.
    stub.reply('/results', { status: 503 });
    await inject('inj2');
    await waitFor(async () => (await heldCount()) === 1, 'the second batch to be held');
    await page.locator('.lis-held-refresh').click();
    await page.locator(BATCHES).first().waitFor({ state: 'visible', timeout: 10000 });
    const dialogs: string[] = [];
    page.once('dialog', (d) => {
      dialogs.push(d.message());
      void d.accept();
    });
    await page.locator(`${BATCHES} .lis-held-discard`).click();
    await page.locator(BATCHES).first().waitFor({ state: 'detached', timeout: 10000 });
    assert.match(dialogs[0] ?? '', /Discard the results for S-200\?/);
    assert.equal(await heldCount(), 0);
    assert.equal(stub.to('/results').length, 3);
    assert.deepEqual(pageErrors, []);
  });
});
