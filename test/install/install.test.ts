/**
 * The package as an integrator gets it: `npm pack`, `npm install <tarball>` into a
 * fresh Node-RED userDir, Node-RED started from it. Every node must load
 * with no warning, and a deployed Bearer Token must stay out of the flows.
 * The tarball itself must carry what npm and the Flow Library show (the README's
 * images) and nothing that only makes sense beside the sources (source maps).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:net';
import { installPackage, packedPackage, type Installation } from '../support/installed-package';
import { startNodeRed, type NodeRedProcess } from '../support/node-red-process';
import { freePort } from '../support/ports';
import { waitUntil } from '../support/wait';

const ROOT = join(__dirname, '..', '..', '..');
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; 'node-red': { nodes: Record<string, string> } };
const TYPES = Object.keys(PKG['node-red'].nodes);
const TOKEN = 'install-test-token-9d2e';

let installation: Installation | undefined;
let userDir: string;
let tarball: string;
let red: NodeRedProcess | undefined;

before(async () => {
  installation = installPackage();
  userDir = installation.userDir;
  tarball = packedPackage().tarball;
  red = await startNodeRed({ userDir });
});

after(async () => {
  await red?.stop();
  installation?.remove();
});

describe('the packed tarball', () => {
  const entries = () => execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n').filter((e) => e !== '');

  it('holds no source map (they point at .ts sources that do not ship)', () => {
    assert.deepEqual(entries().filter((e) => e.endsWith('.map')), []);
  });

  it('holds every image README.md shows, so they display on npm and in the Flow Library', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const markdown = [...readme.matchAll(/!\[[^\]]*\]\(\s*<?([^)\s>]+)/g)].map((m) => m[1]!);
    const html = [...readme.matchAll(/<img\b[^>]*\bsrc=["']([^"']+)["']/gi)].map((m) => m[1]!);
    const local = [...markdown, ...html].filter((src) => !/^[a-z][a-z0-9+.-]*:/i.test(src)).map((src) => src.replace(/^\.\//, '').replace(/[?#].*$/, ''));
    assert.ok(local.length > 0, `found only ${JSON.stringify(local)} in README.md: did its image syntax change?`);
    const shipped = new Set(entries());
    assert.deepEqual(local.filter((src) => !shipped.has(`package/${src}`)), []);
  });
});

describe('installed into a fresh Node-RED userDir', () => {
  it('loads every node of the package, enabled and without error', async () => {
    const res = await fetch(`${red!.url}/nodes`, { headers: { Accept: 'application/json' } });
    const sets = (await res.json()) as Array<{ module: string; name: string; types: string[]; enabled: boolean; err?: string }>;
    const ours = sets.filter((s) => s.module === PKG.name);
    assert.deepEqual(ours.map((s) => s.name).sort(), [...TYPES].sort());
    for (const set of ours) {
      assert.equal(set.err, undefined, `${set.name}: ${set.err}`);
      assert.equal(set.enabled, true, `${set.name} enabled`);
      assert.deepEqual(set.types, [set.name]);
    }
  });

  it('logs no warning or error while starting', () => {
    // Node-RED's own notices about its own features, printed whatever is installed:
    // a first start (no credentials yet) and the Projects feature being off.
    const firstStart = /Encrypted credentials not found|Projects disabled/;
    const bad = red!.output().split('\n').filter((l) => /\[(warn|error)\]/.test(l) && !firstStart.test(l));
    assert.deepEqual(bad, []);
  });

  it('serves each node editor definition, help and message catalog', async () => {
    const html = await (await fetch(`${red!.url}/nodes`, { headers: { Accept: 'text/html' } })).text();
    for (const type of TYPES) {
      // The two analyzer links register through the dialog script they share (nodes/_include/link-dialog.js).
      assert.ok(html.includes(`RED.nodes.registerType('${type}'`) || html.includes(`registerLink('${type}'`), `editor definition of ${type}`);
      assert.ok(html.includes(`data-template-name="${type}"`), `edit dialog of ${type}`);
      assert.ok(html.includes(`data-help-name="${type}"`), `help of ${type}`);
      const catalog = (await (await fetch(`${red!.url}/locales/${PKG.name}/${type}?lng=en-US`)).json()) as Record<string, unknown>;
      assert.ok(catalog[type], `message catalog of ${type}`);
    }
    assert.match(html, /data-palette-type|category: 'LIS'|category: "LIS"/);
    assert.match(html, /function registerLink\(type, own\) \{\s*RED\.nodes\.registerType\(type,/, 'the shared link registration is served');
    // The dialect section the message dialogs share ships in the package too.
    const script = await fetch(`${red!.url}/lis-bridge/editor/dialect-editor.js`);
    assert.equal(script.status, 200);
    assert.match(await script.text(), /LisBridgeDialectEditor/);
    // And the pointing part it fetches (nodes/editor/dialect-pointing.js).
    const pointing = await fetch(`${red!.url}/lis-bridge/editor/dialect-pointing.js`);
    assert.equal(pointing.status, 200);
    assert.match(await pointing.text(), /LisBridgeDialectPointing/);
  });

  it('offers every example flow under Import > Examples', async () => {
    // One folder per protocol (docs/examples.md): the package's entry lists the folders, each folder its flows.
    const list = async (path: string) => (await (await fetch(`${red!.url}/library/examples/flows/${PKG.name}${path}`)).json()) as Array<string | { fn: string }>;
    const folders = (await list('')).sort();
    assert.deepEqual(folders, ['ASTM', 'File', 'HL7']);
    for (const folder of folders as string[]) {
      const names = (await list(`/${folder}`)).map((e) => (typeof e === 'string' ? `${e}/` : e.fn)).sort();
      const files = readdirSync(join(ROOT, 'examples', folder)).filter((f) => f.endsWith('.json')).map((f) => f.replace(/\.json$/, '')).sort();
      assert.ok(files.length >= 2, folder);
      assert.deepEqual(names, files, folder);
    }
    // And a flow opens at its path, as the editor's Import asks for it.
    const flow = (await list('/ASTM/generic-lis2a2-serial')) as unknown as Array<{ type: string }>;
    assert.ok(flow.some((n) => n.type === 'astm-link'));
  });

  it('keeps the Bearer Token and the push-in token out of the flows, the exported flows and the logs', async () => {
    const PUSH_TOKEN = 'push-in-token-9d27e1-SECRET';
    const pushPort = await freePort();
    const flows = [
      { id: 'tab1', type: 'tab', label: 'LIS' },
      { id: 'cfg', type: 'lis-config', name: 'site LIS', transactionInfoApiUrl: 'http://127.0.0.1:9/orders', credentials: { bearerToken: TOKEN } },
      { id: 'o', type: 'lis-get-order', z: 'tab1', lis: 'cfg', x: 200, y: 100, wires: [[], []] },
      { id: 'push', type: 'lis-push-in', z: 'tab1', name: 'pushed orders', localApiAddress: '127.0.0.1', localApiPort: String(pushPort), x: 200, y: 160, wires: [[]], credentials: { authToken: PUSH_TOKEN } },
    ];
    const deploy = await fetch(`${red!.url}/flows`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Node-RED-Deployment-Type': 'full' },
      body: JSON.stringify(flows),
    });
    assert.equal(deploy.status, 204);
    const exported = await (await fetch(`${red!.url}/flows`)).text();
    assert.ok(exported.includes('site LIS'));
    assert.ok(!exported.includes(TOKEN), 'token in GET /flows');
    const creds = (await (await fetch(`${red!.url}/credentials/lis-config/cfg`)).json()) as Record<string, unknown>;
    // Passwords only say whether they are set; the proxy's user name is no secret and shows as text.
    assert.deepEqual(creds, { has_bearerToken: true, has_proxyPassword: false, proxyUsername: '' });
    assert.ok(!readFileSync(join(userDir, 'flows.json'), 'utf8').includes(TOKEN), 'token in flows.json');
    assert.ok(!readFileSync(join(userDir, 'flows_cred.json'), 'utf8').includes(TOKEN), 'token in clear in flows_cred.json');
    assert.ok(!red!.output().includes(TOKEN), 'token in the log');

    // The push-in token: required of callers, and kept like the Bearer Token.
    const push = (token: string) =>
      fetch(`http://127.0.0.1:${pushPort}/api/getSampleData`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` }, body: '{}' });
    // lis-push-in listens a moment after the deploy is accepted.
    await waitUntil(() => listening(pushPort), 10000, `lis-push-in listening on ${pushPort}`, 50);
    assert.equal((await push('wrong-token')).status, 401);
    assert.notEqual((await push(PUSH_TOKEN)).status, 401);
    const pushCreds = (await (await fetch(`${red!.url}/credentials/lis-push-in/push`)).json()) as Record<string, unknown>;
    assert.deepEqual(pushCreds, { has_authToken: true });
    const after = await (await fetch(`${red!.url}/flows`)).text();
    for (const [where, text] of [
      ['GET /flows', after],
      ['flows.json', readFileSync(join(userDir, 'flows.json'), 'utf8')],
      ['flows_cred.json', readFileSync(join(userDir, 'flows_cred.json'), 'utf8')],
      ['the log', red!.output()],
    ] as const) {
      assert.ok(!text.includes(PUSH_TOKEN), `push-in token in ${where}`);
    }
  });
});

/** Whether something accepts connections on the loopback port. */
function listening(port: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}
