/**
 * Three settings an integrator types into a dialog, walked as they do, with
 * the package installed from its packed tarball (test/e2e/harness.ts) into a
 * Node-RED of its own and Chromium on its editor:
 *
 *   - astm-link's "Largest message (bytes)" (maxMessageBytes),
 *   - hl7-link's "Most segments" (maxSegments),
 *   - lis-config's Proxy URL, user and password, opened from a lis-get-tests node.
 *
 * Each: the field with its label and default, invalid values flagged as
 * Node-RED flags them (a red border whose tooltip names the field and what to
 * set; after Done, the node's triangle listing the same), then a valid value,
 * Done, Deploy, and the deployed runtime shown to use it: an ASTM message past
 * the limit NAKed over TCP and discarded with a warning naming the setting, a
 * smaller one acknowledged; an HL7 message with more segments refused with AR, a
 * smaller one AA; a LIS request through the loopback proxy named (with its
 * credentials), none through the one in HTTP_PROXY (ignored, as the help says),
 * and the proxy's user and password absent from Export's JSON.
 */
import { connectWhenListening } from '../support/lis-editor';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Socket } from 'node:net';
import type { Browser, Locator, Page } from 'playwright-core';
import { installPackage, type Installation } from '../e2e/harness';
import { deploy, editNode, launchChromium, releaseChromium, openEditor, type EditorRed } from '../support/browser';
import { ForwardProxy } from '../support/forward-proxy';
import { LisStub } from '../support/lis-stub';
import { startNodeRed, type NodeRedProcess } from '../support/node-red-process';
import { freePort } from '../support/ports';
import { waitUntil } from '../support/wait';

const STX = 0x02;
const ETX = 0x03;
const EOT = 0x04;
const ENQ = 0x05;
const ACK = 0x06;
const NAK = 0x15;
const ETB = 0x17;

const TOKEN = 'settings-token-3d8e';
const PROXY_USER = 'proxy-user-7q4w';
const PROXY_PASSWORD = 'proxy-pass-9z2x';

let installation: Installation | undefined;
let red: NodeRedProcess | undefined;
let browser: Browser | undefined;
let page: Page;
let pageErrors: string[] = [];
let lis: LisStub | undefined;
/** The site's proxy in front of the LIS: named in lis-config. */
let siteProxy: ForwardProxy | undefined;
/** The process's internet proxy (HTTP_PROXY, HTTPS_PROXY): LIS requests must never take it. */
let envProxy: ForwardProxy | undefined;
let astmPort: number;
let hl7Port: number;

