/**
 * Every example flow loads in the real editor with every node valid: no
 * "not properly configured" warning on deploy for an integrator who imports one.
 * Two examples imported one after the other through Menu > Import > Examples,
 * as an integrator with two analyzers does, share the one lis-config "LIS" and
 * deploy side by side.
 */
import { linkPackageInto } from '../support/installed-package';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { startNodeRed, type NodeRedProcess } from '../support/node-red-process';
import { deploy, launchChromium, releaseChromium, openEditor } from '../support/browser';
import { combineFlows, withTabEnv } from '../../demo/examples';
import { freePort } from '../support/ports';
import { importExample } from '../support/import-example';
import { waitUntil } from '../support/wait';

const ROOT = join(__dirname, '..', '..', '..');
/** Every example file, as `ASTM/generic-lis2a2-serial.json`: one folder per protocol. */
const EXAMPLES = readdirSync(join(ROOT, 'examples'), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) => readdirSync(join(ROOT, 'examples', d.name)).filter((f) => f.endsWith('.json')).map((f) => `${d.name}/${f}`));

let red: NodeRedProcess | undefined;
let browser: Browser | undefined;
let userDir: string;

before(async () => {
  userDir = mkdtempSync(join(tmpdir(), 'lis-examples-'));
  // Each example's tab on a free lis-push-in port: the defaults (8181, ...) may be held by a running demo.
  const flows = [];
  for (const f of EXAMPLES) {
    const flow = JSON.parse(readFileSync(join(ROOT, 'examples', f), 'utf8')) as Array<{ id: string; type: string }>;
    // A file instrument's example has no lis-push-in (it takes no orders), so no port to set.
    flows.push(f.startsWith('File/') ? flow : withTabEnv(flow, { LIS_PUSH_PORT: await freePort() }));
  }
  // The package as an integrator installs it, from its packed tarball (node-red-node-serialport comes with it).
  linkPackageInto(userDir);
  [red, browser] = await Promise.all([startNodeRed({ userDir, flows: combineFlows(...flows) }), launchChromium()]);
});

after(async () => {
  await releaseChromium(browser);
  await red?.stop();
  rmSync(userDir, { recursive: true, force: true });
});

describe('example flows in the editor', () => {
  it('every node of every example is known and valid', async () => {
    const firstNode = (JSON.parse(readFileSync(join(ROOT, 'examples', EXAMPLES[0]!), 'utf8')) as Array<{ id: string; type: string }>).find((n) => n.type === 'astm-link')!;
    const { page, pageErrors } = await openEditor(browser!, red!.url, firstNode.id);
    const problems = await page.evaluate(() => {
      type N = { id: string; type: string; name?: string; valid?: boolean; validationErrors?: string[]; _def?: unknown };
      const RED = (globalThis as unknown as { RED: { nodes: { eachNode(f: (n: N) => void): void; eachConfig(f: (n: N) => void): void } } }).RED;
      const out: string[] = [];
      const check = (n: N) => {
        if (n.type === 'unknown' || !n._def) out.push(`${n.type} ${n.id}: unknown type`);
        else if (n.valid === false) out.push(`${n.type} ${n.name ?? ''} ${n.id}: ${(n.validationErrors ?? []).join(', ')}`);
      };
      RED.nodes.eachNode(check);
      RED.nodes.eachConfig(check);
      return out;
    });
    assert.deepEqual(problems, []);
    assert.deepEqual(pageErrors, []);
  });
});

