/**
 * Node-RED as its own process for the bench (test/support/node-red-process.ts):
 * `node red.js -u <userDir>` on a fresh temporary userDir, with this package
 * and node-red-node-serialport loaded from their folders (as `npm start`
 * does), a given flow and environment. Its pid is exposed for /proc readings;
 * with `profile` it runs under --cpu-prof and the profile is written when it
 * stops.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startNodeRed as startProcess } from '../test/support/node-red-process';

export { freePort } from '../test/support/ports';

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
  /** Resolves when the output matches. */
  waitForLog(pattern: RegExp, timeoutMs: number): Promise<void>;
  /** Its last lines of output, for an error that needs them. */
  tail(lines: number): string;
  /** Stops Node-RED (SIGTERM, so it writes its profile) and returns the .cpuprofile files written. */
  stop(): Promise<string[]>;
}

/** A bench run logs little, but a long one must not grow the bench's own memory: Node-RED's output is cut to its last 256 KiB. */
const KEEP_OUTPUT = 256 * 1024;

export async function startNodeRed(opts: NodeRedOptions): Promise<RunningNodeRed> {
  const userDir = mkdtempSync(join(tmpdir(), 'lis-bench-red-'));
  const profileDir = opts.profile ? mkdtempSync(join(tmpdir(), 'lis-bench-prof-')) : undefined;
  const red = await startProcess({
    userDir,
    flows: opts.flow,
    env: opts.env,
    nodeArgs: profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [],
    keepOutput: KEEP_OUTPUT,
    settings: {
      nodesDir: [ROOT, dirname(require.resolve('node-red-node-serialport/package.json'))],
      serialReconnectTime: 500,
      socketReconnectTime: 500,
      ...opts.settings,
    },
  }).catch((err: unknown) => {
    rmSync(userDir, { recursive: true, force: true });
    throw err;
  });
  return {
    pid: red.pid,
    url: red.url,
    userDir,
    profileDir,
    waitForLog: (pattern, timeoutMs) => red.waitForLog(pattern, timeoutMs),
    tail: (lines) => red.tail(lines),
    stop: async () => {
      // Longer than the tests allow: writing a large CPU profile takes a while.
      await red.stop(15_000);
      rmSync(userDir, { recursive: true, force: true });
      return profileDir ? readdirSync(profileDir).filter((f) => f.endsWith('.cpuprofile')).map((f) => join(profileDir, f)) : [];
    },
  };
}
