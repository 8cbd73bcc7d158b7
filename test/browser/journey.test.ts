/**
 * An integrator's first day, walked in a real editor (issue 22): the package as
 * they get it (npm pack, npm install into a fresh Node-RED user directory), the
 * demo LIS requiring its Bearer Token, two simulated analyzers listening on TCP,
 * and Chromium doing what a person does:
 *
 *   1. Menu > Import > Examples: the Mindray CL-2000i (ASTM over TCP) example;
 *   2. its tab's Environment Variables: where the analyzer listens, the push port;
 *   3. the test map's "Load LIS catalog" (the token comes from LIS_TOKEN), and a
 *      test the example does not map yet mapped once, in the one dialog, for
 *      orders and results; Deploy;
 *   4. a second example (the same analyzer over HL7) imported beside it, its tab
 *      set, Deploy: both analyzers exchange with the LIS, no node is red;
 *   5. the help of every node type, rendered with no raw markup;
 *   6. a third example with a variable left unset: its node names the variable.
 *
 * Each step is one it(), in order: a later one builds on what the earlier left.
 */
import { waitUntil, withTimeout } from '../support/wait';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { DemoLis } from '../../demo/demo-lis';
import { AnalyzerSimulator, Hl7AnalyzerSimulator } from '../../lib/sim';
import { TcpServerTransport } from '../../lib/sim/transport';
import { installPackage, type Installation } from '../e2e/harness';
import { closeConfigThenNode, deploy, launchChromium, releaseChromium } from '../support/browser';
import { assertHelpRenders, openHelp } from '../support/help-check';
import { importExample } from '../support/import-example';
import { startNodeRed, type NodeRedProcess } from '../support/node-red-process';
import { freePort } from '../support/ports';

const ROOT = join(__dirname, '..', '..', '..');
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; 'node-red': { nodes: Record<string, string> } };
const TOKEN = 'first-day-token-5c1e';
const TIME_ZONE = 'Europe/Berlin';

/** The ASTM example's samples get TSH and CRP; CRP is the test the integrator maps on the day. */
const ASTM_TESTS = ['T-TSH', 'T-CRP'];
const HL7_TESTS = ['T-TSH', 'T-FT4'];
/** The analyzer's code the integrator types for CRP (the example maps 1-4). */
const CRP_CODE = '5';

interface Status {
  id: string;
  type: string;
  name: string;
  tab: string;
  fill: string;
  text: string;
}

let installation: Installation | undefined;
let lis: DemoLis | undefined;
let red: NodeRedProcess | undefined;
let browser: Browser | undefined;
let page: Page;
const pageErrors: string[] = [];
let astmSim: AnalyzerSimulator | undefined;
let hl7Sim: Hl7AnalyzerSimulator | undefined;
const astmLine = new TcpServerTransport(0, '127.0.0.1');
const hl7Line = new TcpServerTransport(0, '127.0.0.1');

before(async () => {
  installation = installPackage();
  lis = new DemoLis({ token: TOKEN, orderableByPrefix: { 'JA-': ASTM_TESTS, 'JB-': HL7_TESTS } });
  await lis.start({ port: 0 });
  const endpoints = lis.state().endpoints!;
  const common = { timeZone: TIME_ZONE, seed: 7, analysisMs: 200, intervalMs: 500 };
  astmSim = new AnalyzerSimulator({ ...common, dialect: 'mindray-cl', transport: astmLine });
  hl7Sim = new Hl7AnalyzerSimulator({ ...common, dialect: 'mindray-cl-hl7', transport: hl7Line });
  await Promise.all([astmSim.start(), hl7Sim.start()]);
  // The site's LIS settings are Node-RED's environment, as the examples' read-me says; the analyzers' are each tab's.
  const env = { TZ: TIME_ZONE, LIS_TESTS_URL: endpoints.tests, LIS_ORDERS_URL: endpoints.orders, LIS_RESULTS_URL: endpoints.results, LIS_PROCESSED_URL: endpoints.processed, LIS_TOKEN: TOKEN };
  [red, browser] = await Promise.all([startNodeRed({ userDir: installation.userDir, flows: [], env, settings: { socketReconnectTime: 500 } }), launchChromium()]);
  const context = await browser.newContext({ viewport: { width: 1400, height: 950 } });
  page = await context.newPage();
  page.on('pageerror', (err) => pageErrors.push(err.message));
  await page.goto(red.url);
  await page.waitForSelector('#red-ui-palette-container-LIS', { state: 'attached', timeout: 30000 });
  await page.waitForSelector('#red-ui-loading-progress', { state: 'hidden', timeout: 30000 });
});

