/**
 * A browser test's world for a message node's dialog: a loopback LIS stub
 * that takes results, a free TCP port the flow's analyzer end listens on,
 * Node-RED running `flows` in a temporary user directory, and Chromium on
 * its editor. Shared by the dialect-section tests of each protocol.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { LisStub } from './lis-stub';
import { freePort } from './ports';
import { deploy, startEditorSession } from './browser';
import { sleep, waitUntil } from './wait';
import { frameMllp } from '../../lib/protocols/hl7';
import { buildFrames } from '../../lib/protocols/astm/link';

export interface LisEditor {
  stub: LisStub;
  /** Where the flow's `tcp in` listens for the analyzer. */
  analyzerPort: number;
  page: Page;
  pageErrors: string[];
  stop(): Promise<void>;
}

export async function startLisEditor(name: string, flows: (stub: LisStub, analyzerPort: number) => unknown[], nodeId: string): Promise<LisEditor> {
  const work = mkdtempSync(join(tmpdir(), `lis-${name}-`));
  const stub = await new LisStub().start();
  stub.reply('/results', { status: 200, body: {} });
  const analyzerPort = await freePort();
  const userDir = join(work, 'userDir');
  mkdirSync(userDir);
  const session = await startEditorSession(userDir, flows(stub, analyzerPort), nodeId, { width: 1280, height: 1100 }).catch(async (err: unknown) => {
    await stub.stop();
    rmSync(work, { recursive: true, force: true });
    throw err;
  });
  return {
    stub,
    analyzerPort,
    page: session.page,
    pageErrors: session.pageErrors,
    async stop() {
      await session.stop();
      await stub.stop();
      rmSync(work, { recursive: true, force: true });
    },
  };
}

/** A connection to the flow's `tcp in`, once it listens: a deploy restarts it, and it listens again a moment later. */
export async function connectWhenListening(port: number): Promise<Socket> {
  let socket: Socket | undefined;
  const connected = async () => {
    const s = connect(port, '127.0.0.1');
    if (await new Promise<boolean>((resolve) => s.once('connect', () => resolve(true)).once('error', () => resolve(false)))) socket = s;
    return socket !== undefined;
  };
  await waitUntil(connected, 15_000, `tcp in to listen on ${port}`, 100);
  return socket!;
}

/** What differs between protocols in the analyzer's flow: its link and message nodes (type and settings), and the test mapping. */
export interface AnalyzerFlow {
  link: { type: string; name: string } & Record<string, unknown>;
  message: { id: string; type: string; dialect: string } & Record<string, unknown>;
  instrument: string;
  mapping: ReadonlyArray<Record<string, string>>;
}

/**
 * tcp in -> <link> (`link`) -> <message> -> test-mapper -> lis-send-results to
 * the stub, the link's writes back through tcp out, as an integrator wires an
 * analyzer on TCP.
 */
export function analyzerFlow(lis: LisStub, analyzerPort: number, token: string, f: AnalyzerFlow): Array<Record<string, unknown>> {
  return [
    { id: 'tab1', type: 'tab', label: 'Analyzer' },
    { id: 'cfg', type: 'lis-config', name: 'LIS', labTestsApiUrl: lis.url('/tests'), transactionInfoApiUrl: lis.url('/orders'), resultApiUrl: lis.url('/results'), timeout: 5000, credentials: { bearerToken: token } },
    { id: 'tcpin', type: 'tcp in', z: 'tab1', server: 'server', host: '', port: String(analyzerPort), datamode: 'stream', datatype: 'buffer', newline: '', topic: '', x: 100, y: 80, wires: [['link']] },
    { id: 'link', z: 'tab1', transport: 'tcp', journal: true, trace: true, x: 300, y: 80, wires: [['tcpout'], [f.message.id], []], ...f.link },
    { id: 'tcpout', type: 'tcp out', z: 'tab1', host: '', port: '', beserver: 'reply', base64: false, end: false, x: 500, y: 40, wires: [] },
    { z: 'tab1', name: '', dialectOverrides: '', timeZone: 'UTC', x: 500, y: 120, wires: [[], ['tm'], ['link'], []], ...f.message },
    { id: 'tm', type: 'test-mapper', z: 'tab1', name: '', lis: 'cfg', instrument: f.instrument, direction: 'toLis', unmapped: 'warn', mapping: f.mapping, x: 700, y: 120, wires: [['send'], []] },
    { id: 'send', type: 'lis-send-results', z: 'tab1', name: '', lis: 'cfg', autoResend: false, x: 900, y: 120, wires: [[]] },
  ];
}

