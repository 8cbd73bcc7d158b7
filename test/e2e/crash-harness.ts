/**
 * Crash runs: the installed package in a real Node-RED process, an analyzer
 * simulator uploading a long run of results as fast as the link allows, and
 * Node-RED killed (SIGKILL) at seeded random moments and started again on the
 * same userDir. At the end every result the analyzer got an ACK for must be at
 * the LIS stand-in or held in the journal (a held batch, or a stuck message);
 * a result the LIS got twice is only excused when the one batch that carried
 * it is, or was, uncertain (and so may have been sent again).
 *
 * Used by crash.test.ts (a short run), soak.ts (a long one from the command
 * line) and line-drop.test.ts (the Node-RED process, flows and tallies).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, readSync, rmSync, statSync, watch, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { EXAMPLES, exampleMapping, loadCatalog, serialPortNode } from '../../demo/examples';
import type { MappingRow } from '../../lib/mapping/model';
import { AnalyzerSimulator, TcpServerTransport } from '../../lib/sim';
import { LisStub } from '../support/lis-stub';
import { freePort } from '../support/ports';
import { Seeded } from '../support/seeded';
import { LineLog, installPackage, itemsOf, type FlowNode, type Installation } from './harness';

export const TOKEN = 'crash-bearer-5c1e77d0';
export const TIME_ZONE = 'Europe/Berlin';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function waitFor(cond: () => boolean, timeoutMs: number, what: string | (() => string), stepMs = 20): Promise<void> {
  const started = Date.now();
  while (!cond()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`);
    await sleep(stepMs);
  }
}

/** UTC time of day with ms, for logs that must line up with each other. */
export const stamp = (at = new Date()) => `${at.toISOString().slice(11, 23)}Z`;

// ----- the tests the analyzer reports and how the flow maps them -----

/** The generic LIS2-A2 example's tests (its analyzer codes and the LIS tests they map to). */
export const TESTS = EXAMPLES[0]!.tests;

export function mappingRows(): MappingRow[] {
  return exampleMapping(EXAMPLES[0]!);
}

/** Analyzer test code -> the LIS TestCode its result arrives under. */
export function lisCodes(): Map<string, string> {
  return new Map(mappingRows().map((r) => [r.instrumentCode, r.lisCode]));
}

// ----- the flow -----

export type Line = { kind: 'tcp'; port: number } | { kind: 'serial'; path: string };

export const IDS = {
  tab: 'crash-tab',
  lis: 'crash-lis',
  serial: 'crash-serial-port',
  lineIn: 'crash-line-in',
  lineOut: 'crash-line-out',
  /** Serial only: writes one NUL byte to the line when the test asks (POST /inject/<id>). */
  lineProbe: 'crash-line-probe',
  link: 'crash-astm-link',
  message: 'crash-astm-message',
  mapper: 'crash-map-to-lis',
  send: 'crash-send-results',
  catcher: 'crash-catch',
  errors: 'crash-errors',
} as const;

/**
 * line in -> astm-link -> astm-message (generic-lis2a2) -> test-mapper (to LIS)
 * -> lis-send-results, and astm-link's bytes back to the line. Ports are the
 * caller's (freePort), never the examples' fixed 8181.
 */
