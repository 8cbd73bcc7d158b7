/** `npm run examples`: (re)writes examples/*.json from demo/examples.ts. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLES, buildDemoFlow, buildExample } from './examples';

const dir = join(__dirname, '..', '..', 'examples');
mkdirSync(dir, { recursive: true });
for (const spec of EXAMPLES) {
  writeFileSync(join(dir, `${spec.file}.json`), `${JSON.stringify(buildExample(spec), null, 4)}\n`);
  console.log(`examples/${spec.file}.json`);
}

// npm start runs the demo flow: the generic example and the Mindray HL7 one, kept in flows/ beside the demo LIS's catalog.
writeFileSync(join(dir, '..', 'flows', 'demo-flow.json'), `${JSON.stringify(buildDemoFlow(), null, 4)}\n`);
console.log('flows/demo-flow.json');
