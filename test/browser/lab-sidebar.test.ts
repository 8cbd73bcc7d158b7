/**
 * The "Lab" sidebar (the package's Node-RED plugin) in a real browser: Node-RED
 * as its own process with the package installed from its packed tarball, two analyzer
 * links (one with the analyzer simulator connected over TCP and sending, one
 * TCP client whose analyzer is not there), a loopback LIS that refuses results
 * at first, and a message left stuck in the journal by an earlier run. Chromium
 * resends the held batch and replays the stuck message from the sidebar, and
 * sees a quiet-link alarm appear and clear, all without pressing refresh: the
 * updates come over comms. The alarms are checked every
 * TEST_BRIDGE_SETTINGS.checkEveryMs (test/support/runtime-settings.ts), which
 * the session's settings.js sets in place of the nodes' own interval.
 */
import { waitUntil, withTimeout } from '../support/wait';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { LisStub } from '../support/lis-stub';
import type { NodeRedProcess } from '../support/node-red-process';
import { dragSidebarTo, startEditorSession, waitForText, type EditorSession } from '../support/browser';
import { freePort } from '../support/ports';
import { writeJournal } from '../support/journal-file';
import net from 'node:net';
import { AnalyzerSimulator, TcpClientTransport } from '../../lib/sim';
import { buildFrames } from '../../lib/protocols/astm/link';
import { parseSamples, sum } from '../support/prometheus';

const ROOT = join(__dirname, '..', '..', '..');
const LINKS = '.lis-lab-links .lis-lab-link';
const BATCHES = '.lis-lab-held .lis-lab-batch';
const STUCK = '.lis-lab-stuck .lis-lab-stuck-message';
const QUIET_BADGE = `${LINKS}[data-node="linkA"] .lis-lab-alarm[data-code="LINK_QUIET"]`;
/** The Lab tab's icon in Node-RED 4's sidebar tab bar, and in Node-RED 5's global one. */
const TAB_ICON_NR4 = '#red-ui-sidebar .red-ui-tab-link-buttons a.red-ui-tab-link-button[href="#lis-lab"]';
const TAB_ICON_NR5 = '.red-ui-sidebar-tab-bar button[data-tab-id="lis-lab"]';

let work: string;
let stub: LisStub;
let red: NodeRedProcess | undefined;
let page: Page;
let pageErrors: string[];
let session: EditorSession | undefined;
let sim: AnalyzerSimulator | undefined;
let portA: number;
let portB: number;
let portC: number;

const STUCK_MESSAGE = 'H|\\^&|||ANALYZER^1|||||LIS||P|LIS2-A2|20261121094500\rP|1||P-S-STUCK\rO|1|S-STUCK||^^^GLU|R\rR|1|^^^GLU|7.1|mmol/L|3.9-6.1|H||F||||20261121094400\rL|1|N\r';

