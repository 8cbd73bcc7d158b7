/**
 * The layers hold (.dependency-cruiser.cjs, docs/architecture.md): the core
 * imports no protocol, no protocol imports another, nothing but the demo,
 * tests and bench imports the simulators, lib/ never imports Node-RED, no
 * module imports itself through others, and nodes/ imports a lib module only
 * through its index. The rules run over the built tree
 * as `npm run deps` does, and bite on a small tree built to break each one. dependency-cruiser sees the built JS, where type-only
 * imports are erased, so the sources' imports (type-only ones included) are
 * also read here: the core imports no protocol (nor the simulators), a
 * protocol no other protocol, and nodes/ reaches lib/ only through each
 * module's index.
 */
import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { repoRoot } from '../support/fixtures';

const ROOT = repoRoot();
const CRUISE = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = posix.join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/**
 * Whether an import written in a nodes/ file goes through a lib module's index
 * (lib/<module> or lib/protocols/<protocol>, or the single-file lib/errors):
 * the source form of the rule nodes-reach-lib-through-indexes, which the
 * cruise of the built JS cannot see for type-only imports. Imports outside
 * lib/ are none of its business.
 */
function throughIndex(file: string, specifier: string): boolean {
  const target = posix.normalize(posix.join(posix.dirname(file), specifier)).replace(/\/index$/, '');
  if (!target.startsWith('lib/')) return true;
  return /^lib\/(protocols\/[^/]+|(?!protocols$)[^/]+)$/.test(target);
}

/** The layer a lib/ file belongs to: a protocol's name, 'sim', or 'core'. */
function layerOf(file: string): string {
  const m = /^lib\/(?:protocols\/([^/]+)|(sim))\//.exec(file);
  return m?.[1] ?? m?.[2] ?? 'core';
}

function tree(t: TestContext, files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'layers-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  copyFileSync(join(ROOT, '.dependency-cruiser.cjs'), join(dir, '.dependency-cruiser.cjs'));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return dir;
}

