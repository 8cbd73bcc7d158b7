/**
 * hl7-message's dialect section in a real browser: Node-RED runs as its own
 * process with the package installed from its packed tarball, Chromium drives the
 * editor. The integrator starts from the generic HL7 dialect and pastes an
 * EDAN i15 capture whose test codes it reads from OBX-3 (the EDAN's result
 * group, `0` for every analyte), sets the override that reads them from
 * OBX-4, sees the preview change, and deploys; the same capture sent over
 * TCP through the deployed flow then reaches a loopback LIS once, under the
 * codes the override reads. Replayed from the dialog through the deployed
 * flow (a dry run), it is reported as at the LIS already.
 *
 * Keeps a screenshot in test/artifacts/hl7-dialect-editor.png; with
 * UPDATE_SCREENSHOTS=1 also in docs/ for the README.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { LisStub } from '../support/lis-stub';
import { loadHl7Fixture } from '../support/hl7-fixtures';
import { editNode } from '../support/browser';
import { analyzerFlow, doneAndDeploy, keepScreenshot, resultsAtLis, sendHl7Message, startLisEditor, type LisEditor } from '../support/lis-editor';

const TOKEN = 'browser-test-token';
const SAMPLE = '20250902001';
const EDITOR = '#hl7-message-dialect-editor';
/** The EDAN i15's analytes (OBX-4) mapped to LIS tests. */
const CODES = ['pH', 'pO2', 'pCO2', 'Na+', 'K+', 'Ca++', 'Cl-', 'Glu', 'Lac', 'Hct', 'tHb(est)', 'cH+'];
const MAPPING = CODES.map((code, i) => ({ lisTestId: `T-${i}`, lisCode: `L-${code}`, lisName: code, instrumentCode: code }));

let world: LisEditor | undefined;
let stub: LisStub;
let page: Page;
let pageErrors: string[];

function flows(lis: LisStub, analyzerPort: number): Array<Record<string, unknown>> {
  return analyzerFlow(lis, analyzerPort, TOKEN, { link: { type: 'hl7-link', name: 'i15', charset: 'msh18' }, message: { id: 'hm', type: 'hl7-message', dialect: 'generic-oru' }, instrument: 'EDAN i15', mapping: MAPPING });
}

before(async () => {
  world = await startLisEditor('hl7-dialect-ui', flows, 'hm');
  ({ stub, page, pageErrors } = world);
});

after(async () => {
  await world?.stop();
});

const rows = (table: string) => page.locator(`${EDITOR} .lis-dialect-${table} tbody tr`);
const testCodes = async () => Promise.all((await rows('results').all()).map(async (r) => (await r.locator('td').nth(2).textContent()) ?? ''));

async function waitForCodes(first: string): Promise<void> {
  const selector = `${EDITOR} .lis-dialect-results tbody tr td:nth-child(3)`;
  await page.waitForFunction(`document.querySelector(${JSON.stringify(selector)})?.textContent === ${JSON.stringify(first)}`, undefined, { timeout: 10000 });
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
    await keepScreenshot(page, 'hl7-dialect-editor.png');

    await doneAndDeploy(page);
    assert.deepEqual(pageErrors, []);

    assert.match(await sendHl7Message(world!.analyzerPort, capture), /MSA\|AA\|/, 'the link accepted the message');
    const sent = await resultsAtLis(stub);
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
