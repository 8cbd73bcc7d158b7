/**
 * `npm start` (demo/launch.cjs, which builds first when a source changed, then
 * runs main() below): the whole workflow on this machine. A demo LIS, Node-RED
 * with this package and the demo flow (flows/demo-flow.json), and a simulated
 * analyzer on a socat pty pair wired to Node-RED's serial nodes (or over TCP
 * when socat is missing), and beside it a simulated HL7 analyzer over TCP on
 * the flow's second tab.
 *
 * The terminal gets a banner, then one summary line now and then; the full
 * output of Node-RED, the analyzer and the demo LIS goes to files in
 * <DEMO_USER_DIR>/logs/. A signal (Ctrl-C, SIGTERM, SIGHUP) or any failure
 * stops everything this started, so no process is left holding a port.
 *
 * Settings (environment variables, each with its default here and nowhere else):
 * NODE_RED_PORT 1880, DEMO_LIS_PORT 3100, DEMO_PUSH_PORT 8180 (the flow's lis-push-in),
 * DEMO_USER_DIR <project>/.node-red, DEMO_SAMPLE_INTERVAL_MS 5000,
 * ANALYZER_PORT (unset: a pty pair made for the demo with the simulated analyzer on its
 * far end; set: Node-RED opens that device and no analyzer is simulated, since the
 * simulator cannot sit on the other end of a real cable), ANALYZER_BAUD 9600,
 * DEMO_ANALYZER_TCP_PORT 4001 (the simulated analyzer's port when socat is missing),
 * DEMO_HL7_TCP_PORT and DEMO_HL7_PUSH_PORT (the simulated HL7 analyzer's port and the
 * HL7 tab's lis-push-in; unset or 0: a free port the system picks).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, statSync, writeFileSync, type WriteStream } from 'node:fs';
import net from 'node:net';
import { dirname, join } from 'node:path';
import { DemoLis } from './demo-lis';
import { DEMO_FLOW, DEMO_HL7_FLOW, DEMO_HL7_PREFIX, DEMO_PUSH_PORT, buildDemoFlow } from './examples';
import { ptyPair, type PtyPair } from './pty';

const ROOT = join(__dirname, '..', '..');
/** No secret: anyone at this machine may read it, and the banner and the demo LIS page show it. */
const DEMO_TOKEN = 'demo-token';
const SUMMARY_EVERY_MS = 5000;
/** A summary line also comes this often when nothing changed, so a quiet demo still shows it is alive. */
const SUMMARY_QUIET_MS = 60000;
const NODE_RED_START_MS = 120000;
const LOG_ORDER = ['node-red.log', 'analyzer.log', 'hl7-analyzer.log', 'demo-lis.log'];
/** How long a child gets to stop on SIGTERM before it is killed. */
const STOP_GRACE_MS = { analyzer: 3000, 'hl7-analyzer': 3000, 'node-red': 5000 } as const;

export interface DemoSettings {
  nodeRedPort: number;
  lisPort: number;
  pushPort: number;
  userDir: string;
  /** The user's serial device; undefined: a pty pair with the simulated analyzer. */
  analyzerPort: string | undefined;
  analyzerBaud: number;
  analyzerTcpPort: number;
  /** The simulated HL7 analyzer's TCP port and the HL7 tab's lis-push-in port; 0: a free one. */
  hl7TcpPort: number;
  hl7PushPort: number;
  sampleIntervalMs: number;
}

/** A failure to report as it is, without a stack trace. */
class DemoError extends Error {}

/** Why the demo stopped when nobody did anything wrong. */
class StopRequest extends Error {}

function whole(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new DemoError(`${name} must be a whole number from ${min} to ${max}, not ${JSON.stringify(raw)}`);
  return value;
}

