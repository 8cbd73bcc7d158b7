/**
 * Every example in one Node-RED, as an integrator with many analyzers runs
 * them, and each one exchanging with its analyzer: the committed example files
 * (one per built-in dialect, ASTM and HL7) side by side in one flow file, each
 * tab's environment variables (docs/examples.md) set to this run's devices and
 * ports, one lis-config, and the simulator (lib/sim) playing each example's
 * dialect on its line: a socat pty pair for a serial example, a TCP server the
 * example's tcp in connects to for a TCP one. Each analyzer scans one sample
 * (analyzers that query get its order from the loopback LIS first; the others
 * report their tests unasked); its results must reach the LIS exactly once
 * under that sample, with the LIS codes of the example's mapping, and be
 * reported processed once. At the end no node of any example shows a red
 * status: a status node per tab reports every status change to the log.
 *
 * A file instrument's example (examples/File) watches its tab's
 * ANALYZER_FOLDER, set to a temporary folder of its own; the file simulator
 * (lib/sim FileExporter) writes the dialect's sample export into it, each of
 * its mapped results must reach the LIS once, each sample be reported
 * processed once, and the file end in done/.
 *
 * All simulators run at once: one Node-RED, one sample (or one export) each,
 * so the run stays short whatever the number of dialects.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { EXAMPLES, combineFlows, exampleMapping, examplePath, loadCatalog, withTabEnv, type ExampleSpec } from '../../demo/examples';
import { ptyPair, type PtyPair } from '../../demo/pty';
import { getProfile } from '../../lib/protocols/astm/dialects';
import { findHl7Profile } from '../../lib/protocols/hl7/dialects';
import { AnalyzerSimulator, FileExporter, Hl7AnalyzerSimulator, TcpServerTransport, type Hl7RunSummary, type RunSummary } from '../../lib/sim';
import { fileLabEvents, findFileProfile } from '../../lib/protocols/file';
import { fileSample } from '../support/file-samples';
import { LisStub, anOrder } from '../support/lis-stub';
import { startNodeRed, type NodeRedProcess } from '../support/node-red-process';
import { freeListeningPorts } from '../support/ports';
import { LineLog, itemsOf } from './harness';
import { sleep, waitUntil, withTimeout } from '../support/wait';

const ROOT = join(__dirname, '..', '..', '..');
/** Node-RED's zone and the simulators': both sides read the analyzers' timestamps in it. */
const TIME_ZONE = 'Europe/Berlin';

type FlowNode = { id: string; type: string } & Record<string, unknown>;
type Simulator = AnalyzerSimulator | Hl7AnalyzerSimulator;

interface Analyzer {
  spec: ExampleSpec;
  /** The one sample this analyzer scans: unique across the examples, so the LIS tells them apart. */
  sample: string;
  /** The LIS codes its results must arrive under (the example's mapping). */
  lisCodes: string[];
  /** Whether the analyzer asks for the sample's order first (its dialect queries and the package can answer). */
  queries: boolean;
  pushPort: number;
  pty?: PtyPair;
  tcp?: TcpServerTransport;
  sim?: Simulator;
  log: LineLog;
  summary?: RunSummary | Hl7RunSummary;
}

/** A file instrument's example: its folder, the export the simulator writes there, and what the LIS must get of it. */
interface FileInstrument {
  spec: ExampleSpec;
  folder: string;
  exporter: FileExporter;
  sample: { name: string; bytes: Buffer };
  /** Every mapped result of the export, as `sample|LIS code|value`. */
  expected: string[];
  /** The samples with a mapped result: each reported processed once. */
  samples: string[];
  /** Results of the export the dialect keeps aside, never sent (a SkanIt plate's wells labelled Un0001: no sample number). */
  aside: number;
  /**
   * The example's LIS codes and test IDs: two exports may name the same samples (`Sample 1` in a NanoDrop's and a
   * Lunatic's), so what the LIS gets is told apart by the example's own tests (no two file examples share one).
   */
  lisCodes: Set<string>;
  testIds: Set<string>;
}

