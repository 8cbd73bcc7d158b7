/**
 * End-to-end harness: the package as an integrator runs it. It is packed and
 * installed once per test file into a fresh Node-RED userDir; each run writes
 * one example flow (examples/*.json, unchanged but for its tab's environment
 * variables: this run's line and a free lis-push-in port) as that userDir's
 * flows file, starts Node-RED as its own process with the LIS's environment
 * variables pointing at a loopback LIS stand-in, and puts the analyzer simulator on the
 * other end of the line (a socat pty pair, or a TCP server Node-RED's tcp in
 * connects to): the ASTM simulator, or for an HL7 example the HL7 one. Everything the run produced (requests at the LIS, what the
 * simulator sent and received, Node-RED's log, the frame log) is kept in memory
 * for the checks in ./checks.ts and for the diagnostics of a failing test.
 *
 * Every process started here is stopped by E2eRun.stop() (the test files call
 * it in after hooks); Node-RED is also killed, as a last resort, when the test
 * process exits (node-red-process.ts).
 */
import { sleep, waitUntil, withTimeout } from '../support/wait';
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLES, examplePath, loadCatalog, withTabEnv, type ExampleSpec } from '../../demo/examples';
import { ptyPair, type PtyPair } from '../../demo/pty';
import { getProfile, type DialectProfile } from '../../lib/protocols/astm/dialects';
import { findHl7Profile, type Hl7DialectProfile } from '../../lib/protocols/hl7/dialects';
import { AnalyzerSimulator, Hl7AnalyzerSimulator, TcpServerTransport, type FrameEvent, type HostAnswer, type Hl7HostMessage, type Hl7Misbehaviour, type Hl7RunSummary, type Misbehaviour, type QcOptions, type RunSummary } from '../../lib/sim';
import { LisStub, anOrder, type RecordedRequest } from '../support/lis-stub';
import { startNodeRed, type NodeRedProcess } from '../support/node-red-process';
import { freePort } from '../support/ports';
import type { Installation } from '../support/installed-package';

/** The repository root (this file runs as dist/test/e2e/harness.js). */
export const ROOT = join(__dirname, '..', '..', '..');
/** The Bearer Token the flows read from LIS_TOKEN. */
export const TOKEN = 'e2e-bearer-7f3a91c2';
/** Node-RED's zone (TZ) and the simulator's: both sides read ASTM timestamps in it. */
export const TIME_ZONE = 'Europe/Berlin';

/** Keeps the last `max` lines, for the tail shown when a test fails. */
export class LineLog {
  private readonly lines: string[] = [];
  constructor(private readonly max = 400) {}
  push(line: string): void {
    this.lines.push(line);
    if (this.lines.length > this.max) this.lines.splice(0, this.lines.length - this.max);
  }
  tail(n: number): string {
    return this.lines.slice(-n).join('\n');
  }
}

// ----- the package, packed and installed once per suite run -----

export { installPackage, type Installation } from '../support/installed-package';

// ----- the examples -----

export type FlowNode = Record<string, unknown> & { id: string; type: string };

export interface MappedTest {
  lisTestId: string;
  lisCode: string;
  instrumentCode: string;
}

export interface Example {
  file: string;
  spec: ExampleSpec;
  /** The ASTM dialect; undefined for an HL7 example (hl7Profile). */
  profile: DialectProfile | undefined;
  hl7Profile: Hl7DialectProfile | undefined;
  flow: FlowNode[];
  /** The example's mapping (EXAMPLES + the LIS catalog), in its order. */
  tests: MappedTest[];
}

/** The example flows shipped in examples/ (one folder per protocol), by file name without folder or .json. */
export function exampleFiles(): string[] {
  const dir = join(ROOT, 'examples');
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((folder) => (folder.isDirectory() ? readdirSync(join(dir, folder.name)) : [folder.name]))
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .sort();
}