export function readSettings(env: NodeJS.ProcessEnv): DemoSettings {
  const analyzerPort = env.ANALYZER_PORT?.trim() || undefined;
  if (analyzerPort !== undefined) checkDevice(analyzerPort);
  return {
    nodeRedPort: whole(env, 'NODE_RED_PORT', 1880, 1, 65535),
    lisPort: whole(env, 'DEMO_LIS_PORT', 3100, 1, 65535),
    pushPort: whole(env, 'DEMO_PUSH_PORT', DEMO_PUSH_PORT, 1, 65535),
    userDir: env.DEMO_USER_DIR?.trim() || join(ROOT, '.node-red'),
    analyzerPort,
    analyzerBaud: whole(env, 'ANALYZER_BAUD', 9600, 1, 4000000),
    analyzerTcpPort: whole(env, 'DEMO_ANALYZER_TCP_PORT', 4001, 1, 65535),
    hl7TcpPort: whole(env, 'DEMO_HL7_TCP_PORT', 0, 0, 65535),
    hl7PushPort: whole(env, 'DEMO_HL7_PUSH_PORT', 0, 0, 65535),
    sampleIntervalMs: whole(env, 'DEMO_SAMPLE_INTERVAL_MS', 5000, 0, 86400000),
  };
}

/** ANALYZER_PORT must be a serial device that exists now: Node-RED would otherwise retry it silently forever. */
function checkDevice(path: string): void {
  const meaning =
    'ANALYZER_PORT is the serial device your analyzer (or your own simulator) is connected to, e.g. /dev/ttyUSB0: ' +
    'Node-RED then talks to it and no analyzer is simulated. Leave ANALYZER_PORT unset for the simulated analyzer on a pty pair made for the demo.';
  let isDevice: boolean;
  try {
    isDevice = statSync(path).isCharacterDevice();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new DemoError(`ANALYZER_PORT=${path}: ${code === 'ENOENT' ? 'no such device' : (err as Error).message}. ${meaning}`);
  }
  if (!isDevice) throw new DemoError(`ANALYZER_PORT=${path} is not a serial device. ${meaning}`);
}

function say(line: string): void {
  process.stdout.write(`[demo] ${line}\n`);
}

function complain(line: string): void {
  process.stderr.write(`[demo] ${line}\n`);
}

function hasSocat(): boolean {
  return spawnSync('socat', ['-V'], { stdio: 'ignore' }).status === 0;
}

/** Resolves when `port` is free on loopback, rejects with `taken` when it is not. */
function checkFree(port: number, taken: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => reject(new DemoError(err.code === 'EADDRINUSE' ? taken : `cannot listen on port ${port}: ${err.message}`)));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
  });
}

/** `port`, or when it is 0 a free loopback port the system picks. */
function portOrFree(port: number): Promise<number> {
  if (port !== 0) return Promise.resolve(port);
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const picked = (probe.address() as net.AddressInfo).port;
      probe.close(() => resolve(picked));
    });
  });
}

/**
 * What was started, undone in reverse order. Something registered after the
 * teardown began (a start that was already under way) is undone at once.
 */
class Teardown {
  private readonly steps: Array<() => Promise<void>> = [];
  private running: Promise<void> | undefined;

  add(step: () => Promise<void>): void {
    if (this.running) this.running = this.running.then(step).catch((err: unknown) => say(`while stopping: ${(err as Error).message}`));
    else this.steps.push(step);
  }

  run(): Promise<void> {
    this.running ??= (async () => {
      for (const step of this.steps.reverse()) {
        try {
          await step();
        } catch (err) {
          say(`while stopping: ${(err as Error).message}`);
        }
      }
    })();
    return this.running;
  }
}

/** A child process of the demo, its output going to its log file. */
class Child {
  readonly process: ChildProcess;
  readonly exited: Promise<void>;
  private readonly recent: string[] = [];
  private rest = '';

  constructor(
    readonly name: keyof typeof STOP_GRACE_MS,
    args: string[],
    env: NodeJS.ProcessEnv,
    private readonly log: WriteStream,
    onLine: (line: string) => void = () => undefined,
  ) {
    this.process = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.exited = new Promise((resolve) => this.process.once('close', () => resolve()));
    for (const stream of [this.process.stdout!, this.process.stderr!]) {
      stream.on('data', (chunk: Buffer) => {
        log.write(chunk);
        const lines = (this.rest + chunk.toString()).split('\n');
        this.rest = lines.pop() ?? '';
        for (const line of lines) {
          this.recent.push(line);
          if (this.recent.length > 10) this.recent.shift();
          onLine(line);
        }
      });
    }
  }