/** Closes the dialog with Done and deploys. */
export async function doneAndDeploy(page: Page): Promise<void> {
  await page.locator('#node-dialog-ok').click();
  await page.locator('#node-dialog-ok').waitFor({ state: 'detached' });
  await deploy(page);
}

/**
 * The result requests the LIS got after the first `before`, once there is one
 * (or after 15 s), and a moment more: a second one would be a duplicate.
 */
export async function resultsAtLis(stub: LisStub, before = 0): Promise<ReturnType<LisStub['to']>> {
  await waitUntil(() => stub.to('/results').length > before, 15000, 'a result request at the LIS', 50).catch(() => undefined); // the caller's assertions say what is missing
  await sleep(300);
  return stub.to('/results').slice(before);
}

/** Sends `bytes` (ASTM frames) to the flow's `tcp in` as one ENQ ... EOT transfer, as the analyzer would: each step once the link has ACKed the one before. */
export async function sendAstmTransfer(port: number, bytes: Buffer): Promise<void> {
  const socket = await connectWhenListening(port);
  const acks: number[] = [];
  socket.on('data', (d: Buffer) => acks.push(...d));
  const acked = (n: number, what: string) => waitUntil(() => acks.filter((b) => b === 0x06).length >= n, 15_000, what);
  socket.write(Buffer.of(0x05));
  await acked(1, 'the ACK of ENQ');
  socket.write(bytes);
  const frames = bytes.filter((b) => b === 0x02).length;
  await acked(1 + frames, `the ACKs of ${frames} frames`);
  socket.write(Buffer.of(0x04));
  await sleep(50);
  socket.end();
}

/** Sends `bytes` to the flow's `tcp in` in an MLLP frame, as the analyzer would; what the link answered, once its frame has ended. */
export async function sendHl7Message(port: number, bytes: Buffer): Promise<string> {
  const socket = await connectWhenListening(port);
  const got: Buffer[] = [];
  socket.on('data', (d: Buffer) => got.push(d));
  socket.write(frameMllp(bytes));
  await waitUntil(() => Buffer.concat(got).includes(0x1c), 15_000, "the link's acknowledgement");
  socket.end();
  return Buffer.concat(got).toString('latin1');
}

/** The open dialog in test/artifacts/<name>; with UPDATE_SCREENSHOTS=1 also in docs/ for the README. */
export async function keepScreenshot(page: Page, name: string): Promise<void> {
  await keepElementShot(page.locator('#red-ui-editor-stack .red-ui-tray').last(), name);
}

/** One element of the page in test/artifacts/<name>; with UPDATE_SCREENSHOTS=1 also in docs/. */
export async function keepElementShot(element: Locator, name: string): Promise<void> {
  const root = join(__dirname, '..', '..', '..');
  mkdirSync(join(root, 'test', 'artifacts'), { recursive: true });
  const shot = join(root, 'test', 'artifacts', name);
  // A live part of the page may be drawn again while it is shot (the Lab sidebar on a change): shot again, as found then.
  const shotTaken = () =>
    element.screenshot({ path: shot }).then(
      () => true,
      (err: unknown) => {
        if (!/not attached to the DOM/.test(String(err))) throw err;
        return false;
      },
    );
  await waitUntil(shotTaken, 15_000, `${element.toString()} to stay in the page while it is shot`, 50);
  if (process.env.UPDATE_SCREENSHOTS) copyFileSync(shot, join(root, 'docs', name));
}