export function loadExample(file: string): Example {
  const spec = EXAMPLES.find((e) => e.file === file);
  if (spec === undefined) throw new Error(`example ${file} has no entry in EXAMPLES (demo/example-specs.ts)`);
  const catalog = loadCatalog();
  const tests = spec.tests.map((t) => {
    const entry = catalog.find((c) => c.ID === t.lisTestId);
    if (entry === undefined) throw new Error(`${file}: ${t.lisTestId} is not in the LIS catalog`);
    return { lisTestId: t.lisTestId, lisCode: entry.Code, instrumentCode: t.instrumentCode };
  });
  const flow = JSON.parse(readFileSync(join(ROOT, 'examples', `${examplePath(spec)}.json`), 'utf8')) as FlowNode[];
  // The checks expect what EXAMPLES says; the flow must map the same way, or every check would fail obscurely.
  for (const mapper of flow.filter((n) => n.type === 'test-mapper')) {
    const map = flow.find((n) => n.type === 'lis-test-map' && n.id === mapper.map);
    if (map === undefined) throw new Error(`examples/${file}.json: test-mapper ${mapper.id} uses no test map of the flow`);
    const rows = (map.mapping as MappedTest[]).map((m) => ({ lisTestId: m.lisTestId, lisCode: m.lisCode, instrumentCode: m.instrumentCode }));
    if (JSON.stringify(rows) !== JSON.stringify(tests)) throw new Error(`examples/${file}.json: test-mapper ${mapper.id} maps ${JSON.stringify(rows)}, EXAMPLES says ${JSON.stringify(tests)}`);
  }
  if (spec.protocol === 'hl7') {
    const hl7Profile = findHl7Profile(spec.dialect);
    if (hl7Profile === undefined) throw new Error(`${file}: ${spec.dialect} is not an HL7 dialect`);
    return { file, spec, profile: undefined, hl7Profile, flow, tests };
  }
  return { file, spec, profile: getProfile(spec.dialect), hl7Profile: undefined, flow, tests };
}

/** The example's ASTM dialect; fails for an HL7 example. */
export function astmProfileOf(example: Example): DialectProfile {
  if (example.profile === undefined) throw new Error(`${example.file} is an HL7 example: it has no ASTM dialect`);
  return example.profile;
}

// ----- the LIS -----

export interface PlannedOrder {
  sample: string;
  /** LIS test IDs, in the order the LIS lists them. */
  tests: string[];
  patient: { ID: string; Name: string; Sex: 'M' | 'F'; DateOfBirth: string };
  sampleType: string;
}

const PATIENTS: Array<{ last: string; first: string; sex: 'M' | 'F'; born: string }> = [
  { last: 'Roe', first: 'Jane', sex: 'F', born: '19800229' },
  { last: 'Doe', first: 'John', sex: 'M', born: '19650714' },
  { last: 'Novak', first: 'Petra', sex: 'F', born: '19921103' },
  { last: 'Okafor', first: 'Chidi', sex: 'M', born: '20010530' },
  { last: 'Lindqvist', first: 'Sara', sex: 'F', born: '19770118' },
  { last: 'Moreau', first: 'Luc', sex: 'M', born: '19580906' },
];

/**
 * An order per sample, each with its own patient and its own selection of the
 * example's tests (all of them, then two from the ends in reverse, then a middle
 * run), so results filed under the wrong sample cannot match by accident.
 * Samples starting with NOORDER get none.
 */
export function planOrders(example: Example, samples: readonly string[]): Map<string, PlannedOrder> {
  const sampleType = sampleTypeOf(example);
  const ids = example.tests.map((t) => t.lisTestId);
  const n = ids.length;
  const selections = [ids, n > 1 ? [ids[n - 1]!, ids[0]!] : ids, ids.slice(1, Math.max(2, n - 1))];
  const plan = new Map<string, PlannedOrder>();
  let i = 0;
  for (const sample of samples) {
    if (sample.startsWith('NOORDER')) continue;
    const p = PATIENTS[i % PATIENTS.length]!;
    plan.set(sample, {
      sample,
      tests: [...selections[i % selections.length]!],
      patient: { ID: `PID-${sample}`, Name: `${p.last}, ${p.first}`, Sex: p.sex, DateOfBirth: p.born },
      sampleType,
    });
    i++;
  }
  return plan;
}

