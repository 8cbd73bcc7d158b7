/**
 * The replay route's permissions in Node-RED as an integrator runs it, with
 * adminAuth: a dry run needs lis.read, a replay that may send needs
 * lis.write; without a token, or with one that lacks the permission, the
 * route answers 401 and nothing is replayed. The same for acting on held
 * results: lis.write, and no right to edit flows. The package is loaded from the
 * repository (nodesDir), the flow is one astm-link.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNodeRed, type NodeRedProcess } from '../support/node-red-process';
import { resultMessage } from '../support/result-message';

const ROOT = join(__dirname, '..', '..', '..');
const READER = 'reader-3f1c9a7e';
const WRITER = 'writer-8b2d4e61';
const VIEWER = 'viewer-51a0c3f9';

let userDir: string;
let red: NodeRedProcess | undefined;

before(async () => {
  userDir = mkdtempSync(join(tmpdir(), 'lis-replay-auth-'));
  red = await startNodeRed({
    userDir,
    flows: [
      { id: 'tab', type: 'tab', label: 'replay' },
      { id: 'lnk', z: 'tab', type: 'astm-link', trace: false, journal: false, wires: [[], [], []] },
      // Installs the routes a person acts on held results through.
      { id: 'tm', z: 'tab', type: 'test-mapper', direction: 'toLis', unmapped: 'warn', mapping: [], wires: [[], []] },
    ],
    settings: { nodesDir: [ROOT] },
    settingsCode: `module.exports.adminAuth = {
  type: 'credentials',
  users: [],
  tokens(token) {
    if (token === ${JSON.stringify(READER)}) return Promise.resolve({ username: 'reader', permissions: 'lis.read' });
    if (token === ${JSON.stringify(WRITER)}) return Promise.resolve({ username: 'writer', permissions: ['lis.read', 'lis.write'] });
    if (token === ${JSON.stringify(VIEWER)}) return Promise.resolve({ username: 'viewer', permissions: 'flows.read' });
    return Promise.resolve(null);
  },
};`,
  });
});

after(async () => {
  await red?.stop();
  rmSync(userDir, { recursive: true, force: true });
});

const replay = (body: Record<string, unknown>, token?: string) =>
  fetch(`${red!.url}/lis-bridge/links/lnk/replay`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ text: resultMessage('S-AUTH'), wait: 0, ...body }),
  });

describe('replay route permissions', () => {
  it('answers 401 without a token, and to a token without lis.read', async () => {
    assert.equal((await replay({})).status, 401);
    assert.equal((await replay({}, VIEWER)).status, 401);
  });

  it('lets lis.read make a dry run, not a replay that sends', async () => {
    const dry = await replay({ send: 'none' }, READER);
    assert.equal(dry.status, 200, await dry.clone().text());
    const report = (await dry.json()) as { mode: string; messages: number; id: string };
    assert.equal(report.mode, 'none');
    assert.equal(report.messages, 1);
    assert.equal((await replay({ send: 'new' }, READER)).status, 401);
    assert.equal((await replay({ send: 'all' }, READER)).status, 401);
    const read = await fetch(`${red!.url}/lis-bridge/replays/${report.id}`, { headers: { Authorization: `Bearer ${READER}` } });
    assert.equal(read.status, 200);
    assert.equal((await fetch(`${red!.url}/lis-bridge/replays/${report.id}`)).status, 401);
  });

  it('lets lis.write replay with sending', async () => {
    const res = await replay({ send: 'new' }, WRITER);
    assert.equal(res.status, 200, await res.clone().text());
  });
});

describe('held results: acting on them needs lis.write, not the right to edit flows', () => {
  const post = (path: string, body: Record<string, unknown>, token?: string) =>
    fetch(`${red!.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });
  const acts: Array<[string, Record<string, unknown>]> = [
    ['/lis-bridge/holds/send', { ids: ['h-none'] }],
    ['/lis-bridge/holds/dismiss', { ids: ['h-none'], note: 'entered by hand' }],
    ['/lis-bridge/holds/place', { id: 'h-none', sampleNumber: 'S-1' }],
  ];

  it('refuses Send, Place and Dismiss without a token, or with lis.read alone', async () => {
    for (const [path, body] of acts) {
      assert.equal((await post(path, body)).status, 401, path);
      assert.equal((await post(path, body, READER)).status, 401, path);
    }
    assert.equal((await fetch(`${red!.url}/lis-bridge/held`, { headers: { Authorization: `Bearer ${READER}` } })).status, 200, 'lis.read sees them');
  });

  it('lets lis.write act (here on a hold that does not exist: the refusal is the hold\'s, not the login\'s), and that login still cannot deploy flows', async () => {
    for (const [path, body] of acts) {
      const res = await post(path, body, WRITER);
      assert.equal(res.status, 409, `${path}: ${await res.clone().text()}`);
      assert.match(((await res.json()) as { message: string }).message, /no held results h-none/);
    }
    assert.equal((await post('/flows', { flows: [] }, WRITER)).status, 401, 'lis.write gives no right to edit flows');
  });
});