/** What the LIS must get of a file example's sample export: its results the example's test-mapper maps, under their LIS codes. */
function fileExpectation(spec: ExampleSpec, sample: { name: string; bytes: Buffer }): Pick<FileInstrument, 'expected' | 'samples' | 'aside' | 'lisCodes' | 'testIds'> {
  const lisCode = new Map(exampleMapping(spec, catalog).map((m) => [m.instrumentCode, m.lisCode]));
  const events = fileLabEvents(sample.bytes, findFileProfile(spec.dialect)!, { timeZone: TIME_ZONE, fileName: sample.name });
  const results = events.flatMap((e) => (e.type === 'results' ? e.results : [])).filter((r) => lisCode.has(r.instrumentCode));
  const aside = events.reduce((n, e) => n + (e.type === 'unassigned' ? e.items.length : 0), 0);
  return {
    expected: results.map((r) => `${r.SampleNumber}|${lisCode.get(r.instrumentCode)!}|${r.Result}`),
    samples: [...new Set(results.map((r) => r.SampleNumber))],
    aside,
    lisCodes: new Set(lisCode.values()),
    testIds: new Set(spec.tests.map((t) => t.lisTestId)),
  };
}

const catalog = loadCatalog();
const instruments: FileInstrument[] = [];
let userDir: string;
let red: NodeRedProcess | undefined;
let lis: LisStub;
const analyzers: Analyzer[] = [];
/** Each deployed node as a failing test names it: `<example> <type> "<name>"`. */
const nodeNames = new Map<string, string>();

function queriesFor(spec: ExampleSpec): boolean {
  if (spec.protocol === 'hl7') {
    const p = findHl7Profile(spec.dialect)!;
    return p.query !== undefined && p.answer !== undefined;
  }
  const p = getProfile(spec.dialect);
  return p.query !== undefined && p.order !== undefined;
}

/** The example's simulator on `transport`: the dialect's, reporting the example's own test codes where nothing is ordered. */
function simulatorFor(a: Analyzer, transport: ConstructorParameters<typeof AnalyzerSimulator>[0]['transport']): Simulator {
  const options = { dialect: a.spec.dialect, transport, timeZone: TIME_ZONE, seed: 20261127, analysisMs: 200, intervalMs: 200, tests: a.spec.tests.map((t) => t.instrumentCode) };
  const sim = a.spec.protocol === 'hl7' ? new Hl7AnalyzerSimulator(options) : new AnalyzerSimulator(options);
  const on = sim as unknown as { on(event: string, fn: (e: Record<string, unknown>) => void): void };
  on.on('frame', (f) => a.log.push(`${String(f.direction)} ${String(f.text)}`));
  on.on('failed', (f) => a.log.push(`FAILED ${String(f.kind)}: ${String(f.reason)}`));
  on.on('warning', (w) => a.log.push(`warning: ${String(w)}`));
  return sim;
}

/** A status node per tab whose function node logs each status change: `STATUS <node id> <fill> <text>`. */
function statusWatch(flow: FlowNode[]): FlowNode[] {
  const tab = flow.find((n) => n.type === 'tab')!.id;
  const watch = `${tab}-status-watch`;
  return [
    ...flow,
    { id: `${tab}-status`, type: 'status', z: tab, name: '', scope: null, x: 100, y: 760, wires: [[watch]] },
    { id: watch, type: 'function', z: tab, name: 'status watch', func: 'const s = msg.status || {};\nnode.warn(`STATUS ${s.source && s.source.id} ${s.fill || "-"} ${s.text || ""}`);\nreturn null;', outputs: 0, x: 300, y: 760, wires: [] },
  ];
}