after(async () => {
  await releaseChromium(browser);
  await astmSim?.stop().catch(() => undefined);
  await hl7Sim?.stop().catch(() => undefined);
  await red?.stop();
  await lis?.stop();
  installation?.remove();
});

/** The id of the tab whose label is `label`. */
async function tabId(label: string): Promise<string> {
  const id = await page.evaluate((l) => {
    const RED = (globalThis as unknown as { RED: { nodes: { eachWorkspace(f: (w: { id: string; label: string }) => void): void } } }).RED;
    let found: string | undefined;
    RED.nodes.eachWorkspace((w) => {
      if (w.label === l) found = w.id;
    });
    return found;
  }, label);
  assert.ok(id, `a tab "${label}"`);
  return id!;
}

/**
 * Double-click the tab, then in its Environment Variables set each name to a
 * value (a row removed where the value is null), Done.
 */
async function setTabEnv(label: string, values: Record<string, string | null>): Promise<void> {
  // On a loaded machine the two clicks of a double-click can arrive as two single ones (once in CI: no dialog in
  // 30 s while the next steps went fine): double-click again until the tab's dialog is open.
  for (let attempt = 1; ; attempt++) {
    await page.locator('#red-ui-workspace-tabs .red-ui-tab', { hasText: label }).dblclick();
    try {
      await page.locator('#node-dialog-ok').waitFor({ state: 'visible', timeout: 10_000 });
      break;
    } catch (err) {
      if (attempt === 3) throw err;
    }
  }
  // The Environment Variables pane's button beside Properties' (a list icon).
  await page.locator('.red-ui-tray a.red-ui-tab-link-button[href="#editor-tab-envProperties"]').click();
  const rows = page.locator('.red-ui-tray .node-input-env-container-row ol > li');
  await rows.first().waitFor({ state: 'visible' });
  for (const [name, value] of Object.entries(values)) {
    // The name is an input's value, which no CSS selector sees.
    const names = await rows.locator('input.node-input-env-name').evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value));
    assert.equal(names.filter((n) => n === name).length, 1, `${label}: one Environment Variables row named ${name} (rows: ${names.join(', ')})`);
    const row = rows.nth(names.indexOf(name));
    if (value === null) {
      // The row fades out before it leaves the list, and Done takes the rows still in it.
      await row.locator('.red-ui-editableList-item-remove').click();
      await page.waitForFunction((n) => document.querySelectorAll('.red-ui-tray .node-input-env-container-row ol > li').length === n, names.length - 1);
    } else await row.locator('input.red-ui-typedInput-input').fill(value);
  }
  await page.locator('#node-dialog-ok').click();
  await page.locator('#node-dialog-ok').waitFor({ state: 'detached' });
}

/** Opens the edit dialog of the node named `name` on the tab `tab` with a double-click on it. */
async function openNode(tab: string, name: string): Promise<void> {
  await page.locator('#red-ui-workspace-tabs .red-ui-tab', { hasText: tab }).click();
  const id = await page.evaluate(
    ({ tabLabel, nodeName }) => {
      type N = { id: string; name?: string; z?: string };
      const RED = (globalThis as unknown as { RED: { nodes: { eachNode(f: (n: N) => void): void; eachWorkspace(f: (w: { id: string; label: string }) => void): void } } }).RED;
      let z: string | undefined;
      RED.nodes.eachWorkspace((w) => {
        if (w.label === tabLabel) z = w.id;
      });
      let found: string | undefined;
      RED.nodes.eachNode((n) => {
        if (n.z === z && n.name === nodeName) found = n.id;
      });
      return found;
    },
    { tabLabel: tab, nodeName: name },
  );
  assert.ok(id, `a node "${name}" on the tab "${tab}"`);
  await page.locator(`#red-ui-workspace-chart g.red-ui-flow-node-group[id="${id}"] rect.red-ui-flow-node`).dblclick();
  await page.locator('#node-dialog-ok').waitFor({ state: 'visible' });
}

