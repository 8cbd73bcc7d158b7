/**
 * The Node-RED editor in a real browser: Debian's chromium driven by playwright-core
 * (no browser download). CHROMIUM_PATH overrides where chromium is.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startNodeRed, type NodeRedProcess } from './node-red-process';

/** The repository root (this file runs as dist/test/support/browser.js). */
const ROOT = join(__dirname, '..', '..', '..');

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** What the tests call on the editor's global `RED` (inside page.evaluate only). */
export interface EditorRed {
  nodes: { node(id: string): unknown; version(): unknown };
  editor: { edit(node: unknown): void };
}

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`no chromium at ${CHROMIUM_PATH}: install it (apt-get install -y chromium) or set CHROMIUM_PATH`);
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: 30000 });
}

export interface EditorPage {
  page: Page;
  /** Uncaught exceptions thrown in the page, e.g. by a node's editor script. */
  pageErrors: string[];
}

/** Opens the editor at `url` and resolves once the flows are loaded and `nodeId` is known to it. */
export async function openEditor(browser: Browser, url: string, nodeId: string, viewport = { width: 1280, height: 860 }): Promise<EditorPage> {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1, acceptDownloads: true });
  const page = await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (err) => pageErrors.push(err.message));
  await page.goto(url, { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('#red-ui-palette-container-LIS', { state: 'attached', timeout: 30000 });
  await page.waitForFunction(
    (id) => {
      const RED = (globalThis as unknown as { RED?: EditorRed }).RED;
      return !!(RED && RED.nodes && RED.nodes.version() && RED.nodes.node(id));
    },
    nodeId,
    { timeout: 30000 },
  );
  await page.waitForSelector('#red-ui-loading-progress', { state: 'hidden', timeout: 30000 });
  return { page, pageErrors };
}

/** Opens the edit dialog of node `id` (closing a dialog left open) and waits until it is ready. */
export async function editNode(page: Page, id: string): Promise<void> {
  const cancel = page.locator('#node-dialog-cancel');
  // A dialog left open is cancelled; one already closing is waited for.
  if (await cancel.isVisible()) await cancel.click({ timeout: 2000 }).catch(() => undefined);
  await cancel.waitFor({ state: 'detached' });
  await page.evaluate((nodeId) => {
    const RED = (globalThis as unknown as { RED: EditorRed }).RED;
    RED.editor.edit(RED.nodes.node(nodeId));
  }, id);
  await page.locator('#node-dialog-ok').waitFor({ state: 'visible' });
  // The tray slides in from the right; wait until it is fully in.
  await page.waitForFunction(`(() => {
    const stack = document.querySelector('#red-ui-editor-stack');
    const trays = document.querySelectorAll('#red-ui-editor-stack .red-ui-tray');
    const tray = trays[trays.length - 1];
    return !!(stack && tray) && Math.abs(tray.getBoundingClientRect().right - stack.getBoundingClientRect().right) < 3;
  })()`);
}

/** Presses Deploy (confirming the dialog the editor may show) and resolves once the runtime accepted the flows. */
export async function deploy(page: Page): Promise<void> {
  const accepted = page.waitForResponse((res) => res.request().method() === 'POST' && /\/flows$/.test(new URL(res.url()).pathname), { timeout: 20000 });
  await page.locator('#red-ui-header-button-deploy').click();
  const confirm = page.locator('#red-ui-deploy-dialog-confirm-deploy-deploy');
  const first = await Promise.race([accepted.then(() => 'deployed' as const), confirm.waitFor({ state: 'visible', timeout: 20000 }).then(() => 'confirm' as const)]);
  if (first === 'confirm') await confirm.click();
  const res = await accepted;
  if (res.status() !== 200) throw new Error(`deploy answered ${res.status()}: ${await res.text()}`);
}

export interface EditorSession extends EditorPage {
  red: NodeRedProcess;
  browser: Browser;
  /** Closes the browser and stops Node-RED. */
  stop(): Promise<void>;
}

/**
 * Node-RED in `userDir` with this package loaded from the repository and
 * `flows` deployed, and Chromium on its editor once `nodeId` is known there.
 */
export async function startEditorSession(userDir: string, flows: unknown[], nodeId: string, viewport?: { width: number; height: number }): Promise<EditorSession> {
  // Node-RED starting and Chromium starting do not depend on each other.
  const [red, browser] = await Promise.all([startNodeRed({ userDir, settings: { nodesDir: [ROOT] } }), launchChromium()]);
  const stop = async () => {
    await browser.close().catch(() => undefined);
    await red.stop();
  };
  try {
    const res = await fetch(`${red.url}/flows`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Node-RED-Deployment-Type': 'full' },
      body: JSON.stringify(flows),
    });
    assert.equal(res.status, 204, await res.text());
    return { red, browser, stop, ...(await openEditor(browser, red.url, nodeId, viewport)) };
  } catch (err) {
    await stop();
    throw err;
  }
}
