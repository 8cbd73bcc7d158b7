/**
 * astm-message's dialect section in a real browser: Node-RED runs as its own
 * process with the package installed from its packed tarball, Chromium drives the
 * editor. The integrator starts from the generic dialect, pastes a cobas c 311
 * capture whose results it leaves unassigned, changes where the sample number
 * and the test code sit, sees the preview turn them into results, and deploys;
 * the same capture sent over TCP through the deployed flow then reaches a
 * loopback LIS as results. Replayed from the dialog through the deployed
 * flow, the capture is then reported as at the LIS and not sent again.
 *
 * Keeps a screenshot in test/artifacts/dialect-editor.png; with
 * UPDATE_SCREENSHOTS=1 also in docs/ for the README.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { LisStub } from '../support/lis-stub';
import { loadFixture } from '../support/fixtures';
import { editNode } from '../support/browser';
import { analyzerFlow, doneAndDeploy, keepScreenshot, resultsAtLis, sendAstmTransfer, startLisEditor, type LisEditor } from '../support/lis-editor';
import { sleep } from '../support/wait';
import { traceText } from '../../lib/trace';
import { ASTM_NAMING } from '../../lib/protocols/astm';
import { buildFrames } from '../../lib/protocols/astm/link';

const TOKEN = 'browser-test-token';
const SAMPLE = 'CL-PL-24-0370';

let world: LisEditor | undefined;
let stub: LisStub;
let page: Page;
let pageErrors: string[];

/** The cobas c 311 capture's codes (R-3 `^^^685/` ...) mapped to LIS tests. */
const MAPPING = ['685', '687', '712', '158', '735', '717', '690'].map((code) => ({ lisTestId: `T-${code}`, lisCode: `L${code}`, lisName: `test ${code}`, instrumentCode: code }));

function flows(lis: LisStub, analyzerPort: number): Array<Record<string, unknown>> {
  return analyzerFlow(lis, analyzerPort, TOKEN, { link: { type: 'astm-link', name: 'c 311', framing: 'framed', checksums: true }, message: { id: 'am', type: 'astm-message', dialect: 'generic-lis2a2' }, instrument: 'cobas c 311', mapping: MAPPING });
}

before(async () => {
  world = await startLisEditor('dialect-ui', flows, 'am');
  ({ stub, page, pageErrors } = world);
});

after(async () => {
  await world?.stop();
});

const rows = (table: string) => page.locator(`#astm-message-dialect-editor .lis-dialect-${table} tbody tr`);

async function waitForRows(table: string, n: number): Promise<void> {
  const selector = `#astm-message-dialect-editor .lis-dialect-${table} tbody tr`;
  await page.waitForFunction(`document.querySelectorAll(${JSON.stringify(selector)}).length === ${n}`, undefined, { timeout: 10000 });
}