/** A LIS2-A2 upload of one sample with these results (the generic dialect), framed for the line. */
export function astmUpload(sample: string, results: Array<[code: string, value: string]>): Buffer {
  const text =
    'H|\\^&|||ANALYZER^1|||||LIS||P|LIS2-A2|20261201094500\r' +
    `P|1||P-${sample}\r` +
    `O|1|${sample}||${results.map(([c]) => `^^^${c}`).join('\\')}|R\r` +
    results.map(([c, v], i) => `R|${i + 1}|^^^${c}|${v}|mmol/L||N||F||||20261201094400\r`).join('') +
    'L|1|N\r';
  return Buffer.concat(buildFrames(Buffer.from(text, 'latin1'), {}));
}

/**
 * A chemistry bench on TCP in the generic dialect (tcp in, astm-link, astm-message), its test map, a test-mapper
 * and lis-send-results to the stub LIS; `processed` adds lis-mark-processed after the send.
 */
export function benchChemistryFlow(o: { stub: LisStub; port: number; token: string; mapping: unknown[]; trace?: boolean; processed?: boolean }): Array<Record<string, unknown>> {
  const { stub, port } = o;
  const lis = { labTestsApiUrl: stub.url('/tests'), transactionInfoApiUrl: stub.url('/orders'), resultApiUrl: stub.url('/results'), orderCompletedApiUrl: stub.url('/processed'), timeout: 5000 };
  const marking = [
    { id: 'processed', type: 'change', z: 'tab1', name: '', rules: [{ t: 'set', p: 'payload', pt: 'msg', to: 'processed', tot: 'msg' }], x: 1080, y: 120, wires: [['split']] },
    { id: 'split', type: 'split', z: 'tab1', name: '', splt: '\\n', spltType: 'str', arraySplt: 1, arraySpltType: 'len', stream: false, addname: '', property: 'payload', x: 1220, y: 120, wires: [['mark']] },
    { id: 'mark', type: 'lis-mark-processed', z: 'tab1', name: 'mark processed', lis: 'cfg', x: 1360, y: 120, wires: [[]] },
  ];
  return [
    { id: 'tab1', type: 'tab', label: 'Chemistry' },
    { id: 'cfg', type: 'lis-config', name: 'LIS', ...lis, credentials: { bearerToken: o.token } },
    { id: 'map', type: 'lis-test-map', z: 'tab1', name: '', instrument: 'Bench chemistry', lis: 'cfg', mapping: o.mapping },
    { id: 'tcpin', type: 'tcp in', z: 'tab1', server: 'server', host: '', port: String(port), datamode: 'stream', datatype: 'buffer', newline: '', topic: '', x: 100, y: 80, wires: [['link']] },
    { id: 'link', type: 'astm-link', z: 'tab1', name: 'Bench chemistry', transport: 'tcp', journal: true, trace: o.trace === true, x: 300, y: 80, wires: [['tcpout'], ['msg'], []] },
    { id: 'tcpout', type: 'tcp out', z: 'tab1', host: '', port: '', beserver: 'reply', base64: false, end: false, x: 500, y: 40, wires: [] },
    { id: 'msg', type: 'astm-message', z: 'tab1', name: '', dialect: 'generic-lis2a2', dialectOverrides: '', timeZone: 'UTC', x: 500, y: 120, wires: [[], ['tm'], ['link'], []] },
    { id: 'tm', type: 'test-mapper', z: 'tab1', name: 'analyzer -> LIS codes', map: 'map', direction: 'toLis', unmapped: 'warn', x: 700, y: 120, wires: [['send'], []] },
    { id: 'send', type: 'lis-send-results', z: 'tab1', name: 'send results', lis: 'cfg', autoResend: false, x: 900, y: 120, wires: [o.processed ? ['processed'] : []] },
    ...(o.processed ? marking : []),
  ];
}
