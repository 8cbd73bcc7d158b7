/**
 * `npm run examples`: (re)writes examples/<protocol>/*.json from
 * demo/examples.ts, removes example files no dialect makes any more, and
 * rewrites the table of examples in docs/examples.md.
 */
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { EXAMPLES, buildDemoFlow, buildExample, examplePath } from './examples';
import { withExamplesTable } from './examples-doc';

const root = join(__dirname, '..', '..');
const dir = join(root, 'examples');
const written = new Set<string>();
for (const spec of EXAMPLES) {
  const file = join(dir, `${examplePath(spec)}.json`);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, `${JSON.stringify(buildExample(spec), null, 4)}\n`);
  written.add(file);
  console.log(relative(root, file));
}

// Node-RED lists every .json under examples/: one left from a renamed example would still be offered.
const stale = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? stale(join(d, e.name)) : e.name.endsWith('.json') && !written.has(join(d, e.name)) ? [join(d, e.name)] : []));
for (const file of stale(dir)) {
  rmSync(file);
  console.log(`removed ${relative(root, file)}`);
}

const doc = join(root, 'docs', 'examples.md');
writeFileSync(doc, withExamplesTable(readFileSync(doc, 'utf8')));
console.log('docs/examples.md (its table of examples)');

// npm start runs the demo flow: the generic example and the Mindray HL7 one, kept in flows/ beside the demo LIS's catalog.
writeFileSync(join(root, 'flows', 'demo-flow.json'), `${JSON.stringify(buildDemoFlow(), null, 4)}\n`);
console.log('flows/demo-flow.json');
