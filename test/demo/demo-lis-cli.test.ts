import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { PushServer } from '../../lib/lis/push-server';
import type { Order } from '../../lib/lis/schemas';
import { post } from './helpers';
import { waitUntil } from '../support/wait';

const CLI = join(__dirname, '..', '..', 'demo', 'demo-lis-cli.js');

/** The environment without any demo LIS settings of the developer's shell. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['DEMO_LIS_PORT', 'DEMO_LIS_HOST', 'DEMO_LIS_PREFIX', 'DEMO_LIS_URL', 'DEMO_LIS_ORDERABLE', 'DEMO_LIS_NO_ORDER', 'LIS_PUSH_URL', 'LIS_PUSH_TOKEN', 'LIS_TOKEN']) {
    delete env[name];
  }
  return { ...env, ...extra };
}

interface Running {
  child: ChildProcess;
  page: string;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts the CLI and waits for its whole start-up banner (it arrives through a pipe, possibly in pieces). */
async function startCli(t: TestContext, args: string[], env: NodeJS.ProcessEnv = cleanEnv()): Promise<Running> {
  const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const page = () => /Demo LIS running: open (\S+)/.exec(out)?.[1];
  const ready = () => {
    if (page() !== undefined && out.includes('Stop with Ctrl-C.')) return true;
    if (child.exitCode !== null) throw new Error(`the CLI exited early:\n${out}`);
    return false;
  };
  await waitUntil(ready, 10000, () => `the CLI to start:\n${out}`, 25);
  return { child, page: page()!, output: () => out, exited };
}

function runCli(args: string[], env: NodeJS.ProcessEnv = cleanEnv()): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env, timeout: 20000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('demo LIS command line', () => {
  it('starts from flags, prints the page and endpoint addresses, and stops on SIGTERM leaving no process', async (t) => {
    const cli = await startCli(t, ['--port', '0', '--token', 'cli-token']);
    assert.match(cli.page, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    assert.match(cli.output(), /TransactionInfoAPI URL\s+http:\/\/127\.0\.0\.1:\d+\/api\/orders/);
    assert.match(cli.output(), /Bearer Token\s+required/);
    assert.ok(!cli.output().includes('cli-token'), 'the token is never printed');

    assert.equal((await post(`${cli.page}api/orders`, { SampleNumber: 'S1001' })).status, 401);
    const ok = await post(`${cli.page}api/orders`, { SampleNumber: 'S1001' }, { Authorization: 'Bearer cli-token' });
    assert.equal(ok.status, 200);
    // The log line travels through a pipe: wait for it rather than race it.
    await waitUntil(() => /POST \/api\/orders 200 seeded order S1001/.test(cli.output()), 5000, () => `the log line of the seeded order:\n${cli.output()}`, 20);

    // An open event stream (a browser tab left open) must not keep the process alive.
    const stream = await fetch(`${cli.page}events`);
    assert.equal(stream.status, 200);
    const pid = cli.child.pid!;
    cli.child.kill('SIGTERM');
    assert.deepEqual(await cli.exited, { code: 0, signal: null });
    assert.match(cli.output(), /SIGTERM: stopping\nstopped\n/);
    assert.ok(!cli.output().includes('cli-token'));
    assert.equal(isAlive(pid), false);
    await assert.rejects(fetch(cli.page), 'nothing listens on the port any more');
    await stream.body?.cancel().catch(() => undefined);
  });

  it('takes its settings from DEMO_LIS_PORT, LIS_TOKEN and LIS_PUSH_URL, and stops on SIGINT', async (t) => {
    const cli = await startCli(t, [], cleanEnv({ DEMO_LIS_PORT: '0', LIS_TOKEN: 'env-token', LIS_PUSH_URL: 'http://127.0.0.1:9/api/getSampleData' }));
    assert.match(cli.output(), /Push orders to\s+http:\/\/127\.0\.0\.1:9\/api\/getSampleData/);
    assert.equal((await post(`${cli.page}api/tests`, {}, { Authorization: 'Bearer env-token' })).status, 200);
    cli.child.kill('SIGINT');
    assert.deepEqual(await cli.exited, { code: 0, signal: null });
  });

  it('push <sample> asks the running demo LIS to push that order to lis-push-in', async (t) => {
    const received: Order[] = [];
    const server = new PushServer({ host: '127.0.0.1', port: 0, bodyLimit: 100000, onOrders: (orders) => received.push(...orders) });
    const port = await server.listen();
    t.after(() => server.close());
    const cli = await startCli(t, ['--port', '0', '--push-url', `http://127.0.0.1:${port}/api/getSampleData`, '--quiet']);

    const pushed = await runCli(['push', 'S1003', '--url', cli.page]);
    assert.equal(pushed.code, 0, pushed.stdout + pushed.stderr);
    assert.match(pushed.stdout, /^HTTP 200\n/);
    assert.equal(received.length, 1);
    assert.equal(received[0]!.SampleNumber, 'S1003');

    const refused = await runCli(['push', 'NOORDER-9', '--url', cli.page]);
    assert.equal(refused.code, 1);
    assert.match(refused.stdout, /HTTP 422/);

    cli.child.kill('SIGTERM');
    assert.equal((await cli.exited).code, 0);
    const nobody = await runCli(['push', 'S1003', '--url', cli.page]);
    assert.equal(nobody.code, 1);
    assert.match(nobody.stderr, /no demo LIS answered at .*start it first/);
  });

  it('explains bad arguments and settings with an exit code', async () => {
    const usage = await runCli(['--port', 'eighty']);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--port must be a port number/);
    const unknownTest = await runCli(['--port', '0', '--orderable', 'T-GLU,T-NOPE']);
    assert.equal(unknownTest.code, 1);
    assert.match(unknownTest.stderr, /T-NOPE/);
    const help = await runCli(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /push <sample number>/);
  });
});
