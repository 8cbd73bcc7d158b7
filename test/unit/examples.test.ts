import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { examplesFor } from '../../demo/example-specs';
import { CURATED_FILES, DEMO_PUSH_PORT, EXAMPLES, LIS_ENV, defaultFolder, SHARED_LIS_ID, buildDemoFlow, buildExample, combineFlows, examplePath, tabSettings, withTabEnv } from '../../demo/examples';
import { TABLE_END, TABLE_START, withExamplesTable } from '../../demo/examples-doc';
import { PROFILES } from '../../lib/protocols/astm/dialects';
import { HL7_PROFILES } from '../../lib/protocols/hl7/dialects';
import { FILE_PROFILES, fileLabEvents, findFileProfile, globMatcher } from '../../lib/protocols/file';
import { fileSample } from '../support/file-samples';

type N = Record<string, unknown> & { id: string; type: string };
const tabEnv = (flow: N[]) => flow.filter((n) => n.type === 'tab').map((t) => Object.fromEntries((t.env as Array<{ name: string; value: string }>).map((e) => [e.name, e.value])));

const DIR = join(__dirname, '..', '..', '..', 'examples');

/** Every .json under examples/, as `ASTM/generic-lis2a2-serial.json`: what Node-RED's Import > Examples lists. */
function exampleFiles(dir = DIR): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? exampleFiles(join(dir, e.name)) : e.name.endsWith('.json') ? [relative(DIR, join(dir, e.name))] : []));
}