function flows(portA: number, portB: number, portC: number): Array<Record<string, unknown>> {
  return [
    // Bench 2's address comes from the tab's environment, as in the examples.
    { id: 'tab1', type: 'tab', label: 'Analyzers', env: [{ name: 'ANALYZER_HOST', value: '127.0.0.1', type: 'str' }, { name: 'ANALYZER_TCP_PORT', value: String(portB), type: 'str' }] },
    { id: 'cfg', type: 'lis-config', name: 'site LIS', labTestsApiUrl: stub.url('/tests'), transactionInfoApiUrl: stub.url('/orders'), resultApiUrl: stub.url('/results'), orderCompletedApiUrl: stub.url('/processed'), timeout: 3000 },
    // Bench 1: the analyzer connects to us and sends results. Quiet after 6 s of silence (0.1 min).
    { id: 'tcpA', type: 'tcp in', z: 'tab1', server: 'server', host: '', port: String(portA), datamode: 'stream', datatype: 'buffer', newline: '', topic: '', x: 120, y: 80, wires: [['linkA']] },
    { id: 'statusA', type: 'status', z: 'tab1', scope: ['tcpA'], x: 120, y: 140, wires: [['linkA']] },
    { id: 'linkA', type: 'astm-link', z: 'tab1', name: 'Bench 1 chemistry', transport: 'tcp', quietMinutes: '0.1', quietDays: '', quietFrom: '', quietTo: '', x: 320, y: 100, wires: [['tcpOutA'], ['msgA'], []] },
    { id: 'tcpOutA', type: 'tcp out', z: 'tab1', host: '', port: '', beserver: 'reply', base64: false, end: false, x: 520, y: 40, wires: [] },
    { id: 'msgA', type: 'astm-message', z: 'tab1', dialect: 'generic-lis2a2', timeZone: 'UTC', x: 520, y: 100, wires: [[], ['mapper'], ['linkA'], []] },
    { id: 'mapper', type: 'test-mapper', z: 'tab1', direction: 'toLis', unmapped: 'warn', mapping: [{ lisTestId: 'T-GLU', lisCode: 'GLU', lisName: 'Glucose', instrumentCode: 'GLU' }], x: 700, y: 100, wires: [['sender'], []] },
    { id: 'sender', type: 'lis-send-results', z: 'tab1', name: 'send results', lis: 'cfg', x: 880, y: 100, wires: [[]] },
    // Bench 2: we connect to the analyzer, which is not there. Down after about a second.
    { id: 'tcpB', type: 'tcp in', z: 'tab1', server: 'client', host: '${ANALYZER_HOST}', port: '${ANALYZER_TCP_PORT}', datamode: 'stream', datatype: 'buffer', newline: '', topic: '', x: 120, y: 240, wires: [['linkB']] },
    { id: 'linkB', type: 'astm-link', z: 'tab1', name: 'Bench 2 haematology', transport: 'tcp', downMinutes: '0.02', x: 320, y: 240, wires: [[], [], []] },
    // Bench 3: an HL7 analyzer connects to us; its trace blanks patient names (PID-5 to PID-7).
    { id: 'tcpC', type: 'tcp in', z: 'tab1', server: 'server', host: '', port: String(portC), datamode: 'stream', datatype: 'buffer', newline: '', topic: '', x: 120, y: 400, wires: [['linkC']] },
    { id: 'linkC', type: 'hl7-link', z: 'tab1', name: 'Bench 3 immunoassay', transport: 'tcp', traceRedact: true, x: 320, y: 400, wires: [['tcpOutC'], [], []] },
    { id: 'tcpOutC', type: 'tcp out', z: 'tab1', host: '', port: '', beserver: 'reply', base64: false, end: false, x: 520, y: 400, wires: [] },
    // An order for glucose and urea, where only glucose has an instrument code.
    { id: 'orderIn', type: 'inject', z: 'tab1', name: 'order S-400', props: [{ p: 'payload' }], payload: JSON.stringify({ SampleNumber: 'S-400', Tests: ['T-GLU', 'T-UREA'] }), payloadType: 'json', repeat: '', once: false, x: 120, y: 320, wires: [['orderMapper']] },
    { id: 'orderMapper', type: 'test-mapper', z: 'tab1', direction: 'toInstrument', unmapped: 'warn', mapping: [{ lisTestId: 'T-GLU', lisCode: 'GLU', lisName: 'Glucose', instrumentCode: 'GLU' }], x: 320, y: 320, wires: [[], []] },
  ];
}

async function heldList(): Promise<{ batches: Array<{ samples: string[] }>; stuck: unknown[] }> {
  const res = await fetch(`${red!.url}/lis-bridge/held`);
  return (await res.json()) as { batches: Array<{ samples: string[] }>; stuck: unknown[] };
}

/** The link's LINK_QUIET alarms up now, as the lab's monitoring reads them. */
async function quietAlarms(link: string): Promise<number> {
  return sum(parseSamples(await (await fetch(`${red!.url}/lis-bridge/metrics`)).text()), 'lisbridge_link_alarm', { link, code: 'LINK_QUIET' });
}