  get running(): boolean {
    return this.process.exitCode === null && this.process.signalCode === null;
  }

  /** The last lines it wrote, for a report of why it stopped. */
  tail(): string[] {
    return this.rest === '' ? [...this.recent] : [...this.recent, this.rest];
  }

  describeExit(): string {
    return this.process.signalCode ? `signal ${this.process.signalCode}` : `code ${this.process.exitCode}`;
  }

  /** SIGTERM, then SIGKILL after the grace time. */
  async stop(): Promise<void> {
    if (this.running) {
      const kill = setTimeout(() => this.process.kill('SIGKILL'), STOP_GRACE_MS[this.name]);
      this.process.kill('SIGTERM');
      await this.exited;
      clearTimeout(kill);
    }
  }
}

const CHILD_NAMES: Record<Child['name'], string> = { 'node-red': 'Node-RED', analyzer: 'the simulated analyzer', 'hl7-analyzer': 'the simulated HL7 analyzer' };

/** A child exited on its own: the demo cannot go on without it. */
class ChildExited extends DemoError {
  constructor(readonly child: Child) {
    super(`${CHILD_NAMES[child.name]} exited (${child.describeExit()})`);
  }
}

interface Running {
  settings: DemoSettings;
  lis: DemoLis;
  /** The log files written, by name. */
  logs: string[];
  line: string;
  hl7Line: string;
  nodeRedErrors: () => number;
}

/** Log files in the demo user directory, one per process, replaced at each start. */
class Logs {
  readonly names: string[] = [];
  private readonly streams: WriteStream[] = [];

  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  open(name: string): WriteStream {
    const stream = createWriteStream(join(this.dir, `${name}.log`));
    this.names.push(`${name}.log`);
    this.streams.push(stream);
    return stream;
  }

  async close(): Promise<void> {
    await Promise.all(this.streams.map((stream) => new Promise<void>((resolve) => stream.end(resolve))));
  }
}

/**
 * Starts everything; each piece is registered with `teardown` as soon as it
 * runs, so whatever fails or whenever a signal comes, all of it is stopped.
 */
