/**
 * Shaping a dialect by pointing, in a real editor (Chromium on a Node-RED
 * process with the package installed from its packed tarball): astm-message on the
 * generic dialect, a Mindray CL-2000i capture whose results it leaves
 * unassigned (the bar code is in O-4) and whose codes it would read from the
 * wrong component. The integrator clicks the bar code in the capture and says
 * "sample number", clicks the code and says "test code", clicks the value;
 * the preview fills in and says how many results changed each time. Deployed,
 * the capture sent over TCP through the flow reaches a loopback LIS once. A
 * value clicked in the results table that sits at two places (ARCHITECT's
 * sample in O-3 and O-4) is asked about. The same for hl7-message on the
 * generic ORU dialect with a URIT 8030 capture: it takes the run number in
 * OBR-3 for the sample and the OBX-3 sequence for the code; pointed at the bar
 * code in OBR-2 and the test name in OBX-4, the deployed flow sends GLI for the
 * right tube, once; the cobas pro's sample number in SPM-2 and SAC-3 is asked about.
 *
 * Keeps screenshots in test/artifacts/pointing-*.png; with UPDATE_SCREENSHOTS=1
 * also in docs/.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { LisStub } from '../support/lis-stub';
import { freePort } from '../support/ports';
import { loadFixture } from '../support/fixtures';
import { deploy, editNode, startEditorSession, type EditorSession } from '../support/browser';
import { resultsAtLis, sendAstmTransfer, sendHl7Message } from '../support/lis-editor';
import { traceText } from '../../lib/trace';
import { ASTM_NAMING } from '../../lib/protocols/astm';
import { buildFrames } from '../../lib/protocols/astm/link';

const ROOT = join(__dirname, '..', '..', '..');
const TOKEN = 'browser-test-token';
const ASTM = '#astm-message-dialect-editor';
const HL7 = '#hl7-message-dialect-editor';

let work: string;
let stub: LisStub;
let session: EditorSession | undefined;
let page: Page;
let pageErrors: string[];
let astmPort: number;
let hl7Port: number;

const MAPPING = ['CA125', 'TPSA'].map((code) => ({ lisTestId: `T-${code}`, lisCode: `L-${code}`, lisName: code, instrumentCode: code }));
const HL7_MAPPING = [{ lisTestId: 'T-GLU', lisCode: 'L-GLU', lisName: 'glucose', instrumentCode: 'GLI' }];
const hl7Fixture = (name: string) => readFileSync(join(ROOT, 'test', 'fixtures', 'hl7', name), 'latin1');

function flows(): Array<Record<string, unknown>> {
  return [
    { id: 'tab1', type: 'tab', label: 'Analyzers' },
    { id: 'cfg', type: 'lis-config', name: 'LIS', labTestsApiUrl: stub.url('/tests'), transactionInfoApiUrl: stub.url('/orders'), resultApiUrl: stub.url('/results'), timeout: 5000, credentials: { bearerToken: TOKEN } },
    { id: 'tcpin', type: 'tcp in', z: 'tab1', server: 'server', host: '', port: String(astmPort), datamode: 'stream', datatype: 'buffer', newline: '', topic: '', x: 100, y: 80, wires: [['link']] },
    { id: 'link', type: 'astm-link', z: 'tab1', name: 'CL-2000i', transport: 'tcp', framing: 'framed', checksums: true, journal: true, trace: true, x: 300, y: 80, wires: [['tcpout'], ['am'], []] },
    { id: 'tcpout', type: 'tcp out', z: 'tab1', host: '', port: '', beserver: 'reply', base64: false, end: false, x: 500, y: 40, wires: [] },
    { id: 'am', type: 'astm-message', z: 'tab1', name: '', dialect: 'generic-lis2a2', dialectOverrides: '', timeZone: 'UTC', x: 500, y: 120, wires: [[], ['tm'], ['link'], []] },
    { id: 'tm', type: 'test-mapper', z: 'tab1', name: '', lis: 'cfg', instrument: 'CL-2000i', direction: 'toLis', unmapped: 'warn', mapping: MAPPING, x: 700, y: 120, wires: [['send'], []] },
    { id: 'send', type: 'lis-send-results', z: 'tab1', name: '', lis: 'cfg', autoResend: false, x: 900, y: 120, wires: [[]] },
    { id: 'htcpin', type: 'tcp in', z: 'tab1', server: 'server', host: '', port: String(hl7Port), datamode: 'stream', datatype: 'buffer', newline: '', topic: '', x: 100, y: 280, wires: [['hlink']] },
    { id: 'hlink', type: 'hl7-link', z: 'tab1', name: 'URIT 8030', transport: 'tcp', charset: 'msh18', journal: true, trace: true, x: 300, y: 280, wires: [['htcpout'], ['hm'], []] },
    { id: 'htcpout', type: 'tcp out', z: 'tab1', host: '', port: '', beserver: 'reply', base64: false, end: false, x: 500, y: 240, wires: [] },
    { id: 'hm', type: 'hl7-message', z: 'tab1', name: '', dialect: 'generic-oru', dialectOverrides: '', timeZone: 'UTC', x: 500, y: 320, wires: [[], ['htm'], ['hlink'], []] },
    { id: 'htm', type: 'test-mapper', z: 'tab1', name: '', lis: 'cfg', instrument: 'URIT 8030', direction: 'toLis', unmapped: 'warn', mapping: HL7_MAPPING, x: 700, y: 320, wires: [['hsend'], []] },
    { id: 'hsend', type: 'lis-send-results', z: 'tab1', name: '', lis: 'cfg', autoResend: false, x: 900, y: 320, wires: [[]] },
  ];
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'lis-pointing-ui-'));
  stub = await new LisStub().start();
  stub.reply('/results', { status: 200, body: {} });
  astmPort = await freePort();
  hl7Port = await freePort();
  const userDir = join(work, 'userDir');
  mkdirSync(userDir);
  session = await startEditorSession(userDir, flows(), 'am', { width: 1280, height: 1200 });
  ({ page, pageErrors } = session);
});

after(async () => {
  await session?.stop();
  await stub?.stop();
  rmSync(work, { recursive: true, force: true });
});

const rows = (editor: string, table: string) => page.locator(`${editor} .lis-dialect-${table} tbody tr`);

async function waitForRows(editor: string, table: string, n: number): Promise<void> {
  const selector = `${editor} .lis-dialect-${table} tbody tr`;
  await page.waitForFunction(`document.querySelectorAll(${JSON.stringify(selector)}).length === ${n}`, undefined, { timeout: 10000 });
}

/** The column of the results table, row by row. */
async function column(editor: string, index: number): Promise<string[]> {
  return page.locator(`${editor} .lis-dialect-results tbody tr td:nth-child(${index + 1})`).allTextContents();
}

