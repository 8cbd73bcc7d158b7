/**
 * The Lab sidebar for a login that may look and not act, in a real editor on the packed package with Node-RED's
 * adminAuth on: a technologist with lis.read and no lis.write sees the result held for a person and the batch the
 * LIS refused, with every button that acts (Send, Dismiss, Resend, Discard) off and a line saying which permission
 * acting needs; the same sidebar for a login with lis.write has them on, and its Dismiss works.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, openEditor, releaseChromium, waitForText } from '../support/browser';
import { linkPackageInto } from '../support/installed-package';
import { astmUpload, benchChemistryFlow, keepElementShot, sendAstmTransfer } from '../support/lis-editor';
import { LisStub } from '../support/lis-stub';
import { startNodeRed, type NodeRedProcess } from '../support/node-red-process';
import { freePort } from '../support/ports';
import { TEST_BRIDGE_SETTINGS } from '../support/runtime-settings';
import { waitUntil } from '../support/wait';

const LOOKER = 'looker-6e2a90d4';
const ACTOR = 'actor-c4b81f37';
const ADMIN = 'admin-0d93e7a2';
const TOKEN = 'lab-permission-lis-5a1c';
/** The LIS refuses this sample's results: its batch is held for an operator. */
const REFUSED = 'S-REF';

let work: string;
let stub: LisStub;
let red: NodeRedProcess | undefined;
let browser: Browser | undefined;
let port: number;

function flows(): Array<Record<string, unknown>> {
  return benchChemistryFlow({ stub, port, token: TOKEN, mapping: [{ lisTestId: 'T-GLU', lisCode: 'GLU', lisName: 'Glucose', instrumentCode: 'GLU' }] });
}

const asUser = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'lis-lab-permission-'));
  stub = await new LisStub().start();
  stub.reply('/tests', { body: { tests: [{ ID: 'T-GLU', Code: 'GLU', Name: 'Glucose' }] } });
  stub.handle('/results', (req) => (JSON.stringify(req.json).includes(`"${REFUSED}"`) ? { status: 400, body: { message: 'SampleNumber not accepted', errors: [] } } : { body: { status: 'success' } }));
  stub.reply('/processed', { body: { status: 'success' } });
  port = await freePort();
  linkPackageInto(work);
  [red, browser] = await Promise.all([
    startNodeRed({
      userDir: work,
      settings: { lisBridge: { ...TEST_BRIDGE_SETTINGS } },
      settingsCode: `module.exports.adminAuth = {
  type: 'credentials',
  users: [],
  tokens(token) {
    if (token === ${JSON.stringify(LOOKER)}) return Promise.resolve({ username: 'looker', permissions: ['read', 'lis.read'] });
    if (token === ${JSON.stringify(ACTOR)}) return Promise.resolve({ username: 'actor', permissions: ['read', 'lis.read', 'lis.write'] });
    if (token === ${JSON.stringify(ADMIN)}) return Promise.resolve({ username: 'admin', permissions: '*' });
    return Promise.resolve(null);
  },
};`,
    }),
    launchChromium(),
  ]);
  const deployed = await fetch(`${red.url}/flows`, { method: 'POST', headers: { ...asUser(ADMIN), 'Node-RED-Deployment-Type': 'full' }, body: JSON.stringify(flows()) });
  assert.equal(deployed.status, 204, await deployed.text());
  // A result no LIS test is mapped for (K, held for a person), and a sample whose results the LIS refuses (a held batch).
  await waitUntil(async () => (await fetch(`${red!.url}/lis-bridge/held`, { headers: asUser(LOOKER) })).ok, 15000, 'the held route up');
  await sendAstmTransfer(port, astmUpload('S-300', [['GLU', '5.1'], ['K', '4.2']]));
  await sendAstmTransfer(port, astmUpload(REFUSED, [['GLU', '6.0']]));
  await waitUntil(async () => {
    const held = (await (await fetch(`${red!.url}/lis-bridge/held`, { headers: asUser(LOOKER) })).json()) as { holds: unknown[]; batches: unknown[] };
    return held.holds.length === 1 && held.batches.length === 1;
  }, 15000, 'K held for a person and the refused batch held');
});

after(async () => {
  await releaseChromium(browser);
  await red?.stop();
  await stub?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** The editor as `token`'s user (the editor keeps a token given as ?access_token), with the Lab sidebar shown. */
async function labSidebarAs(token: string): Promise<{ page: Page; pageErrors: string[] }> {
  const opened = await openEditor(browser!, `${red!.url}/?access_token=${token}`, 'tm', { width: 1280, height: 1700 });
  await opened.page.evaluate(() => (globalThis as unknown as { RED: { sidebar: { show(id: string): void } } }).RED.sidebar.show('lis-lab'));
  await opened.page.locator('.lis-lab-holds .lis-lab-hold[data-code="K"]').waitFor({ state: 'visible', timeout: 15000 });
  await opened.page.locator('.lis-lab-held .lis-lab-batch').waitFor({ state: 'visible', timeout: 15000 });
  return opened;
}

const ACTIONS = ['.lis-lab-hold-send', '.lis-lab-hold-dismiss', '.lis-lab-resend', '.lis-lab-discard'];

describe('the Lab sidebar and the permission lis.write', () => {
  it('shows a login with lis.read what is held, with the buttons that act off and a line naming the permission', async () => {
    const { page, pageErrors } = await labSidebarAs(LOOKER);
    try {
      await waitForText(page.locator('.lis-lab-read-only'), /^Your login may look, not act: Send, Place, Dismiss, Resend, Discard and Replay need the permission lis\.write/);
      for (const action of ACTIONS) assert.equal(await page.locator(action).first().isDisabled(), true, `${action} is off`);
      await waitForText(page.locator('.lis-lab-holds .lis-lab-samples'), 'S-300');
      await waitForText(page.locator('.lis-lab-held .lis-lab-samples'), REFUSED);
      // The package's own panel: the editor's sidebar around it differs between Node-RED 4 and 5.
      await keepElementShot(page.locator('.lis-lab').first(), 'lab-read-only.png');
      // The route says no as well, whatever a page does.
      const res = await fetch(`${red!.url}/lis-bridge/holds/dismiss`, { method: 'POST', headers: asUser(LOOKER), body: JSON.stringify({ ids: ['x'], note: 'n' }) });
      assert.equal(res.status, 401);
      assert.deepEqual(pageErrors, []);
    } finally {
      await page.context().close();
    }
  });

  it('gives a login with lis.write the same sidebar with its buttons on, and its Dismiss ends the held result', async () => {
    const { page, pageErrors } = await labSidebarAs(ACTOR);
    try {
      assert.equal(await page.locator('.lis-lab-read-only').count(), 0, 'no read-only line');
      for (const action of ACTIONS) assert.equal(await page.locator(action).first().isDisabled(), false, `${action} is on`);
      page.once('dialog', (d) => void d.accept('potassium reported by the ISE module'));
      const hold = page.locator('.lis-lab-holds .lis-lab-hold[data-code="K"]');
      await hold.locator('.lis-lab-hold-dismiss').click();
      await hold.waitFor({ state: 'detached', timeout: 15000 });
      const held = (await (await fetch(`${red!.url}/lis-bridge/held`, { headers: asUser(ACTOR) })).json()) as { holds: unknown[] };
      assert.deepEqual(held.holds, []);
      assert.deepEqual(pageErrors, []);
    } finally {
      await page.context().close();
    }
  });
});
