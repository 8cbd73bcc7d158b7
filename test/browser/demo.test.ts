/**
 * The running demo in the editor: the demo flow deployed, the nodes that carry
 * the workflow showing green statuses once results flow. Keeps a screenshot
 * (test/artifacts/demo-flow.png; with UPDATE_SCREENSHOTS=1 also docs/demo-flow.png for the README).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium, openEditor } from '../support/browser';
import { freePort } from '../support/ports';

const ROOT = join(__dirname, '..', '..', '..');
const FLOW = JSON.parse(readFileSync(join(ROOT, 'flows', 'demo-flow.json'), 'utf8')) as Array<{ id: string; type: string; name?: string }>;
/** The nodes a result passes through: each must be green. */
const WORKFLOW_TYPES = ['serial in', 'astm-link', 'astm-message', 'lis-get-order', 'test-mapper', 'lis-send-results', 'lis-mark-processed', 'lis-push-in'];

let demo: ChildProcess | undefined;
let browser: Browser | undefined;
let userDir: string;
let redUrl: string;
let lisUrl: string;
let output = '';

before(async () => {
  userDir = mkdtempSync(join(tmpdir(), 'lis-demo-ui-'));
  const [redPort, lisPort, tcpPort] = [await freePort(), await freePort(), await freePort()];
  redUrl = `http://127.0.0.1:${redPort}/`;
  lisUrl = `http://127.0.0.1:${lisPort}/`;
  demo = spawn(process.execPath, [join(ROOT, 'dist', 'demo', 'start.js')], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_RED_PORT: String(redPort), DEMO_LIS_PORT: String(lisPort), DEMO_USER_DIR: userDir, DEMO_SAMPLE_INTERVAL_MS: '1500', DEMO_ANALYZER_TCP_PORT: String(tcpPort) },
  });
  demo.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  demo.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  browser = await launchChromium();
  const started = Date.now();
  while (!output.includes('[lis]') || !/POST \/api\/processed 200/.test(output)) {
    if (demo.exitCode !== null) throw new Error(`the demo exited:\n${output.slice(-3000)}`);
    if (Date.now() - started > 60000) throw new Error(`no result reached the demo LIS within 60 s:\n${output.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
});

after(async () => {
  await browser?.close();
  if (demo?.pid && demo.exitCode === null) {
    const closed = new Promise((r) => demo!.once('close', r));
    process.kill(-demo.pid, 'SIGINT');
    await closed;
  }
  rmSync(userDir, { recursive: true, force: true });
});

describe('the running demo in the editor', () => {
  it('shows the demo flow deployed with every workflow node green', async () => {
    const link = FLOW.find((n) => n.type === 'astm-link')!;
    const { page, pageErrors } = await openEditor(browser!, redUrl, link.id, { width: 1800, height: 790 });
    type Seen = Array<{ type: string; name: string; fill: string; text: string }>;
    const read = () =>
      page.evaluate((types: string[]) => {
        type N = { type: string; name?: string; status?: { fill?: string; text?: string } };
        const RED = (globalThis as unknown as { RED: { nodes: { eachNode(f: (n: N) => void): void } } }).RED;
        const seen: Seen = [];
        RED.nodes.eachNode((n) => {
          if (types.includes(n.type)) seen.push({ type: n.type, name: n.name ?? '', fill: n.status?.fill ?? 'none', text: n.status?.text ?? '' });
        });
        return seen;
      }, WORKFLOW_TYPES);
    // Statuses change as samples flow (blue while a transfer is under way): wait for a moment when all are green.
    let seen: Seen = [];
    const started = Date.now();
    while (Date.now() - started < 30000) {
      seen = await read();
      if (seen.length > 0 && seen.every((n) => n.fill === 'green')) break;
      await page.waitForTimeout(100);
    }
    assert.equal(seen.length, FLOW.filter((n) => WORKFLOW_TYPES.includes(n.type)).length, 'every workflow node is in the editor');
    assert.deepEqual(seen.filter((n) => n.fill !== 'green'), [], 'every workflow node shows a green status');
    assert.deepEqual(pageErrors, []);
    // The canvas alone, for the README: no palette, no sidebar.
    await page.evaluate(() => {
      const RED = (globalThis as unknown as { RED: { actions: { invoke(name: string): void } } }).RED;
      RED.actions.invoke('core:toggle-palette');
      RED.actions.invoke('core:toggle-sidebar');
    });
    await page.waitForTimeout(300);
    const shot = join(ROOT, 'test', 'artifacts', 'demo-flow.png');
    mkdirSync(join(ROOT, 'test', 'artifacts'), { recursive: true });
    await page.screenshot({ path: shot });
    // The README's copy changes only on request, so a test run leaves the work tree clean.
    if (process.env.UPDATE_SCREENSHOTS) copyFileSync(shot, join(ROOT, 'docs', 'demo-flow.png'));
    const state = (await (await fetch(`${lisUrl}api/state`)).json()) as { requests: { results: unknown[]; processed: unknown[] } };
    assert.ok(state.requests.results.length > 0 && state.requests.processed.length > 0);
  });
});
