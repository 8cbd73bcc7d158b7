/**
 * The demo page in a real browser (Debian's chromium via playwright-core, as
 * the editor tests do): its script runs under the page's Content-Security-Policy,
 * redraws when a result arrives and pushes an order from the form.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { PushServer } from '../../lib/lis/push-server';
import type { Order } from '../../lib/lis/schemas';
import { launchChromium, releaseChromium } from '../support/browser';
import { post, startDemo } from './helpers';

/** Set to a file path to keep a screenshot of the page (for a look at it, not compared). */
const SCREENSHOT = process.env.DEMO_LIS_SCREENSHOT;

describe('demo LIS page in a browser', () => {
  let browser: Browser;
  before(async () => {
    browser = await launchChromium();
  });
  after(async () => {
    await releaseChromium(browser);
  });

  it('goes live, shows a result as it arrives, and pushes an order from the form', async (t) => {
    const received: Order[] = [];
    const server = new PushServer({ host: '127.0.0.1', port: 0, bodyLimit: 100000, onOrders: (orders) => received.push(...orders) });
    const port = await server.listen();
    t.after(() => server.close());
    const lis = await startDemo(t, { pushUrl: `http://127.0.0.1:${port}/api/getSampleData` });

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    t.after(() => context.close());
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(err.message));
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(msg.text());
    });
    await page.goto(lis.url('/'));
    await page.waitForSelector('#live.ok', { timeout: 10000 });

    await post(lis.url('/api/orders'), { SampleNumber: 'S1005' });
    await post(lis.url('/api/results'), { results: [{ SampleNumber: 'S1005', TestCode: 'TSH', Result: '<i>2.31</i>' }] });
    await page.waitForSelector('#results td:text-is("<i>2.31</i>")', { timeout: 10000 });
    assert.equal(await page.locator('#results i').count(), 0, 'the value is shown as text, not markup');

    await page.fill('#push-sample', 'S1001');
    await page.click('#push-form button');
    await page.waitForSelector('#push-answer.ok', { timeout: 10000 });
    assert.match(await page.textContent('#push-answer') ?? '', /^HTTP 200\n\{\n {2}"status": "success"/);
    assert.equal(received[0]?.SampleNumber, 'S1001');
    await page.waitForSelector('#pushes td:text-is("S1001")', { timeout: 10000 });

    if (SCREENSHOT) await page.screenshot({ path: SCREENSHOT, fullPage: true });
    assert.deepEqual(problems, []);
  });
});
