/**
 * Node-RED as its own process for the bench: `node red.js -u <userDir>` with
 * this package and node-red-node-serialport loaded from their folders (as
 * `npm start` does), a given flow and environment. Its pid is exposed for
 * /proc readings; with `profile` it runs under --cpu-prof and the profile is
 * written when it stops.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export const ROOT = join(__dirname, '..', '..');

export type FlowNode = Record<string, unknown> & { id: string; type: string };

export interface NodeRedOptions {
  flow: FlowNode[];
  env: Record<string, string>;
  /** Run under --cpu-prof; the .cpuprofile lands in profileDir. */
  profile?: boolean;
  /** Extra settings.js entries. */
  settings?: Record<string, unknown>;
}

export interface RunningNodeRed {
  pid: number;
  url: string;
  /** Its -u directory (removed by stop()); the journal and traces are under <userDir>/lis-bridge. */
  userDir: string;
  /** Where --cpu-prof writes, when profiling. */
  profileDir: string | undefined;
  output(): string;
  /** Resolves when the output matches (checked every 20 ms). */
  waitForOutput(pattern: RegExp, timeoutMs: number): Promise<void>;
  /** Stops Node-RED (SIGTERM, so it writes its profile) and returns the .cpuprofile files written. */
  stop(): Promise<string[]>;
}

/** A loopback port that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

const KEEP_OUTPUT = 256 * 1024;

export async function startNodeRed(opts: NodeRedOptions): Promise<RunningNodeRed> {
  const userDir = mkdtempSync(join(tmpdir(), 'lis-bench-red-'));
  const port = await freePort();
  const settings = {
    uiHost: '127.0.0.1',
    uiPort: port,
    flowFile: 'flows.json',
    credentialSecret: 'lis-bench',
    nodesDir: [ROOT, dirname(require.resolve('node-red-node-serialport/package.json'))],
    serialReconnectTime: 500,
    socketReconnectTime: 500,
    telemetry: { enabled: false },
    editorTheme: { tours: false },
    logging: { console: { level: 'info', metrics: false, audit: false } },
    ...opts.settings,
  };
  writeFileSync(join(userDir, 'flows.json'), JSON.stringify(opts.flow, null, 1));
  const settingsFile = join(userDir, 'settings.js');
  writeFileSync(settingsFile, `module.exports = ${JSON.stringify(settings, null, 2)};\n`);

  const profileDir = opts.profile ? mkdtempSync(join(tmpdir(), 'lis-bench-prof-')) : undefined;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const nodeArgs = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, require.resolve('node-red/red.js'), '-u', userDir, '-s', settingsFile], {
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (d: Buffer) => {
    out += d.toString();
    if (out.length > KEEP_OUTPUT * 2) out = out.slice(-KEEP_OUTPUT);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const waitForOutput = async (pattern: RegExp, timeoutMs: number): Promise<void> => {
    const started = Date.now();
    while (!pattern.test(out)) {
      if (child.exitCode !== null) throw new Error(`Node-RED exited early:\n${out}`);
      if (Date.now() - started > timeoutMs) throw new Error(`Node-RED: no ${pattern} within ${timeoutMs} ms:\n${out.slice(-4000)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  try {
    await waitForOutput(/Started flows/, 60_000);
  } catch (err) {
    child.kill('SIGKILL');
    rmSync(userDir, { recursive: true, force: true });
    throw err;
  }
  return {
    pid: child.pid!,
    url: `http://127.0.0.1:${port}`,
    userDir,
    profileDir,
    output: () => out,
    waitForOutput,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
      rmSync(userDir, { recursive: true, force: true });
      return profileDir ? readdirSync(profileDir).filter((f) => f.endsWith('.cpuprofile')).map((f) => join(profileDir, f)) : [];
    },
  };
}