/** The LIS sample type of the example's tests (the catalog's Type: Serum, EDTA, Blood). */
function sampleTypeOf(example: Example): string {
  const catalog = loadCatalog();
  const types = new Set(example.tests.map((t) => catalog.find((c) => c.ID === t.lisTestId)?.Type ?? 'Serum'));
  if (types.size !== 1) throw new Error(`${example.file}: tests of several sample types ${[...types].join(', ')}`);
  return [...types][0]!;
}

/** The loopback LIS: fast answers (unless `orderDelayMs` says otherwise for a sample), an order for every planned sample, "not found" for NOORDER samples. */
export async function startLis(plan: Map<string, PlannedOrder>, orderDelayMs: (sample: string) => number = () => 0): Promise<LisStub> {
  const stub = await new LisStub().start();
  stub.reply('/tests', { body: loadCatalog() });
  stub.handle('/orders', (req) => {
    const sample = (req.json as { SampleNumber?: unknown } | undefined)?.SampleNumber;
    const planned = typeof sample === 'string' ? plan.get(sample) : undefined;
    const delayMs = typeof sample === 'string' ? orderDelayMs(sample) : 0;
    if (typeof sample !== 'string' || sample.startsWith('NOORDER') || planned === undefined) return { delayMs, body: { status: 'not found' } };
    return { delayMs, body: { status: 'success', order: anOrder(sample, { Tests: planned.tests, SampleType: planned.sampleType, patient: planned.patient }) } };
  });
  stub.reply('/results', { body: { status: 'success' } });
  stub.reply('/processed', { body: { status: 'success' } });
  return stub;
}

// ----- Node-RED -----

/**
 * The example's flow on the installation's userDir, Node-RED in TIME_ZONE with
 * `env` (the LIS and the line); resolves once Node-RED started its flows.
 */
function startExample(userDir: string, flows: FlowNode[], env: Record<string, string>): Promise<NodeRedProcess> {
  // tcp in (client) reconnects quickly after a dropped connection.
  return startNodeRed({ userDir, flows, env: { TZ: TIME_ZONE, ...env }, settings: { socketReconnectTime: 500 } });
}

// ----- the analyzer -----

export interface SimRecord {
  /** Readable frame log, notes and events, newest last. */
  log: LineLog;
  /** Frames and control characters, in and out, in order. */
  frames: Array<{ direction: 'in' | 'out'; text: string; bytes: Buffer }>;
  /** Complete messages received from the host (order downloads, "no information"), with what the simulator read in them (ASTM answers, or the HL7 message's meaning). */
  received: Array<{ text: string; answers?: HostAnswer[]; meaning?: Hl7HostMessage }>;
  /** Order downloads read, whether a scan waited for them or not (HL7: sent unasked or not). */
  orders: Array<{ sampleNumber: string; tests: string[]; unsolicited?: boolean; messageType?: string }>;
  /** Messages the host acknowledged, by kind and sample. */
  acked: Array<{ kind: string; sampleNumber: string; text: string }>;
  failed: Array<{ kind: string; sampleNumber: string; reason: string }>;
  misbehaviour: string[];
  warnings: string[];
}

/** The events record() listens to, as both simulators (ASTM and HL7) emit them. */
interface SimEvents {
  frame: FrameEvent;
  received: { text: string; answers?: HostAnswer[]; meaning?: Hl7HostMessage };
  order: { sampleNumber: string; tests: string[]; unsolicited?: boolean; messageType?: string };
  sent: { kind: string; sampleNumber: string; text: string };
  failed: { kind: string; sampleNumber: string; reason: string };
  misbehaviour: string;
  warning: string;
  outcome: { sampleNumber: string; ok: boolean; error?: string };
  connect: string;
  disconnect: string;
}

