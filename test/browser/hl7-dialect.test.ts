/**
 * hl7-message's dialect section in a real browser: Node-RED runs as its own
 * process with the package loaded from the repository, Chromium drives the
 * editor. The integrator starts from the generic HL7 dialect and pastes an
 * EDAN i15 capture whose test codes it reads from OBX-3 (the EDAN's result
 * group, `0` for every analyte), sets the override that reads them from
 * OBX-4, sees the preview change, and deploys; the same capture sent over
 * TCP through the deployed flow then reaches a loopback LIS once, under the
 * codes the override reads. Replayed from the dialog through the deployed
 * flow (a dry run), it is reported as at the LIS already.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { LisStub } from '../support/lis-stub';
import { freePort } from '../support/ports';
import { loadHl7Fixture } from '../support/hl7-fixtures';
import { deploy, editNode, startEditorSession, type EditorSession } from '../support/browser';
import { frameMllp } from '../../lib/protocols/hl7';

const TOKEN = 'browser-test-token';
const SAMPLE = '20250902001';
const EDITOR = '#hl7-message-dialect-editor';
/** The EDAN i15's analytes (OBX-4) mapped to LIS tests. */
const CODES = ['pH', 'pO2', 'pCO2', 'Na+', 'K+', 'Ca++', 'Cl-', 'Glu', 'Lac', 'Hct', 'tHb(est)', 'cH+'];
const MAPPING = CODES.map((code, i) => ({ lisTestId: `T-${i}`, lisCode: `L-${code}`, lisName: code, instrumentCode: code }));

let work: string;
let stub: LisStub;
let session: EditorSession | undefined;
let page: Page;
let pageErrors: string[];
let analyzerPort: number;

function flows(): Array<Record<string, unknown>> {
  return [
    { id: 'tab1', type: 'tab', label: 'Analyzer' },
    { id: 'cfg', type: 'lis-config', name: 'LIS', labTestsApiUrl: stub.url('/tests'), transactionInfoApiUrl: stub.url('/orders'), resultApiUrl: stub.url('/results'), timeout: 5000, credentials: { bearerToken: TOKEN } },
    { id: 'tcpin', type: 'tcp in', z: 'tab1', server: 'server', host: '', port: String(analyzerPort), datamode: 'stream', datatype: 'buffer', newline: '', topic: '', x: 100, y: 80, wires: [['link']] },
    { id: 'link', type: 'hl7-link', z: 'tab1', name: 'i15', transport: 'tcp', charset: 'msh18', journal: true, trace: true, x: 300, y: 80, wires: [['tcpout'], ['hm'], []] },
    { id: 'tcpout', type: 'tcp out', z: 'tab1', host: '', port: '', beserver: 'reply', base64: false, end: false, x: 500, y: 40, wires: [] },
    { id: 'hm', type: 'hl7-message', z: 'tab1', name: '', dialect: 'generic-oru', dialectOverrides: '', timeZone: 'UTC', x: 500, y: 120, wires: [[], ['tm'], ['link'], []] },
    { id: 'tm', type: 'test-mapper', z: 'tab1', name: '', lis: 'cfg', instrument: 'EDAN i15', direction: 'toLis', unmapped: 'warn', mapping: MAPPING, x: 700, y: 120, wires: [['send'], []] },
    { id: 'send', type: 'lis-send-results', z: 'tab1', name: '', lis: 'cfg', autoResend: false, x: 900, y: 120, wires: [[]] },
  ];
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'lis-hl7-dialect-ui-'));
  stub = await new LisStub().start();
  stub.reply('/results', { status: 200, body: {} });
  analyzerPort = await freePort();
  const userDir = join(work, 'userDir');
  mkdirSync(userDir);
  session = await startEditorSession(userDir, flows(), 'hm', { width: 1280, height: 1100 });
  ({ page, pageErrors } = session);
});

after(async () => {
  await session?.stop();
  await stub?.stop();
  rmSync(work, { recursive: true, force: true });
});

const rows = (table: string) => page.locator(`${EDITOR} .lis-dialect-${table} tbody tr`);
const testCodes = async () => Promise.all((await rows('results').all()).map(async (r) => (await r.locator('td').nth(2).textContent()) ?? ''));

async function waitForCodes(first: string): Promise<void> {
  const selector = `${EDITOR} .lis-dialect-results tbody tr td:nth-child(3)`;
  await page.waitForFunction(`document.querySelector(${JSON.stringify(selector)})?.textContent === ${JSON.stringify(first)}`, undefined, { timeout: 10000 });
}