before(async () => {
  installation = installPackage();
  lis = await new LisStub().start();
  lis.reply('/tests', { body: { tests: [] } });
  siteProxy = await new ForwardProxy().start();
  siteProxy.credentials = `${PROXY_USER}:${PROXY_PASSWORD}`;
  envProxy = await new ForwardProxy().start();
  [astmPort, hl7Port] = [await freePort(), await freePort()];
  const tcpIn = (id: string, port: number, link: string, y: number) => ({ id, type: 'tcp in', z: 'tab1', name: '', server: 'server', host: '', port: String(port), datamode: 'stream', datatype: 'buffer', newline: '', topic: '', trim: false, base64: false, tls: '', x: 120, y, wires: [[link]] });
  const tcpOut = (id: string, y: number) => ({ id, type: 'tcp out', z: 'tab1', name: '', host: '', port: '', beserver: 'reply', base64: false, end: false, tls: '', x: 560, y, wires: [] });
  // The message as text in Node-RED's log: what the link passed on.
  const logged = (id: string, y: number) => [
    { id, type: 'function', z: 'tab1', name: `${id} text`, func: 'msg.payload = "delivered: " + Buffer.from(msg.payload).toString("latin1").replace(/\\r/g, " | "); return msg;', outputs: 1, x: 560, y, wires: [[`${id}Debug`]] },
    { id: `${id}Debug`, type: 'debug', z: 'tab1', name: '', active: true, tosidebar: false, console: true, tostatus: false, complete: 'payload', targetType: 'msg', x: 760, y, wires: [] },
  ];
  // Listed so that each node is started before those that send to it: a deploy answers before the flow has
  // started, and a message sent to a node not yet there is lost.
  const flows = [
    { id: 'tab1', type: 'tab', label: 'Settings' },
    { id: 'lis', type: 'lis-config', name: 'Site LIS', labTestsApiUrl: lis.url('/tests'), transactionInfoApiUrl: lis.url('/orders'), resultApiUrl: lis.url('/results'), timeout: '5000', credentials: { bearerToken: TOKEN } },
    tcpOut('astmOut', 40),
    ...logged('astmText', 100),
    { id: 'astm', type: 'astm-link', z: 'tab1', name: 'Chemistry (ASTM)', transport: 'tcp', x: 340, y: 80, wires: [['astmOut'], ['astmText'], []] },
    tcpIn('astmIn', astmPort, 'astm', 80),
    tcpOut('hl7Out', 180),
    ...logged('hl7Text', 240),
    { id: 'hl7', type: 'hl7-link', z: 'tab1', name: 'Immunoassay (HL7)', transport: 'tcp', x: 340, y: 220, wires: [['hl7Out'], ['hl7Text'], []] },
    tcpIn('hl7In', hl7Port, 'hl7', 220),
    { id: 'getTests', type: 'lis-get-tests', z: 'tab1', name: 'LIS catalog', lis: 'lis', filterName: '', filterCode: '', x: 340, y: 340, wires: [[], []] },
    { id: 'ask', type: 'inject', z: 'tab1', name: 'ask the catalog', props: [{ p: 'payload' }], payload: '', payloadType: 'str', repeat: '', once: false, x: 120, y: 340, wires: [['getTests']] },
  ];
  // The internet proxy in the environment, loopback included: the help says LIS requests ignore it.
  const env = { HTTP_PROXY: envProxy.url, HTTPS_PROXY: envProxy.url, http_proxy: envProxy.url, https_proxy: envProxy.url, NO_PROXY: '', no_proxy: '' };
  [red, browser] = await Promise.all([startNodeRed({ userDir: installation.userDir, flows, env }), launchChromium()]);
  ({ page, pageErrors } = await openEditor(browser, red.url, 'astm', { width: 1400, height: 1000 }));
});

after(async () => {
  await releaseChromium(browser);
  await red?.stop();
  await siteProxy?.stop();
  await envProxy?.stop();
  await lis?.stop();
  installation?.remove();
});

// ----- the editor -----

const nodeProperty = (id: string, key: string) =>
  page.evaluate(([nodeId, name]) => ((globalThis as unknown as { RED: EditorRed }).RED.nodes.node(nodeId!) as Record<string, unknown>)[name!], [id, key]);

/** Types `value` into the field and leaves it, as an integrator does (Node-RED validates on change). */
async function typeInto(field: Locator, value: string): Promise<void> {
  await field.fill(value);
  await field.press('Tab');
}

/** The field is flagged (red border) and its tooltip, on hover, says `message`. */
async function assertFlagged(field: Locator, message: string): Promise<void> {
  assert.match((await field.getAttribute('class')) ?? '', /\binput-error\b/, `${await field.inputValue()} flagged`);
  await field.hover();
  await page.locator('.red-ui-popover', { hasText: message }).waitFor({ state: 'visible', timeout: 5000 });
  // Away from the field, so the tooltip goes before the next one is looked for.
  await page.mouse.move(5, 5);
  await page.locator('.red-ui-popover', { hasText: message }).waitFor({ state: 'hidden', timeout: 5000 });
}

async function assertNotFlagged(field: Locator): Promise<void> {
  assert.doesNotMatch((await field.getAttribute('class')) ?? '', /\binput-error\b/, `${await field.inputValue()} not flagged`);
}

/** The red triangle on the node in the workspace, shown or not. */
async function triangle(id: string, state: 'visible' | 'hidden'): Promise<void> {
  await page.locator(`#red-ui-workspace-chart g.red-ui-flow-node-group[id="${id}"] .red-ui-flow-node-error`).first().waitFor({ state, timeout: 5000 });
}

