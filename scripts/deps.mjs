// `npm run deps`: the layer rules of .dependency-cruiser.cjs over the built
// tree. dependency-cruiser cannot read TypeScript 7's sources (it needs the
// TypeScript 5 API), and the built JS holds every import that runs. Only the
// modules whose source still exists are cruised, so a stale file left in dist/
// by a moved module can neither hide a violation nor invent one.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function sources(dir) {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

const built = ['lib', 'nodes'].flatMap(sources).map((ts) => join('dist', ts.replace(/\.ts$/, '.js')));
const cli = join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const run = spawnSync(process.execPath, [cli, '--config', '.dependency-cruiser.cjs', '--output-type', 'err', ...process.argv.slice(2), ...built], { cwd: root, stdio: 'inherit' });
process.exit(run.status ?? 1);