export function crashFlow(line: Line, lisUrl: (path: string) => string): FlowNode[] {
  const z = IDS.tab;
  const nodes: FlowNode[] = [
    { id: z, type: 'tab', label: 'crash run', disabled: false, info: '' },
    {
      id: IDS.lis,
      type: 'lis-config',
      name: 'LIS stand-in',
      labTestsApiUrl: lisUrl('/tests'),
      transactionInfoApiUrl: lisUrl('/orders'),
      resultApiUrl: lisUrl('/results'),
      orderCompletedApiUrl: lisUrl('/processed'),
      bearerTokenEnv: 'LIS_TOKEN',
      timeout: '5000',
      orderAttempts: '3',
      orderBackoffMs: '100',
      transientRetries: '2',
      transientBackoffMs: '200',
      maxResponseBytes: '1048576',
    },
  ];
  if (line.kind === 'tcp') {
    nodes.push(
      { id: IDS.lineIn, type: 'tcp in', z, name: 'analyzer', server: 'client', host: '127.0.0.1', port: String(line.port), datamode: 'stream', datatype: 'buffer', newline: '', topic: '', trim: false, base64: false, tls: '', x: 130, y: 100, wires: [[IDS.link]] },
      { id: IDS.lineOut, type: 'tcp out', z, name: 'analyzer', host: '', port: '', beserver: 'reply', base64: false, end: false, tls: '', x: 560, y: 60, wires: [] },
    );
  } else {
    nodes.push(
      serialPortNode(IDS.serial, 'analyzer', line.path, '9600'),
      { id: IDS.lineIn, type: 'serial in', z, name: 'analyzer', serial: IDS.serial, x: 130, y: 100, wires: [[IDS.link]] },
      { id: IDS.lineOut, type: 'serial out', z, name: 'analyzer', serial: IDS.serial, x: 560, y: 60, wires: [] },
      // A write makes the serial node notice a device that vanished when its reads did not (see line-drop.test.ts).
      { id: IDS.lineProbe, type: 'inject', z, name: 'probe the line', props: [{ p: 'payload' }], repeat: '', crontab: '', once: false, onceDelay: 0.1, topic: '', payload: '[0]', payloadType: 'bin', x: 330, y: 20, wires: [[IDS.lineOut]] },
    );
  }
  nodes.push(
    {
      id: IDS.link,
      type: 'astm-link',
      z,
      name: 'ASTM link',
      framing: 'framed',
      checksums: true,
      framePerRecord: false,
      frameTextMax: '240',
      replyTimeoutMs: '15000',
      // A sender that vanished mid-message (serial line pulled) is given up on quickly.
      receiveTimeoutMs: '3000',
      busyWaitMs: '10000',
      contentionWaitMs: '20000',
      retryDelayMs: '10000',
      x: 330,
      y: 100,
      wires: [[IDS.lineOut], [IDS.message], []],
    },
    { id: IDS.message, type: 'astm-message', z, name: 'generic LIS2-A2', dialect: 'generic-lis2a2', timeZone: TIME_ZONE, x: 560, y: 160, wires: [[], [IDS.mapper], [IDS.link], []] },
    { id: IDS.mapper, type: 'test-mapper', z, name: 'analyzer -> LIS codes', lis: IDS.lis, instrument: 'generic', direction: 'toLis', unmapped: 'warn', mapping: mappingRows(), x: 800, y: 160, wires: [[IDS.send], []] },
    { id: IDS.send, type: 'lis-send-results', z, name: 'send results', lis: IDS.lis, x: 1040, y: 160, wires: [[]] },
    { id: IDS.catcher, type: 'catch', z, name: 'every error', scope: null, uncaught: false, x: 130, y: 260, wires: [[IDS.errors]] },
    { id: IDS.errors, type: 'debug', z, name: 'errors', active: true, tosidebar: true, console: false, tostatus: false, complete: 'true', targetType: 'full', statusVal: '', statusType: 'auto', x: 360, y: 260, wires: [] },
  );
  return nodes;
}

// ----- Node-RED: one userDir, started again and again -----

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) {
    try {
      child.kill('SIGKILL');
    } catch {
      // gone
    }
  }
});

/**
 * `node red.js -u userDir` with a settings.js written once; start() after kill()
 * brings it back on the same userDir (same flows, same journal, same port).
 */
export class RedProcess {
  /** Number of starts so far. */
  lives = 0;
  readonly url: string;
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private all = '';
  private life = '';

  private constructor(
    readonly userDir: string,
    readonly port: number,
    private readonly env: Record<string, string>,
  ) {
    this.url = `http://127.0.0.1:${port}`;
  }

