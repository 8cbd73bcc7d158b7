/**
 * `npm start` builds only when something the demo runs changed since the
 * last build (demo/launch.cjs, whyBuild). Fragments of `_include` folders
 * have no build output of their own: they are expanded into the dialogs and
 * help texts, and were reported missing at every start (issue 22).
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const { whyBuild } = require(join(ROOT, 'demo', 'launch.cjs')) as { whyBuild: (root?: string) => string | undefined };

const temps: string[] = [];
after(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));

const SOURCE_TIME = new Date('2026-01-01T10:00:00Z');
const BUILD_TIME = new Date('2026-01-01T10:05:00Z');
const LATER = new Date('2026-01-01T10:10:00Z');

function write(root: string, file: string, at: Date): void {
  const path = join(root, file);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, file);
  utimesSync(path, at, at);
}

/** A checkout laid out as the package's, built as scripts/build.mjs builds it (no output for an _include fragment). */
function builtCheckout(): string {
  const root = mkdtempSync(join(tmpdir(), 'lis-why-build-'));
  temps.push(root);
  const sources = [
    'lib/a.ts',
    'nodes/astm-link.ts',
    'nodes/astm-link.html',
    'nodes/_include/link-rows.html',
    'nodes/editor/dialect-picker.js',
    'nodes/locales/en-US/astm-link.html',
    'nodes/locales/en-US/astm-link.json',
    'nodes/locales/en-US/_include/catch-rebuild.md',
    'demo/start.ts',
    'icons/link.svg',
    'tsconfig.json',
    'package.json',
    'scripts/build.mjs',
  ];
  for (const f of sources) write(root, f, SOURCE_TIME);
  const outputs = [
    'dist/lib/a.js',
    'dist/nodes/astm-link.js',
    'dist/nodes/astm-link.html',
    'dist/nodes/editor/dialect-picker.js',
    'dist/nodes/locales/en-US/astm-link.html',
    'dist/nodes/locales/en-US/astm-link.json',
    'dist/demo/start.js',
    'dist/nodes/icons/link.svg',
  ];
  for (const f of outputs) write(root, f, BUILD_TIME);
  return root;
}

describe('npm start: whether to build (demo/launch.cjs whyBuild)', () => {
  it('finds nothing to build right after a build, though _include fragments have no output of their own', () => {
    assert.equal(whyBuild(builtCheckout()), undefined);
  });

  it('this checkout, as built before its tests ran, has nothing to build', () => {
    assert.equal(whyBuild(ROOT), undefined);
  });

  it('builds when a help fragment changed after the help texts it is expanded into', () => {
    const root = builtCheckout();
    write(root, 'nodes/locales/en-US/_include/catch-rebuild.md', LATER);
    assert.equal(whyBuild(root), `${join('nodes', 'locales', 'en-US', '_include', 'catch-rebuild.md')} changed since the last build`);
  });

  it('builds when a dialog fragment or a shared editor script changed', () => {
    const root = builtCheckout();
    write(root, 'nodes/_include/link-rows.html', LATER);
    assert.match(String(whyBuild(root)), /link-rows\.html changed/);
    const other = builtCheckout();
    write(other, 'nodes/editor/dialect-picker.js', LATER);
    assert.match(String(whyBuild(other)), /dialect-picker\.js changed/);
  });

  it('builds when an output is missing, or a help text is older than a fragment of its language', () => {
    const root = builtCheckout();
    rmSync(join(root, 'dist', 'nodes', 'editor', 'dialect-picker.js'));
    assert.match(String(whyBuild(root)), /dialect-picker\.js is missing/);
    const other = builtCheckout();
    // Built before the fragment was last saved (the help text itself older still): the fragment is not in it.
    write(other, 'dist/nodes/locales/en-US/astm-link.html', new Date(SOURCE_TIME.getTime() - 30_000));
    write(other, 'nodes/locales/en-US/astm-link.html', new Date(SOURCE_TIME.getTime() - 60_000));
    assert.match(String(whyBuild(other)), /catch-rebuild\.md changed/);
  });
});
