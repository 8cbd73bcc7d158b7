/**
 * The Node-RED editor in a real browser: Debian's Chromium driven by playwright-core
 * (no browser download). Its headless shell (package chromium-headless-shell, the
 * headless mode Playwright itself defaults to) where installed: the same Blink and
 * V8 without the full browser's window machinery, about 30% less CPU per editor
 * load. CHROMIUM_PATH overrides which binary.
 */
import assert from 'node:assert/strict';
import { linkPackageInto } from './installed-package';
import { existsSync, mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { startNodeRed, type NodeRedProcess } from './node-red-process';
import { atScopeEnd, sharedAcrossFiles } from './process-scope';
import { TEST_BRIDGE_SETTINGS } from './runtime-settings';
import { waitUntil } from './wait';

const HEADLESS_SHELL = '/usr/bin/chromium-headless-shell';
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || (existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : '/usr/bin/chromium');

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  // Chromium's shared memory goes to /dev/shm, a tmpfs; where that is small (a container's 64 MB), to the temp
  // folder instead, which is disk: every frame drawn is then written out, and the journal's fsyncs beside it wait.
  ...(shmBytes() < 512 * 1024 * 1024 ? ['--disable-dev-shm-usage'] : []),
];

function shmBytes(): number {
  try {
    const fs = statfsSync('/dev/shm');
    return fs.bavail * fs.bsize;
  } catch {
    return 0;
  }
}

/** What the tests call on the editor's global `RED` (inside page.evaluate only). */
export interface EditorRed {
  nodes: { node(id: string): unknown; version(): unknown };
  editor: { edit(node: unknown): void };
}

function launchNew(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`no chromium at ${CHROMIUM_PATH}: install it (apt-get install -y chromium-headless-shell) or set CHROMIUM_PATH`);
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: 30000 });
}

let sharedBrowser: Promise<Browser> | undefined;

/**
 * Chromium for a test file. Where the runner runs several files in one
 * process (test/support/process-scope.ts) they share one, each file with
 * contexts of its own; releaseChromium() then closes the file's contexts and
 * leaves the browser to the next file.
 */
export function launchChromium(): Promise<Browser> {
  if (!sharedAcrossFiles()) return launchNew();
  if (sharedBrowser === undefined) {
    const launching = launchNew();
    sharedBrowser = launching;
    // A launch that failed, or a browser that died, is not handed to the next file.
    launching.then((b) => b.once('disconnected', () => sharedBrowser === launching && (sharedBrowser = undefined)), () => (sharedBrowser = undefined));
    atScopeEnd(async () => {
      const b = await launching.catch(() => undefined);
      await b?.close();
    });
  }
  return sharedBrowser;
}

/** The end of a file's use of launchChromium()'s browser: its contexts closed, the browser too unless the process shares it. */
export async function releaseChromium(browser: Browser | undefined): Promise<void> {
  if (!browser) return;
  if (!sharedAcrossFiles()) return browser.close().catch(() => undefined);
  await Promise.all(browser.contexts().map((c) => c.close().catch(() => undefined)));
}

export interface EditorPage {
  page: Page;
  /** Uncaught exceptions thrown in the page, e.g. by a node's editor script. */
  pageErrors: string[];
}

/** " (at <script>:<line>:<column>)" of the innermost frame an uncaught page error names, its path only. */
function thrownAt(err: Error): string {
  const frame = /(https?:\/\/[^\s)]+):(\d+):(\d+)/.exec(err.stack ?? '');
  return frame ? ` (at ${new URL(frame[1]!).pathname}:${frame[2]}:${frame[3]})` : '';
}

/** Opens the editor at `url` and resolves once the flows are loaded and `nodeId` is known to it. */
export async function openEditor(browser: Browser, url: string, nodeId: string, viewport = { width: 1280, height: 860 }): Promise<EditorPage> {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1, acceptDownloads: true });
  const page = await context.newPage();
  const pageErrors: string[] = [];
  // With where it was thrown: an error from Node-RED's own scripts and one from the package's read differently.
  page.on('pageerror', (err) => pageErrors.push(err.message + thrownAt(err)));
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

/**
 * Waits until `locator`'s text is `want` (or matches it), and fails naming the
 * last text seen: a sidebar row's words arrive over comms after the row itself,
 * so a single read right after the row shows can see the words before.
 */