/** The samples of every /results request the LIS received. */
const samplesAtLis = () => stub.to('/results').map((r) => ((r.json as { results: Array<{ SampleNumber: string }> }).results ?? []).map((x) => x.SampleNumber).join(','));

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'lis-lab-browser-'));
  stub = await new LisStub().start();
  const userDir = join(work, 'userDir');
  mkdirSync(userDir);
  // An earlier run received this message, translated it, and it never reached the LIS: stuck, waiting for an operator.
  await writeJournal(join(userDir, 'lis-bridge'), async (j) => {
    await j.received('linkA', 'rx-stuck', Buffer.from(STUCK_MESSAGE, 'latin1'), 'terminator');
    await j.planned('rx-stuck', 1, undefined, ['S-STUCK']);
    await j.markStuck('rx-stuck', 'its results did not reach lis-send-results (the mapper was not deployed)');
  });
  portA = await freePort();
  portB = await freePort();
  portC = await freePort();
  session = await startEditorSession(userDir, flows(portA, portB, portC), 'linkA', { width: 1400, height: 1500 });
  ({ red, page, pageErrors } = session);
  sim = new AnalyzerSimulator({ dialect: 'generic-lis2a2', transport: new TcpClientTransport('127.0.0.1', portA), timeZone: 'UTC', senderName: 'COBAS-7' });
  await sim.start();
  await withTimeout(sim.waitConnected(), 30_000, 'the analyzer connected by its link');
});