function record(simulator: AnalyzerSimulator | Hl7AnalyzerSimulator): SimRecord {
  const sim = simulator as unknown as { on<K extends keyof SimEvents>(event: K, listener: (e: SimEvents[K]) => void): void };
  const r: SimRecord = { log: new LineLog(600), frames: [], received: [], orders: [], acked: [], failed: [], misbehaviour: [], warnings: [] };
  // UTC, marked Z: Node-RED's log beside it is in TIME_ZONE.
  const stamp = () => `${new Date().toISOString().slice(11, 23)}Z`;
  sim.on('frame', (f) => {
    r.frames.push({ direction: f.direction, text: f.text, bytes: f.bytes });
    r.log.push(`${f.at.toISOString().slice(11, 23)}Z ${f.direction === 'out' ? '→' : '←'} ${f.text}`);
  });
  sim.on('received', (m) => r.received.push({ text: m.text, ...(m.answers ? { answers: m.answers } : {}), ...(m.meaning ? { meaning: m.meaning } : {}) }));
  sim.on('order', (o) => {
    r.orders.push({ sampleNumber: o.sampleNumber, tests: [...o.tests], ...(o.unsolicited === undefined ? {} : { unsolicited: o.unsolicited }), ...(o.messageType === undefined ? {} : { messageType: o.messageType }) });
    r.log.push(`${stamp()} order for ${o.sampleNumber}: ${o.tests.join(',')}`);
  });
  sim.on('sent', (m) => {
    r.acked.push({ kind: m.kind, sampleNumber: m.sampleNumber, text: m.text });
    r.log.push(`${stamp()} acknowledged: ${m.kind} for ${m.sampleNumber}`);
  });
  sim.on('failed', (m) => {
    r.failed.push({ kind: m.kind, sampleNumber: m.sampleNumber, reason: m.reason });
    r.log.push(`${stamp()} FAILED: ${m.kind} for ${m.sampleNumber}: ${m.reason}`);
  });
  sim.on('misbehaviour', (note) => {
    r.misbehaviour.push(note);
    r.log.push(`${stamp()} misbehaviour: ${note}`);
  });
  sim.on('warning', (w) => {
    r.warnings.push(w);
    r.log.push(`${stamp()} warning: ${w}`);
  });
  sim.on('outcome', (o) => r.log.push(`${stamp()} outcome ${o.sampleNumber}: ${o.ok ? 'ok' : `not ok (${o.error ?? '?'})`}`));
  sim.on('connect', (p) => r.log.push(`${stamp()} connected: ${p}`));
  sim.on('disconnect', (p) => r.log.push(`${stamp()} disconnected: ${p}`));
  return r;
}

// ----- one run: LIS, line, Node-RED with the example, simulator -----

export interface RunConfig {
  example: Example;
  installation: Installation;
  /** Sample numbers to scan; those starting with NOORDER get "not found" from the LIS. */
  samples: string[];
  seed?: number;
  intervalMs?: number;
  analysisMs?: number;
  /** ASTM misbehaviour, or for an HL7 example the HL7 simulator's. */
  misbehaviour?: Misbehaviour | Hl7Misbehaviour;
  /** How long the LIS takes to answer the order request of a sample; default at once. */
  orderDelayMs?: (sample: string) => number;
  /** The control the simulator runs (sendControlRun), with its faults. */
  qc?: QcOptions;
}

export class E2eRun {
  readonly example: Example;
  readonly plan: Map<string, PlannedOrder>;
  stub: LisStub | undefined;
  red: NodeRedProcess | undefined;
  /** The ASTM simulator (ASTM examples). */
  sim: AnalyzerSimulator | undefined;
  /** The HL7 simulator (HL7 examples). */
  hl7Sim: Hl7AnalyzerSimulator | undefined;
  simRecord: SimRecord | undefined;
  summary: RunSummary | Hl7RunSummary | undefined;
  /** Date.now() when the run started: the earliest X-Request-Timestamp allowed. */
  startedAt = 0;
  /** Where the example's lis-push-in listens in this run (its tab's LIS_PUSH_PORT). */
  pushPort = 0;
  private pty: PtyPair | undefined;
  private stopped = false;

  constructor(readonly config: RunConfig) {
    this.example = config.example;
    this.plan = planOrders(config.example, config.samples);
  }

