/**
 * The package as an integrator installs it: `npm pack` of the built package
 * and `npm install <tarball>` into a fresh Node-RED userDir.
 *
 * Packing and installing take 5-7 s, and a dozen test files need the result,
 * so it is done once per suite run: the test runner packs and installs into a
 * directory of its own and names it in LIS_TEST_PACKAGE; a test file run on its
 * own does it once per process instead. Each installPackage() is then a fresh
 * userDir of its own (its flows, credentials and journal apart from any other)
 * whose node_modules is a link to the one installed tree, which Node-RED only
 * reads.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The repository root (this file runs as dist/test/support/installed-package.js). */
const ROOT = join(__dirname, '..', '..', '..');

/** The environment variable the test runner sets to the directory packAndInstall() filled. */
export const PACKAGE_ENV = 'LIS_TEST_PACKAGE';

export interface PackedPackage {
  /** The tarball `npm pack` wrote. */
  tarball: string;
  /** The userDir the tarball was installed into (package.json, package-lock.json, node_modules). */
  installedDir: string;
}

export interface Installation {
  userDir: string;
  remove(): void;
}

/** Packs the built package into `dir` and installs the tarball into `dir`/userDir. */
export function packAndInstall(dir: string): PackedPackage {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const packed = execFileSync(npm, ['pack', '--silent', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n').pop()!;
  const installedDir = join(dir, 'userDir');
  mkdirSync(installedDir);
  writeFileSync(join(installedDir, 'package.json'), JSON.stringify({ name: 'node-red-project', private: true, version: '0.0.1' }));
  execFileSync(npm, ['install', '--no-audit', '--no-fund', '--prefer-offline', join(dir, packed)], { cwd: installedDir, stdio: 'pipe' });
  if (!existsSync(join(installedDir, 'node_modules', 'node-red-node-serialport'))) throw new Error('node-red-node-serialport did not come with the package');
  return { tarball: join(dir, packed), installedDir };
}

/** What packAndInstall() left in `dir`. */
export function packedIn(dir: string): PackedPackage {
  const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
  const installedDir = join(dir, 'userDir');
  if (tarball === undefined || !existsSync(join(installedDir, 'node_modules'))) throw new Error(`${PACKAGE_ENV}=${dir} holds no packed and installed package`);
  return { tarball: join(dir, tarball), installedDir };
}

let own: PackedPackage | undefined;

/** The suite run's packed package, or this process's own, packed and installed on first use (removed at exit). */
export function packedPackage(): PackedPackage {
  const shared = process.env[PACKAGE_ENV];
  if (shared) return packedIn(shared);
  if (own === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'lis-package-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    own = packAndInstall(dir);
  }
  return own;
}

/** A fresh Node-RED userDir with the packed package installed. */
export function installPackage(): Installation {
  const work = mkdtempSync(join(tmpdir(), 'lis-e2e-'));
  const userDir = join(work, 'userDir');
  mkdirSync(userDir);
  linkPackageInto(userDir);
  return { userDir, remove: () => rmSync(work, { recursive: true, force: true }) };
}

/** Makes `userDir` a Node-RED user directory with the packed package installed (its node_modules shared, read-only by use). */
export function linkPackageInto(userDir: string): void {
  const { installedDir } = packedPackage();
  for (const f of ['package.json', 'package-lock.json']) if (existsSync(join(installedDir, f))) copyFileSync(join(installedDir, f), join(userDir, f));
  symlinkSync(join(installedDir, 'node_modules'), join(userDir, 'node_modules'), 'dir');
}
