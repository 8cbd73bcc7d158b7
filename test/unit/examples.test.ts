import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLES, LIS_ENV, SHARED_LIS_ID, buildDemoFlow, buildExample, combineFlows, tabSettings, withTabEnv } from '../../demo/examples';

type N = Record<string, unknown> & { id: string; type: string };
const tabEnv = (flow: N[]) => flow.filter((n) => n.type === 'tab').map((t) => Object.fromEntries((t.env as Array<{ name: string; value: string }>).map((e) => [e.name, e.value])));

const DIR = join(__dirname, '..', '..', '..', 'examples');

describe('example flows', () => {
  it('are exactly what demo/examples.ts makes (run `npm run examples` after changing it)', () => {
    assert.deepEqual(readdirSync(DIR).filter((f) => f.endsWith('.json')).sort(), EXAMPLES.map((e) => `${e.file}.json`).sort());
    for (const spec of EXAMPLES) {
      assert.deepEqual(JSON.parse(readFileSync(join(DIR, `${spec.file}.json`), 'utf8')), buildExample(spec), spec.file);
    }
  });

  it('include the demo flow npm start runs (flows/demo-flow.json): an ASTM tab and an HL7 tab, each with its own settings on its tab, one LIS', () => {
    const flow = JSON.parse(readFileSync(join(DIR, '..', 'flows', 'demo-flow.json'), 'utf8')) as N[];
    assert.deepEqual(flow, buildDemoFlow());
    assert.deepEqual(flow.filter((n) => n.type === 'tab').map((n) => n.label), ['npm start demo', 'npm start demo: HL7']);
    assert.deepEqual(flow.filter((n) => n.type === 'lis-push-in').map((n) => n.localApiPort), ['${LIS_PUSH_PORT}', '${LIS_PUSH_PORT}']);
    assert.deepEqual(flow.filter((n) => n.type === 'lis-config').map((n) => n.id), [SHARED_LIS_ID]);
    const set = buildDemoFlow({ transport: 'tcp', analyzerTcpPort: 4100, pushPort: 9001, hl7TcpPort: 4200, hl7PushPort: 9002 });
    assert.deepEqual(tabEnv(set), [
      { ANALYZER_HOST: '127.0.0.1', ANALYZER_TCP_PORT: '4100', LIS_PUSH_PORT: '9001' },
      { ANALYZER_HOST: '127.0.0.1', ANALYZER_TCP_PORT: '4200', LIS_PUSH_PORT: '9002' },
    ]);
    assert.deepEqual(tabEnv(buildDemoFlow({ analyzerPort: '/dev/pts/7', analyzerBaud: 19200 }))[0], { ANALYZER_PORT: '/dev/pts/7', ANALYZER_BAUD: '19200', LIS_PUSH_PORT: '8181' });
    const ids = flow.map((n) => n.id);
    assert.equal(new Set(ids).size, ids.length, 'no node id twice');
  });

  it('each keep the analyzer\'s own settings on its tab, with defaults no two examples share', () => {
    const flows = EXAMPLES.map((spec) => buildExample(spec) as N[]);
    const envs = flows.map((f) => {
      const tabs = tabEnv(f);
      assert.equal(tabs.length, 1);
      return tabs[0]!;
    });
    EXAMPLES.forEach((spec, i) => {
      const names = spec.transport === 'serial' ? ['ANALYZER_PORT', 'ANALYZER_BAUD', 'LIS_PUSH_PORT'] : ['ANALYZER_HOST', 'ANALYZER_TCP_PORT', 'LIS_PUSH_PORT'];
      assert.deepEqual(Object.keys(envs[i]!), names, spec.file);
      assert.deepEqual(tabSettings(spec).map((v) => v.value), Object.values(envs[i]!), spec.file);
      assert.equal(flows[i]!.find((n) => n.type === 'lis-push-in')!.localApiPort, '${LIS_PUSH_PORT}', spec.file);
    });
    assert.deepEqual(envs.map((e) => e.LIS_PUSH_PORT), ['8181', '8182', '8183', '8184', '8185', '8186', '8187']);
    const distinct = (key: string) => {
      const values = envs.map((e) => e[key]).filter((v) => v !== undefined);
      assert.equal(new Set(values).size, values.length, `${key}: ${values.join(', ')}`);
    };
    distinct('ANALYZER_PORT');
    distinct('ANALYZER_TCP_PORT');
    // The serial port config is on the tab, so ${ANALYZER_PORT} is the tab's, and named after its analyzer.
    EXAMPLES.filter((s) => s.transport === 'serial').forEach((spec) => {
      const flow = buildExample(spec) as N[];
      const port = flow.filter((n) => n.type === 'serial-port');
      assert.equal(port.length, 1);
      assert.equal(port[0]!.z, flow.find((n) => n.type === 'tab')!.id, spec.file);
      assert.equal(port[0]!.name, `${spec.analyzer} serial`);
    });
    assert.deepEqual(tabEnv(withTabEnv(flows[0]!, { ANALYZER_PORT: '/dev/pts/3', LIS_PUSH_PORT: 9000 })), [{ ANALYZER_PORT: '/dev/pts/3', ANALYZER_BAUD: '9600', LIS_PUSH_PORT: '9000' }]);
    assert.throws(() => withTabEnv(flows[0]!, { ANALYZER_PROT: 'x' }), /ANALYZER_PROT/);
  });

  it('share one lis-config: the same id and properties in every example, so they combine into one flow file', () => {
    const configs = EXAMPLES.map((spec) => (buildExample(spec) as N[]).filter((n) => n.type === 'lis-config'));
    for (const c of configs) assert.equal(c.length, 1);
    for (const c of configs) assert.deepEqual(c[0], configs[0]![0]);
    assert.equal(configs[0]![0]!.id, SHARED_LIS_ID);
    assert.equal(configs[0]![0]!.z, undefined, 'global, not on a tab');
    const all = combineFlows(...EXAMPLES.map((spec) => buildExample(spec) as N[]));
    assert.equal(all.filter((n) => n.type === 'lis-config').length, 1);
    assert.throws(() => combineFlows(buildExample(EXAMPLES[0]!) as N[], buildExample(EXAMPLES[0]!) as N[]), /is in two of the flows/);
  });

  it('name each link node, the errors it shows and its serial port after the analyzer', () => {
    const names = EXAMPLES.map((spec) => (buildExample(spec) as N[]).find((n) => n.type === 'astm-link' || n.type === 'hl7-link')!.name);
    assert.deepEqual(names, ['Generic LIS2-A2 analyzer', 'Roche cobas e 411', 'Sysmex XN', 'Immucor Galileo', 'Mindray CL-2000i', 'Mindray CL-2000i (HL7)', 'Roche cobas 6800']);
    assert.equal(new Set(names).size, names.length);
    for (const spec of EXAMPLES) {
      const flow = buildExample(spec) as N[];
      const catcher = flow.find((n) => n.type === 'catch')!;
      const debug = flow.find((n) => (n.id === (catcher.wires as string[][])[0]![0]))!;
      assert.equal(debug.name, `errors: ${spec.analyzer}`);
    }
  });

  it('read every site setting from the environment and hold no secret', () => {
    for (const spec of EXAMPLES) {
      const text = JSON.stringify(buildExample(spec));
      const names = [...LIS_ENV.filter((x) => x !== 'LIS_TOKEN'), ...tabSettings(spec).map((v) => v.name)];
      for (const v of names) assert.ok(text.includes(`\${${v}}`), `${spec.file} reads ${v}`);
      const info = String((buildExample(spec) as N[]).find((n) => n.type === 'comment')!.info);
      for (const v of tabSettings(spec)) assert.ok(info.includes(`\`${v.name}\` (default \`${v.value}\`)`), `${spec.file}'s comment names ${v.name} and its default`);
      for (const v of LIS_ENV) assert.ok(info.includes(`\`${v}\``), `${spec.file}'s comment names ${v}`);
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

  it('are listed in docs/examples.md with each tab variable and its default, and the LIS variables', () => {
    const doc = readFileSync(join(DIR, '..', 'docs', 'examples.md'), 'utf8');
    for (const spec of EXAMPLES) {
      const row = doc.split('\n').find((l) => l.startsWith(`| \`${spec.file}\` |`));
      assert.ok(row, `docs/examples.md has a row for ${spec.file}`);
      assert.equal(row, `| \`${spec.file}\` | ${spec.analyzer} | ${tabSettings(spec).map((v) => `\`${v.name}\` = \`${v.value}\``).join('<br>')} |`);
    }
    for (const v of LIS_ENV) assert.ok(doc.includes(`| \`${v}\` |`), v);
  });
});