  /** Starts the LIS, the line, Node-RED and the simulator, and waits until the simulator is connected. */
  async start(): Promise<void> {
    const { example, installation } = this.config;
    this.startedAt = Date.now();
    this.pushPort = await freePort();
    // The tab's LIS_PUSH_PORT: the examples' defaults (8181, ...) may be held by a running demo or another test file.
    const tabEnv = (line: Record<string, string | number>) => withTabEnv(example.flow, { ...line, LIS_PUSH_PORT: this.pushPort });
    this.stub = await startLis(this.plan, this.config.orderDelayMs);
    const env = this.stub.exampleEnv(TOKEN);
    const simOptions = {
      dialect: example.spec.dialect,
      timeZone: TIME_ZONE,
      seed: this.config.seed ?? 42,
      analysisMs: this.config.analysisMs ?? 300,
      intervalMs: this.config.intervalMs ?? 700,
      ...(this.config.qc ? { qc: this.config.qc } : {}),
    };
    // The example's protocol says which simulator, so which kind of misbehaviour, the run was given.
    const astmFaults = this.config.misbehaviour === undefined ? {} : { misbehaviour: this.config.misbehaviour as Misbehaviour };
    const hl7Faults = this.config.misbehaviour === undefined ? {} : { misbehaviour: this.config.misbehaviour as Hl7Misbehaviour };
    if (example.spec.transport === 'serial') {
      this.pty = await ptyPair();
      this.red = await startExample(installation.userDir, tabEnv({ ANALYZER_PORT: this.pty.host, ANALYZER_BAUD: 9600 }), env);
      // The serial port config opens the line after the flows started.
      await this.red.waitForLog(/serial port \S+ opened at/, 15_000);
      this.sim = new AnalyzerSimulator({ ...simOptions, ...astmFaults, transport: { kind: 'serial', path: this.pty.analyzer } });
      this.simRecord = record(this.sim);
      await this.sim.start();
    } else {
      // Node-RED's tcp in is the client: the simulator listens first, on a port the system picks.
      const transport = new TcpServerTransport(0, '127.0.0.1');
      const sim =
        example.spec.protocol === 'hl7'
          ? (this.hl7Sim = new Hl7AnalyzerSimulator({ ...simOptions, ...hl7Faults, transport }))
          : (this.sim = new AnalyzerSimulator({ ...simOptions, ...astmFaults, transport }));
      this.simRecord = record(sim);
      await sim.start();
      this.red = await startExample(installation.userDir, tabEnv({ ANALYZER_HOST: '127.0.0.1', ANALYZER_TCP_PORT: transport.boundPort }), env);
    }
    await withTimeout(this.simulator.waitConnected(), 15_000, 'the line to connect');
  }

  /** Whichever simulator the example has. */
  get simulator(): AnalyzerSimulator | Hl7AnalyzerSimulator {
    const sim = this.sim ?? this.hl7Sim;
    if (sim === undefined) throw new Error('the simulator was not started');
    return sim;
  }

  /** Scans every sample (runSamples) and waits until the LIS has every result and processed notification the simulator's acknowledged results call for. */
  async run(): Promise<RunSummary | Hl7RunSummary> {
    const sim = this.simulator;
    const interval = this.config.intervalMs ?? 700;
    // Generous: every sample's query, download, analysis and results, with misbehaviour's repeats.
    const budget = 20_000 + this.config.samples.length * (interval + 3_000);
    const samples = this.config.samples;
    this.summary = await withTimeout<RunSummary | Hl7RunSummary>(sim.runSamples(samples), budget, 'the simulator to finish its samples');
    const expectedResults = this.summary.samples.filter((s) => s.resultsAcked).reduce((n, s) => n + (s.results?.length ?? 0), 0);
    const expectedProcessed = this.summary.samples.filter((s) => s.resultsAcked).length;
    await waitUntil(
      () => resultItems(this.stub!).length >= expectedResults && this.stub!.to('/processed').length >= expectedProcessed,
      10_000,
      () => `${expectedResults} results and ${expectedProcessed} processed notifications at the LIS (have ${resultItems(this.stub!).length} and ${this.stub!.to('/processed').length})`,
    ).catch(() => undefined); // the checks say what is missing
    // Anything sent twice would come now.
    await sleep(750);
    return this.summary;
  }

  /** The tails of Node-RED's log and of the simulator's frame log, for a failing test. */
  diagnostics(): string {
    const lis = (this.stub?.requests ?? []).slice(-30).map((r) => `${r.path} ${r.body}`);
    return [
      `--- ${this.example.file}: Node-RED log (tail) ---`,
      this.red?.tail(80) ?? '(Node-RED not started)',
      `--- ${this.example.file}: simulator frame log (tail) ---`,
      this.simRecord?.log.tail(120) ?? '(simulator not started)',
      `--- ${this.example.file}: LIS requests (last 30) ---`,
      lis.join('\n') || '(none)',
    ].join('\n');
  }