describe('astm-message dialect section', () => {
  it('turns unassigned results into results in the preview, and the deployed flow delivers them', async () => {
    await editNode(page, 'am');
    await page.locator('#astm-message-dialect-editor .lis-dialect-paste').waitFor({ state: 'visible' });

    // The capture as the trace shows it, a record a line.
    const capture = loadFixture('roche-c311-result.txt').bytes;
    await page.locator('#astm-message-dialect-editor .lis-dialect-paste').fill(traceText(capture, ASTM_NAMING).replace(/<CR>/g, '<CR>\n'));
    await waitForRows('unassigned', 7);
    assert.equal(await rows('results').count(), 0);
    assert.match((await rows('unassigned').first().textContent()) ?? '', /O-3 \(specimenId\)/);
    assert.match((await page.locator('#astm-message-dialect-editor .lis-dialect-paste-info').textContent()) ?? '', /read as tokens \(framed\)/);

    // The sample number in component 2 of O-3, the code before the '/', the time from O-23.
    const overrides = page.locator('#node-input-dialectOverrides');
    await overrides.fill('{"sampleId": {"component": 0}}');
    await page.locator('#astm-message-dialect-editor .lis-dialect-issues li[data-path="sampleId.component"]').waitFor();
    const site = {
      sampleId: { component: 2, singleComponent: false },
      testId: { code: { component: 4, split: { separator: '/', part: 1 }, trim: true } },
      results: { completedAt: { record: 'O', field: 'resultedAt' } },
    };
    await overrides.fill(JSON.stringify(site, null, 2));
    await waitForRows('results', 7);
    assert.equal(await rows('unassigned').count(), 0);
    assert.equal(await page.locator('#astm-message-dialect-editor .lis-dialect-issues li').count(), 0);
    const first = await rows('results').first().locator('td').allTextContents();
    assert.deepEqual(first.slice(1), [SAMPLE, '685', '22.4', 'U/l', 'A', 'F', '2024-02-03T13:20:11.000Z']);

    await keepScreenshot(page, 'dialect-editor.png');

    await doneAndDeploy(page);
    assert.deepEqual(pageErrors, []);

    await sendAstmTransfer(world!.analyzerPort, capture);
    const sent = await resultsAtLis(stub);
    assert.equal(sent.length, 1, 'the results reached the LIS once');
    const results = (sent[0]!.json as { results: Array<Record<string, unknown>> }).results;
    assert.deepEqual(
      results.map((r) => [r.SampleNumber, r.TestCode, r.Result]),
      [['685', '22.4'], ['687', '15.0'], ['712', '4.1'], ['158', '301'], ['735', '1.6'], ['717', '5.85'], ['690', '34']].map(([code, value]) => [SAMPLE, `L${code}`, value]),
    );
  });

  it('replays the capture through the deployed flow: a dry run, then "new" (confirmed), sends nothing twice', async () => {
    await editNode(page, 'am');
    const editor = '#astm-message-dialect-editor';
    await page.locator(`${editor} .lis-dialect-paste`).fill(traceText(loadFixture('roche-c311-result.txt').bytes, ASTM_NAMING).replace(/<CR>/g, '<CR>\n'));
    await page.locator(`${editor} .lis-dialect-links`).selectOption('link');
    await page.locator(`${editor} .lis-dialect-replay-run`).click();
    await waitForRows('replay', 1);
    const dry = await rows('replay').first().locator('td').allTextContents();
    assert.equal(dry[0], SAMPLE);
    assert.equal(dry[1], '', 'nothing would be sent: the LIS has every result');
    assert.match(dry[2] ?? '', /L685=22\.4/);

    const confirmed: string[] = [];
    page.once('dialog', (d) => {
      confirmed.push(d.message());
      void d.accept();
    });
    await page.locator(`${editor} .lis-dialect-replay-mode`).selectOption('new');
    await page.locator(`${editor} .lis-dialect-replay-run`).click();
    await page.locator(`${editor} .lis-dialect-replay th`, { hasText: 'Sent' }).waitFor();
    assert.equal(confirmed.length, 1, 'sending asks first');
    assert.equal(await rows('replay').first().locator('td').nth(1).textContent(), '', 'nothing sent: the LIS had it all');
    assert.equal(stub.to('/results').length, 1, 'the LIS got the results once');
    await page.locator('#node-dialog-cancel').click();
    assert.deepEqual(pageErrors, []);
  });

  it("lists recent messages each with its own time and what tells it apart (the H record reads the same in all)", async () => {
    // Two more messages, a second apart (the picker shows times to the second).
    const message = (sample: string, glucose: string) =>
      `H|\\^&|||c311^1|||||host|RSUPL^BATCH|P|1\rP|1\rO|1|${sample}||^^^685/|R\rR|1|^^^685/|${glucose}|U/l||N||F\rL|1|N\r`;
    await sleep(1100);
    await sendAstmTransfer(world!.analyzerPort, Buffer.concat(buildFrames(Buffer.from(message('S-RECENT-1', '11.1'), 'latin1'))));
    await sleep(1100);
    await sendAstmTransfer(world!.analyzerPort, Buffer.concat(buildFrames(Buffer.from(message('S-RECENT-2', '22.2'), 'latin1'))));

    await editNode(page, 'am');
    const editor = '#astm-message-dialect-editor';
    await page.locator(`${editor} .lis-dialect-links`).selectOption('link');
    const picker = page.locator(`${editor} .lis-dialect-recent`);
    await picker.waitFor({ state: 'visible', timeout: 10000 });
    // Latest first, after the "n recent messages" prompt.
    const shown = (await picker.locator('option').allTextContents()).slice(1);
    // What the analyzer sent is isolated (FSI ... PDI): an option cannot hold a <bdi>.
    assert.ok(shown[0]!.includes('\u2068S-RECENT-2\u2069') && shown[0]!.includes('\u2068685/ 22.2 U/l\u2069'), shown[0]);
    const entries = shown.map((e) => e.replace(/[\u2068\u2069]/g, ''));
    assert.equal(entries.length, 3, entries.join(' | '));
    assert.match(entries[0]!, /S-RECENT-2 685\/ 22\.2 U\/l$/);
    assert.match(entries[1]!, /S-RECENT-1 685\/ 11\.1 U\/l$/);
    assert.match(entries[2]!, new RegExp(`11625\\^${SAMPLE}\\^1\\^004 685/ 22\\.4 U/l \\+6$`));
    const times = entries.map((e) => e.split(' ')[0]);
    assert.equal(new Set(times).size, 3, `each its own time: ${times.join(', ')}`);
    // Picking one puts that message in the paste box.
    await picker.selectOption({ index: 2 });
    assert.match(await page.locator(`${editor} .lis-dialect-paste`).inputValue(), /O\|1\|S-RECENT-1\|/);
    await page.locator('#node-dialog-cancel').click();
    assert.deepEqual(pageErrors, []);
  });
});