  /** Writes settings.js and flows.json into userDir (the previous run's journal, flows and credentials removed). */
  static async prepare(userDir: string, flows: FlowNode[], env: Record<string, string>, extraSettings: Record<string, unknown> = {}): Promise<RedProcess> {
    const port = await freePort();
    for (const stale of ['flows.json', 'flows_cred.json', '.flows.json.backup', '.flows_cred.json.backup', 'lis-bridge']) rmSync(join(userDir, stale), { recursive: true, force: true });
    writeFileSync(join(userDir, 'flows.json'), JSON.stringify(flows, null, 2));
    const settings = {
      uiHost: '127.0.0.1',
      uiPort: port,
      flowFile: 'flows.json',
      credentialSecret: 'crash-secret',
      telemetry: { enabled: false },
      editorTheme: { tours: false },
      // tcp in (client) and the serial port config reconnect quickly after the line drops.
      socketReconnectTime: 300,
      serialReconnectTime: 300,
      logging: { console: { level: 'info', metrics: false, audit: false } },
      lisBridge: { dir: join(userDir, 'lis-bridge') },
      ...extraSettings,
    };
    writeFileSync(join(userDir, 'settings.js'), `module.exports = ${JSON.stringify(settings, null, 2)};\n`);
    return new RedProcess(userDir, port, env);
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  get journalFile(): string {
    return join(this.userDir, 'lis-bridge', 'journal.jsonl');
  }

  /** Starts Node-RED and resolves once it started its flows. */
  async start(timeoutMs = 60_000): Promise<void> {
    if (this.child) throw new Error('Node-RED is already running');
    this.lives++;
    this.life = '';
    this.note(`=== start ${this.lives} at ${stamp()} ===`);
    const child = spawn(process.execPath, [require.resolve('node-red/red.js'), '-u', this.userDir, '-s', join(this.userDir, 'settings.js')], {
      env: { ...process.env, TZ: TIME_ZONE, ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    live.add(child);
    this.child = child;
    this.exited = new Promise<void>((resolve) => child.once('exit', () => resolve())).then(() => {
      live.delete(child);
      if (this.child === child) this.child = undefined;
    });
    const onData = (d: Buffer) => {
      const text = d.toString();
      this.all += text;
      this.life += text;
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    try {
      await this.waitForLog(/Started flows/, timeoutMs);
    } catch (err) {
      await this.kill();
      throw new Error(`${(err as Error).message}\n--- Node-RED log ---\n${this.tail(60)}`);
    }
  }

  /** Waits for `pattern` in the output of the current life. */
  async waitForLog(pattern: RegExp, timeoutMs: number): Promise<void> {
    const started = Date.now();
    while (!pattern.test(this.life)) {
      if (!this.child) throw new Error(`Node-RED exited while waiting for ${pattern}`);
      if (Date.now() - started > timeoutMs) throw new Error(`Node-RED did not log ${pattern} within ${timeoutMs} ms`);
      await sleep(20);
    }
  }

  /** Sends SIGKILL at once (kill() waits for the exit). */
  killNow(): void {
    this.child?.kill('SIGKILL');
  }

  /** SIGKILL: no close handlers, no flushing, the journal as the kernel has it. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child) return;
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await this.exited;
    this.note(`=== killed (SIGKILL) at ${stamp()} ===`);
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await this.exited;
    clearTimeout(timer);
    this.note(`=== stopped at ${stamp()} ===`);
  }

  output(): string {
    return this.all;
  }

  tail(lines: number): string {
    return this.all.split('\n').slice(-lines).join('\n');
  }

  private note(line: string): void {
    this.all += `${line}\n`;
  }

  // ----- the admin API -----

  async held(): Promise<HeldAnswer> {
    const res = await fetch(`${this.url}/lis-bridge/held`);
    if (!res.ok) throw new Error(`GET /lis-bridge/held: ${res.status} ${await res.text()}`);
    return (await res.json()) as HeldAnswer;
  }

  /** A full deploy of the flows as they are: every node is stopped and started again. */
  async redeploy(): Promise<void> {
    const got = await fetch(`${this.url}/flows`, { headers: { 'Node-RED-API-Version': 'v2' } });
    if (!got.ok) throw new Error(`GET /flows: ${got.status}`);
    const { flows, rev } = (await got.json()) as { flows: unknown[]; rev: string };
    const res = await fetch(`${this.url}/flows`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Node-RED-API-Version': 'v2', 'Node-RED-Deployment-Type': 'full' },
      body: JSON.stringify({ flows, rev }),
    });
    if (!res.ok) throw new Error(`POST /flows (full deploy): ${res.status} ${await res.text()}`);
  }
}

export interface HeldBatch {
  key: string;
  node: string;
  state: 'failed' | 'uncertain';
  samples: string[];
  results: number;
  error: { code: string; message: string } | null;
  notSent: boolean;
}

export interface HeldAnswer {
  batches: HeldBatch[];
  stuck: Array<{ id: string; link: string; at: string; parts: number | null; handed: number; note: string | null }>;
}

// ----- the journal as the file says -----

export interface JournalView {
  /** Received messages: id -> what they were. */
  rx: Map<string, { at: number; samples: string[]; parts?: number; replayed: boolean; note?: string }>;
  /** Batches: key -> what they carried and every state they were put in. */
  tx: Map<string, { at: number; message?: string; samples: string[]; items: Array<{ SampleNumber: string; TestCode: string }>; states: string[] }>;
  invalid: number;
}

/** Reads journal.jsonl line by line (no validation but JSON): what a post-mortem would look at. */
export function readJournal(file: string): JournalView {
  const view: JournalView = { rx: new Map(), tx: new Map(), invalid: 0 };
  if (!existsSync(file)) return view;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    let e: Record<string, unknown>;
    try {
      e = JSON.parse(line) as Record<string, unknown>;
    } catch {
      view.invalid++;
      continue;
    }
    if (e.e === 'rx') view.rx.set(String(e.id), { at: Number(e.at), samples: samplesIn(Buffer.from(String(e.data), 'base64').toString('latin1')), replayed: false });
    else if (e.e === 'rxu') {
      const m = view.rx.get(String(e.id));
      if (!m) continue;
      if (typeof e.parts === 'number') m.parts = e.parts;
      if (e.replayed === true) m.replayed = true;
      if (typeof e.note === 'string') m.note = e.note;
    } else if (e.e === 'tx') {
      const items = Array.isArray(e.body) ? (e.body as Array<{ SampleNumber: string; TestCode: string }>) : [];
      view.tx.set(String(e.key), { at: Number(e.at), ...(typeof e.message === 'string' ? { message: e.message } : {}), samples: (e.samples as string[]) ?? [], items, states: ['sending'] });
    } else if (e.e === 'txu') view.tx.get(String(e.key))?.states.push(String(e.state));
  }
  return view;
}

/** Sample numbers in a generic LIS2-A2 message (O-3). */
export function samplesIn(text: string): string[] {
  const out: string[] = [];
  for (const record of text.split(/\r\n?|\n/)) {
    const fields = record.split('|');
    if (/^\d?O$/.test(fields[0] ?? '') && fields[2]) out.push(fields[2]);
  }
  return out;
}

// ----- counting -----

export interface PlannedMessage {
  sample: string;
  /** Analyzer test codes. */
  tests: string[];
}

/** `results` results in messages of 1-3 results, each its own sample, with tests drawn from TESTS. */
export function planMessages(results: number, rng: Seeded, prefix: string): PlannedMessage[] {
  const codes = TESTS.map((t) => t.instrumentCode);
  const plan: PlannedMessage[] = [];
  for (let left = results, i = 1; left > 0; i++) {
    const n = Math.min(left, rng.int(1, 3));
    plan.push({ sample: `${prefix}${String(i).padStart(5, '0')}`, tests: rng.pick(codes, n) });
    left -= n;
  }
  return plan;
}

export interface Counts {
  sentMessages: number;
  sent: number;
  ackedMessages: number;
  acked: number;
  delivered: number;
  held: number;
  lost: number;
  duplicated: number;
  /** Duplicated results carried by one batch only, which is or was uncertain (so it may have been sent again): the allowed kind. */
  duplicatedUncertain: number;
  heldBatches: number;
  uncertainBatches: number;
  failedBatches: number;
  stuck: number;
  replayed: number;
  /** Results the LIS got that the analyzer never sent. */
  foreign: number;
}

export interface Tally {
  counts: Counts;
  lostKeys: string[];
  /** Every result the LIS got more than once (`sample|TestCode`). */
  duplicatedKeys: string[];
  unexplainedDuplicates: string[];
  foreignKeys: string[];
  /** The story of a sample with lost or unexplained results: what the simulator, the LIS and the journal saw. */
  explain(sample: string): string;
  /** Lost, unexplained duplicate and foreign results, one paragraph per sample. */
  problems(): string;
}

export interface TallyInput {
  plan: PlannedMessage[];
  /** Samples whose message the analyzer got the final ACK for. */
  acked: Set<string>;
  stub: LisStub;
  held: HeldAnswer;
  journal: JournalView;
  /** The simulator's frame log around a sample's messages, for the explanations. */
  simContext?: (sample: string) => string[];
}

const keyOf = (sample: string, lisCode: string) => `${sample}|${lisCode}`;

export function tally(input: TallyInput): Tally {
  const codes = lisCodes();
  const bySample = new Map(input.plan.map((p) => [p.sample, p]));
  const resultKeys = (sample: string) => (bySample.get(sample)?.tests ?? []).map((t) => keyOf(sample, codes.get(t) ?? t));
  const sent = new Set(input.plan.flatMap((p) => resultKeys(p.sample)));
  const acked = new Set([...input.acked].flatMap(resultKeys));

  // At the LIS: every request, whatever happened to its answer (a request cut by a kill arrived all the same).
  const deliveries = new Map<string, number[]>();
  input.stub.to('/results').forEach((req, i) => {
    for (const item of itemsOf(req)) {
      const k = keyOf(item.SampleNumber, item.TestCode);
      deliveries.set(k, [...(deliveries.get(k) ?? []), i]);
    }
  });

  const heldKeys = new Set<string>();
  for (const b of input.held.batches) {
    const carried = input.journal.tx.get(b.key)?.items;
    if (carried && carried.length > 0) carried.forEach((it) => heldKeys.add(keyOf(it.SampleNumber, it.TestCode)));
    else b.samples.flatMap(resultKeys).forEach((k) => heldKeys.add(k));
  }
  for (const s of input.held.stuck) for (const sample of input.journal.rx.get(s.id)?.samples ?? []) resultKeys(sample).forEach((k) => heldKeys.add(k));

  // Which batches carried each result, and which results only ever travelled in one batch that is or was
  // uncertain (held as such now, or put in that state at some point): sending such a batch again is the one
  // way a result may reach the LIS twice. Two batches for one result mean the bridge processed it twice.
  const carriers = new Map<string, string[]>();
  for (const [key, b] of input.journal.tx) {
    for (const it of b.items) {
      const k = keyOf(it.SampleNumber, it.TestCode);
      carriers.set(k, [...(carriers.get(k) ?? []), key]);
    }
  }
  const heldUncertain = new Set(input.held.batches.filter((b) => b.state === 'uncertain').map((b) => b.key));
  const wasUncertain = (key: string) => heldUncertain.has(key) || (input.journal.tx.get(key)?.states.includes('uncertain') ?? false);
  const uncertainKeys = new Set([...carriers].filter(([, batches]) => batches.length === 1 && wasUncertain(batches[0]!)).map(([k]) => k));

  const lostKeys = [...acked].filter((k) => !deliveries.has(k) && !heldKeys.has(k));
  const duplicated = [...deliveries].filter(([, at]) => at.length > 1).map(([k]) => k);
  const unexplainedDuplicates = duplicated.filter((k) => !uncertainKeys.has(k));
  const foreignKeys = [...deliveries.keys()].filter((k) => !sent.has(k));
  const delivered = [...sent].filter((k) => deliveries.has(k)).length;

  const counts: Counts = {
    sentMessages: input.plan.length,
    sent: sent.size,
    ackedMessages: input.acked.size,
    acked: acked.size,
    delivered,
    held: heldKeys.size,
    lost: lostKeys.length,
    duplicated: duplicated.length,
    duplicatedUncertain: duplicated.length - unexplainedDuplicates.length,
    heldBatches: input.held.batches.length,
    uncertainBatches: input.held.batches.filter((b) => b.state === 'uncertain').length,
    failedBatches: input.held.batches.filter((b) => b.state === 'failed').length,
    stuck: input.held.stuck.length,
    replayed: [...input.journal.rx.values()].filter((m) => m.replayed).length,
    foreign: foreignKeys.length,
  };

  const requests = input.stub.to('/results');
  const explain = (sample: string): string => {
    const keys = [...new Set([...resultKeys(sample), ...[...deliveries.keys()].filter((k) => k.startsWith(`${sample}|`))])];
    const lines = [`sample ${sample}: host ACK ${input.acked.has(sample) ? 'yes' : 'no'}`];
    for (const k of keys) lines.push(`  ${k.split('|')[1]}: LIS requests ${JSON.stringify(deliveries.get(k) ?? [])}, held ${heldKeys.has(k)}, carried by ${(carriers.get(k) ?? []).length} batch(es)${uncertainKeys.has(k) ? ', one that is or was uncertain' : ''}`);
    for (const [id, m] of input.journal.rx) {
      if (!m.samples.includes(sample)) continue;
      lines.push(`  journal rx ${id} at ${stamp(new Date(m.at))}: parts ${m.parts ?? '-'}, replayed ${m.replayed}${m.note ? `, note ${JSON.stringify(m.note)}` : ''}`);
      for (const [k, b] of input.journal.tx) if (b.message === id) lines.push(`    batch ${k} at ${stamp(new Date(b.at))}: ${b.states.join(' -> ')}`);
    }
    const mine = new Set(keys.flatMap((k) => deliveries.get(k) ?? []));
    for (const i of [...mine].sort((a, b) => a - b)) lines.push(`  LIS request #${i} X-Request-ID ${String(requests[i]!.headers['x-request-id'] ?? '-')}`);
    for (const l of input.simContext?.(sample) ?? []) lines.push(`  sim ${l}`);
    return lines.join('\n');
  };
  const problems = (): string => {
    const out: string[] = [];
    const bySampleOf = (keys: string[]) => [...new Set(keys.map((k) => k.split('|')[0]!))];
    for (const sample of bySampleOf(lostKeys)) out.push(`LOST ${lostKeys.filter((k) => k.startsWith(`${sample}|`)).length} result(s) of ${explain(sample)}`);
    for (const sample of bySampleOf(unexplainedDuplicates)) out.push(`DUPLICATE not explained by one uncertain batch: ${unexplainedDuplicates.filter((k) => k.startsWith(`${sample}|`)).length} result(s) of ${explain(sample)}`);
    for (const sample of bySampleOf(foreignKeys)) out.push(`FOREIGN ${explain(sample)}`);
    return out.join('\n');
  };
  return { counts, lostKeys, duplicatedKeys: duplicated, unexplainedDuplicates, foreignKeys, explain, problems };
}

export function countsLine(label: string, c: Counts, extra = ''): string {
  return (
    `${label}: sent ${c.sent} (${c.sentMessages} messages), acked ${c.acked}, delivered ${c.delivered}, held ${c.held}, lost ${c.lost}, ` +
    `duplicated ${c.duplicated} (uncertain ${c.duplicatedUncertain}) [held batches ${c.heldBatches}: uncertain ${c.uncertainBatches}, failed ${c.failedBatches}; stuck ${c.stuck}; replayed ${c.replayed}${c.foreign ? `; FOREIGN ${c.foreign}` : ''}${extra}]`
  );
}

// ----- the simulator's side, recorded -----

export interface SimLog {
  log: LineLog;
  /** Every line of the run (the frame log is the evidence when a result goes missing). */
  lines: string[];
  /** Lines around each frame that carried `sample`'s O record: the frame, its neighbours, the replies. */
  around(sample: string, before?: number, after?: number): string[];
  /** Samples whose result message was ACKed in full, in order. */
  acked: string[];
  failed: string[];
  /** Every result message frame the simulator put on the wire: how often each sample's O record went out. */
  oFrames: Map<string, number>;
}

export function recordSim(sim: AnalyzerSimulator, max = 20_000): SimLog {
  const lines: string[] = [];
  const log = new LineLog(max);
  const push = log.push.bind(log);
  log.push = (line: string) => {
    lines.push(line);
    push(line);
  };
  const around = (sample: string, before = 2, after = 6): string[] => {
    const out: string[] = [];
    let last = -1;
    lines.forEach((l, i) => {
      if (!l.includes(`|${sample}|`) && !l.endsWith(` ${sample}`)) return;
      const from = Math.max(last + 1, i - before);
      if (from > last + 1 && out.length > 0) out.push('...');
      for (let j = from; j <= Math.min(lines.length - 1, i + after); j++) out.push(lines[j]!.length > 160 ? `${lines[j]!.slice(0, 157)}...` : lines[j]!);
      last = Math.min(lines.length - 1, i + after);
    });
    return out;
  };
  const r: SimLog = { log, lines, around, acked: [], failed: [], oFrames: new Map() };
  sim.on('frame', (f) => {
    r.log.push(`${stamp(f.at)} ${f.direction === 'out' ? '→' : '←'} ${f.text}`);
    if (f.direction === 'out') for (const s of samplesIn(f.bytes.toString('latin1').replace(/[\x00-\x09\x0b\x0c\x0e-\x1f]/g, ''))) r.oFrames.set(s, (r.oFrames.get(s) ?? 0) + 1);
  });
  sim.on('sent', (m) => {
    if (m.kind !== 'results') return;
    r.acked.push(m.sampleNumber);
    r.log.push(`${stamp()} acknowledged: ${m.sampleNumber}`);
  });
  sim.on('failed', (m) => {
    r.failed.push(m.sampleNumber);
    r.log.push(`${stamp()} FAILED: ${m.sampleNumber}: ${m.reason}`);
  });
  sim.on('connect', (p) => r.log.push(`${stamp()} connected: ${p}`));
  sim.on('disconnect', (p) => r.log.push(`${stamp()} disconnected: ${p}`));
  sim.on('warning', (w) => r.log.push(`${stamp()} warning: ${w}`));
  sim.on('discarded', (d) => r.log.push(`${stamp()} discarded: ${d.reason}`));
  return r;
}

/**
 * Waits until the LIS has had no results request for `quietMs` and `done()`
 * says everything is accounted for, or until it has been quiet for
 * `giveUpQuietMs` (whatever is missing then is reported), or `timeoutMs`.
 */
export async function lisIdle(stub: LisStub, opts: { quietMs: number; giveUpQuietMs: number; timeoutMs: number }, done: () => boolean | Promise<boolean> = () => false): Promise<void> {
  const started = Date.now();
  let count = -1;
  let since = Date.now();
  for (;;) {
    const n = stub.to('/results').length;
    if (n !== count) {
      count = n;
      since = Date.now();
    }
    const quiet = Date.now() - since;
    if (quiet >= opts.quietMs && ((await done()) || quiet >= opts.giveUpQuietMs)) return;
    if (Date.now() - started > opts.timeoutMs) return;
    await sleep(250);
  }
}

// ----- one crash run -----

export interface CrashRunOptions {
  results: number;
  kills: number;
  seed: number;
  /** A package already installed into a userDir (test files install once); default: install one now. */
  installation?: Installation;
  /** Progress lines (the soak runner prints them). */
  progress?: (line: string) => void;
  /** Whole-run limit. */
  timeoutMs?: number;
  /**
   * 'random' (default): each kill a random few ms after its point in the run.
   * 'after-rx-write': each kill as soon as, after its point, Node-RED writes a
   * received message to the journal (seen through inotify on the journal's
   * directory): between the write and the final ACK of that message, the
   * moment fdatasync and the ACK are still under way.
   */
  killMode?: 'random' | 'after-rx-write';
}

export interface CrashReport {
  counts: Counts;
  tally: Tally;
  line: string;
  elapsedMs: number;
  kills: Array<{ at: string; afterAcks: number; note?: string }>;
  /** Lost and unexplained duplicate results, each with its story. */
  problems(): string;
  diagnostics(): string;
}

/**
 * One run: LIS stand-in, simulator as a TCP server, Node-RED (tcp in client)
 * on a fresh userDir; every message queued at once so the link runs flat out;
 * `kills` SIGKILLs at seeded random points (after a random number of acked
 * messages, plus a random few ms), each followed by a restart on the same
 * userDir; then the LIS is left to go quiet and everything is counted.
 */
export async function crashRun(options: CrashRunOptions): Promise<CrashReport> {
  const startedAt = Date.now();
  const rng = new Seeded(options.seed);
  const progress = options.progress ?? (() => undefined);
  const timeoutMs = options.timeoutMs ?? 60_000 + options.results * 60;
  const ownInstall = options.installation === undefined;
  const installation = options.installation ?? installPackage();
  const plan = planMessages(options.results, rng, `C${options.seed % 1000}-`);
  const lisRng = new Seeded(options.seed ^ 0x5eed);

  const stub = await new LisStub().start();
  // Mostly quick answers, some slow: a kill then often lands while a request is out (an uncertain batch).
  stub.handle('/results', () => ({ delayMs: lisRng.next() < 0.25 ? lisRng.int(20, 150) : lisRng.int(0, 3), body: { status: 'success' } }));
  stub.reply('/tests', { body: loadCatalog() });
  stub.reply('/processed', { body: { status: 'success' } });

  const transport = new TcpServerTransport(0, '127.0.0.1');
  const sim = new AnalyzerSimulator({ dialect: 'generic-lis2a2', transport, timeZone: TIME_ZONE, seed: options.seed, analysisMs: 0, intervalMs: 0 });
  const simLog = recordSim(sim);
  let red: RedProcess | undefined;
  const kills: Array<{ at: string; afterAcks: number; note?: string }> = [];
  const diagnostics = () =>
    [
      '--- Node-RED log (tail) ---',
      red?.tail(150) ?? '(not started)',
      '--- simulator frame log (tail) ---',
      simLog.log.tail(150),
    ].join('\n');
  try {
    await sim.start();
    red = await RedProcess.prepare(installation.userDir, crashFlow({ kind: 'tcp', port: transport.boundPort }, (p) => stub.url(p)), { LIS_TOKEN: TOKEN });
    await red.start();
    await withTimeout(sim.waitConnected(), 15_000, 'Node-RED\'s tcp in to connect');

    let settled = 0;
    const all = Promise.all(
      plan.map((m) =>
        sim.sendResults(m.sample, m.tests).then(
          () => void settled++,
          () => void settled++,
        ),
      ),
    );
    const allSettled = () => settled === plan.length;

    // Kill points: after a random number of acknowledged messages, spread over the run.
    const thresholds = Array.from({ length: options.kills }, () => Math.floor(plan.length * (0.05 + 0.9 * rng.next()))).sort((a, b) => a - b);
    const deadline = startedAt + timeoutMs;
    for (const [i, threshold] of thresholds.entries()) {
      await waitFor(() => simLog.acked.length >= threshold || allSettled(), Math.max(0, deadline - Date.now()), () => `${threshold} acknowledged messages before kill ${i + 1} (have ${simLog.acked.length})`, 2);
      if (allSettled()) break;
      let note: string | undefined;
      if (options.killMode === 'after-rx-write') {
        const written = await killOnRxWrite(red, Math.max(1_000, deadline - Date.now()));
        note = `SIGKILL ${written.ms.toFixed(1)} ms after Node-RED wrote rx ${written.id ?? '?'} to the journal`;
        simLog.log.push(`${stamp()} ===== ${note} (kill ${i + 1}, after ${simLog.acked.length} acks) =====`);
      } else {
        const jitter = rng.int(0, 60);
        if (jitter > 0) await sleep(jitter);
        simLog.log.push(`${stamp()} ===== SIGKILL to Node-RED (kill ${i + 1}, after ${simLog.acked.length} acks) =====`);
      }
      const afterAcks = simLog.acked.length;
      kills.push({ at: stamp(), afterAcks, ...(note ? { note } : {}) });
      await red.kill();
      progress(`kill ${i + 1}/${thresholds.length} after ${afterAcks}/${plan.length} acknowledged messages (${((Date.now() - startedAt) / 1000).toFixed(1)} s)`);
      await sleep(rng.int(0, 300));
      await red.start();
      simLog.log.push(`${stamp()} ===== Node-RED started again (life ${red.lives}) =====`);
    }
    await withTimeout(all, Math.max(1_000, deadline - Date.now()), `the simulator to finish (${simLog.acked.length}/${plan.length} acknowledged)`);
    progress(`simulator done: ${simLog.acked.length} acknowledged, ${simLog.failed.length} failed (${((Date.now() - startedAt) / 1000).toFixed(1)} s)`);

    // The LIS is left alone until nothing more comes (replays happen at start, sends follow ACKs closely).
    // Done when every acknowledged result is at the LIS or held; a straggler (a message the bridge holds back for a while) gets 10 s of quiet.
    const ackedSamples = new Set(simLog.acked);
    const accounted = async () => tally({ plan, acked: ackedSamples, stub, held: await red!.held(), journal: readJournal(red!.journalFile) }).counts.lost === 0;
    await lisIdle(stub, { quietMs: 1_000, giveUpQuietMs: 10_000, timeoutMs: 30_000 }, accounted);

    const held = await red.held();
    const journal = readJournal(red.journalFile);
    const t = tally({ plan, acked: ackedSamples, stub, held, journal, simContext: (sample) => simLog.around(sample) });
    const elapsedMs = Date.now() - startedAt;
    const line = countsLine('crash run', t.counts, `; kills ${kills.length}; seed ${options.seed}; ${(elapsedMs / 1000).toFixed(1)} s`);
    return {
      counts: t.counts,
      tally: t,
      line,
      elapsedMs,
      kills,
      problems: () => [t.problems(), `kills: ${kills.map((k) => `${k.at} after ${k.afterAcks} acks${k.note ? ` (${k.note})` : ''}`).join(', ')}`].join('\n'),
      diagnostics,
    };
  } catch (err) {
    if (err instanceof Error) err.message = `${err.message}\n${diagnostics()}`;
    throw err;
  } finally {
    await sim.stop().catch(() => undefined);
    await red?.stop().catch(() => undefined);
    await stub.stop().catch(() => undefined);
    if (ownInstall) installation.remove();
  }
}

/**
 * Kills Node-RED (SIGKILL, synchronously from the inotify callback) as soon as
 * it appends an rx line to its journal: the message is in the file, its
 * fdatasync and final ACK are still to come.
 */
function killOnRxWrite(red: RedProcess, timeoutMs: number): Promise<{ id: string | undefined; ms: number }> {
  const file = red.journalFile;
  let offset = existsSync(file) ? statSync(file).size : 0;
  let tail = '';
  return new Promise((resolve, reject) => {
    const done = (err: Error | undefined, value?: { id: string | undefined; ms: number }) => {
      clearTimeout(timer);
      watcher.close();
      if (err) reject(err);
      else resolve(value!);
    };
    const watcher = watch(dirname(file), (_event, name) => {
      if (name !== basename(file)) return;
      const seenAt = performance.now();
      let size: number;
      try {
        size = statSync(file).size;
      } catch {
        return;
      }
      if (size < offset) {
        offset = 0; // compacted (rewritten) at start
        tail = '';
      }
      if (size === offset) return;
      const buf = Buffer.alloc(size - offset);
      const fd = openSync(file, 'r');
      try {
        readSync(fd, buf, 0, buf.length, offset);
      } finally {
        closeSync(fd);
      }
      offset = size;
      const text = tail + buf.toString('utf8');
      const at = text.indexOf('{"e":"rx"');
      tail = text.slice(text.lastIndexOf('\n') + 1);
      if (at < 0) return;
      red.killNow();
      done(undefined, { id: /"id":"([^"]+)"/.exec(text.slice(at))?.[1], ms: performance.now() - seenAt });
    });
    const timer = setTimeout(() => done(new Error(`Node-RED wrote no received message to its journal within ${timeoutMs} ms`)), timeoutMs);
  });
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([p, limit]).finally(() => clearTimeout(timer));
}
export { withTimeout };