async function done(): Promise<void> {
  await page.locator('#node-dialog-ok').click();
  await page.locator('#node-dialog-ok').waitFor({ state: 'detached' });
}

/**
 * A numeric setting's journey in its node's dialog: its label and default,
 * each of `invalid` flagged with `message`, the node's triangle after Done with
 * one of them, then `valid` taken and the node deployed.
 */
async function walkNumericSetting(id: string, key: string, label: string, placeholder: string, invalid: string[], message: string, valid: string): Promise<void> {
  await editNode(page, id);
  const field = page.locator(`#node-input-${key}`);
  assert.equal((await page.locator(`label[for="node-input-${key}"]`).textContent())?.trim(), label);
  assert.equal(await field.getAttribute('placeholder'), placeholder);
  // Unset in the flow: empty, the default shown greyed.
  assert.equal(await field.inputValue(), '');
  for (const value of invalid) {
    await typeInto(field, value);
    await assertFlagged(field, message);
  }
  await done();
  assert.equal(await nodeProperty(id, 'valid'), false);
  assert.ok(((await nodeProperty(id, 'validationErrors')) as string[]).some((e) => e.startsWith(message)), `the triangle's list names ${label}`);
  await triangle(id, 'visible');

  await editNode(page, id);
  await typeInto(field, valid);
  await assertNotFlagged(field);
  await done();
  assert.equal(await nodeProperty(id, key), valid);
  assert.equal(await nodeProperty(id, 'valid'), true);
  await triangle(id, 'hidden');
  await deploy(page);
}

// ----- the analyzer ends -----


/** Bytes read from a socket, awaited one answer at a time. */
class Reader {
  private buffer = Buffer.alloc(0);
  constructor(socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
    });
  }

  /** Waits until `take` finds an answer in what was read (returning its end), and returns that answer. */
  async next(take: (b: Buffer) => number, what: string, timeoutMs = 10_000): Promise<Buffer> {
    let end = 0;
    await waitUntil(() => (end = take(this.buffer)) > 0, timeoutMs, () => `${what} (read: ${JSON.stringify(this.buffer.toString('latin1'))})`);
    const answer = this.buffer.subarray(0, end);
    this.buffer = this.buffer.subarray(end);
    return answer;
  }
}

/** An E1381 frame: STX FN text ETB|ETX checksum CR LF. */
function astmFrame(fn: number, text: string, last: boolean): Buffer {
  const body = Buffer.concat([Buffer.from(String(fn % 8), 'latin1'), Buffer.from(text, 'latin1'), Buffer.from([last ? ETX : ETB])]);
  const sum = body.reduce((a, b) => (a + b) & 0xff, 0);
  return Buffer.concat([Buffer.from([STX]), body, Buffer.from(`${sum.toString(16).toUpperCase().padStart(2, '0')}\r\n`, 'latin1')]);
}

/** An ASTM message (records CR-ended) of `results` result records for `sample`. */
function astmMessage(sample: string, results: number): string {
  const records = ['H|\\^&|||Analyzer^1.0|||||||P|1', 'P|1', `O|1|${sample}||^^^GLU`];
  for (let i = 1; i <= results; i++) records.push(`R|${i}|^^^T${String(i).padStart(3, '0')}|${(i % 90) + 1}.${i % 10}|mmol/L||N||F||||20260101120000`);
  records.push('L|1|N');
  return records.map((r) => `${r}\r`).join('');
}

/**
 * Sends `text` as the analyzer does: ENQ, frames of at most 240 characters,
 * EOT. Returns the link's reply to each frame; after a NAK it gives up
 * (EOT), as an analyzer does once its retries are spent.
 */