describe('two examples imported through Menu > Import > Examples', () => {
  let red2: NodeRedProcess | undefined;
  let dir2: string;
  after(async () => {
    await red2?.stop();
    if (dir2) rmSync(dir2, { recursive: true, force: true });
  });

  it('share one lis-config "LIS", and deploy side by side with every lis-push-in listening', async () => {
    dir2 = mkdtempSync(join(tmpdir(), 'lis-import-'));
    linkPackageInto(dir2);
    red2 = await startNodeRed({ userDir: dir2, flows: [{ id: 'start-tab', type: 'tab', label: 'Flow 1' }, { id: 'start-note', type: 'comment', name: 'an empty Node-RED', z: 'start-tab', x: 200, y: 60, wires: [] }] });
    const { page, pageErrors } = await openEditor(browser!, red2.url, 'start-note');

    type Tabs = { RED: { workspaces: { active(): string }; nodes: { workspace(id: string): { label: string } | undefined } } };
    const shownTab = () => page.evaluate(() => { const RED = (globalThis as unknown as Tabs).RED; return RED.nodes.workspace(RED.workspaces.active())?.label; });
    await importExample(page, 'ASTM/roche-cobas-e411-serial', { sharedLisThere: false });
    // The example's own tab is shown, not left behind the one that was in view.
    await waitUntil(async () => /cobas e 411/i.test((await shownTab()) ?? ''), 15000, async () => `the imported example's tab shown (shown: ${await shownTab()})`, 50);
    // The LIS config is in the workspace already: Node-RED asks, and its "Import copy" takes the one there.
    await importExample(page, 'HL7/mindray-cl2000i-hl7-tcp', { sharedLisThere: true });
    await waitUntil(async () => /CL-2000i/i.test((await shownTab()) ?? ''), 15000, async () => `the second example's tab shown (shown: ${await shownTab()})`, 50);

    // The integrator gives each analyzer its push port (double-click the tab > Environment Variables); free ones here.
    const ports = [await freePort(), await freePort()];
    const seen = await page.evaluate((pushPorts) => {
      type Env = { name: string; value: string; type: string };
      type N = { id: string; type: string; z?: string; name?: string; lis?: string; env?: Env[]; label?: string };
      const RED = (globalThis as unknown as {
        RED: { nodes: { eachConfig(f: (n: N) => void): void; eachNode(f: (n: N) => void): void; eachWorkspace(f: (n: N) => void): void; dirty(d: boolean): void } };
      }).RED;
      const tabs: N[] = [];
      RED.nodes.eachWorkspace((w) => {
        if (w.env) tabs.push(w);
      });
      tabs.forEach((t, i) => {
        t.env = t.env!.map((e) => (e.name === 'LIS_PUSH_PORT' ? { ...e, value: String(pushPorts[i]) } : e));
        (t as { changed?: boolean }).changed = true;
      });
      RED.nodes.dirty(true);
      const configs: N[] = [];
      RED.nodes.eachConfig((n) => {
        if (n.type === 'lis-config') configs.push(n);
      });
      const users: Array<{ tab: string; lis: string }> = [];
      RED.nodes.eachNode((n) => {
        if (n.lis !== undefined) users.push({ tab: tabs.find((t) => t.id === n.z)?.label ?? n.z ?? '', lis: n.lis });
      });
      return { tabs: tabs.map((t) => t.label), configs: configs.map((c) => ({ id: c.id, name: c.name, z: c.z })), users };
    }, ports);
    assert.deepEqual(seen.tabs, ['Roche cobas e 411', 'Mindray CL-1000i, CL-2000i, CL-2200i (HL7)']);
    assert.equal(seen.configs.length, 1, `one lis-config, not ${JSON.stringify(seen.configs)}`);
    assert.equal(seen.configs[0]!.name, 'LIS');
    assert.equal(seen.configs[0]!.z, undefined, 'the LIS is global, for every tab');
    for (const tab of seen.tabs) assert.ok(seen.users.some((u) => u.tab === tab), `${tab} has LIS nodes`);
    assert.deepEqual([...new Set(seen.users.map((u) => u.lis))], [seen.configs[0]!.id], 'every LIS node of both tabs uses it');

    await deploy(page);
    type Status = { name: string; fill: string; text: string };
    const pushStatus = () =>
      page.evaluate(() => {
        type N = { type: string; name?: string; status?: { fill?: string; text?: string } };
        const RED = (globalThis as unknown as { RED: { nodes: { eachNode(f: (n: N) => void): void } } }).RED;
        const out: Status[] = [];
        RED.nodes.eachNode((n) => {
          if (n.type === 'lis-push-in') out.push({ name: n.name ?? '', fill: n.status?.fill ?? 'none', text: n.status?.text ?? '' });
        });
        return out;
      });
    let statuses: Status[] = [];
    const bothShown = async () => {
      statuses = await pushStatus();
      return statuses.length === 2 && statuses.every((s) => s.fill !== 'none');
    };
    await waitUntil(bothShown, 30_000, () => `a status on both lis-push-in nodes after the deploy (have ${JSON.stringify(statuses)})`, 100);
    for (const s of statuses) assert.equal(s.fill, 'green', `lis-push-in: ${s.text}`);
    assert.deepEqual(statuses.map((s) => s.text.replace(/\D+/g, ' ').trim()).sort(), ports.map(String).sort(), 'each on its own tab\'s port');
    const deployed = (await (await fetch(`${red2.url}/flows`)).json()) as Array<{ type: string }>;
    assert.equal(deployed.filter((n) => n.type === 'lis-config').length, 1, 'one lis-config deployed');
    assert.deepEqual(pageErrors, []);
  });
});
