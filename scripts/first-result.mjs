// How long an integrator waits for the demo: from `npm start` in a fresh clone
// (dependencies installed, nothing built) to the first result the demo LIS
// accepts, then the same for a second start of the same clone.
//
//   node scripts/first-result.mjs [starts]     (default 2; the clone is made from HEAD)
//
// Prints one line per start and removes the clone. Ports are free ones, so a
// running demo or test does not disturb it.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const starts = Number(process.argv[2] ?? 2);
const LIMIT_MS = 120_000;

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function resultsAccepted(lisPort) {
  try {
    const res = await fetch(`http://127.0.0.1:${lisPort}/api/state`);
    const state = await res.json();
    return state.requests.results.filter((r) => r.status >= 200 && r.status < 300).length;
  } catch {
    return 0;
  }
}

async function oneStart(clone, n) {
  const [nodeRedPort, lisPort, pushPort, hl7Port, hl7PushPort, tcpPort] = await Promise.all([1, 2, 3, 4, 5, 6].map(() => freePort()));
  const env = {
    ...process.env,
    NODE_RED_PORT: String(nodeRedPort),
    DEMO_LIS_PORT: String(lisPort),
    DEMO_PUSH_PORT: String(pushPort),
    DEMO_HL7_TCP_PORT: String(hl7Port),
    DEMO_HL7_PUSH_PORT: String(hl7PushPort),
    DEMO_ANALYZER_TCP_PORT: String(tcpPort),
  };
  const t0 = performance.now();
  const child = spawn('npm', ['start'], { cwd: clone, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  let elapsed;
  while (performance.now() - t0 < LIMIT_MS && child.exitCode === null) {
    if ((await resultsAccepted(lisPort)) > 0) {
      elapsed = performance.now() - t0;
      break;
    }
    await sleep(50);
  }
  const exited = new Promise((r) => child.once('close', r));
  try {
    process.kill(-child.pid, 'SIGINT');
  } catch {
    // already gone
  }
  await exited;
  if (elapsed === undefined) {
    process.stderr.write(output.slice(-3000));
    throw new Error(`start ${n}: no result at the demo LIS within ${LIMIT_MS / 1000} s`);
  }
  const built = /building \(npm run build\)/.test(output);
  console.log(`start ${n}: first result at the demo LIS after ${(elapsed / 1000).toFixed(1)} s${built ? ' (it built first)' : ' (nothing to build)'}`);
}

const work = mkdtempSync(join(tmpdir(), 'lis-first-result-'));
try {
  const clone = join(work, 'clone');
  execFileSync('git', ['clone', '--quiet', '--no-hardlinks', ROOT, clone]);
  console.log(`fresh clone of ${execFileSync('git', ['-C', clone, 'log', '-1', '--format=%h'], { encoding: 'utf8' }).trim()}: npm ci (not timed)`);
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--silent'], { cwd: clone, stdio: 'inherit' });
  for (let n = 1; n <= starts; n++) await oneStart(clone, n);
} finally {
  rmSync(work, { recursive: true, force: true });
}
