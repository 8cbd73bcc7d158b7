// After tsc: put each node's editor HTML, message catalogs and help beside its
// built .js, and the icons in dist/nodes/icons, where Node-RED's loader looks.
import { cpSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'nodes');
mkdirSync(out, { recursive: true });

for (const file of readdirSync(join(root, 'nodes'))) {
  if (file.endsWith('.html')) cpSync(join(root, 'nodes', file), join(out, file));
}
if (existsSync(join(root, 'nodes', 'locales'))) cpSync(join(root, 'nodes', 'locales'), join(out, 'locales'), { recursive: true });
if (existsSync(join(root, 'icons'))) cpSync(join(root, 'icons'), join(out, 'icons'), { recursive: true });