/** Sends the message in an MLLP frame over TCP, as the analyzer would, and waits for the link's ACK frame. */
async function sendMessage(bytes: Buffer): Promise<void> {
  // The deploy restarts tcp in: it listens again a moment later.
  let socket: Socket | undefined;
  for (let attempt = 0; socket === undefined; attempt++) {
    const s = connect(analyzerPort, '127.0.0.1');
    const ok = await new Promise<boolean>((resolve) => s.once('connect', () => resolve(true)).once('error', () => resolve(false)));
    if (ok) socket = s;
    else if (attempt > 100) throw new Error(`tcp in does not listen on ${analyzerPort}`);
    else await new Promise((r) => setTimeout(r, 100));
  }
  const got: number[] = [];
  socket.on('data', (d: Buffer) => got.push(...d));
  socket.write(frameMllp(bytes));
  await new Promise<void>((resolve) => {
    const check = () => (got.includes(0x1c) ? resolve() : setTimeout(check, 20));
    check();
  });
  assert.match(Buffer.from(got).toString('latin1'), /MSA\|AA\|/, 'the link accepted the message');
  socket.end();
}

describe('hl7-message dialect section', () => {
  it('reads the test codes where an override says, in the preview and then in the deployed flow', async () => {
    await editNode(page, 'hm');
    const paste = page.locator(`${EDITOR} .lis-dialect-paste`);
    await paste.waitFor({ state: 'visible' });
    assert.match((await paste.getAttribute('placeholder')) ?? '', /one segment per line/, 'the HL7 texts');

    // The capture as a log keeps it, a segment a line: the generic dialect reads OBX-3, the EDAN's result group.
    const capture = loadHl7Fixture('edan-i15-oru-r01.txt').messages[0]!.bytes;
    await paste.fill(capture.toString('latin1').replace(/\r/g, '\n'));
    await waitForCodes('0');
    assert.deepEqual(new Set(await testCodes()), new Set(['0', '1']));
    assert.match((await page.locator(`${EDITOR} .lis-dialect-paste-info`).textContent()) ?? '', /read as segments/);

    // A place is given whole: a key it does not have is named at its path.
    const overrides = page.locator('#node-input-dialectOverrides');
    await overrides.fill('{"results": {"code": {"segment": "OBX", "field": 4, "comp": 1}}}');
    await page.locator(`${EDITOR} .lis-dialect-issues li[data-path="results.code.comp"]`).waitFor();
    await overrides.fill(JSON.stringify({ results: { code: { segment: 'OBX', field: 4 } } }, null, 2));
    await waitForCodes('pH');
    assert.deepEqual(await testCodes(), CODES);
    assert.equal(await page.locator(`${EDITOR} .lis-dialect-issues li`).count(), 0);
    const first = await rows('results').first().locator('td').allTextContents();
    assert.deepEqual(first.slice(0, 4), ['1:4', SAMPLE, 'pH', '7.400']);

    await page.locator('#node-dialog-ok').click();
    await page.locator('#node-dialog-ok').waitFor({ state: 'detached' });
    await deploy(page);
    assert.deepEqual(pageErrors, []);

    await sendMessage(capture);
    const deadline = Date.now() + 15000;
    while (stub.to('/results').length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 300));
    const sent = stub.to('/results');
    assert.equal(sent.length, 1, 'the results reached the LIS once');
    const results = (sent[0]!.json as { results: Array<Record<string, unknown>> }).results;
    assert.deepEqual(results.map((r) => [r.SampleNumber, r.TestCode]), CODES.map((code) => [SAMPLE, `L-${code}`]));
    assert.equal(results[0]!.Result, '7.400');
  });

  it('replays the capture from the dialog through the deployed flow: the LIS has it all already', async () => {
    await editNode(page, 'hm');
    assert.match(await page.locator('#node-input-dialectOverrides').inputValue(), /"field": 4/, 'the overrides were stored in the flow');
    await page.locator(`${EDITOR} .lis-dialect-links`).selectOption('link');
    const picker = page.locator(`${EDITOR} .lis-dialect-recent`);
    await picker.waitFor({ state: 'visible', timeout: 10000 });
    // The message the link received, picked from its trace, previews as the deployed node reads it.
    await picker.selectOption({ index: 1 });
    await waitForCodes('pH');
    await page.locator(`${EDITOR} .lis-dialect-replay-run`).click();
    await page.waitForFunction(`document.querySelectorAll(${JSON.stringify(`${EDITOR} .lis-dialect-replay tbody tr`)}).length === 1`, undefined, { timeout: 10000 });
    const dry = await rows('replay').first().locator('td').allTextContents();
    assert.equal(dry[0], SAMPLE);
    assert.equal(dry[1], '', 'nothing would be sent: the LIS has every result');
    assert.match(dry[2] ?? '', /L-pH=7\.400/);
    assert.equal(stub.to('/results').length, 1, 'a dry run sends nothing');
    await page.locator('#node-dialog-cancel').click();
    assert.deepEqual(pageErrors, []);
  });
});
