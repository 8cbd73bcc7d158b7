/**
 * The README's way to connect a second analyzer: import the example again
 * ("Import copy"). The copy keeps the example's ANALYZER_PORT when the
 * integrator forgets to change it, so two tabs read one serial device, and
 * node-red-node-serialport hands every byte to both tabs' serial in nodes. Here
 * in a real Node-RED, the committed serial example twice, each tab's env (its
 * tab-scoped serial port configuration reads it) naming the same pty: the
 * analyzer's sample must reach the LIS once (one order request, one upload,
 * one processed), and the copy's link must say why it refuses the line.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { EXAMPLES, SHARED_LIS_ID, combineFlows, examplePath, loadCatalog, withTabEnv } from '../../demo/examples';
import { ptyPair, type PtyPair } from '../../demo/pty';
import { getProfile } from '../../lib/protocols/astm/dialects';
import { AnalyzerSimulator, type RunSummary } from '../../lib/sim';
import { LisStub, anOrder } from '../support/lis-stub';
import { startNodeRed, type NodeRedProcess } from '../support/node-red-process';
import { freeListeningPorts } from '../support/ports';
import { itemsOf } from './harness';
import { sleep, waitUntil, withTimeout } from '../support/wait';

const ROOT = join(__dirname, '..', '..', '..');
const TIME_ZONE = 'Europe/Berlin';
const SAMPLE = 'COPY0001';
type FlowNode = { id: string; type: string } & Record<string, unknown>;

// A serial ASTM example whose analyzer asks for its orders: a doubled link would show as two order requests too.
const spec = EXAMPLES.find((e) => e.protocol !== 'hl7' && e.protocol !== 'file' && e.transport === 'serial' && getProfile(e.dialect).query !== undefined && getProfile(e.dialect).order !== undefined)!;
const catalog = loadCatalog();

/** As Node-RED's Import copy: every node new (new ids, wires and references following), the shared LIS kept. */
function importCopy(flow: FlowNode[]): FlowNode[] {
  let text = JSON.stringify(flow.filter((n) => n.id !== SHARED_LIS_ID));
  for (const [i, n] of flow.entries()) if (n.id !== SHARED_LIS_ID) text = text.split(`"${n.id}"`).join(`"copy${String(i).padStart(12, '0')}"`);
  return JSON.parse(text) as FlowNode[];
}

/** A Catch and a Status node on the tab, logging what they get (the example's own Catch node keeps errors from the log). */
function watched(flow: FlowNode[]): FlowNode[] {
  const tab = flow.find((n) => n.type === 'tab')!.id;
  const log = (kind: string, what: string) => ({ id: `${tab}-${kind}-log`, type: 'function', z: tab, func: `node.warn(${what});\nreturn null;`, outputs: 0, wires: [] });
  return [
    ...flow,
    { id: `${tab}-catch`, type: 'catch', z: tab, scope: null, uncaught: false, wires: [[`${tab}-caught-log`]] },
    log('caught', '`CAUGHT ${msg.error.source.id} ${msg.error.code} ${msg.error.message}`'),
    { id: `${tab}-status`, type: 'status', z: tab, scope: null, wires: [[`${tab}-status-log`]] },
    log('status', '`STATUS ${msg.status.source.id} ${msg.status.fill} ${msg.status.text}`'),
  ];
}

let userDir: string;
let red: NodeRedProcess | undefined;
let lis: LisStub;
let pty: PtyPair;
let original: FlowNode[];
let copy: FlowNode[];

before(async () => {
  userDir = mkdtempSync(join(tmpdir(), 'lis-import-copy-'));
  lis = await new LisStub().start();
  lis.reply('/tests', { body: catalog });
  lis.handle('/orders', () => ({ body: { status: 'success', order: anOrder(SAMPLE, { Tests: spec.tests.map((t) => t.lisTestId), patient: { ID: 'PID-1', Name: 'Roe, Jane', Sex: 'F', DateOfBirth: '19800229' } }) } }));
  lis.reply('/results', { body: { status: 'success' } });
  lis.reply('/processed', { body: { status: 'success' } });
  pty = await ptyPair();
  const [pushA, pushB] = await freeListeningPorts(2);
  const example = JSON.parse(readFileSync(join(ROOT, 'examples', `${examplePath(spec)}.json`), 'utf8')) as FlowNode[];
  original = watched(withTabEnv(example, { ANALYZER_PORT: pty.host, LIS_PUSH_PORT: pushA! }));
  copy = watched(withTabEnv(importCopy(example), { ANALYZER_PORT: pty.host, LIS_PUSH_PORT: pushB! }));
  red = await startNodeRed({
    userDir,
    flows: combineFlows(original, copy),
    env: { TZ: TIME_ZONE, ...lis.exampleEnv('import-copy-token') },
    settings: { nodesDir: [ROOT, dirname(require.resolve('node-red-node-serialport/package.json'))], serialReconnectTime: 1000 },
  });
});