before(async () => {
  userDir = mkdtempSync(join(tmpdir(), 'lis-side-by-side-'));
  lis = new LisStub();
  await lis.start();
  const orders = new Map<string, Record<string, unknown>>();
  lis.reply('/tests', { body: catalog });
  lis.handle('/orders', (req) => {
    const sample = (req.json as { SampleNumber?: string } | undefined)?.SampleNumber;
    const order = sample === undefined ? undefined : orders.get(sample);
    return { body: order === undefined ? { status: 'not found' } : { status: 'success', order } };
  });
  lis.reply('/results', { body: { status: 'success' } });
  lis.reply('/processed', { body: { status: 'success' } });

  const flows: FlowNode[][] = [];
  // Below the ephemeral range, so no connection Node-RED or a simulator opens meanwhile can take one.
  const pushPorts = await freeListeningPorts(EXAMPLES.length);
  for (const [i, spec] of EXAMPLES.entries()) {
    const flow = JSON.parse(readFileSync(join(ROOT, 'examples', `${examplePath(spec)}.json`), 'utf8')) as FlowNode[];
    if (spec.transport === 'folder') {
      // Its own folder, there before the deploy: a missing one is a red folder-link (the example's comment says so).
      const folder = join(userDir, 'exports', spec.dialect);
      mkdirSync(folder, { recursive: true });
      const sample = fileSample(spec.dialect)!;
      instruments.push({ spec, folder, exporter: new FileExporter(folder), sample, ...fileExpectation(spec, sample) });
      // Polled every 200 ms and taken once still for 500 ms, not the shipped 2 s and 5 s: the test's time, not its behaviour.
      const quick = flow.map((n) => (n.type === 'folder-link' ? { ...n, pollMs: '200', settleMs: '500' } : n));
      flows.push(statusWatch(withTabEnv(quick, { ANALYZER_FOLDER: folder })));
      continue;
    }
    const sample = `SBS${String(i + 1).padStart(2, '0')}01`;
    const types = new Set(spec.tests.map((t) => catalog.find((c) => c.ID === t.lisTestId)?.Type ?? 'Serum'));
    orders.set(sample, anOrder(sample, { Tests: spec.tests.map((t) => t.lisTestId), SampleType: [...types][0], patient: { ID: `PID-${sample}`, Name: 'Roe, Jane', Sex: 'F', DateOfBirth: '19800229' } }));
    const a: Analyzer = {
      spec,
      sample,
      lisCodes: spec.tests.map((t) => catalog.find((c) => c.ID === t.lisTestId)!.Code),
      queries: queriesFor(spec),
      pushPort: pushPorts[i]!,
      log: new LineLog(200),
    };
    analyzers.push(a);
    if (spec.transport === 'serial') {
      a.pty = await ptyPair();
      flows.push(statusWatch(withTabEnv(flow, { ANALYZER_PORT: a.pty.host, LIS_PUSH_PORT: a.pushPort })));
    } else {
      // The example's tcp in is the client: the simulated analyzer listens first, on a port the system picks.
      a.tcp = new TcpServerTransport(0, '127.0.0.1');
      a.sim = simulatorFor(a, a.tcp);
      await a.sim.start();
      flows.push(statusWatch(withTabEnv(flow, { ANALYZER_HOST: '127.0.0.1', ANALYZER_TCP_PORT: a.tcp.boundPort, LIS_PUSH_PORT: a.pushPort })));
    }
  }
  for (const [i, flow] of flows.entries()) for (const n of flow) nodeNames.set(n.id, `${EXAMPLES[i]!.file} ${n.type} "${String(n.name ?? '')}"`);
  assert.equal(flows.length, EXAMPLES.length);
  const serialDir = dirname(require.resolve('node-red-node-serialport/package.json'));
  red = await startNodeRed({
    userDir,
    flows: combineFlows(...flows),
    env: { TZ: TIME_ZONE, ...lis.exampleEnv('side-by-side-token') },
    settings: { nodesDir: [ROOT, serialDir], serialReconnectTime: 1000, socketReconnectTime: 500 },
  });
});

after(async () => {
  await Promise.allSettled(analyzers.map((a) => a.sim?.stop()));
  await red?.stop();
  await Promise.allSettled(analyzers.map((a) => a.pty?.stop()));
  await lis?.stop();
  rmSync(userDir, { recursive: true, force: true });
});

function diagnostics(only: Analyzer[] = []): string {
  const sims = only.map((a) => `--- ${a.spec.file} (${a.sample}): simulator ---\n${a.log.tail(40)}`);
  // The status watch's lines would fill the tail: the log without them.
  const log = (red?.output() ?? '').split('\n').filter((l) => !/\] STATUS /.test(l)).slice(-80).join('\n');
  return [`--- Node-RED log (without the status watch) ---\n${log}`, ...sims].join('\n');
}

