'use strict';
/**
 * The set-up `npm test` and `npm start` do for themselves on a fresh clone,
 * before anything else runs: the npm dependencies (npm ci when node_modules is
 * missing or older than package-lock.json), then the system tools the command
 * needs. A missing tool is installed the way .ci/run does it where that can
 * work (root, or sudo without a password, and apt-get); otherwise the command
 * stops here with the one line to run, rather than failing later in a build or
 * in the middle of the tests.
 *
 *   node scripts/setup.cjs test    chromium-headless-shell (or chromium), socat and openssl are required
 *   node scripts/setup.cjs start   socat is wanted (the demo's serial line); without it the demo runs over TCP
 *
 * Plain CommonJS with no dependency: it runs before node_modules exists.
 */
const { spawnSync } = require('node:child_process');
const { existsSync, statSync } = require('node:fs');
const { delimiter, join } = require('node:path');

const ROOT = join(__dirname, '..');

/** What each command needs: tools it cannot run without, and tools it uses when present. */
const NEEDS = {
  test: { required: ['chromium-headless-shell', 'socat', 'openssl'], wanted: [] },
  start: { required: [], wanted: ['socat'] },
};

/** The Debian package that brings each tool. */
const PACKAGE = { 'chromium-headless-shell': 'chromium-headless-shell', socat: 'socat', openssl: 'openssl' };

function say(text) {
  process.stdout.write(`[setup] ${text}\n`);
}

function onPath(tool) {
  // The browser tests take the full browser where the headless shell is missing (test/support/browser.ts).
  if (tool === 'chromium-headless-shell') return process.env.CHROMIUM_PATH ? existsSync(process.env.CHROMIUM_PATH) : onPath('chromium') || onPathOnly(tool);
  return onPathOnly(tool);
}

function onPathOnly(tool) {
  return (process.env.PATH || '').split(delimiter).some((dir) => dir !== '' && existsSync(join(dir, tool)));
}

function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/**
 * Why `npm ci` must run, or undefined. npm writes node_modules/.package-lock.json
 * at every install, so a lock file newer than it means the dependencies changed.
 */
function whyInstall() {
  const installed = mtime(join(ROOT, 'node_modules', '.package-lock.json'));
  if (installed === undefined) return 'node_modules is missing';
  const lock = mtime(join(ROOT, 'package-lock.json'));
  if (lock !== undefined && lock > installed) return 'package-lock.json changed since the last install';
  return undefined;
}

function run(command, args) {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit' });
  return result.status === 0;
}

function npm(args) {
  // Under npm, npm_execpath is npm's own script: use it with this Node rather than whatever `npm` the PATH has.
  const cli = process.env.npm_execpath;
  return cli && /\.c?js$/.test(cli) ? run(process.execPath, [cli, ...args]) : run('npm', args);
}

/** apt-get, as root or through sudo without a password; undefined where neither can work. */
function aptRunner() {
  if (process.platform !== 'linux' || !onPath('apt-get')) return undefined;
  if (typeof process.getuid === 'function' && process.getuid() === 0) return [];
  if (onPath('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0) return ['sudo', '-n'];
  return undefined;
}

function aptInstall(prefix, packages) {
  say(`installing ${packages.join(', ')} with apt-get`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = (args) => {
    const argv = [...prefix, 'apt-get', ...args];
    return spawnSync(argv[0], argv.slice(1), { stdio: 'inherit', env }).status === 0;
  };
  return apt(['update', '-qq']) && apt(['install', '-y', '-qq', ...packages]);
}

function ensureTools(command) {
  const { required, wanted } = NEEDS[command];
  const missing = [...required, ...wanted].filter((tool) => !onPath(tool));
  if (missing.length === 0) return true;
  const packages = missing.map((tool) => PACKAGE[tool]);
  const apt = aptRunner();
  if (apt !== undefined && aptInstall(apt, packages)) {
    const still = missing.filter((tool) => !onPath(tool));
    if (still.length === 0) return true;
    missing.splice(0, missing.length, ...still);
  }
  const needed = missing.filter((tool) => required.includes(tool));
  const line = `sudo apt-get install -y ${missing.map((tool) => PACKAGE[tool]).join(' ')}`;
  if (needed.length > 0) {
    say(`npm ${command} needs ${needed.join(', ')}, which this machine does not have. Install it and run npm ${command} again:`);
    say(`  ${line}    (Debian or Ubuntu; on another system, its package of the same name${needed.includes('chromium-headless-shell') ? ', or set CHROMIUM_PATH to a Chromium binary' : ''})`);
    return false;
  }
  say(`${missing.join(', ')} not found (${line} to add it); going on without it`);
  return true;
}

function setup(command) {
  if (!NEEDS[command]) throw new Error(`setup: unknown command ${command} (test or start)`);
  // Tools first: a tool that cannot be had stops the command before minutes of npm ci.
  if (!ensureTools(command)) return false;
  const why = whyInstall();
  if (why === undefined) return true;
  say(`${why}: npm ci`);
  if (npm(['ci', '--no-audit', '--no-fund'])) return true;
  say('npm ci failed (see above): nothing else was run');
  return false;
}

module.exports = { setup, whyInstall };

if (require.main === module) process.exit(setup(process.argv[2] || 'test') ? 0 : 1);