after(async () => {
  await red?.stop();
  await pty?.stop();
  await lis?.stop();
  rmSync(userDir, { recursive: true, force: true });
});

const link = (flow: FlowNode[]) => flow.find((n) => n.type === 'astm-link')!;
const escape = (s: string) => s.replace(/[/.()[\]\\^$*+?{}|]/g, '\\$&');

describe(`an Import copy of ${spec.file} left on the original's ANALYZER_PORT`, () => {
  it("the analyzer's sample reaches the LIS once: one order request, each result once, processed once", async () => {
    await red!.waitForLog(new RegExp(`serial port ${escape(pty.host)} opened at`), 30_000);
    const sim = new AnalyzerSimulator({ dialect: spec.dialect, transport: { kind: 'serial', path: pty.analyzer }, timeZone: TIME_ZONE, seed: 20261127, analysisMs: 200, intervalMs: 200, tests: spec.tests.map((t) => t.instrumentCode) });
    await sim.start();
    try {
      const summary = await withTimeout<RunSummary>(sim.runSamples([SAMPLE]), 60_000, `the sample\n${red!.output().slice(-4000)}`);
      assert.ok(summary.samples[0]!.ok, `the analyzer's sample: ${summary.samples[0]!.error ?? ''}`);
      const lisCodes = spec.tests.map((t) => catalog.find((c) => c.ID === t.lisTestId)!.Code);
      const processed = () => lis.to('/processed').filter((r) => (r.json as { SampleNumber?: string }).SampleNumber === SAMPLE).length;
      await waitUntil(() => processed() >= 1, 30_000, 'the processed notification', 50).catch(() => undefined); // the assertions say what is missing
      // Anything the copy passed on would reach the LIS alongside.
      await sleep(1000);
      const results = lis.to('/results').flatMap(itemsOf).filter((i) => i.SampleNumber === SAMPLE).map((i) => i.TestCode).sort();
      assert.deepEqual(results, [...lisCodes].sort(), 'each result once');
      assert.equal(lis.to('/orders').length, 1, 'one order request');
      assert.equal(processed(), 1, 'processed once');
    } finally {
      await sim.stop();
    }
  });

  it("the copy's link says the original's link keeps the port, and what to do, once; the original's link is not refused", async () => {
    const kept = link(original);
    const refused = link(copy);
    await red!.waitForLog(/CAUGHT \S+ PORT_SHARED/, 10_000);
    const log = red!.output();
    const caught = log.split('\n').filter((l) => / CAUGHT \S+ PORT_SHARED /.test(l));
    assert.equal(caught.length, 1, caught.join('\n'));
    assert.match(caught[0]!, new RegExp(`CAUGHT ${refused.id} PORT_SHARED `));
    assert.match(caught[0]!, new RegExp(`serial port ${escape(pty.host)} is read by astm-link "${escape(String(kept.name))}" \\(node ${kept.id}\\) too, which keeps it`));
    assert.match(caught[0]!, /Give this tab its own ANALYZER_PORT/);
    const last = new Map<string, string>();
    for (const m of log.matchAll(/STATUS (\S+) (\S+) ?(.*)$/gm)) last.set(m[1]!, `${m[2]} ${m[3] ?? ''}`);
    assert.equal(last.get(refused.id), `red serial port ${pty.host} is read by astm-link "${String(kept.name)}" (node ${kept.id}) too: give this tab its own ANALYZER_PORT`);
    assert.doesNotMatch(last.get(kept.id) ?? '', /^red /);
  });
});
