import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO_HL7_PORT_ENV, EXAMPLES, EXAMPLE_ENV, buildDemoFlow, buildExample } from '../../demo/examples';

const DIR = join(__dirname, '..', '..', '..', 'examples');

describe('example flows', () => {
  it('are exactly what demo/examples.ts makes (run `npm run examples` after changing it)', () => {
    assert.deepEqual(readdirSync(DIR).filter((f) => f.endsWith('.json')).sort(), EXAMPLES.map((e) => `${e.file}.json`).sort());
    for (const spec of EXAMPLES) {
      assert.deepEqual(JSON.parse(readFileSync(join(DIR, `${spec.file}.json`), 'utf8')), buildExample(spec), spec.file);
    }
  });

  it('include the demo flow npm start runs (flows/demo-flow.json): an ASTM tab and an HL7 tab, each pushed orders on its own port', () => {
    const flow = JSON.parse(readFileSync(join(DIR, '..', 'flows', 'demo-flow.json'), 'utf8')) as Array<Record<string, unknown>>;
    assert.deepEqual(flow, buildDemoFlow());
    assert.deepEqual(flow.filter((n) => n.type === 'tab').map((n) => n.label), ['npm start demo', 'npm start demo: HL7']);
    assert.deepEqual(flow.filter((n) => n.type === 'lis-push-in').map((n) => n.localApiPort), ['8181', '8182']);
    assert.deepEqual(flow.filter((n) => n.type === 'tcp in').map((n) => n.port), [`\${${DEMO_HL7_PORT_ENV}}`]);
    assert.deepEqual(buildDemoFlow({ transport: 'tcp' }).filter((n) => n.type === 'tcp in').map((n) => n.port), ['${ANALYZER_TCP_PORT}', `\${${DEMO_HL7_PORT_ENV}}`]);
    const ids = flow.map((n) => n.id);
    assert.equal(new Set(ids).size, ids.length, 'no node id twice');
  });

  it('read every site setting from the environment and hold no secret', () => {
    for (const spec of EXAMPLES) {
      const text = JSON.stringify(buildExample(spec));
      for (const v of EXAMPLE_ENV[spec.transport].filter((x) => x !== 'LIS_TOKEN')) assert.ok(text.includes(`\${${v}}`), `${spec.file} reads ${v}`);
      assert.ok(text.includes('"bearerTokenEnv":"LIS_TOKEN"'), `${spec.file} takes the token from LIS_TOKEN`);
      assert.ok(!/credentials|bearerToken"\s*:/.test(text), `${spec.file} carries no credential`);
    }
  });

  it('use every node type of the package, and a comment node explaining the set-up', () => {
    const pkg = JSON.parse(readFileSync(join(DIR, '..', 'package.json'), 'utf8')) as { 'node-red': { nodes: Record<string, string> } };
    const used = new Set(EXAMPLES.flatMap((s) => buildExample(s).map((n) => n.type)));
    for (const type of Object.keys(pkg['node-red'].nodes)) assert.ok(used.has(type), type);
    for (const spec of EXAMPLES) assert.ok(buildExample(spec).some((n) => n.type === 'comment' && String(n.info).includes('Test codes')));
  });
});
