/**
 * scripts/setup.cjs, what `npm test` and `npm start` run first on a fresh clone:
 * run in a scratch copy of the repository's layout with a PATH that holds only
 * what each case gives it (a node, a stand-in npm, the tools present).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');

let work: string;

before(() => {
  work = mkdtempSync(join(tmpdir(), 'lis-setup-'));
});

after(() => {
  rmSync(work, { recursive: true, force: true });
});

/** A clone's root with scripts/setup.cjs and a lock file, and a bin folder that becomes the whole PATH. */
function scratch(name: string, tools: string[]): { root: string; bin: string } {
  const root = join(work, name);
  const bin = join(root, 'bin');
  mkdirSync(join(root, 'scripts'), { recursive: true });
  mkdirSync(bin);
  copyFileSync(join(ROOT, 'scripts', 'setup.cjs'), join(root, 'scripts', 'setup.cjs'));
  writeFileSync(join(root, 'package-lock.json'), '{}');
  symlinkSync(process.execPath, join(bin, 'node'));
  // A stand-in npm: records its arguments and installs as npm ci would, leaving node_modules/.package-lock.json.
  const npm = join(bin, 'npm');
  writeFileSync(npm, `#!${process.execPath}\nconst fs = require('fs');\nfs.writeFileSync(${JSON.stringify(join(root, 'npm-args'))}, process.argv.slice(2).join(' '));\nfs.mkdirSync('node_modules', { recursive: true });\nfs.writeFileSync('node_modules/.package-lock.json', '{}');\n`);
  chmodSync(npm, 0o755);
  for (const tool of tools) {
    writeFileSync(join(bin, tool), '#!/bin/sh\nexit 0\n');
    chmodSync(join(bin, tool), 0o755);
  }
  return { root, bin };
}

function setup(root: string, bin: string, command: string) {
  const env: NodeJS.ProcessEnv = { PATH: bin, HOME: root };
  const result = spawnSync(process.execPath, [join(root, 'scripts', 'setup.cjs'), command], { cwd: root, env, encoding: 'utf8' });
  return { status: result.status, out: result.stdout + result.stderr };
}

describe('npm test and npm start set themselves up (scripts/setup.cjs)', () => {
  it('stops npm test before installing anything when a required tool is missing and cannot be installed, naming the one command', () => {
    const { root, bin } = scratch('no-tools', ['openssl']);
    const { status, out } = setup(root, bin, 'test');
    assert.equal(status, 1);
    assert.match(out, /npm test needs chromium-headless-shell, socat/);
    assert.match(out, /sudo apt-get install -y chromium-headless-shell socat\b/);
    assert.equal(existsSync(join(root, 'npm-args')), false, 'npm ci did not run');
  });

  it('runs npm ci for npm test when node_modules is missing and the tools are there', () => {
    const { root, bin } = scratch('fresh', ['chromium-headless-shell', 'socat', 'openssl']);
    const { status, out } = setup(root, bin, 'test');
    assert.equal(status, 0, out);
    assert.match(out, /node_modules is missing: npm ci/);
    assert.equal(readFileSync(join(root, 'npm-args'), 'utf8'), 'ci --no-audit --no-fund');
    rmSync(join(root, 'npm-args'));
    // Installed now: a second run does nothing.
    assert.equal(setup(root, bin, 'test').status, 0);
    assert.equal(existsSync(join(root, 'npm-args')), false, 'no second npm ci');
  });

  it('installs again when package-lock.json is newer than the install', () => {
    const { root, bin } = scratch('stale', ['chromium', 'socat', 'openssl']);
    assert.equal(setup(root, bin, 'test').status, 0);
    rmSync(join(root, 'npm-args'));
    const later = new Date(Date.now() + 5000);
    writeFileSync(join(root, 'package-lock.json'), '{ "changed": true }');
    spawnSync('touch', ['-d', later.toISOString(), join(root, 'package-lock.json')]);
    const { status, out } = setup(root, bin, 'test');
    assert.equal(status, 0, out);
    assert.match(out, /package-lock.json changed since the last install: npm ci/);
  });

  it('lets npm start go on without socat (the demo runs over TCP) after saying how to add it', () => {
    const { root, bin } = scratch('start', []);
    const { status, out } = setup(root, bin, 'start');
    assert.equal(status, 0, out);
    assert.match(out, /socat not found \(sudo apt-get install -y socat to add it\); going on without it/);
    assert.equal(readFileSync(join(root, 'npm-args'), 'utf8'), 'ci --no-audit --no-fund');
  });
});