/**
 * In the open test-mapper dialog: the pencil beside its test map, there Load LIS catalog, then the analyzer's code
 * for the LIS test named `lisName`; Done in both dialogs. One dialog maps the test for orders and results alike.
 */
async function mapFromCatalog(lisName: string, code: string): Promise<void> {
  // Node-RED 4.1 names the pencil node-input-btn-map-edit; earlier versions node-input-lookup-map.
  await page.locator('#node-input-btn-map-edit, #node-input-lookup-map').first().click();
  await page.locator('#node-config-dialog-ok').waitFor({ state: 'visible' });
  const rows = '#node-config-input-mapping-container > li';
  await page.locator('#node-config-input-mapping-load').click();
  // The catalog comes from the LIS through the runtime: its row is there once it has.
  const row = page.locator(rows).filter({ has: page.locator('.node-input-mapping-lisName', { hasText: new RegExp(`^${lisName}$`) }) }).first();
  await row.waitFor({ state: 'visible', timeout: 60_000 });
  assert.equal(await row.locator('.node-input-mapping-instrumentCode').inputValue(), '', `${lisName} is not mapped before`);
  await row.locator('.node-input-mapping-instrumentCode').fill(code);
  await closeConfigThenNode(page);
}

/** Every node's status as the editor shows it, with its tab's label. */
async function statuses(): Promise<Status[]> {
  return page.evaluate(() => {
    type N = { id: string; type: string; name?: string; z?: string; status?: { fill?: string; text?: string } };
    const RED = (globalThis as unknown as { RED: { nodes: { eachNode(f: (n: N) => void): void; eachWorkspace(f: (w: { id: string; label: string }) => void): void } } }).RED;
    const tabs: Record<string, string> = {};
    RED.nodes.eachWorkspace((w) => {
      tabs[w.id] = w.label;
    });
    const out: Array<{ id: string; type: string; name: string; tab: string; fill: string; text: string }> = [];
    RED.nodes.eachNode((n) => {
      out.push({ id: n.id, type: n.type, name: n.name ?? '', tab: tabs[n.z ?? ''] ?? '', fill: n.status?.fill ?? '', text: n.status?.text ?? '' });
    });
    return out;
  });
}

/** Results the LIS accepted, as "sample test" pairs. */
function resultsAtLis(): Array<{ sample: string; test: string }> {
  const state = lis!.state();
  return state.requests.results
    .filter((r) => r.status >= 200 && r.status < 300)
    .flatMap((r) => {
      const body = r.body as { results?: Array<{ SampleNumber: string; TestCode: string }> } | Array<{ SampleNumber: string; TestCode: string }>;
      const items = Array.isArray(body) ? body : (body.results ?? []);
      return items.map((i) => ({ sample: i.SampleNumber, test: i.TestCode }));
    });
}

const ASTM_TAB = 'Mindray CL-2000i, CL-2200i';
const HL7_TAB = 'Mindray CL-1000i, CL-2000i, CL-2200i (HL7)';