describe('example flows', () => {
  it('are exactly what demo/examples.ts makes (run `npm run examples` after changing it)', () => {
    assert.deepEqual(exampleFiles().sort(), EXAMPLES.map((e) => `${examplePath(e)}.json`).sort());
    for (const spec of EXAMPLES) {
      assert.deepEqual(JSON.parse(readFileSync(join(DIR, `${examplePath(spec)}.json`), 'utf8')), buildExample(spec), spec.file);
    }
  });

  it('come for a dialect added to a registry with no code: at the end of the list (no other example\'s defaults move), named apart from its analyzer\'s other dialects', () => {
    const c311 = PROFILES.find((p) => p.id === 'roche-cobas-c311')!;
    const bc = HL7_PROFILES.find((p) => p.id === 'mindray-bc-hl7')!;
    const more = examplesFor([...PROFILES, { ...c311, id: 'roche-cobas-c311-host-query' }], [...HL7_PROFILES, { ...bc, id: 'mindray-bc6800-hl7' }, { ...c311, id: 'roche-cobas-c311' } as unknown as (typeof HL7_PROFILES)[number]], FILE_PROFILES);
    const fileStart = EXAMPLES.findIndex((e) => e.protocol === 'file');
    const astmEnd = EXAMPLES.findIndex((e) => e.protocol === 'hl7' && !CURATED_FILES.includes(e.file));
    assert.deepEqual(more.slice(0, astmEnd), EXAMPLES.slice(0, astmEnd));
    const added = more.filter((m) => !EXAMPLES.some((e) => e.file === m.file));
    assert.deepEqual(added.map((a) => [a.file, a.analyzer, a.dialect, a.transport]), [
      ['roche-cobas-c311-host-query-serial', 'Roche cobas c 311 (ASTM)', 'roche-cobas-c311-host-query', 'serial'],
      ['mindray-bc6800-hl7-tcp', 'Mindray BC-6200 (HL7)', 'mindray-bc6800-hl7', 'tcp'],
      // An HL7 mode of an analyzer that has an ASTM example: its protocol in its name.
      ['roche-cobas-c311-hl7-tcp', 'Roche cobas c 311 (HL7)', 'roche-cobas-c311', 'tcp'],
    ]);
    // The derived HL7 examples before the new ones keep their places (their defaults), the new ones come last.
    assert.deepEqual(more.slice(astmEnd + 1, fileStart + 1), EXAMPLES.slice(astmEnd, fileStart));
    // The file examples (no port) stay last, after the new HL7 ones.
    assert.deepEqual(more.slice(-FILE_PROFILES.length), EXAMPLES.slice(fileStart));
    // A file dialect added later: its example at the very end, its own folder, placeholder codes.
    const generic = FILE_PROFILES.find((p) => p.id === 'generic-csv')!;
    const withFile = examplesFor(PROFILES, HL7_PROFILES, [...FILE_PROFILES, { ...generic, id: 'acme-reader', vendor: 'Acme', model: 'Reader 9' }]);
    const last = withFile[withFile.length - 1]!;
    assert.deepEqual([last.file, last.analyzer, last.protocol, last.transport], ['acme-reader-folder', 'Acme Reader 9', 'file', 'folder']);
    assert.deepEqual(last.tests.map((t) => t.instrumentCode), ['GLU', 'CREA', 'ALT']);
    assert.equal(defaultFolder(last.dialect), '/var/lib/lis-bridge/acme-reader/in');
    assert.deepEqual(withFile.slice(0, -1), EXAMPLES);
  });

  it('cover every built-in dialect, ASTM and HL7, found in the registries, one example each, in a folder per protocol', () => {
    const covered = (protocol: 'astm' | 'hl7' | 'file') => EXAMPLES.filter((e) => (e.protocol ?? 'astm') === protocol).map((e) => e.dialect).sort();
    assert.deepEqual(covered('astm'), PROFILES.map((p) => p.id).sort());
    assert.deepEqual(covered('hl7'), HL7_PROFILES.map((p) => p.id).sort());
    assert.deepEqual(covered('file'), FILE_PROFILES.map((p) => p.id).sort());
    assert.deepEqual([...new Set(exampleFiles().map((f) => f.split('/')[0]))].sort(), ['ASTM', 'File', 'HL7']);
    // The seven examples the package always shipped keep their names, now in their protocol's folder.
    assert.deepEqual(CURATED_FILES.map((f) => examplePath(EXAMPLES.find((e) => e.file === f)!)), [
      'ASTM/generic-lis2a2-serial',
      'ASTM/roche-cobas-e411-serial',
      'ASTM/sysmex-xn-serial',
      'ASTM/immucor-galileo-serial',
      'ASTM/mindray-cl2000i-tcp',
      'HL7/mindray-cl2000i-hl7-tcp',
      'HL7/roche-cobas6800-hl7-tcp',
    ]);
    const files = EXAMPLES.map((e) => e.file);
    assert.equal(new Set(files).size, files.length, 'no file name twice, whatever the folder');
    // Transport as the profile says: serial where it gives serial settings, else TCP; HL7 always TCP (MLLP).
    for (const spec of EXAMPLES.filter((e) => !CURATED_FILES.includes(e.file))) {
      const astm = PROFILES.find((p) => p.id === spec.dialect);
      const expected = spec.protocol === 'file' ? 'folder' : spec.protocol === 'hl7' ? 'tcp' : astm!.transport.serial ? 'serial' : 'tcp';
      assert.equal(spec.transport, expected, spec.file);
      assert.ok(spec.file.endsWith(`-${expected}`), spec.file);
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
    assert.deepEqual(tabEnv(buildDemoFlow({ analyzerPort: '/dev/pts/7', analyzerBaud: 19200 }))[0], { ANALYZER_PORT: '/dev/pts/7', ANALYZER_BAUD: '19200', LIS_PUSH_PORT: String(DEMO_PUSH_PORT) });
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
      const names = spec.transport === 'folder' ? ['ANALYZER_FOLDER'] : spec.transport === 'serial' ? ['ANALYZER_PORT', 'ANALYZER_BAUD', 'LIS_PUSH_PORT'] : ['ANALYZER_HOST', 'ANALYZER_TCP_PORT', 'LIS_PUSH_PORT'];
      assert.deepEqual(Object.keys(envs[i]!), names, spec.file);
      assert.deepEqual(tabSettings(spec).map((v) => v.value), Object.values(envs[i]!), spec.file);
      // A file instrument takes no orders: no lis-push-in, so no port.
      if (spec.transport === 'folder') assert.equal(flows[i]!.some((n) => n.type === 'lis-push-in'), false, spec.file);
      else assert.equal(flows[i]!.find((n) => n.type === 'lis-push-in')!.localApiPort, '${LIS_PUSH_PORT}', spec.file);
    });
    // The seven examples the package always shipped keep their defaults.
    assert.deepEqual(envs.slice(0, 7).map((e) => e.LIS_PUSH_PORT), ['8181', '8182', '8183', '8184', '8185', '8186', '8187']);
    // No two examples share a default port, push or analyzer (one port space), nor a serial device.
    const ports = envs.flatMap((e) => [e.LIS_PUSH_PORT, e.ANALYZER_TCP_PORT]).filter((v) => v !== undefined);
    assert.equal(ports.length, EXAMPLES.filter((e) => e.transport !== 'folder').length + EXAMPLES.filter((e) => e.transport === 'tcp').length);
    const shared = ports.filter((p, i) => ports.indexOf(p) !== i);
    assert.deepEqual(shared, [], 'default ports two examples share');
    // npm start's lis-push-in takes none of them: an example imported into the demo's Node-RED deploys beside it.
    assert.equal(ports.includes(String(DEMO_PUSH_PORT)), false, `the demo's push port ${DEMO_PUSH_PORT} is an example's`);
    assert.deepEqual(tabEnv(buildDemoFlow())[0]!.LIS_PUSH_PORT, String(DEMO_PUSH_PORT));
    for (const p of ports) assert.ok(Number(p) > 1024 && Number(p) < 65536 && p !== '1880', `port ${p}`);
    // No two file examples watch one default folder: one would take the other's files.
    const folders = envs.map((e) => e.ANALYZER_FOLDER).filter((v) => v !== undefined);
    assert.equal(folders.length, FILE_PROFILES.length);
    assert.equal(new Set(folders).size, folders.length, `default folders: ${folders.join(', ')}`);
    const devices = envs.map((e) => e.ANALYZER_PORT).filter((v) => v !== undefined);
    assert.equal(devices.length, EXAMPLES.filter((e) => e.transport === 'serial').length);
    assert.equal(new Set(devices).size, devices.length, `serial devices: ${devices.join(', ')}`);
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
    const names = EXAMPLES.map((spec) => (buildExample(spec) as N[]).find((n) => n.type === 'astm-link' || n.type === 'hl7-link' || n.type === 'folder-link')!.name);
    assert.deepEqual(names.slice(0, 7), ['Generic LIS2-A2 analyzer', 'Roche cobas e 411', 'Sysmex XN', 'Immucor Galileo', 'Mindray CL-2000i', 'Mindray CL-2000i (HL7)', 'Roche cobas 6800']);
    const tabs = EXAMPLES.map((spec) => (buildExample(spec) as N[]).find((n) => n.type === 'tab')!.label);
    assert.equal(new Set(tabs).size, tabs.length, `tab labels: ${tabs.join(', ')}`);
    // The generic analyzer's tab and link read the same, not "any LIS2-A2 conformant analyzer" (the dialect's vendor and model).
    assert.equal(tabs[0], names[0]);
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
    // A derived example says its codes are placeholders, so nobody takes them for the analyzer's.
    // A file example maps the codes of its instrument's sample export (checked below): it says so where the LIS tests are made up.
    const placeholders = (spec: (typeof EXAMPLES)[number]) => spec.protocol !== 'file' || spec.lisTests !== undefined || spec.tests.every((t) => t.lisTestId === `T-${t.instrumentCode}`);
    for (const spec of EXAMPLES.filter((e) => !CURATED_FILES.includes(e.file) && placeholders(e))) assert.ok(buildExample(spec).some((n) => n.type === 'comment' && String(n.info).includes('placeholders')), spec.file);
  });

  it('are listed in docs/examples.md, each in its folder with its dialect, each tab variable and its default (`npm run examples` writes the table), and the LIS variables', () => {
    const doc = readFileSync(join(DIR, '..', 'docs', 'examples.md'), 'utf8');
    assert.equal(doc, withExamplesTable(doc), 'the table of examples is the one npm run examples writes');
    const table = doc.slice(doc.indexOf(TABLE_START), doc.indexOf(TABLE_END));
    for (const spec of EXAMPLES) {
      const [folder, file] = examplePath(spec).split('/');
      const row = table.split('\n').find((l) => l.startsWith(`| ${folder} | \`${file}\` |`));
      assert.ok(row, `docs/examples.md has a row for ${examplePath(spec)}`);
      assert.ok(row.endsWith(`| ${tabSettings(spec).map((v) => `\`${v.name}\` = \`${v.value}\``).join('<br>')} |`), row);
    }
    assert.equal(table.split('\n').filter((l) => /^\| (ASTM|HL7|File) \|/.test(l)).length, EXAMPLES.length);
    for (const v of LIS_ENV) assert.ok(doc.includes(`| \`${v}\` |`), v);
  });

  it('give every file dialect one example: folder-link on the tab\'s folder -> file-message in the dialect -> test-mapper -> lis-send-results -> processed, mapping codes its sample export holds', () => {
    const files = EXAMPLES.filter((e) => e.protocol === 'file');
    assert.deepEqual(files.map((e) => e.dialect), FILE_PROFILES.map((p) => p.id));
    for (const spec of files) {
      assert.equal(examplePath(spec), `File/${spec.dialect}-folder`);
      assert.equal(tabSettings(spec)[0]!.value, defaultFolder(spec.dialect));
      const flow = buildExample(spec) as N[];
      const one = (type: string) => {
        const nodes = flow.filter((n) => n.type === type);
        assert.equal(nodes.length, 1, `${spec.file}: one ${type}`);
        return nodes[0]!;
      };
      const to = (n: N, port = 0) => (n.wires as string[][])[port]!.map((w) => flow.find((x) => x.id === w)!.type);
      const link = one('folder-link');
      assert.equal(link.folder, '${ANALYZER_FOLDER}');
      assert.equal(link.name, spec.analyzer);
      // Named, so the Lab sidebar shows the instrument rather than "instrument not named".
      assert.equal(link.analyzer, spec.analyzer);
      assert.deepEqual(to(link), ['file-message']);
      assert.equal(one('file-message').dialect, spec.dialect);
      assert.deepEqual(to(one('file-message')), ['test-mapper']);
      assert.deepEqual(to(one('test-mapper')), ['lis-send-results']);
      assert.deepEqual(to(one('lis-send-results')), ['change']);
      one('lis-mark-processed');
      one('catch');
      for (const type of ['lis-push-in', 'lis-get-order', 'astm-message', 'hl7-message']) assert.equal(flow.some((n) => n.type === type), false, `${spec.file}: no ${type}`);
      const info = String(flow.find((n) => n.type === 'comment')!.info);
      assert.match(info, /Set `ANALYZER_FOLDER` first/);
      assert.match(info, /no lis-push-in/);
      // The sample export, read in the dialect, holds every code the example maps (sent, or kept aside: a SkanIt
      // sample's wells carry no sample number), and the folder link takes its name.
      const sample = fileSample(spec.dialect);
      assert.ok(sample, `${spec.dialect} has a sample export (test/support/file-samples.ts)`);
      assert.ok(globMatcher(String(link.pattern))(sample.name), `${spec.file}: pattern ${String(link.pattern)} takes ${sample.name}`);
      const events = fileLabEvents(sample.bytes, findFileProfile(spec.dialect)!, { timeZone: 'UTC', fileName: sample.name });
      const codes = new Set(events.flatMap((e) => (e.type === 'results' ? e.results.map((r) => r.instrumentCode) : e.type === 'unassigned' ? e.items.map((i) => i.instrumentCode) : [])));
      for (const t of spec.tests) assert.ok(codes.has(t.instrumentCode), `${spec.file}: ${t.instrumentCode} is in ${sample.name}`);
    }
  });
});