async function startAll(s: DemoSettings, baseEnv: NodeJS.ProcessEnv, teardown: Teardown, stopped: AbortSignal, fail: (reason: Error) => void, logs: Logs): Promise<Running> {
  const watch = (child: Child) => {
    teardown.add(() => child.stop());
    // Stopping the children is the teardown's business; exiting before it means something broke.
    void child.exited.then(() => {
      if (!stopped.aborted) fail(new ChildExited(child));
    });
  };

  await checkFree(s.pushPort, `port ${s.pushPort} is in use: the demo flow's lis-push-in listens there (set DEMO_PUSH_PORT to a free port)`);
  const hl7PushPort = await portOrFree(s.hl7PushPort);
  if (s.hl7PushPort !== 0) await checkFree(hl7PushPort, `port ${hl7PushPort} is in use: the HL7 tab's lis-push-in listens there (set DEMO_HL7_PUSH_PORT to a free port, or leave it unset)`);
  const hl7TcpPort = await portOrFree(s.hl7TcpPort);

  const lisLog = logs.open('demo-lis');
  const lis = new DemoLis({
    token: DEMO_TOKEN,
    showToken: true,
    pushUrl: `http://127.0.0.1:${s.pushPort}/api/getSampleData`,
    orderableTests: DEMO_FLOW.tests.map((t) => t.lisTestId),
    orderableByPrefix: { [DEMO_HL7_PREFIX]: DEMO_HL7_FLOW.tests.map((t) => t.lisTestId) },
    log: (line) => lisLog.write(`${line}\n`),
  });
  try {
    await lis.start({ port: s.lisPort });
  } catch (err) {
    throw new DemoError(`the demo LIS ${(err as Error).message} (set DEMO_LIS_PORT to a free port)`);
  }
  teardown.add(() => lis.stop());
  stopped.throwIfAborted();
  const lisUrl = (path: string) => lis.url(path);

  // The line between Node-RED and the analyzer.
  let transport: 'serial' | 'tcp' = 'serial';
  let hostPath = s.analyzerPort;
  let pty: PtyPair | undefined;
  if (s.analyzerPort === undefined) {
    if (hasSocat()) {
      try {
        pty = await ptyPair();
      } catch (err) {
        throw new DemoError(`no pty pair for the simulated analyzer: ${(err as Error).message}`);
      }
      const made = pty;
      teardown.add(() => made.stop());
      stopped.throwIfAborted();
      hostPath = pty.host;
    } else {
      say('socat is not installed (apt-get install socat): falling back to the TCP transport');
      transport = 'tcp';
    }
  }

  // Node-RED: its own user directory, the demo flow, the package from this checkout.
  // Each analyzer's line and push port are its tab's environment variables, as in the examples.
  const flow = buildDemoFlow({ transport, analyzerPort: hostPath, analyzerBaud: s.analyzerBaud, analyzerTcpPort: s.analyzerTcpPort, pushPort: s.pushPort, hl7TcpPort, hl7PushPort });
  writeFileSync(join(s.userDir, 'flows.json'), `${JSON.stringify(flow, null, 4)}\n`);
  const settingsFile = join(s.userDir, 'settings.js');
  const settings = {
    uiHost: '127.0.0.1',
    uiPort: s.nodeRedPort,
    flowFile: 'flows.json',
    credentialSecret: 'lis-bridge-demo',
    nodesDir: [ROOT, dirname(require.resolve('node-red-node-serialport/package.json'))],
    serialReconnectTime: 1000,
    telemetry: { enabled: false },
    editorTheme: { tours: false },
  };
  writeFileSync(settingsFile, `module.exports = ${JSON.stringify(settings, null, 2)};\n`);
  const env = {
    ...baseEnv,
    LIS_TESTS_URL: lisUrl('/api/tests'),
    LIS_ORDERS_URL: lisUrl('/api/orders'),
    LIS_RESULTS_URL: lisUrl('/api/results'),
    LIS_PROCESSED_URL: lisUrl('/api/processed'),
    LIS_TOKEN: DEMO_TOKEN,
    // The simulator reads its speed here (the flow reads its tab's).
    ANALYZER_BAUD: String(s.analyzerBaud),
  };

  const simulator = (line: string[]) =>
    new Child(
      'analyzer',
      [join(ROOT, 'dist', 'lib', 'sim', 'cli.js'), '--dialect', DEMO_FLOW.dialect, ...line, '--count', '100000', '--prefix', 'DEMO', '--interval', String(s.sampleIntervalMs)],
      env,
      logs.open('analyzer'),
    );
  // Over TCP the simulator is the server Node-RED's tcp in connects to: it starts first.
  if (transport === 'tcp') watch(simulator(['--listen', String(s.analyzerTcpPort)]));
  // The HL7 analyzer is always a TCP server, whatever the ASTM line is. It runs three QC levels of its four
  // channels every 20 s, and from its fourth run on they drift up by 0.3 SD a run: within about three minutes a
  // rule rejects a run, and the Lab sidebar shows the event and the patient results it holds.
  watch(
    new Child(
      'hl7-analyzer',
      [join(ROOT, 'dist', 'lib', 'sim', 'cli.js'), '--protocol', 'hl7', '--dialect', DEMO_HL7_FLOW.dialect, '--listen', String(hl7TcpPort), '--count', '100000', '--prefix', DEMO_HL7_PREFIX, '--interval', String(s.sampleIntervalMs), ...DEMO_HL7_QC],
      env,
      logs.open('hl7-analyzer'),
    ),
  );

  let errors = 0;
  let resolveStarted: () => void = () => undefined;
  const flowsStarted = new Promise<void>((resolve) => (resolveStarted = resolve));
  const red = new Child('node-red', [require.resolve('node-red/red.js'), '-u', s.userDir, '-s', settingsFile], env, logs.open('node-red'), (line) => {
    if (/ - \[info\] Started flows/.test(line)) resolveStarted();
    if (/ - \[error\] /.test(line)) errors++;
  });
  watch(red);
  await untilStopped(flowsStarted, stopped, NODE_RED_START_MS, `Node-RED did not start its flows within ${NODE_RED_START_MS / 1000} s`);

  let line: string;
  if (pty) {
    watch(simulator(['--serial', pty.analyzer]));
    line = `simulated (${DEMO_FLOW.dialect}) on ${pty.analyzer} <-> Node-RED on ${pty.host}`;
  } else if (transport === 'tcp') {
    line = `simulated (${DEMO_FLOW.dialect}), TCP server on 127.0.0.1:${s.analyzerTcpPort} that Node-RED connects to`;
  } else {
    line = `none simulated: Node-RED's serial nodes open ${s.analyzerPort} (ANALYZER_PORT) at ${s.analyzerBaud} baud; connect your analyzer there, or run lis-analyzer-sim on the far end of a pty pair whose near end that is`;
  }
  const hl7Line = `simulated (${DEMO_HL7_FLOW.dialect}), TCP server on 127.0.0.1:${hl7TcpPort} that Node-RED connects to; its tab's lis-push-in on ${hl7PushPort}`;
  return { settings: s, lis, logs: logs.names, line, hl7Line, nodeRedErrors: () => errors };
}

