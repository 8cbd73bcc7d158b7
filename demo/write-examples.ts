/** `npm run examples`: (re)writes examples/*.json from demo/examples.ts. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLES, buildExample } from './examples';

const dir = join(__dirname, '..', '..', 'examples');
mkdirSync(dir, { recursive: true });
for (const spec of EXAMPLES) {
  writeFileSync(join(dir, `${spec.file}.json`), `${JSON.stringify(buildExample(spec), null, 4)}\n`);
  console.log(`examples/${spec.file}.json`);
}