/** Clicks the token of the capture that reads `text`, says it is `role`, and waits for the "changed" line to say `changed`. */
async function pointAt(editor: string, text: string, role: string, changed: RegExp): Promise<void> {
  await page.locator(`${editor} .lis-dialect-capture .lis-dialect-token`, { hasText: new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) }).first().click();
  await page.locator(`${editor} .lis-dialect-role-menu .lis-dialect-role-${role}`).click();
  await page.locator(`${editor} .lis-dialect-pointed`, { hasText: changed }).waitFor({ timeout: 10000 });
}

async function shoot(name: string): Promise<void> {
  mkdirSync(join(ROOT, 'test', 'artifacts'), { recursive: true });
  const shot = join(ROOT, 'test', 'artifacts', `${name}.png`);
  await page.locator('#red-ui-editor-stack .red-ui-tray').last().screenshot({ path: shot });
  if (process.env.UPDATE_SCREENSHOTS) {
    copyFileSync(shot, join(ROOT, 'docs', `${name}.png`));
  }
}

describe('pointing in the dialect section', () => {
  it('astm-message: the sample number, test code and value pointed at in a Mindray CL capture; deployed, the results reach the LIS once', async () => {
    await editNode(page, 'am');
    await page.locator(`${ASTM} .lis-dialect-paste`).waitFor({ state: 'visible' });
    const records = traceText(loadFixture('mindray-cl2000i-result.txt').bytes, ASTM_NAMING);
    await page.locator(`${ASTM} .lis-dialect-paste`).fill(records.replace(/<CR>/g, '<CR>\n'));
    await waitForRows(ASTM, 'unassigned', 2);
    assert.equal(await rows(ASTM, 'results').count(), 0);
    await page.locator(`${ASTM} .lis-dialect-capture .lis-dialect-token`).first().waitFor();

    // The bar code sits in O-4; the generic dialect reads O-3.
    await pointAt(ASTM, 'SAMPLE123', 'sampleNumber', /^2 results changed \(sampleId: O-4 \(instrumentSpecimenId\)/);
    await waitForRows(ASTM, 'results', 2);
    assert.deepEqual(await column(ASTM, 1), ['SAMPLE123', 'SAMPLE123']);
    assert.deepEqual(await column(ASTM, 2), ['F', 'F'], 'the generic dialect reads R-3.4, the result type');

    await pointAt(ASTM, 'CA125', 'testCode', /^2 results changed \(testId\.code: R-3 component 2\)/);
    await page.waitForFunction(`[...document.querySelectorAll(${JSON.stringify(`${ASTM} .lis-dialect-results tbody tr td:nth-child(3)`)})].map((td) => td.textContent).join() === 'CA125,TPSA'`);
    await pointAt(ASTM, '10000.000000', 'value', /^2 results changed \(results\.value\.component: R-4 component 1\)/);
    await page.waitForFunction(`[...document.querySelectorAll(${JSON.stringify(`${ASTM} .lis-dialect-results tbody tr td:nth-child(4)`)})].map((td) => td.textContent).join() === '10000.000000,5547.808063'`);
    assert.deepEqual(await column(ASTM, 4), ['U/mL', 'ng/mL']);
    assert.deepEqual(JSON.parse(await page.locator('#node-input-dialectOverrides').inputValue()), {
      sampleId: { field: 'instrumentSpecimenId' },
      testId: { code: { component: 2, trim: true } },
      results: { value: { component: 1 } },
    });
    // The dialog as the integrator sees it: the "changed" line, a value clicked and the roles offered.
    await page.locator(`${ASTM} .lis-dialect-capture .lis-dialect-token`, { hasText: /^U\/mL$/ }).click();
    await page.locator(`${ASTM} .lis-dialect-role-menu .lis-dialect-role-units`).waitFor();
    await shoot('pointing-astm');
    await page.locator(`${ASTM} .lis-dialect-role-menu .lis-dialect-role-cancel`).click();
    // A place no setting reads from is refused with the reason, and nothing is written.
    await page.locator(`${ASTM} .lis-dialect-capture .lis-dialect-token`, { hasText: /^Test2$/ }).click();
    await page.locator(`${ASTM} .lis-dialect-role-menu .lis-dialect-role-testCode`).click();
    await page.locator(`${ASTM} .lis-dialect-pointed`, { hasText: /^Not written: .*R-3/ }).waitFor();

    await page.locator('#node-dialog-ok').click();
    await page.locator('#node-dialog-ok').waitFor({ state: 'detached' });
    await deploy(page);
    await sendAstmTransfer(astmPort, Buffer.concat(buildFrames(Buffer.from(records.replace(/<CR>/g, '\r'), 'latin1'))));
    const sent = await resultsAtLis(stub);
    assert.equal(sent.length, 1, 'the results reached the LIS once');
    const results = (sent[0]!.json as { results: Array<Record<string, unknown>> }).results;
    assert.deepEqual(
      results.map((r) => [r.SampleNumber, r.TestCode, r.Result]),
      [
        ['SAMPLE123', 'L-CA125', '10000.000000'],
        ['SAMPLE123', 'L-TPSA', '5547.808063'],
      ],
    );
    assert.deepEqual(pageErrors, []);
  });

  it('hl7-message: the bar code in OBR-2 and the test name in OBX-4 pointed at in a URIT 8030 capture; deployed, the result reaches the LIS once', async () => {
    await editNode(page, 'hm');
    await page.locator(`${HL7} .lis-dialect-paste`).waitFor({ state: 'visible' });
    const text = hl7Fixture('urit-8030-oru-r01.txt');
    await page.locator(`${HL7} .lis-dialect-paste`).fill(text);
    await waitForRows(HL7, 'results', 1);
    // The generic dialect reads the run number (OBR-3) as the sample and the OBX-3 sequence as the code.
    assert.deepEqual(await column(HL7, 1), ['202508090002']);
    assert.deepEqual(await column(HL7, 2), ['1']);
    await page.locator(`${HL7} .lis-dialect-capture .lis-dialect-token`).first().waitFor();

    await pointAt(HL7, '0000966134', 'sampleNumber', /^1 result changed \(sampleId\.places: OBR-2\)/);
    await page.waitForFunction(`document.querySelector(${JSON.stringify(`${HL7} .lis-dialect-results tbody tr td:nth-child(2)`)})?.textContent === '0000966134'`);
    await pointAt(HL7, 'GLI', 'testCode', /^1 result changed \(results\.code: OBX-4\)/);
    await page.waitForFunction(`document.querySelector(${JSON.stringify(`${HL7} .lis-dialect-results tbody tr td:nth-child(3)`)})?.textContent === 'GLI'`);
    assert.deepEqual(await column(HL7, 3), ['111']);
    assert.deepEqual(await column(HL7, 4), ['mg/dL']);
    assert.deepEqual(JSON.parse(await page.locator('#node-input-dialectOverrides').inputValue()), {
      sampleId: { places: [{ segment: 'OBR', field: 2 }] },
      results: { code: { segment: 'OBX', field: 4 } },
    });
    await page.locator(`${HL7} .lis-dialect-capture .lis-dialect-token`, { hasText: /^mg\/dL$/ }).click();
    await page.locator(`${HL7} .lis-dialect-role-menu .lis-dialect-role-units`).waitFor();
    await shoot('pointing-hl7');
    await page.locator(`${HL7} .lis-dialect-role-menu .lis-dialect-role-cancel`).click();

    await page.locator('#node-dialog-ok').click();
    await page.locator('#node-dialog-ok').waitFor({ state: 'detached' });
    const before = stub.to('/results').length;
    await deploy(page);
    const ack = await sendHl7Message(hl7Port, Buffer.from(text.replace(/\r?\n/g, '\r'), 'latin1'));
    assert.match(ack, /MSA\|AA\|202508090002/);
    const sent = await resultsAtLis(stub, before);
    assert.equal(sent.length, 1, 'the result reached the LIS once');
    const results = (sent[0]!.json as { results: Array<Record<string, unknown>> }).results;
    assert.deepEqual(
      results.map((r) => [r.SampleNumber, r.TestCode, r.Result]),
      [['0000966134', 'L-GLU', '111']],
    );
    assert.deepEqual(pageErrors, []);
  });

  it('hl7-message: a sample number clicked in the results table that is in SPM-2 and SAC-3 is asked about', async () => {
    await editNode(page, 'hm');
    await page.locator('#node-input-dialectOverrides').fill('');
    await page.locator(`${HL7} .lis-dialect-paste`).fill(hl7Fixture('roche-cobaspro-oul-r22-e801.txt'));
    await waitForRows(HL7, 'results', 13);
    await page.locator(`${HL7} .lis-dialect-results tbody tr`).first().locator('td').nth(1).click();
    await page.locator(`${HL7} .lis-dialect-role-menu .lis-dialect-role-sampleNumber`).click();
    const choices = page.locator(`${HL7} .lis-dialect-role-menu .lis-dialect-choice`);
    await choices.first().waitFor();
    assert.deepEqual(await choices.allTextContents(), ['SPM-2.1.1, message 1 segment 3', 'SAC-3.1, message 1 segment 4']);
    await choices.nth(1).click();
    await page.locator(`${HL7} .lis-dialect-pointed`, { hasText: /^0 results changed \(sampleId\.places: SAC-3\)/ }).waitFor();
    assert.deepEqual(JSON.parse(await page.locator('#node-input-dialectOverrides').inputValue()), { sampleId: { places: [{ segment: 'SAC', field: 3 }] } });
    await page.locator('#node-dialog-cancel').click();
    assert.deepEqual(pageErrors, []);
  });

  it('astm-message: a sample number clicked in the results table that is at two places is asked about', async () => {
    await editNode(page, 'am');
    await page.locator('#node-input-dialectOverrides').fill('');
    await page.locator(`${ASTM} .lis-dialect-paste`).fill(traceText(loadFixture('abbott-architect-i-result-multi.txt').bytes, ASTM_NAMING).replace(/<CR>/g, '<CR>\n'));
    await waitForRows(ASTM, 'results', 14);
    await page.locator(`${ASTM} .lis-dialect-results tbody tr`).first().locator('td').nth(1).click();
    await page.locator(`${ASTM} .lis-dialect-role-menu .lis-dialect-role-sampleNumber`).click();
    const choices = page.locator(`${ASTM} .lis-dialect-role-menu .lis-dialect-choice`);
    await choices.first().waitFor();
    assert.deepEqual(await choices.allTextContents(), ['O-3 (specimenId), message 1 record 3', 'O-4 (instrumentSpecimenId) component 1, message 1 record 3']);
    assert.match((await page.locator(`${ASTM} .lis-dialect-choices-question`).textContent()) ?? '', /“276056250158121” is at several places; which one holds the sample number\?/);
    await choices.nth(1).click();
    await page.locator(`${ASTM} .lis-dialect-pointed`, { hasText: /^0 results changed \(sampleId: O-4/ }).waitFor();
    assert.deepEqual(JSON.parse(await page.locator('#node-input-dialectOverrides').inputValue()), { sampleId: { field: 'instrumentSpecimenId', singleComponent: false } });
    // Edited by hand afterwards, the preview is no longer the pointing's: its line goes.
    await page.locator('#node-input-dialectOverrides').fill('{}');
    await page.waitForFunction(`document.querySelector(${JSON.stringify(`${ASTM} .lis-dialect-pointed`)}).textContent === ''`);
    await page.locator('#node-dialog-cancel').click();
    assert.deepEqual(pageErrors, []);
  });
});