/** The demo HL7 analyzer's controls, its channels' codes as tests (why: where the analyzer starts). */
const DEMO_HL7_QC = ['--qc', 'QC', '--qc-levels', '3', '--tests', DEMO_HL7_FLOW.tests.map((t) => t.instrumentCode).join(','), '--qc-every', '20000ms', '--qc-bias-from', '4', '--qc-drift', '0.3'];

/** `work` or, whichever comes first, the stop (rejects with its reason) or the deadline. */
async function untilStopped<T>(work: Promise<T>, stopped: AbortSignal, ms: number, late: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: () => void = () => undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new DemoError(late)), ms);
        onAbort = () => reject(stopped.reason as Error);
        if (stopped.aborted) onAbort();
        else stopped.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    stopped.removeEventListener('abort', onAbort);
  }
}

function banner(r: Running, logDir: string): void {
  const s = r.settings;
  const rule = '-'.repeat(72);
  say(rule);
  say(`Node-RED editor:  http://127.0.0.1:${s.nodeRedPort}/   (the demo flow; its comment node explains it)`);
  say(`demo LIS page:    ${r.lis.url('/')}`);
  say(`LIS Bearer Token: ${DEMO_TOKEN}   (the demo LIS requires it: put it in your own lis-config to use the demo LIS)`);
  say(`analyzer:         ${r.line}`);
  say(`HL7 analyzer:     ${r.hl7Line}`);
  say(`logs:             ${logDir}/ (${[...r.logs].sort((a, b) => LOG_ORDER.indexOf(a) - LOG_ORDER.indexOf(b)).join(', ')})`);
  say(rule);
  say(`A summary line follows every ${SUMMARY_EVERY_MS / 1000} s while samples flow. Ctrl-C stops everything.`);
}

/** Results Node-RED holds because the LIS did not take them, and those waiting for a person; null when Node-RED did not answer. */
async function heldResults(nodeRedPort: number): Promise<{ lis: number; person: number } | null> {
  try {
    const res = await fetch(`http://127.0.0.1:${nodeRedPort}/lis-bridge/held`, { signal: AbortSignal.timeout(3000) });
    if (!res.ok) return null;
    const body = (await res.json()) as { batches?: Array<{ results?: number }>; summary?: { waiting?: number } };
    return { lis: (body.batches ?? []).reduce((n, b) => n + (b.results ?? 0), 0), person: body.summary?.waiting ?? 0 };
  } catch {
    return null;
  }
}

