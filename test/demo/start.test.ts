/**
 * `npm start` as a new user runs it: results reach the demo LIS within a minute,
 * and Ctrl-C (SIGINT to the whole process group, as a terminal sends it) stops
 * everything, leaving no process behind.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/ports';

const ROOT = join(__dirname, '..', '..', '..');
let child: ChildProcess | undefined;
let userDir: string | undefined;

/** Processes of a process group still alive. */
function groupMembers(pgid: number): string[] {
  const out = execFileSync('ps', ['-eo', 'pid=,pgid=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && Number(l.split(/\s+/)[1]) === pgid);
}

after(() => {
  // Only when the test failed half-way: its group may still be running.
  if (child?.pid && groupMembers(child.pid).length > 0) process.kill(-child.pid, 'SIGKILL');
  if (userDir) rmSync(userDir, { recursive: true, force: true });
});

async function waitForResults(lisPort: number, output: () => string, child: ChildProcess, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (child.exitCode !== null) assert.fail(`the demo exited early:\n${output().slice(-3000)}`);
    try {
      const state = (await (await fetch(`http://127.0.0.1:${lisPort}/api/state`)).json()) as { requests: { results: unknown[] } };
      if (state.requests.results.length > 0) return state.requests.results.length;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return 0;
}

describe('npm start', () => {
  it('without socat says how to install it and runs the analyzer over TCP instead', async () => {
    const [redPort, lisPort, tcpPort] = [await freePort(), await freePort(), await freePort()];
    const dir = mkdtempSync(join(tmpdir(), 'lis-start-tcp-'));
    // No PATH: socat cannot be found (the demo starts its children with this very node binary).
    const demo = spawn(process.execPath, [join(ROOT, 'dist', 'demo', 'start.js')], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PATH: '/nonexistent', NODE_RED_PORT: String(redPort), DEMO_LIS_PORT: String(lisPort), DEMO_USER_DIR: dir, DEMO_SAMPLE_INTERVAL_MS: '1000', DEMO_ANALYZER_TCP_PORT: String(tcpPort) },
    });
    let out = '';
    demo.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    demo.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const closed = new Promise((r) => demo.once('close', r));
    try {
      assert.ok((await waitForResults(lisPort, () => out, demo, 60000)) > 0, `no result over TCP:\n${out.slice(-3000)}`);
      assert.match(out, /socat is not installed \(apt-get install socat\): falling back to the TCP transport/);
      assert.match(out, new RegExp(`analyzer on tcp 127\\.0\\.0\\.1:${tcpPort}`));
    } finally {
      process.kill(-demo.pid!, 'SIGINT');
      await closed;
      rmSync(dir, { recursive: true, force: true });
    }
    assert.deepEqual(groupMembers(demo.pid!), []);
  });

  it('runs the demo until results reach the demo LIS, and Ctrl-C leaves no process behind', async () => {
    const [redPort, lisPort] = [await freePort(), await freePort()];
    userDir = mkdtempSync(join(tmpdir(), 'lis-start-'));
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    child = spawn(npm, ['start'], {
      cwd: ROOT,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NODE_RED_PORT: String(redPort), DEMO_LIS_PORT: String(lisPort), DEMO_USER_DIR: userDir, DEMO_SAMPLE_INTERVAL_MS: '1000', DEMO_ANALYZER_TCP_PORT: String(await freePort()) },
    });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child!.once('close', (code) => resolve(code)));
    const pgid = child.pid!;

    const started = Date.now();
    let results = 0;
    while (Date.now() - started < 90000) {
      if (child.exitCode !== null) assert.fail(`npm start exited early:\n${out.slice(-3000)}`);
      if (out.includes(`http://127.0.0.1:${redPort}/`)) {
        try {
          const state = (await (await fetch(`http://127.0.0.1:${lisPort}/api/state`)).json()) as { requests: { results: unknown[] } };
          results = state.requests.results.length;
        } catch {
          results = 0;
        }
        if (results > 0) break;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    assert.ok(results > 0, `no result reached the demo LIS:\n${out.slice(-3000)}`);
    assert.match(out, /Node-RED editor: http:\/\/127\.0\.0\.1:\d+\//);
    assert.match(out, /demo LIS page: +http:\/\/127\.0\.0\.1:\d+\//);

    process.kill(-pgid, 'SIGINT');
    await exited;
    const deadline = Date.now() + 15000;
    while (groupMembers(pgid).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(groupMembers(pgid), [], 'no process of npm start is left');
    await assert.rejects(fetch(`http://127.0.0.1:${redPort}/`), 'Node-RED is gone');
    await assert.rejects(fetch(`http://127.0.0.1:${lisPort}/`), 'the demo LIS is gone');
  });
});
