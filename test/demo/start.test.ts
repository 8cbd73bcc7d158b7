/**
 * `npm start` as a new user, an IDE or a supervisor runs it: results reach the
 * demo LIS; SIGINT or SIGTERM sent to the npm process alone (not its group, as
 * `timeout` or an IDE's stop button does) stops every process it started and
 * frees every port; a start that fails (a bad ANALYZER_PORT, a port taken)
 * leaves nothing running either. Each run gets free ports, its own user
 * directory and its own TMPDIR, so the pty directories it makes can be checked
 * without looking at anyone else's.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ptyPair } from '../../demo/pty';
import { freePort } from '../support/ports';
import { waitUntil, withTimeout } from '../support/wait';

const ROOT = join(__dirname, '..', '..', '..');
/** Generous for a loaded two-core machine; by design the demo stops within about 8 s at worst. */
const STOP_DEADLINE_MS = 15000;
/** Long enough for Node-RED to start (and find its port taken) on a loaded machine. */
const START_DEADLINE_MS = 120000;

const cleanups: Array<() => void | Promise<void>> = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** Processes of a process group still alive. */
function groupMembers(pgid: number): string[] {
  const out = execFileSync('ps', ['-eo', 'pid=,pgid=,stat=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .map((l) => l.trim())
    // A zombie is already gone; it only waits for its parent to read its status.
    .filter((l) => l !== '' && Number(l.split(/\s+/)[1]) === pgid && !l.split(/\s+/)[2]!.startsWith('Z'));
}

/** A process a test waits on: npm start, or the demo started without npm. */
type Running = { child: ChildProcess; output: () => string };

/** For waitUntil: `check`, failing the wait at once once the process has exited, since what it waits for can no longer come. */
function whileRunning(p: Running, check: () => boolean | Promise<boolean>): () => Promise<boolean> {
  return async () => {
    if (await check()) return true;
    if (p.child.exitCode !== null) assert.fail(`the demo exited (code ${p.child.exitCode}) while a test waited on it:\n${p.output().slice(-3000)}`);
    return false;
  };
}

/** For waitUntil: what it waits for, then the end of the process's output. */
const withOutput = (p: Running, what: string) => () => `${what}:\n${p.output().slice(-3000)}`;

/** Whether something accepts connections on the loopback port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

interface Demo {
  child: ChildProcess;
  ports: { red: number; lis: number; push: number; tcp: number };
  userDir: string;
  tmp: string;
  output: () => string;
  closed: Promise<number | null>;
}

/** `npm start` in a process group of its own, with free ports, a fresh user directory and its own TMPDIR. */
async function npmStart(extraEnv: Record<string, string> = {}): Promise<Demo> {
  const ports = { red: await freePort(), lis: await freePort(), push: await freePort(), tcp: await freePort() };
  const userDir = mkdtempSync(join(tmpdir(), 'lis-start-'));
  const tmp = mkdtempSync(join(tmpdir(), 'lis-start-tmp-'));
  const child = spawn('npm', ['start'], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      TMPDIR: tmp,
      NODE_RED_PORT: String(ports.red),
      DEMO_LIS_PORT: String(ports.lis),
      DEMO_PUSH_PORT: String(ports.push),
      DEMO_ANALYZER_TCP_PORT: String(ports.tcp),
      DEMO_USER_DIR: userDir,
      DEMO_SAMPLE_INTERVAL_MS: '1000',
      ...extraEnv,
    },
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const closed = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  cleanups.push(() => {
    // Only when a test failed half-way: its group may still be running.
    if (child.pid && groupMembers(child.pid).length > 0) process.kill(-child.pid, 'SIGKILL');
    rmSync(userDir, { recursive: true, force: true });
    rmSync(tmp, { recursive: true, force: true });
  });
  return { child, ports, userDir, tmp, output: () => out, closed };
}

async function resultsAtLis(lisPort: number): Promise<number> {
  try {
    const state = (await (await fetch(`http://127.0.0.1:${lisPort}/api/state`)).json()) as { requests: { results: Array<{ status: number }> } };
    return state.requests.results.filter((r) => r.status === 200).length;
  } catch {
    return 0;
  }
}

/** Results the demo LIS took for the HL7 analyzer's samples (HL7-...), each for one of the HL7 tab's LIS codes. */
async function hl7ResultsAtLis(lisPort: number): Promise<number> {
  try {
    const state = (await (await fetch(`http://127.0.0.1:${lisPort}/api/state`)).json()) as { requests: { results: Array<{ status: number; body?: { results?: Array<{ SampleNumber?: string; TestCode?: string }> } }> } };
    const items = state.requests.results.filter((r) => r.status === 200).flatMap((r) => r.body?.results ?? []).filter((i) => i.SampleNumber?.startsWith('HL7-'));
    for (const i of items) assert.ok(['TSH', 'FT4', 'CA125', 'PSA'].includes(i.TestCode ?? ''), `an HL7 sample's result carries one of the HL7 tab's tests: ${JSON.stringify(i)}`);
    return items.length;
  } catch (err) {
    if (err instanceof assert.AssertionError) throw err;
    return 0;
  }
}

/** npm's exit status, once npm start has ended; fails when it is still running after the deadline. */
async function exitStatus(demo: Demo, ms = STOP_DEADLINE_MS): Promise<number | null> {
  return withTimeout(demo.closed, ms, 'npm start to end').catch((err: Error) => assert.fail(`${err.message}:\n${demo.output().slice(-3000)}`));
}

/** Every process of the demo's group is gone, no port it used still answers, and its pty directories are removed. */
async function assertAllGone(demo: Demo, notOurs: number[] = []): Promise<void> {
  const pgid = demo.child.pid!;
  await waitUntil(() => groupMembers(pgid).length === 0, STOP_DEADLINE_MS, 'every process of npm start ending', 200);
  for (const [name, port] of Object.entries(demo.ports)) {
    if (!notOurs.includes(port)) assert.equal(await listening(port), false, `port ${port} (${name}) is free`);
  }
  assert.deepEqual(readdirSync(demo.tmp).filter((f) => f.startsWith('lis-pty-')), [], 'no pty directory is left');
}

describe('npm start', () => {
  it('runs until results reach the demo LIS, with a banner, logs in files and summary lines; SIGINT to npm stops everything', async () => {
    const demo = await npmStart();
    const summarised = async () => /\[demo\] \d\d:\d\d:\d\d samples \d+, results delivered [1-9]\d*, held 0/.test(demo.output()) && (await resultsAtLis(demo.ports.lis)) > 0;
    await waitUntil(whileRunning(demo, summarised), START_DEADLINE_MS, withOutput(demo, 'results at the demo LIS and a summary line'), 200);
    const out = demo.output();
    assert.match(out, new RegExp(`Node-RED editor: +http://127\\.0\\.0\\.1:${demo.ports.red}/`));
    assert.match(out, new RegExp(`demo LIS page: +http://127\\.0\\.0\\.1:${demo.ports.lis}/`));
    assert.match(out, /LIS Bearer Token: demo-token/);
    assert.match(out, /analyzer: +simulated \(generic-lis2a2\) on \S+\/lis-pty-\w+\/analyzer <-> Node-RED on \S+\/host/);
    assert.match(out, /HL7 analyzer: +simulated \(mindray-cl-hl7\), TCP server on 127\.0\.0\.1:\d+ that Node-RED connects to/);
    const logs = join(demo.userDir, 'logs');
    assert.match(out, new RegExp(`logs: +${logs}/ \\(node-red\\.log, analyzer\\.log, hl7-analyzer\\.log, demo-lis\\.log\\)`));
    // The detail is in the files, not in the terminal.
    assert.match(readFileSync(join(logs, 'node-red.log'), 'utf8'), /Started flows/);
    assert.match(readFileSync(join(logs, 'analyzer.log'), 'utf8'), /→ <ENQ>/);
    assert.match(readFileSync(join(logs, 'demo-lis.log'), 'utf8'), /POST \/api\/results 200/);
    // The HL7 analyzer's samples reach the demo LIS too: ordered with the HL7 tab's tests, results delivered.
    await waitUntil(whileRunning(demo, async () => (await hl7ResultsAtLis(demo.ports.lis)) > 0), START_DEADLINE_MS, withOutput(demo, 'an HL7 sample\'s results at the demo LIS'), 200);
    assert.doesNotMatch(out, /<ENQ>|\[info\]|POST \/api/);
    const besidesSummaries = out.split('\n').filter((l) => !/^\[demo\] \d\d:\d\d:\d\d samples/.test(l));
    assert.ok(besidesSummaries.length < 25, `a short terminal output:\n${out}`);
    assert.equal(readdirSync(demo.tmp).filter((f) => f.startsWith('lis-pty-')).length, 1);

    process.kill(demo.child.pid!, 'SIGINT');
    assert.equal(await exitStatus(demo), 0);
    await assertAllGone(demo);
    assert.match(demo.output(), /SIGINT: stopping/);
  });

  it('with ANALYZER_PORT uses that device and simulates no analyzer; SIGTERM to npm stops everything', async (t) => {
    // The user's "device": one end of a pty pair, with lis-analyzer-sim on the other end as the README says.
    const cable = await ptyPair();
    t.after(() => cable.stop());
    const demo = await npmStart({ ANALYZER_PORT: cable.host });
    await waitUntil(whileRunning(demo, () => /Ctrl-C stops everything/.test(demo.output())), START_DEADLINE_MS, withOutput(demo, 'the banner'), 200);
    assert.match(demo.output(), new RegExp(`analyzer: +none simulated: Node-RED's serial nodes open ${cable.host} \\(ANALYZER_PORT\\) at 9600 baud`));
    // The HL7 analyzer is simulated over TCP whatever the serial line is.
    assert.deepEqual(groupMembers(demo.child.pid!).filter((p) => (p.includes('sim/cli.js') && !p.includes('--protocol hl7')) || p.includes('socat')), [], 'no ASTM simulator and no pty pair of its own');

    const sim = spawn(process.execPath, [join(ROOT, 'bin', 'lis-analyzer-sim'), '--dialect', 'generic-lis2a2', '--serial', cable.analyzer, '--samples', 'S2001'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let simOut = '';
    sim.stdout!.on('data', (d: Buffer) => (simOut += d.toString()));
    sim.stderr!.on('data', (d: Buffer) => (simOut += d.toString()));
    t.after(() => void sim.kill('SIGKILL'));
    const simCode = await new Promise<number | null>((resolve) => sim.once('close', resolve));
    assert.equal(simCode, 0, simOut);
    await waitUntil(whileRunning(demo, async () => (await resultsAtLis(demo.ports.lis)) > 0), 30000, withOutput(demo, 'the results at the demo LIS'), 200);

    process.kill(demo.child.pid!, 'SIGTERM');
    assert.equal(await exitStatus(demo), 0);
    await assertAllGone(demo);
    assert.match(demo.output(), /SIGTERM: stopping/);
  });

  it('refuses an ANALYZER_PORT that is no device, says what the setting means, and starts nothing', async () => {
    const demo = await npmStart({ ANALYZER_PORT: '/tmp/lis-no-such-tty' });
    assert.equal(await exitStatus(demo, START_DEADLINE_MS), 1);
    const out = demo.output();
    assert.match(out, /npm start failed: ANALYZER_PORT=\/tmp\/lis-no-such-tty: no such device\. ANALYZER_PORT is the serial device your analyzer/);
    assert.match(out, /Leave ANALYZER_PORT unset for the simulated analyzer/);
    assert.doesNotMatch(out, /Cannot read properties/);
    await assertAllGone(demo);
  });

  it('when Node-RED cannot take its port, says so and stops the demo LIS, socat and everything else', async (t) => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
    const taken = (blocker.address() as net.AddressInfo).port;
    const demo = await npmStart({ NODE_RED_PORT: String(taken) });
    assert.equal(await exitStatus(demo, START_DEADLINE_MS), 1);
    const out = demo.output();
    assert.match(out, /npm start failed: Node-RED exited \(code 1\)/);
    assert.match(out, /set NODE_RED_PORT to a free port/);
    // The demo LIS and the pty pair had started before Node-RED failed.
    assert.match(out, /starting the demo LIS/);
    await assertAllGone(demo, [taken]);
  });

  it('when the push port is taken, says which setting to change and starts nothing', async (t) => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
    const taken = (blocker.address() as net.AddressInfo).port;
    const demo = await npmStart({ DEMO_PUSH_PORT: String(taken) });
    assert.equal(await exitStatus(demo, START_DEADLINE_MS), 1);
    assert.match(demo.output(), new RegExp(`npm start failed: port ${taken} is in use: the demo flow's lis-push-in listens there \\(set DEMO_PUSH_PORT to a free port\\)`));
    await assertAllGone(demo, [taken]);
  });

  it('without socat says how to install it and runs the analyzer over TCP instead', async () => {
    const [red, lis, push, tcp] = [await freePort(), await freePort(), await freePort(), await freePort()];
    const dir = mkdtempSync(join(tmpdir(), 'lis-start-tcp-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    // No PATH: socat cannot be found (the demo starts its children with this very node binary).
    const demo = spawn(process.execPath, [join(ROOT, 'dist', 'demo', 'start.js')], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PATH: '/nonexistent', NODE_RED_PORT: String(red), DEMO_LIS_PORT: String(lis), DEMO_PUSH_PORT: String(push), DEMO_USER_DIR: dir, DEMO_SAMPLE_INTERVAL_MS: '1000', DEMO_ANALYZER_TCP_PORT: String(tcp) },
    });
    let out = '';
    demo.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    demo.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const closed = new Promise((r) => demo.once('close', r));
    cleanups.push(() => {
      if (demo.pid && groupMembers(demo.pid).length > 0) process.kill(-demo.pid, 'SIGKILL');
    });
    const running = { child: demo, output: () => out };
    await waitUntil(whileRunning(running, async () => (await resultsAtLis(lis)) > 0), START_DEADLINE_MS, withOutput(running, 'a result over TCP'), 250);
    assert.match(out, /socat is not installed \(apt-get install socat\): falling back to the TCP transport/);
    assert.match(out, new RegExp(`analyzer: +simulated \\(generic-lis2a2\\), TCP server on 127\\.0\\.0\\.1:${tcp}`));
    // A terminal's Ctrl-C reaches the whole group.
    process.kill(-demo.pid!, 'SIGINT');
    await closed;
    await waitUntil(() => groupMembers(demo.pid!).length === 0, STOP_DEADLINE_MS, 'every process of the demo ending', 200);
    for (const port of [red, lis, push, tcp]) assert.equal(await listening(port), false, `port ${port} is free`);
  });
});
