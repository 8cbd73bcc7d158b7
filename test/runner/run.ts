/**
 * The suite's runner: what `npm test` runs after its build, and what CI's
 * second leg runs on Node 22. Runs the built test files (dist/test/**\/*.test.js)
 * several at once, as jobs (test/runner/groups.ts): a file alone in its own
 * process (`node --test`), or a group of files in one process sharing a
 * browser and a Node-RED. Serial jobs never run beside each other. The package
 * is packed and installed once, before the jobs that need it start.
 *
 *   node dist/test/runner/run.js                 every test file
 *   node dist/test/runner/run.js browser e2e/crash   the files under browser/, and e2e/crash
 *   node dist/test/runner/run.js --jobs 2         at most 2 processes at once (default: cores + 2)
 *   node dist/test/runner/run.js --list           the jobs, without running them
 *
 * A job's output is printed whole when it fails; at the end, the slowest files,
 * each failed test with its message and line, and node:test's closing counts
 * over every job ("# pass N").
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { jobsFor, type Job } from './groups';
import { FAILURES_END, FAILURES_START, LEFT_OPEN, NO_COUNTS, addCounts, tapCounts, tapFailures, topLevelDurations, type TapCounts } from './tap';
import { PACKAGE_ENV } from '../support/installed-package';

const DIST_TEST = join(__dirname, '..');
const ROOT = join(DIST_TEST, '..', '..');
/** Every test fails after 15 minutes: a wait that can never end fails its test instead of holding the run. */
const TEST_TIMEOUT_MS = 900_000;
/** A job still running after this is killed and failed (its hooks, too, must end). */
const JOB_TIMEOUT_MS = 20 * 60_000;

interface Outcome {
  job: Job;
  /** When it started, in ms since the run began. */
  at: number;
  ms: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  counts: TapCounts | undefined;
  output: string;
}

function allTestFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...allTestFiles(path));
    else if (entry.name.endsWith('.test.js')) out.push(relative(DIST_TEST, path).slice(0, -'.test.js'.length));
  }
  return out.sort();
}

function selected(all: string[], wanted: string[]): string[] {
  if (wanted.length === 0) return all;
  const pick = all.filter((f) => wanted.some((w) => f === w.replace(/\.test\.[jt]s$/, '').replace(/^(dist\/)?test\//, '') || f.startsWith(`${w.replace(/\/$/, '')}/`)));
  if (pick.length === 0) throw new Error(`no test file matches ${wanted.join(' ')} (names are relative to test/, e.g. browser or unit/ports)`);
  return pick;
}

function commandFor(job: Job): string[] {
  const paths = job.files.map((f) => join(DIST_TEST, `${f}.test.js`));
  if (!job.oneProcess) return ['--test', `--test-timeout=${TEST_TIMEOUT_MS}`, '--test-reporter=tap', paths[0]!];
  return ['--test-reporter=tap', join(__dirname, 'in-one-process.js'), ...paths];
}

/** The process groups of the jobs running now (each job's process leads its own). */
const groups = new Set<number>();

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is gone already.
  }
}

function runJob(job: Job, env: NodeJS.ProcessEnv, runStarted: number): Promise<Outcome> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, commandFor(job), { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    if (child.pid !== undefined) groups.add(child.pid);
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const limit = setTimeout(() => {
      output += `\n# the runner killed this job after ${JOB_TIMEOUT_MS / 60_000} minutes\n`;
      if (child.pid !== undefined) killGroup(child.pid);
    }, JOB_TIMEOUT_MS);
    child.once('close', (code, signal) => {
      clearTimeout(limit);
      if (child.pid !== undefined) {
        // Whatever the job left running (a Node-RED its after hook never stopped) ends with it.
        killGroup(child.pid);
        groups.delete(child.pid);
      }
      resolve({ job, at: started - runStarted, ms: Date.now() - started, code, signal, counts: tapCounts(output), output });
    });
  });
}