describe('the layers (dependency-cruiser)', () => {
  it('the built lib/ and nodes/ break no rule, and every module is cruised', () => {
    const run = spawnSync(process.execPath, [join(ROOT, 'scripts', 'deps.mjs')], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stdout + run.stderr);
    const cruised = /no dependency violations found \((\d+) modules/.exec(run.stdout);
    assert.ok(cruised, run.stdout);
    // Far fewer would mean the cruise read nothing (as when it cannot parse what it is given) and so proved nothing.
    const ours = sources('lib').length + sources('nodes').length;
    assert.ok(Number(cruised[1]) >= ours, `${cruised[1]} modules cruised, ${ours} sources`);
  });

  it('fails a core module importing a protocol, a protocol importing another, the core importing a simulator, lib/ importing node-red, and a circle', (t) => {
    const dir = tree(t, {
      'dist/lib/link/a.js': "require('../protocols/astm/b.js');\n",
      'dist/lib/protocols/astm/b.js': 'module.exports = {};\n',
      'dist/lib/protocols/hl7/c.js': "require('../astm/b.js');\n",
      'dist/lib/health/x.js': "require('./y.js');\n",
      'dist/lib/health/y.js': "require('./x.js');\n",
      'dist/lib/trace/n.js': "require('node-red');\n",
      'dist/lib/mapping/s.js': "require('../sim/t.js');\n",
      'dist/lib/sim/t.js': "require('../protocols/astm/b.js');\n",
      'node_modules/node-red/package.json': '{"name":"node-red","main":"index.js"}\n',
      'node_modules/node-red/index.js': '\n',
    });
    const run = spawnSync(process.execPath, [CRUISE, '--config', '.dependency-cruiser.cjs', '--output-type', 'err', 'dist/lib'], { cwd: dir, encoding: 'utf8' });
    assert.notEqual(run.status, 0, run.stdout);
    for (const rule of ['core-imports-no-protocol', 'protocol-imports-no-other-protocol', 'nothing-runs-the-simulators', 'lib-imports-no-node-red', 'no-circular']) assert.match(run.stdout, new RegExp(`error ${rule}:`), rule);
    // lib/sim may import a protocol (it plays them): that line is no violation.
    assert.match(run.stdout, /5 dependency violations/);
  });

  it('no source in lib/ imports a protocol (or the simulators) it may not, type-only imports included', () => {
    const crossings: string[] = [];
    for (const file of sources('lib')) {
      const from = layerOf(file);
      if (from === 'sim') continue;
      for (const m of readFileSync(join(ROOT, file), 'utf8').matchAll(/\bfrom\s+['"](\.{1,2}\/[^'"]+)['"]/g)) {
        const target = posix.normalize(posix.join(posix.dirname(file), m[1]!));
        const to = layerOf(target + '/');
        if (to !== 'core' && to !== from) crossings.push(`${file} (${from}) -> ${target} (${to})`);
      }
    }
    assert.deepEqual(crossings, []);
  });

  it('fails nodes/ reaching into a lib module past its index, type-only imports included (built and source)', (t) => {
    const dir = tree(t, {
      'dist/nodes/n.js': [
        "require('../lib/lis');",
        "require('../lib/errors.js');",
        "require('../lib/protocols/astm');",
        "require('../lib/lis/client.js');",
        "require('../lib/protocols/astm/dialects');",
        "require('../lib/protocols/astm/b.js');",
      ].join('\n') + '\n',
      'dist/lib/lis/index.js': "require('./client.js');\n",
      'dist/lib/lis/client.js': 'module.exports = {};\n',
      'dist/lib/errors.js': 'module.exports = {};\n',
      'dist/lib/protocols/astm/index.js': "require('./b.js');\n",
      'dist/lib/protocols/astm/b.js': 'module.exports = {};\n',
      'dist/lib/protocols/astm/dialects/index.js': 'module.exports = {};\n',
    });
    const run = spawnSync(process.execPath, [CRUISE, '--config', '.dependency-cruiser.cjs', '--output-type', 'err', 'dist/nodes', 'dist/lib'], { cwd: dir, encoding: 'utf8' });
    assert.notEqual(run.status, 0, run.stdout);
    const broken = [...run.stdout.matchAll(/error nodes-reach-lib-through-indexes: dist\/nodes\/n\.js → (\S+)/g)].map((m) => m[1]).sort();
    assert.deepEqual(broken, ['dist/lib/lis/client.js', 'dist/lib/protocols/astm/b.js', 'dist/lib/protocols/astm/dialects/index.js'], run.stdout);
    assert.match(run.stdout, /3 dependency violations/);
    // The same judgement on the sources' specifiers, where type-only imports still stand.
    const judged = ['../lib/lis', '../lib/lis/index', '../lib/errors', '../lib/protocols/hl7', 'node-red', './shared/status', '../lib/lis/client', '../lib/protocols/astm/dialects', '../lib/protocols', '../lib/trace/wire-splitter'];
    assert.deepEqual(judged.filter((s) => !throughIndex('nodes/x.ts', s)), ['../lib/lis/client', '../lib/protocols/astm/dialects', '../lib/protocols', '../lib/trace/wire-splitter']);
    assert.equal(throughIndex('nodes/shared/x.ts', '../../lib/health/alarms'), false);
    assert.equal(throughIndex('nodes/shared/x.ts', '../../lib/health'), true);
  });

  it('every import in nodes/ reaches lib/ through a module\'s index, type-only imports included', () => {
    const inside: string[] = [];
    for (const file of sources('nodes')) {
      for (const m of readFileSync(join(ROOT, file), 'utf8').matchAll(/(?:\bfrom\s+|\bimport\s*\(?\s*|\brequire\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) {
        if (!throughIndex(file, m[1]!)) inside.push(`${file} -> ${m[1]}`);
      }
    }
    assert.deepEqual(inside, []);
  });
});