async function summary(r: Running): Promise<string> {
  const totals = r.lis.totals();
  const held = await heldResults(r.settings.nodeRedPort);
  const parts = [`samples ${totals.requests.orders}`, `results delivered ${totals.resultsAccepted}`, `held ${held?.lis ?? '? (Node-RED did not answer)'}`];
  // A QC hold, an unmapped code: the Lab sidebar lists each with what resolves it.
  if (held && held.person > 0) parts.push(`waiting for a person ${held.person} (Lab sidebar)`);
  if (totals.refused > 0) parts.push(`refused requests ${totals.refused} (demo LIS page)`);
  if (r.nodeRedErrors() > 0) parts.push(`Node-RED errors ${r.nodeRedErrors()} (node-red.log)`);
  return parts.join(', ');
}

function clock(): string {
  return new Date().toTimeString().slice(0, 8);
}

function whenStopped(stopped: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (stopped.aborted) resolve();
    else stopped.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** What to tell the user about a child that exited on its own, beyond its last lines. */
function hint(child: Child): string | undefined {
  if (!child.tail().some((l) => /port in use|EADDRINUSE/.test(l))) return undefined;
  const setting = { 'node-red': 'NODE_RED_PORT', analyzer: 'DEMO_ANALYZER_TCP_PORT', 'hl7-analyzer': 'DEMO_HL7_TCP_PORT' }[child.name];
  return `its port is taken: set ${setting} to a free port`;
}

/**
 * Runs the demo until a signal or a failure, then stops everything it
 * started. Resolves with the exit status: 0 after a signal, 1 after a failure.
 */
export async function main(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const controller = new AbortController();
  const stopAll = (reason: Error) => {
    if (!controller.signal.aborted) controller.abort(reason);
  };
  const onSignal = (signal: NodeJS.Signals) => stopAll(new StopRequest(signal));
  const onCrash = (err: unknown) => stopAll(err instanceof Error ? err : new Error(String(err)));
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of signals) process.on(signal, onSignal);
  process.on('uncaughtException', onCrash);
  process.on('unhandledRejection', onCrash);

  const teardown = new Teardown();
  let logs: Logs | undefined;
  let summaryTimer: NodeJS.Timeout | undefined;
  let running = false;
  let failure: Error | undefined;
  try {
    const s = readSettings(env);
    logs = new Logs(join(s.userDir, 'logs'));
    say(`starting the demo LIS, Node-RED and the analyzer; full logs in ${logs.dir}/`);
    const r = await startAll(s, env, teardown, controller.signal, stopAll, logs);
    banner(r, logs.dir);
    running = true;

    let last = '';
    let lastAt = Date.now();
    summaryTimer = setInterval(() => {
      void summary(r).then((text) => {
        if (controller.signal.aborted || (text === last && Date.now() - lastAt < SUMMARY_QUIET_MS)) return;
        last = text;
        lastAt = Date.now();
        say(`${clock()} ${text}`);
      });
    }, SUMMARY_EVERY_MS);
    await whenStopped(controller.signal);
  } catch (err) {
    if (!(err instanceof StopRequest)) failure = err instanceof Error ? err : new Error(String(err));
  } finally {
    clearInterval(summaryTimer);
  }
  // A failure that came while running (a child exited, an uncaught error) is the abort's reason.
  const reason: unknown = controller.signal.reason;
  if (failure === undefined && reason instanceof Error && !(reason instanceof StopRequest)) failure = reason;
  stopAll(failure ?? new StopRequest('done'));

  if (failure) {
    complain(`${running ? 'the demo failed' : 'npm start failed'}: ${failure instanceof DemoError ? failure.message : (failure.stack ?? failure.message)}`);
    if (failure instanceof ChildExited && failure.child.tail().length > 0) {
      complain(`its last lines (all of them in ${join(logs?.dir ?? '', `${failure.child.name}.log`)}):`);
      for (const l of failure.child.tail()) process.stderr.write(`  ${l}\n`);
      const help = hint(failure.child);
      if (help) complain(help);
    }
  } else if (reason instanceof StopRequest) {
    say(`${reason.message}: stopping`);
  }
  await teardown.run();
  await logs?.close();
  for (const signal of signals) process.off(signal, onSignal);
  process.off('uncaughtException', onCrash);
  process.off('unhandledRejection', onCrash);
  say('stopped: nothing it started is left running');
  return failure ? 1 : 0;
}

if (require.main === module) {
  void main().then((code) => process.exit(code));
}