function failed(o: Outcome): boolean {
  return o.code !== 0 || o.counts === undefined || o.counts.fail > 0 || o.counts.cancelled > 0 || o.counts.tests === 0;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function line(o: Outcome): string {
  const c = o.counts;
  const what = c ? `${c.pass}/${c.tests} passed${c.fail ? `, ${c.fail} failed` : ''}${c.cancelled ? `, ${c.cancelled} cancelled` : ''}${c.skipped ? `, ${c.skipped} skipped` : ''}` : 'no counts';
  const how = o.signal ? `, killed by ${o.signal}` : o.code !== 0 ? `, exit ${o.code}` : '';
  return `${failed(o) ? 'FAIL' : 'ok  '} ${o.job.name} (${seconds(o.ms)} from +${seconds(o.at)}; ${what}${how})`;
}

/** Each file's time: a job's own, or for a shared process its suite's duration as the file's. */
function fileTimes(outcomes: Outcome[]): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  for (const o of outcomes) {
    if (!o.job.oneProcess) {
      out.push([o.job.files[0]!, o.ms]);
      continue;
    }
    const durations = topLevelDurations(o.output);
    for (const f of o.job.files) out.push([f, durations.get(`dist/test/${f}.test.js`) ?? 0]);
  }
  return out.sort((a, b) => b[1] - a[1]);
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  let jobsAtOnce = availableParallelism() + 2;
  const wanted: string[] = [];
  let list = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--jobs') jobsAtOnce = Number(args[++i]);
    else if (a === '--list') list = true;
    else wanted.push(a);
  }
  if (!Number.isInteger(jobsAtOnce) || jobsAtOnce < 1) throw new Error('--jobs takes a whole number of processes, 1 or more');
  const jobs = jobsFor(selected(allTestFiles(DIST_TEST), wanted));
  if (list) {
    for (const j of jobs) console.log(`${j.serial ? 'serial ' : ''}${j.needsPackage ? 'package ' : ''}${j.name}${j.files.length > 1 ? `: ${j.files.join(' ')}` : ''}`);
    return 0;
  }
  const files = jobs.reduce((n, j) => n + j.files.length, 0);
  console.log(`# ${files} test files in ${jobs.length} jobs, at most ${jobsAtOnce} at once, on Node ${process.version}`);

  const started = Date.now();
  const env: NodeJS.ProcessEnv = { ...process.env };
  let packageDir: string | undefined;
  let packageReady: Promise<void> = Promise.resolve();
  let packageError: Error | undefined;
  if (jobs.some((j) => j.needsPackage) && !process.env[PACKAGE_ENV]) {
    packageDir = mkdtempSync(join(tmpdir(), 'lis-test-package-'));
    env[PACKAGE_ENV] = packageDir;
    // In a process of its own, so the first jobs start and their output is read while npm packs.
    const t0 = Date.now();
    packageReady = packInChild(packageDir).then(
      () => console.log(`# packed and installed the package once for this run (${seconds(Date.now() - t0)})`),
      (err: unknown) => {
        packageError = err as Error;
        console.log(`# packing or installing the package failed: ${packageError.message}`);
      },
    );
  }
  let packaged = packageDir === undefined;
  void packageReady.then(() => (packaged = true));

  const waiting = [...jobs];
  const running = new Set<Job>();
  const outcomes: Outcome[] = [];
  await new Promise<void>((done) => {
    const next = (): void => {
      while (running.size < jobsAtOnce) {
        const serialRunning = [...running].some((r) => r.serial);
        const runnable = (j: Job) => (!j.needsPackage || packaged) && !(j.serial && serialRunning);
        // The serial jobs together are one long lane: start the next of them as soon as it may.
        const serialNext = serialRunning ? -1 : waiting.findIndex((j) => j.serial && runnable(j));
        // While the lane waits (for the package), the last free slot is kept for it.
        const keepForSerial = !serialRunning && serialNext < 0 && waiting.some((j) => j.serial) && running.size === jobsAtOnce - 1;
        const i = serialNext >= 0 ? serialNext : keepForSerial ? -1 : waiting.findIndex(runnable);
        if (i < 0) break;
        const job = waiting.splice(i, 1)[0]!;
        running.add(job);
        const start = packageError && job.needsPackage ? Promise.resolve(packageFailure(job, packageError)) : runJob(job, env, started);
        void start.then((o) => {
          running.delete(job);
          outcomes.push(o);
          console.log(line(o));
          if (failed(o)) console.log(`${'-'.repeat(30)} ${o.job.name}: its output ${'-'.repeat(30)}\n${o.output.trimEnd()}\n${'-'.repeat(78)}`);
          next();
        });
      }
      if (waiting.length === 0 && running.size === 0) done();
    };
    next();
    // Jobs that waited for the package may start once it is there.
    void packageReady.then(next);
  });
  if (packageDir) rmSync(packageDir, { recursive: true, force: true });

  const total = outcomes.reduce((sum, o) => addCounts(sum, o.counts ?? NO_COUNTS), NO_COUNTS);
  const bad = outcomes.filter(failed);
  console.log('\n# the slowest files (s):');
  for (const [f, ms] of fileTimes(outcomes).slice(0, 10)) console.log(`#   ${(ms / 1000).toFixed(1).padStart(6)}  ${f}`);
  // A process that would not end by itself after its files: named, so the handle a test leaks is found.
  for (const o of outcomes) {
    const left = o.output.split('\n').find((l) => l.startsWith(LEFT_OPEN));
    if (left !== undefined) console.log(`# ${o.job.name}: ${left.slice(2)} (its counts were closed by the process itself)`);
  }
  console.log(`# ${outcomes.length} jobs in ${seconds(Date.now() - started)}${bad.length ? `; failed: ${bad.map((o) => o.job.name).join(', ')}` : ''}`);
  printFailures(bad);
  for (const key of ['tests', 'pass', 'fail', 'cancelled', 'skipped', 'todo'] as const) console.log(`# ${key} ${total[key]}`);
  console.log(`${total.pass} passed, ${total.fail + total.cancelled} failed${total.skipped ? `, ${total.skipped} skipped` : ''}`);
  return bad.length > 0 || total.tests === 0 ? 1 : 0;
}