describe("an integrator's first day, in the editor, with the package installed from its tarball", () => {
  it('imports the first example through Menu > Import > Examples and sets its tab\'s environment', async () => {
    await importExample(page, 'ASTM/mindray-cl2000i-tcp', { sharedLisThere: false });
    await tabId(ASTM_TAB);
    // The editor shows the example's own tab, not the one that was in view.
    type Tabs = { RED: { workspaces: { active(): string }; nodes: { workspace(id: string): { label: string } | undefined } } };
    await page.waitForFunction((label) => { const RED = (globalThis as unknown as Tabs).RED; return RED.nodes.workspace(RED.workspaces.active())?.label === label; }, ASTM_TAB, { timeout: 15000 });
    await setTabEnv(ASTM_TAB, { ANALYZER_HOST: '127.0.0.1', ANALYZER_TCP_PORT: String(astmLine.boundPort), LIS_PUSH_PORT: String(await freePort()) });
  });

  it("deploys, loads the LIS catalog in the analyzer's test map with the token from LIS_TOKEN, maps a test once for both ways, deploys again", async () => {
    // The catalog route uses the deployed config's token: deploy first, as the read-me says.
    await deploy(page);
    await openNode(ASTM_TAB, 'LIS -> analyzer codes');
    await mapFromCatalog('C-reactive protein', CRP_CODE);
    await deploy(page);
    assert.ok(lis!.state().requests.tests.length >= 1, 'the LIS was asked for its catalog');
    assert.ok(lis!.state().requests.tests.every((r) => r.status === 200), 'with the token: no 401');
  });

  it('imports the second example beside the first, sets its tab, deploys: one shared LIS, and both analyzers exchange with it', async () => {
    await importExample(page, 'HL7/mindray-cl2000i-hl7-tcp', { sharedLisThere: true });
    await setTabEnv(HL7_TAB, { ANALYZER_HOST: '127.0.0.1', ANALYZER_TCP_PORT: String(hl7Line.boundPort), LIS_PUSH_PORT: String(await freePort()) });
    await deploy(page);
    const configs = await page.evaluate(() => {
      const RED = (globalThis as unknown as { RED: { nodes: { eachConfig(f: (n: { type: string }) => void): void } } }).RED;
      let n = 0;
      RED.nodes.eachConfig((c) => {
        if (c.type === 'lis-config') n++;
      });
      return n;
    });
    assert.equal(configs, 1, 'one lis-config for both analyzers');
    // Bounded: a tab left unset by an earlier step must fail here, not hold the whole suite.
    await withTimeout(Promise.all([astmSim!.waitConnected(), hl7Sim!.waitConnected()]), 30_000, 'both analyzers connected by their links');
    await withTimeout(Promise.all([astmSim!.runSamples(['JA-001', 'JA-002']), hl7Sim!.runSamples(['JB-001', 'JB-002'])]), 60_000, 'both analyzers ran their samples');
    // The analyzer reports exactly the tests its order download held: CRP at the LIS is the one mapping working both ways.
    const want = ['JA-001 TSH', 'JA-001 CRP', 'JA-002 TSH', 'JA-002 CRP', 'JB-001 TSH', 'JB-001 FT4', 'JB-002 TSH', 'JB-002 FT4'];
    const have = () => resultsAtLis().map((r) => `${r.sample} ${r.test}`);
    await waitUntil(() => want.every((w) => have().includes(w)), 30000, () => `results ${want.join(', ')} at the LIS; it has ${have().join(', ')}`, 200);
    assert.equal(have().length, want.length, `each result once: ${have().join(', ')}`);
    // No node of either analyzer is red, and both links name their analyzer.
    const red = (await statuses()).filter((s) => s.fill === 'red');
    assert.deepEqual(red, [], 'no red status');
    const links = (await statuses()).filter((s) => s.type === 'astm-link' || s.type === 'hl7-link').map((s) => s.name).sort();
    assert.deepEqual(links, ['Mindray CL-2000i', 'Mindray CL-2000i (HL7)']);
  });

  it('shows the help of every node type rendered, with no raw markup', async () => {
    for (const type of Object.keys(PACKAGE['node-red'].nodes)) assertHelpRenders(type, await openHelp(page, type));
  });

  it('names the variable left unset in the status of the node that needs it', async () => {
    await importExample(page, 'HL7/roche-cobas6800-hl7-tcp', { sharedLisThere: true });
    const tab = 'Roche cobas 6800, cobas 8800 (HL7)';
    await setTabEnv(tab, { LIS_PUSH_PORT: null });
    await deploy(page);
    await waitUntil(
      async () => (await statuses()).some((s) => s.tab === tab && s.type === 'lis-push-in' && s.fill === 'red' && s.text.includes('LIS_PUSH_PORT')),
      15000,
      async () => `lis-push-in on "${tab}" red naming LIS_PUSH_PORT: ${JSON.stringify((await statuses()).filter((s) => s.tab === tab && s.fill))}`,
      200,
    );
    assert.deepEqual(pageErrors, []);
  });
});