export async function waitForText(locator: Locator, want: string | RegExp, timeoutMs = 15000): Promise<void> {
  let last: string | null = null;
  const matches = () => (typeof want === 'string' ? last === want : last !== null && want.test(last));
  await waitUntil(
    async () => {
      last = await locator.textContent({ timeout: timeoutMs });
      return matches();
    },
    timeoutMs,
    () => `${locator.toString()} to read ${String(want)} (it read ${JSON.stringify(last)})`,
    50,
  );
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

/** Drags the sidebar's separator, as an operator would, until the sidebar is about `width` px wide. */
export async function dragSidebarTo(page: Page, width: number): Promise<void> {
  const now = (await page.locator('#red-ui-sidebar').boundingBox())!.width;
  const separator = (await page.locator('#red-ui-sidebar-separator').boundingBox())!;
  const y = separator.y + separator.height / 2;
  await page.mouse.move(separator.x + separator.width / 2, y);
  await page.mouse.down();
  await page.mouse.move(separator.x + separator.width / 2 + (now - width), y, { steps: 5 });
  await page.mouse.up();
}

/** Presses the open configuration node dialog's Update, then Done on the node dialog under it, each once closed. */
export async function closeConfigThenNode(page: Page): Promise<void> {
  for (const ok of ['#node-config-dialog-ok', '#node-dialog-ok']) {
    await page.locator(ok).click();
    await page.locator(ok).waitFor({ state: 'detached' });
  }
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
  /** Closes the editor and leaves the runtime with no flows (a shared one), or stops Node-RED and Chromium. */
  stop(): Promise<void>;
}

/** Where a shared runtime's settings.js reads its lisBridge.dir from, at each use: the current session's journal. */
const JOURNAL_POINTER = 'journal-dir.txt';

let sharedEditorRuntime: Promise<NodeRedProcess> | undefined;

/**
 * The package's Node-RED for an editor session: the package installed from its
 * packed tarball (test/support/installed-package.ts), as an integrator has it.
 * Alone in its process, it runs on the session's `userDir`, as an integrator's
 * would. Where files share the process, one Node-RED on a userDir of its own
 * serves them all, one at a time: each session deploys its own flows, and its
 * journal and traces live in its userDir's lis-bridge/ folder as they would
 * alone, since settings.js reads lisBridge.dir from a pointer each session
 * rewrites.
 */
async function editorRuntime(userDir: string): Promise<{ red: NodeRedProcess; release(): Promise<void> }> {
  // The package's dialogs use no code editor; Node-RED's default (Monaco) costs a fifth of each editor load to
  // parse. The files that start Node-RED as an integrator does (journey, examples, demo) keep the default.
  const settings = { lisBridge: { ...TEST_BRIDGE_SETTINGS }, editorTheme: { tours: false, codeEditor: { lib: 'ace' } } };
  if (!sharedAcrossFiles()) {
    linkPackageInto(userDir);
    const red = await startNodeRed({ userDir, settings });
    return { red, release: () => red.stop() };
  }
  if (sharedEditorRuntime === undefined) {
    const own = mkdtempSync(join(tmpdir(), 'lis-editor-runtime-'));
    const pointer = join(own, JOURNAL_POINTER);
    writeFileSync(pointer, join(own, 'lis-bridge'));
    linkPackageInto(own);
    const starting = startNodeRed({
      userDir: own,
      settings,
      settingsCode: `module.exports.lisBridge = Object.defineProperty({ ...module.exports.lisBridge }, 'dir', { enumerable: true, get: () => require('fs').readFileSync(${JSON.stringify(pointer)}, 'utf8') });`,
    });
    sharedEditorRuntime = starting;
    starting.catch(() => (sharedEditorRuntime = undefined));
    atScopeEnd(async () => {
      const red = await starting.catch(() => undefined);
      await red?.stop();
      rmSync(own, { recursive: true, force: true });
    });
  }
  const red = await sharedEditorRuntime;
  if (!red.running) await red.start();
  writeFileSync(join(red.userDir, JOURNAL_POINTER), join(userDir, 'lis-bridge'));
  // The next session finds no flow of this one running, and nothing writes into this session's folders once it is removed.
  return { red, release: () => deployFlows(red, []) };
}

async function deployFlows(red: NodeRedProcess, flows: unknown[]): Promise<void> {
  const res = await fetch(`${red.url}/flows`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Node-RED-Deployment-Type': 'full' },
    body: JSON.stringify(flows),
  });
  assert.equal(res.status, 204, await res.text());
}

/**
 * Node-RED with this package installed from its packed tarball and `flows`
 * deployed, its journal in `userDir`/lis-bridge, and Chromium on its editor
 * once `nodeId` is known there (a fresh browser context).
 */
export async function startEditorSession(userDir: string, flows: unknown[], nodeId: string, viewport?: { width: number; height: number }): Promise<EditorSession> {
  // Node-RED starting and Chromium starting do not depend on each other.
  const [runtime, browser] = await Promise.all([editorRuntime(userDir), launchChromium()]);
  const { red } = runtime;
  let context: BrowserContext | undefined;
  const stop = async () => {
    await context?.close().catch(() => undefined);
    await releaseChromium(browser);
    await runtime.release();
  };
  try {
    await deployFlows(red, flows);
    const opened = await openEditor(browser, red.url, nodeId, viewport);
    context = opened.page.context();
    return { red, browser, stop, ...opened };
  } catch (err) {
    await stop();
    throw err;
  }
}