/**
 * Each failed test once more at the end, with its message and place, between two
 * marker lines: a log cut to its head and tail (CI's record of a run) still says
 * what failed and why. .ci/run prints these blocks again after its timings.
 */
function printFailures(bad: Outcome[]): void {
  if (bad.length === 0) return;
  console.log(FAILURES_START);
  for (const o of bad) {
    const found = tapFailures(o.output);
    if (found.length === 0) console.log(`# ${o.job.name}: ${o.signal ? `killed by ${o.signal}` : `exit ${o.code}`}, no failed test in its output (see it above)`);
    for (const f of found) {
      console.log(`# ${f.path.join(' › ')}`);
      for (const e of f.error) console.log(`#     ${e}`);
      if (f.at) console.log(`#     at ${f.at}`);
    }
  }
  console.log(FAILURES_END);
}

function packInChild(dir: string): Promise<void> {
  const script = `require(${JSON.stringify(join(DIST_TEST, 'support', 'installed-package.js'))}).packAndInstall(${JSON.stringify(dir)})`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}: ${output.trim().slice(-2000)}`))));
  });
}

function packageFailure(job: Job, err: Error): Outcome {
  return { job, at: 0, ms: 0, code: 1, signal: null, counts: undefined, output: `not run: the package could not be packed and installed: ${err.message}` };
}

// A job's processes (its Node-REDs, simulators, socat) are in its own process group: Ctrl-C ends them all.
process.once('SIGINT', () => {
  for (const pid of groups) killGroup(pid);
  process.exit(130);
});
main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`test runner: ${(err as Error).message}`);
    process.exit(2);
  },
);