/** What a wait is for, then the diagnostics when it fails. */
const andDiagnostics = (what: string) => () => `${what}\n${diagnostics()}`;

/** Anything answering HTTP on the port: lis-push-in is listening there. */
async function answers(port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/api/getSampleData`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    await res.arrayBuffer();
    return true;
  } catch {
    return false;
  }
}

/** Every result item the LIS received for the sample, as its LIS code. */
const resultsOf = (sample: string) =>
  lis
    .to('/results')
    .flatMap(itemsOf)
    .filter((i) => i.SampleNumber === sample)
    .map((i) => i.TestCode);
/** Every result item the LIS received for the file example's samples, as `sample|LIS code|value`. */
const fileResults = (f: FileInstrument) =>
  lis
    .to('/results')
    .flatMap(itemsOf)
    .filter((i) => f.samples.includes(i.SampleNumber) && f.lisCodes.has(i.TestCode))
    .map((i) => `${i.SampleNumber}|${i.TestCode}|${i.Result}`);
/** The processed notifications of one file example's sample: those naming one of its own tests. */
const fileProcessedOf = (f: FileInstrument, sample: string) =>
  lis.to('/processed').filter((r) => {
    const body = r.json as { SampleNumber?: string; Tests?: unknown };
    // Tests travels as a JSON-serialised string (spec 4.4).
    const tests = typeof body.Tests === 'string' ? (JSON.parse(body.Tests) as unknown[]).map(String) : [];
    return body.SampleNumber === sample && tests.some((t) => f.testIds.has(t));
  }).length;
const doneOf = (f: FileInstrument) => (existsSync(join(f.folder, 'done')) ? readdirSync(join(f.folder, 'done')) : []);
const processedOf = (sample: string) => lis.to('/processed').filter((r) => (r.json as { SampleNumber?: string }).SampleNumber === sample).length;

describe('every example in one Node-RED, each with its analyzer', () => {
  it('covers every example, ASTM, HL7 and file, serial, TCP and folder', () => {
    assert.equal(analyzers.length + instruments.length, EXAMPLES.length);
    assert.equal(instruments.length, EXAMPLES.filter((e) => e.protocol === 'file').length);
    // Each has results to deliver, or (a SkanIt sample with no sample numbers) results kept aside: then the LIS must get none of them.
    assert.ok(instruments.length > 0 && instruments.every((f) => f.expected.length > 0 || f.aside > 0), 'each file example has results to deliver or to keep aside');
    assert.ok(instruments.filter((f) => f.expected.length > 0).length >= instruments.length - 2, 'at most the two SkanIt examples deliver nothing');
    assert.ok(analyzers.some((a) => a.pty) && analyzers.some((a) => a.tcp && a.spec.protocol === 'hl7') && analyzers.some((a) => a.tcp && a.spec.protocol !== 'hl7'));
  });

  it('each serial example opens the device its own tab names (the tab-scoped serial port config reads the tab env)', async () => {
    for (const a of analyzers.filter((x) => x.pty)) {
      await red!.waitForLog(new RegExp(`serial port ${a.pty!.host.replace(/[/.]/g, '\\$&')} opened at`), 30_000);
    }
  });

  it('each TCP example connects to the analyzer its own tab names', async () => {
    await Promise.all(analyzers.filter((x) => x.tcp).map((a) => withTimeout(a.sim!.waitConnected(), 30_000, `${a.spec.file}'s tcp in to connect\n${diagnostics([a])}`)));
  });

  it('every lis-push-in listens on its tab\'s LIS_PUSH_PORT: none "port ... in use", no clash', async () => {
    for (const a of analyzers) await waitUntil(() => answers(a.pushPort), 30_000, andDiagnostics(`${a.spec.file}'s lis-push-in on ${a.pushPort}`), 50);
    const log = red!.output();
    assert.doesNotMatch(log, /cannot listen|LISTEN_FAILED|EADDRINUSE/, 'no lis-push-in failed to listen');
    assert.doesNotMatch(log, /\[error\]/, 'no error at all');
    assert.equal(new Set(analyzers.map((a) => a.pushPort)).size, analyzers.length);
  });

  it('every analyzer\'s sample: its order where it asks, its results at the LIS once each under the mapped LIS codes, processed once', async () => {
    // The serial analyzers plug in now that Node-RED holds the other end of each line.
    for (const a of analyzers.filter((x) => x.pty)) {
      a.sim = simulatorFor(a, { kind: 'serial', path: a.pty!.analyzer });
      await a.sim.start();
    }
    await Promise.all([
      ...analyzers.map(async (a) => {
        a.summary = await withTimeout<RunSummary | Hl7RunSummary>(a.sim!.runSamples([a.sample]), 60_000, `${a.spec.file}'s sample\n${diagnostics([a])}`);
      }),
      // Each file instrument exports its run meanwhile: one file, written at once.
      ...instruments.map((f) => f.exporter.write(f.sample.name, f.sample.bytes)),
    ]);
    await waitUntil(
      () => analyzers.every((a) => resultsOf(a.sample).length >= a.lisCodes.length && processedOf(a.sample) >= 1) && instruments.every((f) => fileResults(f).length >= f.expected.length && doneOf(f).includes(f.sample.name)),
      30_000,
      andDiagnostics('every result and processed notification at the LIS, every export in done/'),
      50,
    ).catch(() => undefined);
    // Anything sent twice would come now.
    await sleep(1000);
    const wrong: Analyzer[] = [];
    const problems: string[] = [];
    for (const a of analyzers) {
      const outcome = a.summary!.samples[0]!;
      const got = resultsOf(a.sample).sort();
      const asked = lis.to('/orders').filter((r) => (r.json as { SampleNumber?: string }).SampleNumber === a.sample).length;
      const before = problems.length;
      if (!outcome.ok) problems.push(`${a.spec.file}: the analyzer's sample failed: ${outcome.error ?? '?'}`);
      if (JSON.stringify(got) !== JSON.stringify([...a.lisCodes].sort())) problems.push(`${a.spec.file}: results at the LIS ${JSON.stringify(got)}, expected each of ${JSON.stringify(a.lisCodes)} once`);
      if (processedOf(a.sample) !== 1) problems.push(`${a.spec.file}: processed notified ${processedOf(a.sample)} times`);
      if (asked !== (a.queries ? 1 : 0)) problems.push(`${a.spec.file}: ${asked} order request(s) for ${a.sample}, expected ${a.queries ? 1 : 0}`);
      if (problems.length > before) wrong.push(a);
    }
    for (const f of instruments) {
      const got = fileResults(f).sort();
      if (JSON.stringify(got) !== JSON.stringify([...f.expected].sort())) problems.push(`${f.spec.file}: results at the LIS ${JSON.stringify(got.slice(0, 6))}... (${got.length}), expected each of the ${f.expected.length} mapped results of ${f.sample.name} once`);
      const notProcessedOnce = f.samples.filter((sample) => fileProcessedOf(f, sample) !== 1);
      if (notProcessedOnce.length > 0) problems.push(`${f.spec.file}: samples not notified processed exactly once: ${notProcessedOnce.slice(0, 5).join(', ')}`);
      if (!doneOf(f).includes(f.sample.name)) problems.push(`${f.spec.file}: ${f.sample.name} is not in done/ (${JSON.stringify(readdirSync(f.folder))})`);
      if (existsSync(join(f.folder, 'error'))) problems.push(`${f.spec.file}: error/ holds ${JSON.stringify(readdirSync(join(f.folder, 'error')))}`);
    }
    assert.deepEqual(problems, [], diagnostics(wrong.slice(0, 3)));
  });

  it('leaves no node of any example red', () => {
    const last = new Map<string, string>();
    for (const m of red!.output().matchAll(/STATUS (\S+) (\S+) ?(.*)$/gm)) last.set(m[1]!, `${m[2]} ${m[3] ?? ''}`);
    assert.ok(last.size >= EXAMPLES.length, `status changes seen: ${last.size}`);
    const redNodes = [...last].filter(([, s]) => s.startsWith('red ')).map(([id, s]) => `${nodeNames.get(id) ?? id}: ${s}`);
    assert.deepEqual(redNodes, [], diagnostics());
    assert.doesNotMatch(red!.output(), /\[error\]/, 'no error at all');
  });
});