async function sendAstm(socket: Socket, reader: Reader, text: string): Promise<string[]> {
  const one = (b: Buffer) => (b.length > 0 ? 1 : 0);
  socket.write(Buffer.from([ENQ]));
  assert.equal((await reader.next(one, 'reply to ENQ'))[0], ACK);
  const parts = text.match(/[\s\S]{1,240}/g)!;
  const replies: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    socket.write(astmFrame(i + 1, parts[i]!, i === parts.length - 1));
    const reply = (await reader.next(one, `reply to frame ${i + 1}`))[0];
    replies.push(reply === ACK ? 'ACK' : reply === NAK ? 'NAK' : `0x${reply!.toString(16)}`);
    if (reply !== ACK) break;
  }
  socket.write(Buffer.from([EOT]));
  return replies;
}

/** An HL7 v2.3.1 ORU^R01 of `segments` segments in all, MLLP-framed. */
function hl7Message(controlId: string, segments: number): Buffer {
  const lines = [`MSH|^~\\&|Analyzer|Lab|LIS|Hospital|20260101120000||ORU^R01|${controlId}|P|2.3.1`, 'PID|1||P1', `OBR|1|${controlId}-S|${controlId}-S|^^^Panel`];
  for (let i = 1; lines.length < segments; i++) lines.push(`OBX|${i}|NM|T${i}^Test ${i}||${i}.5|mmol/L|||||F`);
  return Buffer.concat([Buffer.from([0x0b]), Buffer.from(lines.map((l) => `${l}\r`).join(''), 'latin1'), Buffer.from([0x1c, 0x0d])]);
}

/** The MSA segment of the next MLLP answer, and its ERR if any. */
async function hl7Answer(reader: Reader): Promise<{ msa: string[]; err: string }> {
  const frame = (await reader.next((b) => (b.indexOf('\x1c\r', 0, 'latin1') >= 0 ? b.indexOf('\x1c\r', 0, 'latin1') + 2 : 0), 'an MLLP answer')).toString('latin1');
  const segments = frame.replace(/^\x0b|\x1c\r$/g, '').split('\r');
  return { msa: (segments.find((s) => s.startsWith('MSA|')) ?? '').split('|'), err: segments.find((s) => s.startsWith('ERR|')) ?? '' };
}

// ----- the journeys -----

