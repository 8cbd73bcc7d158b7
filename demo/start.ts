/**
 * `npm start`: the whole workflow on this machine. A demo LIS, Node-RED with
 * this package and the demo flow (flows/demo-flow.json), and a simulated
 * analyzer on a socat pty pair wired to Node-RED's serial nodes (or over TCP
 * when socat is missing). Ctrl-C stops everything and leaves no process behind.
 *
 * Settings (environment variables, each with its default here and nowhere else):
 * NODE_RED_PORT 1880, DEMO_LIS_PORT 3100, DEMO_USER_DIR <project>/.node-red,
 * ANALYZER_PORT (a pty made for the demo), DEMO_ANALYZER_TCP_PORT 4001 (TCP fallback),
 * DEMO_SAMPLE_INTERVAL_MS 5000.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DemoLis } from './demo-lis';
import { ptyPair, type PtyPair } from './pty';
import { DEMO_FLOW, buildExample } from './examples';

const ROOT = join(__dirname, '..', '..');
const DEMO_TOKEN = 'demo-token';
const PUSH_URL = 'http://127.0.0.1:8181/api/getSampleData';

export const DEMO_SETTINGS = {
  nodeRedPort: Number(process.env.NODE_RED_PORT ?? 1880),
  lisPort: Number(process.env.DEMO_LIS_PORT ?? 3100),
  userDir: process.env.DEMO_USER_DIR ?? join(ROOT, '.node-red'),
  analyzerPort: process.env.ANALYZER_PORT,
  analyzerTcpPort: Number(process.env.DEMO_ANALYZER_TCP_PORT ?? 4001),
  sampleIntervalMs: Number(process.env.DEMO_SAMPLE_INTERVAL_MS ?? 5000),
};

const DEMO_EXAMPLE = DEMO_FLOW;

function log(line: string): void {
  process.stdout.write(`[demo] ${line}\n`);
}

function hasSocat(): boolean {
  return spawnSync('socat', ['-V'], { stdio: 'ignore' }).status === 0;
}

export async function main(): Promise<void> {
  const s = DEMO_SETTINGS;
  const children: ChildProcess[] = [];
  let pty: PtyPair | undefined;
  let stopping = false;

  const lis = new DemoLis({
    token: DEMO_TOKEN,
    pushUrl: PUSH_URL,
    orderableTests: DEMO_EXAMPLE.tests.map((t) => t.lisTestId),
    log: (line) => process.stdout.write(`[lis] ${line}\n`),
  });
  const lisPort = await lis.start({ port: s.lisPort });
  const lisUrl = (path: string) => `http://127.0.0.1:${lisPort}${path}`;

  const serial = hasSocat();
  if (!serial) log('socat is not installed (apt-get install socat): falling back to the TCP transport');
  let analyzerPath = s.analyzerPort;
  if (serial && !analyzerPath) {
    pty = await ptyPair();
    analyzerPath = pty.host;
  }

  // Node-RED: a userDir inside the project, the demo flow, the package from this checkout.
  mkdirSync(s.userDir, { recursive: true });
  const flow = serial ? readFileSync(join(ROOT, 'flows', 'demo-flow.json'), 'utf8') : JSON.stringify(buildExample({ ...DEMO_EXAMPLE, transport: 'tcp' }));
  writeFileSync(join(s.userDir, 'flows.json'), flow);
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
    ...process.env,
    LIS_TESTS_URL: lisUrl('/api/tests'),
    LIS_ORDERS_URL: lisUrl('/api/orders'),
    LIS_RESULTS_URL: lisUrl('/api/results'),
    LIS_PROCESSED_URL: lisUrl('/api/processed'),
    LIS_TOKEN: DEMO_TOKEN,
    ANALYZER_PORT: analyzerPath ?? '',
    ANALYZER_BAUD: '9600',
    ANALYZER_HOST: '127.0.0.1',
    ANALYZER_TCP_PORT: String(s.analyzerTcpPort),
  };

  const simulatorArgs = (transport: string[]) => [
    join(ROOT, 'dist', 'lib', 'sim', 'cli.js'),
    '--dialect',
    DEMO_EXAMPLE.dialect,
    ...transport,
    '--count',
    '100000',
    '--prefix',
    'DEMO',
    '--interval',
    String(s.sampleIntervalMs),
  ];
  // Over TCP the simulator is the server Node-RED's tcp in connects to: start it first.
  if (!serial) children.push(run('analyzer', simulatorArgs(['--listen', String(s.analyzerTcpPort)]), env).child);

  const red = run('node-red', [require.resolve('node-red/red.js'), '-u', s.userDir, '-s', settingsFile], env, (line) => /Started flows/.test(line));
  children.push(red.child);
  const exitedEarly = new Promise<never>((_, reject) => red.child.once('exit', (code) => reject(new Error(`Node-RED exited before its flows started (code ${code})`))));
  exitedEarly.catch(() => undefined);
  try {
    await Promise.race([red.started, exitedEarly]);
  } catch (err) {
    // Leave nothing behind: the analyzer, socat and the demo LIS go too.
    await Promise.all(children.map((c) => terminate(c)));
    await pty?.stop();
    await lis.stop();
    throw err;
  }
  if (serial) children.push(run('analyzer', simulatorArgs(['--serial', pty!.analyzer]), env).child);

  log(`Node-RED editor: http://127.0.0.1:${s.nodeRedPort}/`);
  log(`demo LIS page:   http://127.0.0.1:${lisPort}/`);
  log(serial ? `analyzer on ${pty?.analyzer ?? analyzerPath} <-> Node-RED on ${analyzerPath}` : `analyzer on tcp 127.0.0.1:${s.analyzerTcpPort}`);
  log('Ctrl-C stops everything.');

  const stop = async (why: string) => {
    if (stopping) return;
    stopping = true;
    log(`${why}: stopping`);
    await Promise.all(children.map((c) => terminate(c)));
    await pty?.stop();
    await lis.stop();
    log('stopped');
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void stop(signal).then(() => process.exit(0)));
  for (const child of children) child.once('exit', (code) => void (stopping ? undefined : stop(`a process exited (${code})`).then(() => process.exit(1))));
}

/** A child process whose output is prefixed with its name; `started` resolves at the first line `ready` accepts. */
function run(name: string, args: string[], env: NodeJS.ProcessEnv, ready: (line: string) => boolean = () => true): { child: ChildProcess; started: Promise<void> } {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let resolveStarted: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (resolveStarted = resolve));
  for (const stream of [child.stdout!, child.stderr!]) {
    let rest = '';
    stream.on('data', (chunk: Buffer) => {
      const lines = (rest + chunk.toString()).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) {
        process.stdout.write(`[${name}] ${line}\n`);
        if (ready(line)) resolveStarted();
      }
    });
  }
  return { child, started };
}

function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`[demo] ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