after(async () => {
  await sim?.stop();
  await session?.stop();
  await stub?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('Lab sidebar', () => {
  it('is findable: its icon in the tab bar (not only in an overflow menu), its View menu entry and its shortcut open it', async () => {
    type Red = { RED: { sidebar: { show(id: string): void } } };
    // Wherever this editor draws the sidebar tabs' icons: Node-RED 4 above the sidebar, where a narrow sidebar moves
    // the last ones into a dropdown; Node-RED 5 in one tab bar under the canvas for both sidebars, where a narrow
    // window hides them all behind an overflow button. Either way the icon must show without opening a menu.
    const button = page.locator(`${TAB_ICON_NR4}, ${TAB_ICON_NR5}`);
    // Narrow, as Node-RED 4 opens it on a laptop: unpinned icons are the first to go into the dropdown.
    await dragSidebarTo(page, 320);
    await page.evaluate(() => (globalThis as unknown as Red).RED.sidebar.show('info'));
    assert.equal(await button.count(), 1, 'the Lab tab has one icon in the tab bar');
    assert.ok(await button.isVisible(), 'the Lab icon is in the tab bar');
    await button.click();
    await page.locator('.lis-lab').waitFor({ state: 'visible', timeout: 15000 });

    // The View menu (Node-RED's main menu) opens it.
    await page.evaluate(() => (globalThis as unknown as Red).RED.sidebar.show('info'));
    await page.locator('#red-ui-header-button-sidemenu').click();
    await page.locator('#menu-item-view-menu').hover();
    await page.locator('#menu-item-view-menu-lis-lab').click();
    await page.locator('.lis-lab').waitFor({ state: 'visible', timeout: 15000 });

    // And ctrl-g l, beside Node-RED's ctrl-g i (info) and ctrl-g d (debug); named in the icon's tooltip.
    await page.evaluate(() => (globalThis as unknown as Red).RED.sidebar.show('info'));
    await page.locator('#red-ui-workspace-chart').click({ position: { x: 600, y: 600 } });
    await page.keyboard.press('Control+g');
    await page.keyboard.press('l');
    await page.locator('.lis-lab').waitFor({ state: 'visible', timeout: 15000 });
    assert.deepEqual(pageErrors, []);
    // Hidden again, the sidebar reads everything afresh when the next test shows it (a hidden one ignores changes).
    await page.evaluate(() => (globalThis as unknown as Red).RED.sidebar.show('info'));
  });

  it('shows both links, resends a held batch, replays a stuck message once, and shows a quiet-link alarm appear and clear', async () => {
    stub.reply('/results', { status: 500, body: { message: 'database offline', errors: [] } });
    await sim!.sendResults('S-100', ['GLU']);
    await waitUntil(async () => (await heldList()).batches.length === 1, 15000, 'the refused batch to be held', 50);
    // Quiet time counts from the deploy: on a busy machine Bench 1's quiet alarm may be up before S-100 came. The
    // next check clears it; wait for that, so the alarm awaited below is the one after S-100.
    await waitUntil(async () => (await quietAlarms('linkA')) === 0, 15000, "Bench 1's quiet alarm cleared by S-100", 50);

    // A wider sidebar, as an operator would drag it: the rows read better (and the README's picture shows them whole).
    await dragSidebarTo(page, 500);
    await page.evaluate(() => (globalThis as unknown as { RED: { sidebar: { show(id: string): void } } }).RED.sidebar.show('lis-lab'));
    await page.locator(`${LINKS}[data-node="linkB"]`).waitFor({ state: 'visible', timeout: 15000 });
    assert.equal(await page.locator(LINKS).count(), 3);

    // Bench 1: connected, named by its H record, its message counted.
    const a = page.locator(`${LINKS}[data-node="linkA"]`);
    await a.locator('.lis-lab-state[data-state="connected"]').waitFor({ timeout: 15000 });
    // Its H-5 name and the dialect its message node reads, with the protocol.
    await waitForText(a.locator('.lis-lab-analyzer'), ' · COBAS-7 · Generic CLSI LIS2-A2 / ASTM E1394 (ASTM)');
    await waitForText(a.locator('.lis-lab-counts'), /today: received 1 · queries 0 · results 1 · sent/);
    await waitForText(a.locator('.lis-lab-problems'), /held 1 · stuck 1/);
    // Bench 2: nobody to connect to, and a check after a second its down alarm.
    const b = page.locator(`${LINKS}[data-node="linkB"]`);
    assert.equal(await b.locator('.lis-lab-state').getAttribute('data-state'), 'disconnected');
    await b.locator('.lis-lab-alarm[data-code="LINK_DOWN"]').waitFor({ timeout: 15000 });
    // What to check, named: the address the tab's variables set, and the variables.
    await waitForText(b.locator('.lis-lab-check'), `Check: nothing answers at 127.0.0.1:${portB} (is the analyzer on, its host connection enabled, the address right?) — set by ANALYZER_HOST, ANALYZER_TCP_PORT on this tab.`);
    assert.equal(await a.locator('.lis-lab-check').count(), 0, 'nothing to check on a connected link');
    // And on the node in the flow, where an integrator who left an example at its placeholder looks first.
    await waitForText(page.locator('g[id="linkB"] .red-ui-flow-node-status-label'), `nothing answers at 127.0.0.1:${portB}: set ANALYZER_HOST, ANALYZER_TCP_PORT on this tab`);

    // Not everything reached the LIS, and the sidebar's first line says so, naming what waits.
    await waitForText(page.locator('.lis-lab-verdict'), /^Not everything received has reached the LIS: .*1 held batches · 1 stuck messages/);
    // The held batch and the stuck message, with their samples.
    await page.locator(BATCHES).first().waitFor({ timeout: 15000 });
    await waitForText(page.locator(`${BATCHES} .lis-lab-samples`), 'S-100');
    await waitForText(page.locator(`${BATCHES} .lis-lab-batch-error`), /database offline/);
    assert.equal(await page.locator(STUCK).count(), 1);
    await waitForText(page.locator(`${STUCK} .lis-lab-samples`), 'S-STUCK');
    await waitForText(page.locator(`${STUCK} .lis-lab-reason`), /mapper was not deployed/);

    // Six seconds without a message from Bench 1: its quiet alarm arrives on its own (comms, no refresh pressed).
    await page.locator(QUIET_BADGE).waitFor({ timeout: 20000 });
    await waitForText(page.locator(QUIET_BADGE), /^quiet since .+ \(LINK_QUIET\)$/);
    // The same alarms for the lab's monitoring.
    const metrics = parseSamples(await (await fetch(`${red!.url}/lis-bridge/metrics`)).text());
    assert.equal(sum(metrics, 'lisbridge_link_alarm', { link: 'linkA', code: 'LINK_QUIET' }), 1);
    assert.equal(sum(metrics, 'lisbridge_link_alarm', { link: 'linkB', code: 'LINK_DOWN' }), 1);
    assert.equal(sum(metrics, 'lisbridge_link_alarm', { link: 'linkB', code: 'LINK_QUIET' }), 0);

    // A click on the link shows the last units of its trace, readable.
    await a.click();
    await a.locator('.lis-lab-trace .lis-lab-trace-unit').first().waitFor({ timeout: 15000 });
    const trace = (await a.locator('.lis-lab-trace').textContent()) ?? '';
    assert.match(trace, /← \[[^\]]+\] ENQ/);
    assert.match(trace, /R\|1\|\^\^\^GLU/);
    if (process.env.UPDATE_SCREENSHOTS) {
      // The README's picture: the sidebar down to its last row.
      const side = (await page.locator('#red-ui-sidebar').boundingBox())!;
      const last = (await page.locator(STUCK).last().boundingBox())!;
      await page.screenshot({ path: join(ROOT, 'docs', 'lab-sidebar.png'), clip: { x: side.x, y: side.y, width: side.width, height: last.y + last.height + 12 - side.y } });
    }

    // Resend: the LIS is back.
    stub.reply('/results', { status: 200, body: { status: 'ok' } });
    await page.locator(`${BATCHES} .lis-lab-resend`).click();
    await page.locator(BATCHES).first().waitFor({ state: 'detached', timeout: 15000 });
    await waitForText(page.locator('.lis-lab-held-summary'), /No result batch is held/);
    assert.deepEqual(samplesAtLis(), ['S-100', 'S-100'], 'refused once, resent once');

    // Replay the stuck message: its results reach the LIS once.
    await page.locator(`${STUCK} .lis-lab-replay`).click();
    await page.locator(STUCK).first().waitFor({ state: 'detached', timeout: 15000 });
    await waitUntil(() => samplesAtLis().includes('S-STUCK'), 15000, 'the replayed results at the LIS', 50);
    await waitForText(page.locator('.lis-lab-stuck-summary'), /No message is stuck/);

    // Bench 1 sends again: the quiet alarm clears on its own.
    await sim!.sendResults('S-200', ['GLU']);
    await page.locator(QUIET_BADGE).waitFor({ state: 'detached', timeout: 15000 });
    await waitUntil(() => samplesAtLis().includes('S-200'), 15000, 'S-200 at the LIS', 50);
    assert.deepEqual(samplesAtLis().filter((s) => s === 'S-STUCK'), ['S-STUCK'], 'the stuck message reached the LIS once');
    assert.deepEqual((await heldList()).stuck, []);

    // A result whose code no LIS test is mapped for is held, by code, for a person: Send says what to do first; Dismiss
    // asks why and keeps the answer.
    await waitForText(page.locator('.lis-lab-holds-summary'), /No result is waiting for a person/);
    await sim!.sendResults('S-300', ['GLU', 'K']);
    await waitUntil(() => samplesAtLis().includes('S-300'), 15000, 'the mapped result of S-300 at the LIS', 50);
    const hold = page.locator('.lis-lab-holds .lis-lab-hold[data-code="K"]');
    await waitForText(hold.locator('.lis-lab-hold-title'), /^K: 1 results, 1 samples, since /);
    await waitForText(hold.locator('.lis-lab-samples'), 'S-300');
    await waitForText(hold.locator('.lis-lab-hold-link'), 'from Bench 1 chemistry');
    await waitForText(page.locator('.lis-lab-holds-summary'), /^1 result waiting for a person: each row says why and what to do\.$/);
    await waitForText(a.locator('.lis-lab-problems'), /· waiting 1$/);
    await hold.locator('.lis-lab-hold-send').click();
    await waitForText(page.locator('.lis-lab-problem'), /still cannot be mapped \(no LIS test is mapped to instrument test K\): map the code in this test-mapper, deploy, then send them/);
    page.once('dialog', (d) => void d.accept('potassium is reported by the ISE module'));
    await hold.locator('.lis-lab-hold-dismiss').click();
    await hold.waitFor({ state: 'detached', timeout: 15000 });
    await waitForText(page.locator('.lis-lab-holds-summary'), /No result is waiting for a person/);
    assert.equal(samplesAtLis().filter((s) => s === 'S-300').length, 1, 'only the mapped result of S-300 reached the LIS');
    // Bench 1's day: S-100 (refused, then resent), the replayed S-STUCK, S-200 and S-300's glucose delivered; K held, then dismissed.
    await waitForText(a.locator('.lis-lab-endings'), 'ended today: delivered 4 · held for a person 1 · discarded 0 · not for the LIS 0');
    await waitForText(a.locator('.lis-lab-resolved'), 'held results, by a person today: sent 0 · dismissed 1 · still waiting 0');
    // Now every result has its end: delivered, or dismissed by a person. Only then the sidebar says so.
    await waitForText(page.locator('.lis-lab-verdict'), /^Every result received reached the LIS, was dismissed by a person, or is not for the LIS by its dialect's own rule\.$/);
    assert.deepEqual((await (await fetch(`${red!.url}/lis-bridge/held`)).json() as { summary: unknown }).summary, { waiting: 0, heldBatches: 0, stuck: 0, onTheirWay: 0, notUnderstood: 0, everythingReached: true });

    // An order that goes to the analyzer without one of its tests is listed, with the test.
    await waitForText(page.locator('.lis-lab-orders-summary'), /Every order of the last day went to its analyzer with all its tests/);
    await red!.inject('orderIn');
    await waitForText(page.locator('.lis-lab-orders .lis-lab-order-gap .lis-lab-order-tests'), 'not sent: T-UREA');
    await waitForText(page.locator('.lis-lab-orders .lis-lab-order-gap .lis-lab-samples'), 'S-400');
    await waitForText(page.locator('.lis-lab-orders-summary'), /^1 order of the last day went without some of its tests/);
    assert.deepEqual(pageErrors, []);
  });

  it('shows a long frame of the trace across the width of a narrow sidebar, after the ACK it answers, not one character per line', async () => {
    await dragSidebarTo(page, 400);
    await page.evaluate(() => (globalThis as unknown as { RED: { sidebar: { show(id: string): void } } }).RED.sidebar.show('lis-lab'));
    // A second analyzer on Bench 1 sends a message, one record per frame, one of them 240 characters long (LIS1-A's longest).
    const comment = `C|1|L|${'Lipaemic sample, result flagged for review by the lab; '.repeat(5)}`.slice(0, 237) + '|G';
    // It does not name itself (H-5 empty), as some analyzers never do: its row says so instead of "not named yet".
    const text = `H|\\^&||||||||||P|LIS2-A2\r${comment}\rL|1|N\r`;
    const frames = buildFrames(Buffer.from(text, 'latin1'), { framePerRecord: true });
    assert.equal(frames[1]!.length - 7, 240, 'the text of the long frame: its record and CR');
    const socket = net.connect(portA, '127.0.0.1');
    const got: number[] = [];
    socket.on('data', (d: Buffer) => got.push(...d));
    await new Promise<void>((r) => socket.once('connect', () => r()));
    const step = async (bytes: Buffer, what: string) => {
      const want = got.length + 1;
      socket.write(bytes);
      await waitUntil(() => got.length >= want, 15000, what, 50);
      assert.equal(got.at(-1), 0x06, `${what}: ACK`);
    };
    await step(Buffer.from([0x05]), 'the ACK of ENQ');
    for (const [i, f] of frames.entries()) await step(f, `the ACK of frame ${i + 1}`);
    socket.end(Buffer.from([0x04]));

    const a = page.locator(`${LINKS}[data-node="linkA"]`);
    if ((await a.locator('.lis-lab-trace').count()) === 0) await a.locator('.lis-lab-link-name').click();
    // The whole exchange is in: the row names the nameless analyzer, and the frame is followed by the link's ACK of it.
    await a.locator('.lis-lab-connection', { hasText: 'analyzer names itself nowhere (H-5 empty)' }).waitFor({ timeout: 15000 });
    await waitUntil(
      async () => {
        const units = await a.locator('.lis-lab-trace-unit').allTextContents();
        const at = units.findIndex((u) => u.includes('Lipaemic'));
        return at >= 0 && /→ \[[^\]]+\] ACK/.test(units[at + 1] ?? '');
      },
      15000,
      "the long frame in the trace, then the link's ACK of it",
      50,
    );
    // The trace is drawn again as units arrive over comms: everything is measured in one go, on the row as laid out
    // at that moment, and again if it was caught between two drawings.
    const measure = () =>
      a.evaluate((link) => {
        const el = [...link.querySelectorAll('.lis-lab-trace-unit')].find((u) => (u.textContent ?? '').includes('Lipaemic')) as HTMLElement | undefined;
        const trace = link.querySelector('.lis-lab-trace');
        const sidebar = document.querySelector('#red-ui-sidebar');
        if (!el || !trace || !sidebar || el.clientWidth === 0) return undefined;
        const style = getComputedStyle(el);
        const ctx = document.createElement('canvas').getContext('2d')!;
        ctx.font = style.font;
        const box = el.getBoundingClientRect();
        return {
          width: box.width,
          height: box.height,
          traceWidth: trace.getBoundingClientRect().width,
          sidebarWidth: sidebar.getBoundingClientRect().width,
          lineHeight: parseFloat(style.lineHeight) || 1.2 * parseFloat(style.fontSize),
          perLine: Math.floor(el.clientWidth / ctx.measureText('M').width),
          chars: (el.textContent ?? '').length,
        };
      });
    let m: Awaited<ReturnType<typeof measure>>;
    await waitUntil(async () => (m = await measure()) !== undefined, 15000, 'the long frame laid out in the trace', 50);
    const { width, height, traceWidth, sidebarWidth, lineHeight, perLine, chars } = m!;
    assert.ok(Math.abs(sidebarWidth - 400) < 20, `a sidebar of about 400 px (${sidebarWidth})`);
    assert.ok(width >= traceWidth - 2, `the row takes the trace's width (${width} of ${traceWidth} px)`);
    // As many lines as the text needs at that width, one more for wrapping at a separator rather than inside a field.
    const lines = Math.round(height / lineHeight);
    assert.ok(perLine >= 40, `${perLine} characters per line`);
    assert.ok(lines <= Math.ceil(chars / perLine) + 1, `${chars} characters in ${lines} lines of ${perLine}`);
    assert.ok(lines <= 6, `a 240-character frame in ${lines} lines`);
    assert.deepEqual(pageErrors, []);
  });

  it('shows an HL7 link\'s trace as its segments, one a line, patient names blanked as the link is set, not the bare word "message"', async () => {
    await page.evaluate(() => (globalThis as unknown as { RED: { sidebar: { show(id: string): void } } }).RED.sidebar.show('lis-lab'));
    const message = 'MSH|^~\\&|i15|LAB|LIS||20261201093000||ORU^R01|M-1|P|2.3.1\rPID|1||P-77||Roe^Jane||19800102|F\rOBR|1|S-500\rOBX|1|NM|GLU||5.4|mmol/L|||||F\r';
    const socket = net.connect(portC, '127.0.0.1');
    const got: Buffer[] = [];
    socket.on('data', (d: Buffer) => got.push(d));
    await new Promise<void>((r) => socket.once('connect', () => r()));
    socket.write(Buffer.concat([Buffer.from([0x0b]), Buffer.from(message, 'latin1'), Buffer.from([0x1c, 0x0d])]));
    await waitUntil(() => Buffer.concat(got).toString('latin1').includes('MSA|AA|M-1'), 15000, 'the AA of M-1', 50);
    socket.end();
    const c = page.locator(`${LINKS}[data-node="linkC"]`);
    if ((await c.locator('.lis-lab-trace').count()) === 0) await c.locator('.lis-lab-link-name').click();
    const received = c.locator('.lis-lab-trace-unit', { hasText: 'OBX|1|NM|GLU' });
    await received.waitFor({ timeout: 15000 });
    const text = (await received.textContent()) ?? '';
    assert.match(text, /← (\[[^\]]+\] )?MSH\|\^~\\&\|i15\|LAB/);
    assert.match(text, /\n {4}PID\|1\|\|P-77\|\|/);
    assert.match(text, /\n {4}OBX\|1\|NM\|GLU\|\|5\.4\|mmol\/L/);
    assert.doesNotMatch(text, /Roe|Jane|19800102/, 'PID-5 to PID-7 blanked');
    assert.doesNotMatch(text, /^\S+ ← (\[[^\]]+\] )?message$/);
    await waitForText(c.locator('.lis-lab-trace-unit', { hasText: 'MSA|AA|M-1' }), /→ (\[[^\]]+\] )?MSH\|/);
    assert.deepEqual(pageErrors, []);
  });
});