  /** Stops the simulator, Node-RED, socat and the LIS, whatever state the run is in. Safe to call twice. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    const errors: unknown[] = [];
    const attempt = async (fn: (() => Promise<void>) | undefined) => {
      try {
        await fn?.();
      } catch (err) {
        errors.push(err);
      }
    };
    await attempt(this.sim && (() => this.sim!.stop()));
    await attempt(this.hl7Sim && (() => this.hl7Sim!.stop()));
    await attempt(this.red && (() => this.red!.stop()));
    await attempt(this.pty && (() => this.pty!.stop()));
    await attempt(this.stub && (() => this.stub!.stop()));
    if (errors.length > 0) throw errors[0];
  }
}

/**
 * One run per describe block: made and run in its before hook, stopped in its
 * after hook. `check(fn)` is an it() body running fn on the run, with its
 * diagnostics on failure.
 */
export function useRun(make: () => E2eRun): { current: () => E2eRun | undefined; check: (fn: (r: E2eRun) => void | Promise<void>) => () => Promise<void> } {
  let run: E2eRun | undefined;
  before(async () => {
    run = make();
    await withDiagnostics(run, async () => {
      await run!.start();
      await run!.run();
    });
  });
  after(async () => {
    await run?.stop();
  });
  return { current: () => run, check: (fn) => () => withDiagnostics(run, () => fn(run!)) };
}

/**
 * Pushes an order for `sample` the way the LIS does (spec 4.6), with the first
 * planned sample's tests and patient, waits for the analyzer to read it, and
 * checks it carries those tests as the analyzer's codes. Returns what the
 * analyzer read.
 */
export async function pushOrderToAnalyzer(run: E2eRun, sample: string): Promise<SimRecord['orders'][number]> {
  const planned = [...run.plan.values()][0]!;
  const body = JSON.stringify({ order: anOrder(sample, { Tests: planned.tests, SampleType: planned.sampleType, patient: planned.patient }) });
  const res = await fetch(`http://127.0.0.1:${run.pushPort}/api/getSampleData`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  assert.equal(res.status, 200, await res.text());
  await waitUntil(() => run.simRecord!.orders.some((o) => o.sampleNumber === sample), 20_000, `the pushed order ${sample} at the analyzer`);
  const order = run.simRecord!.orders.find((o) => o.sampleNumber === sample)!;
  const expected = planned.tests.map((id) => run.example.tests.find((t) => t.lisTestId === id)!.instrumentCode);
  assert.deepEqual([...order.tests].sort(), [...expected].sort(), 'the pushed order carries its tests as the analyzer\'s codes');
  return order;
}

/** POSTs JSON to the run's Node-RED admin API (an operator's button) and asserts the answer's status. */
export async function postAdmin(run: E2eRun, path: string, body: unknown, status = 200): Promise<void> {
  const res = await fetch(`${run.red!.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal(res.status, status, `${path}: ${await res.text()}`);
}

/** Runs `fn`; a failure carries the run's diagnostics in its message. */
export async function withDiagnostics(run: E2eRun | undefined, fn: () => void | Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if (run !== undefined && err instanceof Error) err.message = `${err.message}\n${run.diagnostics()}`;
    throw err;
  }
}

// ----- small helpers -----

export interface ResultItem {
  SampleNumber: string;
  TestCode: string;
  SubTestCode?: string;
  Result: string;
}

/** The result items of one request to the results endpoint (`{ results: [...] }` or a bare array). */
export function itemsOf(req: RecordedRequest): ResultItem[] {
  const body = req.json as { results?: unknown } | unknown[] | undefined;
  const items = Array.isArray(body) ? body : Array.isArray(body?.results) ? body.results : [];
  return items as ResultItem[];
}

/** Every result item the LIS received, request by request, in arrival order. */
export function resultItems(stub: LisStub): ResultItem[] {
  return stub.to('/results').flatMap(itemsOf);
}
