/**
 * Every example in one Node-RED, as an integrator with several analyzers runs
 * them: the committed example files side by side in one flow file, each tab's
 * environment variables (docs/examples.md) set to this run's devices and ports.
 * Each analyzer must get its own line (the serial port config on its tab reads
 * the tab's ANALYZER_PORT; tcp in the tab's ANALYZER_TCP_PORT) and its own
 * lis-push-in port (the tab's LIS_PUSH_PORT), with no clash and one lis-config.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { EXAMPLES, combineFlows, withTabEnv } from '../../demo/examples';
import { ptyPair, type PtyPair } from '../../demo/pty';
import { LisStub } from '../support/lis-stub';
import { startNodeRed, type NodeRedProcess } from '../support/node-red-process';
import { freePort } from '../support/ports';

const ROOT = join(__dirname, '..', '..', '..');

type FlowNode = { id: string; type: string } & Record<string, unknown>;

interface Analyzer {
  file: string;
  pushPort: number;
  pty?: PtyPair;
  /** The TCP analyzer stand-in Node-RED's tcp in connects to: counts its connections. */
  server?: Server;
  connections: Socket[];
}

let userDir: string;
let red: NodeRedProcess | undefined;
let lis: LisStub;
const analyzers: Analyzer[] = [];

before(async () => {
  userDir = mkdtempSync(join(tmpdir(), 'lis-side-by-side-'));
  lis = new LisStub();
  await lis.start();
  const flows: FlowNode[][] = [];
  for (const spec of EXAMPLES) {
    const flow = JSON.parse(readFileSync(join(ROOT, 'examples', `${spec.file}.json`), 'utf8')) as FlowNode[];
    const a: Analyzer = { file: spec.file, pushPort: await freePort(), connections: [] };
    analyzers.push(a);
    if (spec.transport === 'serial') {
      a.pty = await ptyPair();
      flows.push(withTabEnv(flow, { ANALYZER_PORT: a.pty.host, ANALYZER_BAUD: 9600, LIS_PUSH_PORT: a.pushPort }));
    } else {
      const server = createServer((socket) => {
        a.connections.push(socket);
        socket.on('error', () => undefined);
      });
      a.server = server;
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const port = (server.address() as { port: number }).port;
      flows.push(withTabEnv(flow, { ANALYZER_HOST: '127.0.0.1', ANALYZER_TCP_PORT: port, LIS_PUSH_PORT: a.pushPort }));
    }
  }
  const serialDir = dirname(require.resolve('node-red-node-serialport/package.json'));
  red = await startNodeRed({ userDir, flows: combineFlows(...flows), env: lis.exampleEnv('side-by-side-token'), settings: { nodesDir: [ROOT, serialDir], serialReconnectTime: 1000 } });
});

after(async () => {
  await red?.stop();
  for (const a of analyzers) {
    for (const s of a.connections) s.destroy();
    await new Promise<void>((resolve) => (a.server ? a.server.close(() => resolve()) : resolve()));
    await a.pty?.stop();
  }
  await lis?.stop();
  rmSync(userDir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function until(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const started = Date.now();
  while (!(await cond())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}\n--- Node-RED log ---\n${red?.tail(60)}`);
    await sleep(50);
  }
}

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

describe('every example in one Node-RED', () => {
  it('each serial example opens the device its own tab names (the tab-scoped serial port config reads the tab env)', async () => {
    for (const a of analyzers.filter((x) => x.pty)) {
      await red!.waitForLog(new RegExp(`serial port ${a.pty!.host.replace(/[/.]/g, '\\$&')} opened at 9600`), 20_000);
    }
  });

  it('each TCP example connects to the analyzer its own tab names', async () => {
    for (const a of analyzers.filter((x) => x.server)) await until(() => a.connections.length > 0, `${a.file}'s tcp in to connect`);
  });

  it('every lis-push-in listens on its tab\'s LIS_PUSH_PORT: no "failed: port", no clash', async () => {
    for (const a of analyzers) await until(() => answers(a.pushPort), `${a.file}'s lis-push-in on ${a.pushPort}`);
    const log = red!.output();
    assert.doesNotMatch(log, /cannot listen|LISTEN_FAILED|EADDRINUSE/, 'no lis-push-in failed to listen');
    assert.doesNotMatch(log, /\[error\]/, 'no error at all');
    assert.equal(new Set(analyzers.map((a) => a.pushPort)).size, analyzers.length);
  });
});