describe('settings typed in the dialogs reach the deployed runtime', () => {
  it('astm-link "Largest message (bytes)": invalid values flagged by name, 2048 deployed, a larger message NAKed and discarded naming the setting, a smaller one acknowledged', async () => {
    const message = 'Largest message (bytes): set a whole number from 1024 to 268435456, or leave it empty for the default (8388608)';
    // Above 256 MiB the journal could not store the message (nodes/shared/node-settings.ts); 1e20 would mean no limit.
    await walkNumericSetting('astm', 'maxMessageBytes', 'Largest message (bytes)', '8388608', ['0', '-5', 'abc', '1023', '2048.5', '268435457', '100000000000000000000'], message, '2048');

    const socket = await connectWhenListening(astmPort);
    try {
      const reader = new Reader(socket);
      const large = astmMessage('BIG-1', 60);
      assert.ok(large.length > 2400, `${large.length} characters`);
      const replies = await sendAstm(socket, reader, large);
      // The frames within 2048 characters are taken; the one that would pass them is NAKed.
      assert.deepEqual(replies, [...Array(Math.floor(2048 / 240)).fill('ACK'), 'NAK']);
      await red!.waitForLog(/partial message discarded \(\d+ bytes\): message larger than 2048 bytes, refused with NAK: raise Largest message \(bytes\) on the astm-link/, 10_000);

      const small = astmMessage('SMALL-1', 3);
      assert.ok(small.length < 2048);
      assert.deepEqual(await sendAstm(socket, reader, small), ['ACK']);
      await red!.waitForLog(/delivered: H\|.* \| O\|1\|SMALL-1\|/, 10_000);
      assert.doesNotMatch(red!.output(), /delivered: .*BIG-1/, 'nothing of the refused message passed on');
    } finally {
      socket.destroy();
    }
    assert.deepEqual(pageErrors, []);
  });

  it('hl7-link "Most segments": invalid values flagged by name, 20 deployed, a message of 25 segments refused with AR naming the limit, one of 15 taken with AA', async () => {
    const message = 'Most segments: set a whole number of at least 10, or leave it empty for the default (10000)';
    await walkNumericSetting('hl7', 'maxSegments', 'Most segments', '10000', ['0', '-5', 'abc', '9', '1e3'], message, '20');

    const socket = await connectWhenListening(hl7Port);
    try {
      const reader = new Reader(socket);
      socket.write(hl7Message('OVER-1', 25));
      const refused = await hl7Answer(reader);
      assert.equal(refused.msa[1], 'AR');
      assert.equal(refused.msa[2], 'OVER-1');
      assert.match(refused.err, /the message has 25 segments, more than the 20 this link accepts/);
      await red!.waitForLog(/a message of 25 segments, more than the 20 this link accepts, refused: raise Most segments on the hl7-link/, 10_000);

      socket.write(hl7Message('UNDER-1', 15));
      const taken = await hl7Answer(reader);
      assert.equal(taken.msa[1], 'AA');
      assert.equal(taken.msa[2], 'UNDER-1');
      await red!.waitForLog(/delivered: MSH\|.*\|UNDER-1\|/, 10_000);
      assert.doesNotMatch(red!.output(), /delivered: .*OVER-1/, 'nothing of the refused message passed on');
    } finally {
      socket.destroy();
    }
    assert.deepEqual(pageErrors, []);
  });

  it('lis-config\'s proxy: a bad Proxy URL flagged by name, the proxy with its user and password deployed, the LIS request through it (none through HTTP_PROXY), no credential in Export', async () => {
    // Before: straight to the LIS, whatever the environment says.
    await red!.inject('ask');
    await waitUntil(() => lis!.to('/tests').length === 1, 10_000, 'the first catalog request at the LIS', 50);
    assert.equal(siteProxy!.forwarded.length + envProxy!.forwarded.length + envProxy!.tunnels.length, 0, 'no proxy before one is set');

    // From the node that uses it, as the integrator opens it: the pencil beside its LIS.
    await editNode(page, 'getTests');
    await page.locator('#node-input-btn-lis-edit').click();
    await page.locator('#node-config-dialog-ok').waitFor({ state: 'visible' });
    const url = page.locator('#node-config-input-proxyUrl');
    await url.waitFor({ state: 'visible' });
    assert.equal((await page.locator('label[for="node-config-input-proxyUrl"]').textContent())?.trim(), 'Proxy URL');
    assert.equal((await page.locator('label[for="node-config-input-proxyUsername"]').textContent())?.trim(), 'Proxy user');
    assert.equal((await page.locator('label[for="node-config-input-proxyPassword"]').textContent())?.trim(), 'Proxy password');
    assert.equal(await url.getAttribute('placeholder'), 'empty = straight to the LIS, e.g. http://proxy.hospital.local:3128');
    assert.equal(await url.inputValue(), '');
    assert.equal(await page.locator('#node-config-input-proxyPassword').getAttribute('type'), 'password');
    const message = 'Proxy URL: set http://host:port (the user name and password go in Proxy user and Proxy password, never in the URL; no path)';
    for (const bad of ['proxy.hospital.local:3128', 'not a url', `http://${PROXY_USER}:${PROXY_PASSWORD}@127.0.0.1:3128`, 'https://127.0.0.1:3128', 'http://127.0.0.1:3128/path']) {
      await typeInto(url, bad);
      await assertFlagged(url, message);
    }
    // An address emptied by mistake is named by its label too.
    const testsUrl = page.locator('#node-config-input-labTestsApiUrl');
    await typeInto(testsUrl, '');
    await assertFlagged(testsUrl, 'LabTestsAPI URL: required, set a URL or ${ENV_VAR}');
    // A user name and password in a LIS address would be exported with the flow: flagged, whatever the scheme.
    const withCredentials = lis!.url('/tests').replace('://', '://lab:secret@');
    await typeInto(testsUrl, withCredentials);
    await assertFlagged(testsUrl, 'LabTestsAPI URL: no user name or password in the address');
    await typeInto(testsUrl, lis!.url('/tests'));
    await assertNotFlagged(testsUrl);
    // Done with the credentials in the URL: the config and the node that uses it show the triangle.
    await page.locator('#node-config-dialog-ok').click();
    await page.locator('#node-config-dialog-ok').waitFor({ state: 'detached' });
    await done();
    assert.equal(await nodeProperty('lis', 'valid'), false);
    assert.ok(((await nodeProperty('lis', 'validationErrors')) as string[]).some((e) => e.startsWith(message)));
    assert.equal(await nodeProperty('getTests', 'valid'), false);
    await triangle('getTests', 'visible');

    await editNode(page, 'getTests');
    await page.locator('#node-input-btn-lis-edit').click();
    await url.waitFor({ state: 'visible' });
    await typeInto(url, siteProxy!.url);
    await assertNotFlagged(url);
    await page.locator('#node-config-input-proxyUsername').fill(PROXY_USER);
    await page.locator('#node-config-input-proxyPassword').fill(PROXY_PASSWORD);
    await page.locator('#node-config-dialog-ok').click();
    await page.locator('#node-config-dialog-ok').waitFor({ state: 'detached' });
    await done();
    assert.equal(await nodeProperty('lis', 'valid'), true);
    assert.equal(await nodeProperty('getTests', 'valid'), true);
    await triangle('getTests', 'hidden');
    await deploy(page);

    await red!.inject('ask');
    await waitUntil(() => lis!.to('/tests').length === 2, 10_000, 'the second catalog request at the LIS', 50);
    assert.equal(siteProxy!.forwarded.length, 1, 'the request went through the site proxy');
    const through = siteProxy!.forwarded[0]!;
    assert.equal(through.url, lis!.url('/tests'), 'forwarded to the LIS, by absolute URI');
    assert.equal(through.headers['proxy-authorization'], `Basic ${Buffer.from(`${PROXY_USER}:${PROXY_PASSWORD}`).toString('base64')}`);
    assert.equal(through.headers.authorization, `Bearer ${TOKEN}`);
    // The proxy passes it on without its own credentials.
    assert.equal(lis!.to('/tests')[1]!.headers['proxy-authorization'], undefined);
    assert.equal(envProxy!.forwarded.length + envProxy!.tunnels.length, 0, 'HTTP_PROXY / HTTPS_PROXY never used');

    // Export > All flows > the clipboard JSON: the URL, never the user or password.
    await page.locator('#red-ui-header-button-sidemenu').click();
    await page.locator('#menu-item-export').click();
    await page.locator('#red-ui-clipboard-dialog-export-rng-full').click();
    const exported = await page.locator('#red-ui-clipboard-dialog-export-text').inputValue();
    await page.keyboard.press('Escape');
    const config = (JSON.parse(exported) as Array<Record<string, unknown>>).find((n) => n.id === 'lis')!;
    assert.equal(config.proxyUrl, siteProxy!.url);
    assert.ok(!exported.includes(PROXY_USER) && !exported.includes(PROXY_PASSWORD) && !exported.includes(TOKEN), 'no proxy credential nor token in the export');
    // They are in the credentials, encrypted on disk.
    const creds = (await (await fetch(`${red!.url}/credentials/lis-config/lis`)).json()) as Record<string, unknown>;
    assert.equal(creds.proxyUsername, PROXY_USER);
    assert.equal(creds.has_proxyPassword, true);
    assert.equal(creds.proxyPassword, undefined, 'the password never comes back to the editor');
    const onDisk = readFileSync(join(installation!.userDir, 'flows_cred.json'), 'utf8') + readFileSync(join(installation!.userDir, 'flows.json'), 'utf8');
    assert.ok(!onDisk.includes(PROXY_USER) && !onDisk.includes(PROXY_PASSWORD), 'not in clear on disk');
    assert.deepEqual(pageErrors, []);
  });
});
