'use strict';
/**
 * `npm start`: builds only when a source the demo runs is newer than what was
 * built from it (a full `tsc` takes most of a start), then runs the demo
 * (dist/demo/start.js) in this same process.
 *
 * package.json starts this with `exec node ...` so that npm's shell hands
 * over to it: npm forwards SIGINT and SIGTERM to its child, and a shell in
 * between would keep SIGINT to itself and die of SIGTERM, leaving the demo
 * running without a parent.
 *
 * Plain JavaScript on purpose: it has to run in a clone that was never built.
 */
const { spawn } = require('node:child_process');
const { existsSync, readdirSync, statSync } = require('node:fs');
const { join, relative } = require('node:path');
const { setup } = require('../scripts/setup.cjs');

const ROOT = join(__dirname, '..');
const DIST = join(ROOT, 'dist');

/** Every file below `dir` (relative to `root`), or none when it does not exist. */
function filesBelow(root, dir) {
  const abs = join(root, dir);
  if (!existsSync(abs)) return [];
  return readdirSync(abs, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath ?? e.path, e.name)));
}

function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/**
 * Why a build is needed (a source whose build output is missing or older
 * than it), or undefined when everything the demo runs is built. Sources the demo does not
 * run (test/, bench/) are left to `npm test` and `npm run bench`, which build.
 * `root`: the checkout (a test's copy of one).
 */
function whyBuild(root = ROOT) {
  const dist = join(root, 'dist');
  const files = (dir) => filesBelow(root, dir);
  /** [source, the outputs built from it (the oldest counts), or undefined: every output]. */
  const pairs = [];
  for (const dir of ['lib', 'nodes', 'demo']) {
    for (const file of files(dir)) {
      if (file.endsWith('.ts') && !file.endsWith('.d.ts')) pairs.push([file, [join(dist, file.replace(/\.ts$/, '.js'))]]);
    }
  }
  // What scripts/build.mjs copies beside the compiled nodes. A fragment of _include has no output of its own
  // (it does not ship): it is expanded into the dialogs (nodes/_include) or the help texts of its language
  // (nodes/locales/<lang>/_include), so it is compared with those.
  const dialogs = [];
  const helpOf = new Map();
  const fragments = [];
  for (const file of files('nodes')) {
    const parts = file.split(/[\\/]/);
    if (parts.length === 2 && file.endsWith('.html')) {
      dialogs.push(join(dist, file));
      pairs.push([file, [join(dist, file)]]);
    } else if (parts[1] === '_include') fragments.push([file, 'dialogs']);
    else if (parts[1] === 'locales' && parts[3] === '_include') fragments.push([file, parts[2]]);
    else if (parts[1] === 'locales' || parts[1] === 'editor') {
      pairs.push([file, [join(dist, file)]]);
      if (parts[1] === 'locales' && parts.length === 4 && file.endsWith('.html')) {
        if (!helpOf.has(parts[2])) helpOf.set(parts[2], []);
        helpOf.get(parts[2]).push(join(dist, file));
      }
    }
  }
  for (const [file, into] of fragments) pairs.push([file, into === 'dialogs' ? dialogs : (helpOf.get(into) ?? [])]);
  for (const file of files('icons')) pairs.push([file, [join(dist, 'nodes', file)]]);
  const timeOf = (outs) => {
    const times = outs.map(mtime);
    return times.length === 0 || times.some((t) => t === undefined) ? undefined : Math.min(...times);
  };
  // A change to how things are built makes every output suspect: compare with the oldest one.
  const oldest = timeOf(pairs.flatMap(([, outs]) => outs));
  for (const file of ['tsconfig.json', 'package.json', join('scripts', 'build.mjs')]) pairs.push([file, undefined]);
  for (const [source, outs] of pairs) {
    const sourceTime = mtime(join(root, source));
    if (sourceTime === undefined) continue;
    const outTime = outs === undefined ? oldest : timeOf(outs);
    if (outTime === undefined && !existsSync(dist)) return 'this clone is not built yet';
    if (outTime === undefined && outs !== undefined) {
      const missing = outs.find((o) => mtime(o) === undefined);
      return missing === undefined ? `${source} is built into nothing` : `${relative(root, missing)} is missing`;
    }
    if (outTime === undefined || outTime < sourceTime) return `${source} changed since the last build`;
  }
  return undefined;
}

/** `npm run build` in its own process group, so a signal can stop all of it (npm, its shell, tsc). */
function build() {
  const npm = process.env.npm_execpath;
  const child = npm
    ? spawn(process.execPath, [npm, 'run', 'build'], { cwd: ROOT, stdio: 'inherit', detached: true })
    : spawn('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit', detached: true });
  let signalled;
  const onSignal = (signal) => {
    signalled = signal;
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  };
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const s of signals) process.on(s, onSignal);
  return new Promise((resolve) => {
    child.once('error', (err) => {
      process.stderr.write(`[demo] cannot run npm run build: ${err.message}\n`);
      resolve({ ok: false });
    });
    child.once('close', (code) => {
      for (const s of signals) process.off(s, onSignal);
      resolve({ ok: code === 0 && signalled === undefined, signalled });
    });
  });
}

async function launch() {
  // A fresh clone: npm ci, and socat for the demo's serial line where it can be installed.
  if (!setup('start')) return 1;
  const why = whyBuild();
  if (why !== undefined) {
    process.stdout.write(`[demo] ${why}: building (npm run build)\n`);
    const { ok, signalled } = await build();
    if (signalled) return 0;
    if (!ok) {
      process.stderr.write('[demo] npm start failed: the build failed (see above); nothing was started\n');
      return 1;
    }
  }
  return require(join(DIST, 'demo', 'start.js')).main(process.env);
}

module.exports = { whyBuild };

// Required by a test (for whyBuild), it does not start anything.
if (require.main === module) {
  launch().then(
    (code) => process.exit(code),
    (err) => {
      process.stderr.write(`[demo] npm start failed: ${err && err.stack ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}
