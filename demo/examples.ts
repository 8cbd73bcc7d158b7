/**
 * The importable example flows in examples/, generated from one template so
 * every analyzer's flow has the same, tested shape. `npm run examples` writes
 * them; a test fails when a committed example differs from what this makes.
 *
 * Every site setting comes from environment variables (README, "Example flows"),
 * so one flow file serves every site and holds no secret.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getProfile } from '../lib/protocols/astm/dialects';
import { findHl7Profile } from '../lib/protocols/hl7/dialects';
import { findFileProfile } from '../lib/protocols/file';
import type { MappingRow } from '../lib/mapping/model';
import { EXAMPLES, defaultFolder, type ExampleSpec } from './example-specs';

export { CURATED_FILES, EXAMPLES, defaultFolder, exampleFolder, examplePath, type ExampleSpec } from './example-specs';

type Point = readonly [number, number];

/** Where each node sits (the centre, as Node-RED stores it), by its part in the flow. */
interface Layout {
  about?: Point;
  comment: Point;
  lineIn: Point;
  /** The status node that tells astm-link when a TCP connection opens and closes. */
  lineStatus: Point;
  lineOut: Point;
  link: Point;
  toAnalyzerIn: Point;
  astm: Point;
  getOrder: Point;
  toAnalyzer: Point;
  orderOut: Point;
  noOrderOut: Point;
  toLis: Point;
  send: Point;
  processed: Point;
  split: Point;
  markProcessed: Point;
  unmappedDebug: Point;
  otherDebug: Point;
  pushIn: Point;
  mapPushed: Point;
  pushedOut: Point;
  injectCatalog: Point;
  getTests: Point;
  catalogDebug: Point;
  catch: Point;
  errorsDebug: Point;
}

/** The examples: one long row per path, for a wide screen. */
const EXAMPLE_LAYOUT: Layout = {
  comment: [200, 40],
  lineIn: [130, 140],
  lineStatus: [130, 200],
  lineOut: [560, 80],
  link: [330, 140],
  toAnalyzerIn: [390, 240],
  astm: [620, 220],
  getOrder: [940, 160],
  toAnalyzer: [1210, 140],
  orderOut: [1400, 140],
  noOrderOut: [1210, 200],
  toLis: [940, 280],
  send: [1180, 280],
  processed: [1390, 280],
  split: [1550, 280],
  markProcessed: [1690, 280],
  unmappedDebug: [1200, 340],
  otherDebug: [940, 400],
  pushIn: [170, 480],
  mapPushed: [430, 480],
  pushedOut: [640, 480],
  injectCatalog: [170, 560],
  getTests: [410, 560],
  catalogDebug: [630, 560],
  catch: [160, 640],
  errorsDebug: [400, 640],
};

/**
 * The demo: what a first-time user opens at 1600 x 900 with the palette and
 * the sidebar open leaves a canvas about 1090 x 780 px, so every node and its
 * status text stays inside that (the demo browser test checks it).
 */
const DEMO_LAYOUT: Layout = {
  about: [130, 40],
  comment: [520, 40],
  lineIn: [90, 110],
  lineStatus: [90, 170],
  link: [280, 110],
  lineOut: [470, 110],
  toAnalyzerIn: [290, 190],
  astm: [430, 190],
  getOrder: [670, 190],
  toAnalyzer: [900, 190],
  orderOut: [1045, 190],
  noOrderOut: [830, 240],
  otherDebug: [660, 255],
  // Above the results row: below it, the wire to "processed per sample" would cross it.
  unmappedDebug: [945, 270],
  toLis: [660, 330],
  send: [890, 330],
  // A row of its own: the results row would not fit the width.
  processed: [660, 430],
  split: [830, 430],
  markProcessed: [985, 430],
  pushIn: [150, 510],
  mapPushed: [410, 510],
  pushedOut: [600, 510],
  injectCatalog: [130, 580],
  getTests: [340, 580],
  catalogDebug: [520, 580],
  catch: [100, 650],
  errorsDebug: [300, 650],
};


/** Shorter than the dialect's label, so the demo's message row fits; the comment node names the dialect. */
const DEMO_ASTM_NAME = 'LIS2-A2 messages';
const DEMO_HL7_NAME = 'HL7 messages';

function tabLabel(spec: ExampleSpec, profile: ExampleDialect): string {
  if (spec.demo) return spec.protocol === 'hl7' ? 'npm start demo: HL7' : 'npm start demo';
  const label = (s: ExampleSpec, p: ExampleDialect) => (s.tabLabel ?? `${p.vendor} ${p.model}${s.protocol === 'hl7' ? ' (HL7)' : s.protocol === 'file' ? ' (files)' : ''}`).slice(0, 60);
  const own = label(spec, profile);
  // Another dialect of the same analyzer, added later: its tab takes the dialect's label, so the two tabs differ.
  const earlier = EXAMPLES.slice(0, Math.max(0, EXAMPLES.findIndex((e) => e.file === spec.file)));
  return earlier.some((e) => label(e, exampleDialect(e)) === own) ? profile.label.slice(0, 60) : own;
}

/** The flow `npm start` runs (flows/demo-flow.json): the generic example, laid out and labelled as the demo. */
export const DEMO_FLOW: ExampleSpec = { ...EXAMPLES[0]!, demo: true };

/** npm start's HL7 analyzer: the Mindray CL-2000i HL7 example, laid out and labelled as the demo's second tab. */
export const DEMO_HL7_FLOW: ExampleSpec = { ...EXAMPLES.find((e) => e.file === 'mindray-cl2000i-hl7-tcp')!, demo: true };

/** The sample numbers npm start's HL7 analyzer scans start with this: the demo LIS orders them the HL7 tab's tests. */
export const DEMO_HL7_PREFIX = 'HL7-';

/**
 * npm start's lis-push-in port (DEMO_PUSH_PORT): below the examples' push ports
 * (8181 up, one per example, growing as dialects are added), so an example
 * imported into the demo's Node-RED deploys beside it without a clash.
 */
export const DEMO_PUSH_PORT = 8180;

/** What npm start sets on the demo's tabs (their environment variables); unset: the examples' defaults. */
export interface DemoFlowOptions {
  transport?: ExampleSpec['transport'];
  /** The ASTM tab's line: the serial device and its speed, or the simulated analyzer's TCP port. */
  analyzerPort?: string;
  analyzerBaud?: number;
  analyzerTcpPort?: number;
  pushPort?: number;
  /** The HL7 tab's analyzer (a TCP server on 127.0.0.1) and its lis-push-in. */
  hl7TcpPort?: number;
  hl7PushPort?: number;
}

/**
 * The flow npm start deploys (flows/demo-flow.json as committed, with the
 * defaults): the ASTM demo tab, serial or TCP, then the HL7 one, each with
 * its own settings on its tab, both on the one shared lis-config.
 */
export function buildDemoFlow(options: DemoFlowOptions = {}): FlowNode[] {
  const transport = options.transport ?? DEMO_FLOW.transport;
  const defined = (values: Record<string, string | number | undefined>) => Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Record<string, string | number>;
  const line = transport === 'serial' ? { ANALYZER_PORT: options.analyzerPort, ANALYZER_BAUD: options.analyzerBaud } : { ANALYZER_TCP_PORT: options.analyzerTcpPort };
  const astm = withTabEnv(buildExample({ ...DEMO_FLOW, transport }), defined({ ...line, LIS_PUSH_PORT: options.pushPort ?? DEMO_PUSH_PORT }));
  const hl7 = withTabEnv(buildExample(DEMO_HL7_FLOW), defined({ ANALYZER_TCP_PORT: options.hl7TcpPort, LIS_PUSH_PORT: options.hl7PushPort }));
  return combineFlows(astm, hl7);
}

/**
 * Examples side by side in one flow file: the shared lis-config once (each
 * example carries it); any other node id twice is an error.
 */
export function combineFlows<T extends { id: string; type: string }>(...flows: T[][]): T[] {
  const seen = new Map<string, T>();
  const out: T[] = [];
  for (const n of flows.flat()) {
    const before = seen.get(n.id);
    if (before) {
      if (n.id === SHARED_LIS_ID && JSON.stringify(before) === JSON.stringify(n)) continue;
      throw new Error(`node id ${n.id} (${n.type}) is in two of the flows`);
    }
    seen.set(n.id, n);
    out.push(n);
  }
  return out;
}

/** What the demo's HL7 tab's comment node says. */
function demoHl7Info(): string {
  return [
    '# The npm start demo: an HL7 analyzer',
    '',
    'The second analyzer `npm start` runs: the Mindray CL-2000i HL7 example (Import > Examples) wired to the same demo LIS and a simulated analyzer speaking HL7 v2.3.1 over TCP (lis-analyzer-sim --protocol hl7). It queries each sample it scans (QRY^Q02), gets its order (QCK^Q02 + DSR^Q03) and sends its results (ORU^R01); each is on the demo LIS page beside the ASTM analyzer\'s, sample numbers starting with `HL7-`.',
    '',
    '## Where its settings come from',
    '- `LIS_TESTS_URL`, `LIS_ORDERS_URL`, `LIS_RESULTS_URL`, `LIS_PROCESSED_URL`, `LIS_TOKEN`: the demo LIS, in Node-RED\'s environment, read by the one lis-config "LIS" both tabs share.',
    '- This tab\'s environment variables (double-click the tab), which npm start sets: `ANALYZER_HOST` and `ANALYZER_TCP_PORT`, the simulated HL7 analyzer, a TCP server npm start runs on a free port (`DEMO_HL7_TCP_PORT` to choose it); `LIS_PUSH_PORT`, where this tab\'s lis-push-in listens (`DEMO_HL7_PUSH_PORT`, else a free one; the banner and the Node-RED log say which). The demo LIS page pushes to the first tab\'s.',
    '',
    '## Changes',
    'npm start writes this flow again at every start: export what you want to keep.',
  ].join('\n');
}

/** What the demo's own comment node says: what this flow is and where its settings come from. */
function demoInfo(spec: ExampleSpec): string {
  if (spec.protocol === 'hl7') return demoHl7Info();
  const transport = spec.transport;
  const line =
    transport === 'serial'
      ? '- `ANALYZER_PORT`, `ANALYZER_BAUD`: the Node-RED end of the socat pty pair npm start made, whose other end the simulated analyzer (lis-analyzer-sim) opens; or the device you gave npm start as `ANALYZER_PORT`, with no analyzer simulated.'
      : '- `ANALYZER_HOST`, `ANALYZER_TCP_PORT`: the simulated analyzer (lis-analyzer-sim), a TCP server npm start runs because socat is not installed (`DEMO_ANALYZER_TCP_PORT`).';
  return [
    '# The npm start demo',
    '',
    'This is the demo flow `npm start` deploys: the generic LIS2-A2 example (Import > Examples) wired to the demo LIS and a simulated analyzer, all on this machine. Results flow to the demo LIS page npm start printed. The next tab, "npm start demo: HL7", runs an HL7 analyzer beside it on the same LIS.',
    '',
    '## Where its settings come from',
    'Environment variables npm start sets; the nodes read them as `${NAME}`. The LIS\'s, in Node-RED\'s environment, read by the one lis-config "LIS" both tabs share:',
    '- `LIS_TESTS_URL`, `LIS_ORDERS_URL`, `LIS_RESULTS_URL`, `LIS_PROCESSED_URL`: the demo LIS\'s four endpoints (its page lists them).',
    '- `LIS_TOKEN`: the demo LIS\'s Bearer Token, `demo-token` (printed at start and shown on the demo LIS page).',
    '',
    'This analyzer\'s, on this tab (double-click the tab > Environment Variables):',
    line,
    `- \`LIS_PUSH_PORT\`: where lis-push-in listens, \`DEMO_PUSH_PORT\` (${DEMO_PUSH_PORT}, below the examples' ports, so an example imported here deploys beside it).`,
    '',
    'npm start\'s own settings (ports, user directory, sample interval) are listed in the README, Quick start.',
    '',
    '## Changes',
    'npm start writes this flow again at every start (`flows.json` in the demo user directory): export what you want to keep. For your own analyzer and LIS, import an example into your Node-RED and set the variables there.',
  ].join('\n');
}

type FlowNode = Record<string, unknown> & { id: string; type: string };

/**
 * A node-red-node-serialport config node set up as astm-link needs it: binary, and
 * an empty split character so every byte is its own message: an ENQ or ACK is never
 * held back waiting for a delimiter, and no buffer limit can cut a long frame.
 */
export function serialPortNode(
  id: string,
  name: string,
  path: string,
  baud: string,
  line: { dataBits: number; parity: string; stopBits: number } = { dataBits: 8, parity: 'none', stopBits: 1 },
): FlowNode {
  return {
    id,
    type: 'serial-port',
    name,
    serialport: path,
    serialbaud: baud,
    databits: String(line.dataBits),
    parity: line.parity,
    stopbits: String(line.stopBits),
    waitfor: '',
    dtr: 'none',
    rts: 'none',
    cts: 'none',
    dsr: 'none',
    newline: '',
    bin: 'bin',
    out: 'char',
    addchar: '',
    responsetimeout: '10000',
  };
}

interface CatalogTest {
  ID: string;
  Name: string;
  Code: string;
  Type?: string;
}

const ROOT = join(__dirname, '..', '..');

export function loadCatalog(): CatalogTest[] {
  return JSON.parse(readFileSync(join(ROOT, 'flows', 'lis-catalog.json'), 'utf8')) as CatalogTest[];
}

/**
 * The site's LIS: process-level environment variables (Node-RED's own
 * environment), read by the one lis-config every example shares.
 */
export const LIS_ENV = ['LIS_TESTS_URL', 'LIS_ORDERS_URL', 'LIS_RESULTS_URL', 'LIS_PROCESSED_URL', 'LIS_TOKEN'] as const;

/**
 * The id of that lis-config, the same in every example: the editor's import
 * takes the one already in the workspace instead of adding another "LIS"
 * (docs/examples.md).
 */
export const SHARED_LIS_ID = 'lis-bridge-lis';

/** One of an analyzer's own settings: an environment variable of its example's tab. */
export interface TabSetting {
  name: string;
  /** The default the example ships with. */
  value: string;
  meaning: string;
}

/**
 * An example's own settings, kept on its tab so two analyzers in one Node-RED
 * never share one: the line, and lis-push-in's port. The defaults differ from
 * example to example (push ports 8181, 8182, ... and TCP ports 4001, 4002, ...
 * in the order of EXAMPLES, serial devices /dev/ttyUSB0, 1, ...), so all of them
 * imported side by side deploy with no clash.
 */
export function tabSettings(spec: ExampleSpec): TabSetting[] {
  // A file instrument takes no orders (nothing goes back to it): its folder is its only setting.
  if (spec.transport === 'folder') return [{ name: 'ANALYZER_FOLDER', value: defaultFolder(spec.dialect), meaning: 'the folder the instrument exports its result files into (a local path or a mounted share); folder-link moves each file to done/ in it once its results are delivered' }];
  const index = Math.max(0, EXAMPLES.findIndex((e) => e.file === spec.file));
  const nth = Math.max(0, EXAMPLES.filter((e) => e.transport === spec.transport).findIndex((e) => e.file === spec.file));
  const baud = exampleDialect(spec).serial?.baudRate ?? 9600;
  const line: TabSetting[] =
    spec.transport === 'serial'
      ? [
          { name: 'ANALYZER_PORT', value: `/dev/ttyUSB${nth}`, meaning: 'the serial device the analyzer is connected to' },
          { name: 'ANALYZER_BAUD', value: String(baud), meaning: "the line's speed, as set on the analyzer" },
        ]
      : [
          { name: 'ANALYZER_HOST', value: '127.0.0.1', meaning: "the analyzer's address: Node-RED connects to it" },
          { name: 'ANALYZER_TCP_PORT', value: String(4001 + nth), meaning: 'the port the analyzer listens on' },
        ];
  return [...line, { name: 'LIS_PUSH_PORT', value: String(8181 + index), meaning: "lis-push-in's port on 127.0.0.1, where the LIS pushes orders" }];
}

/**
 * The flow with its tabs' environment variables set to `values` (a run's
 * ports and devices); a name no tab has is an error, so a typo cannot leave a
 * default in place unnoticed.
 */
export function withTabEnv<T extends { type: string }>(flow: T[], values: Record<string, string | number>): T[] {
  const unused = new Set(Object.keys(values));
  const out = flow.map((n) => {
    const env = (n as { env?: Array<{ name: string; value: string; type: string }> }).env;
    if (n.type !== 'tab' || !env) return n;
    return {
      ...n,
      env: env.map((e) => {
        if (!(e.name in values)) return e;
        unused.delete(e.name);
        return { ...e, value: String(values[e.name]) };
      }),
    };
  });
  if (unused.size > 0) throw new Error(`no tab of the flow has the variable(s) ${[...unused].join(', ')}`);
  return out;
}

/** Where results the flow does not send end: held in the journal for a person, or counted as not for the LIS. */
const HELD_INFO = 'Results whose code (or coded value) the test map lacks are held in the journal before anything else of their message goes on: the Lab sidebar lists them under "Waiting for a person", to Send once mapped and deployed, or Dismiss with why. The second output of test-mapper is a copy for a look, left unwired.';
const ASIDE_INFO = 'QC results, no-result words and what the dialect keeps from the LIS are counted on the link in the Lab sidebar ("not for the LIS"); results whose sample number cannot be trusted are held there, to Place under the right sample number or Dismiss. The last output of the message node is a copy of them, left unwired.';

/** The analyzer's test map, on its tab (so examples side by side keep theirs apart). */
function testMap(id: string, tab: string, lis: string, instrument: string, mapping: MappingRow[]): FlowNode {
  return { id, type: 'lis-test-map', z: tab, name: '', instrument, lis, mapping };
}

/** The example's test map rows: its tests, named as the LIS catalog names them. */
export function exampleMapping(spec: ExampleSpec, catalog: CatalogTest[] = loadCatalog()): MappingRow[] {
  return spec.tests.map((t) => {
    const test = catalog.find((c) => c.ID === t.lisTestId) ?? spec.lisTests?.find((c) => c.ID === t.lisTestId);
    if (!test) throw new Error(`${spec.file}: ${t.lisTestId} is not in flows/lis-catalog.json nor in the example's lisTests`);
    return { lisTestId: test.ID, lisCode: test.Code, lisName: test.Name, ...(test.Type ? { lisType: test.Type } : {}), instrumentCode: t.instrumentCode, ...(t.instrumentSubCode ? { instrumentSubCode: t.instrumentSubCode } : {}) };
  });
}

/** What an example needs of its dialect, ASTM or HL7. */
interface ExampleDialect {
  id: string;
  label: string;
  vendor: string;
  model: string;
  serial?: { baudRate: number; dataBits: number; parity: string; stopBits: number } | undefined;
  /** The astm-link framing settings; absent for HL7. */
  astmLink?: { checksums?: boolean | undefined; framePerRecord?: boolean | undefined; frameTextMax?: number | undefined };
  /** Whether the package can answer the analyzer's queries with orders: the dialect reads queries and writes downloads. */
  downloads: boolean;
}

function exampleDialect(spec: ExampleSpec): ExampleDialect {
  if (spec.protocol === 'file') {
    const profile = findFileProfile(spec.dialect);
    if (!profile) throw new Error(`${spec.file}: ${spec.dialect} is not a file dialect (lib/protocols/file/dialects)`);
    if (spec.transport !== 'folder') throw new Error(`${spec.file}: a file instrument's line is a folder, not ${spec.transport}`);
    return { ...profile, downloads: false };
  }
  if (spec.protocol === 'hl7') {
    const profile = findHl7Profile(spec.dialect);
    if (!profile) throw new Error(`${spec.file}: ${spec.dialect} is not an HL7 dialect (lib/protocols/hl7/dialects)`);
    if (spec.transport !== 'tcp') throw new Error(`${spec.file}: HL7 runs over TCP (MLLP), not ${spec.transport}`);
    return { ...profile, downloads: profile.query !== undefined && profile.answer !== undefined };
  }
  const profile = getProfile(spec.dialect);
  return { ...profile, serial: profile.transport.serial, astmLink: profile.link, downloads: profile.query !== undefined && profile.order !== undefined };
}

/** The set-up paragraphs that differ by protocol: the line, and when the ACK goes out. */
function lineNotes(spec: ExampleSpec, profile: ExampleDialect): { line: string; journal: string } {
  const serial = profile.serial ?? { baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 };
  if (spec.protocol === 'hl7') {
    return {
      line: '## TCP (HL7 over MLLP)\nNode-RED connects to the analyzer as a TCP client; hl7-link cuts each `<VT> message <FS><CR>` out of the stream, keeps one link per connection and answers every message with an ACK. The status node on "analyzer" (tcp in) tells hl7-link when the connection opens and closes: orders the LIS pushes go to the connected analyzer, and a message on a dropped connection fails at once (CONNECTION_CLOSED). Where the analyzer is the one that connects, set tcp in to listen on a port; for several analyzers give each pushed order msg.analyzer (the analyzer\'s MSH-3 sending application, or its address).',
      journal: '- Every received HL7 message is stored in the result journal (lis-bridge/ under the Node-RED user directory) before its ACK (MSA AA) goes out, and every message is traced there; a message the analyzer sends again after a lost ACK (same MSH-10) is acknowledged again and not processed twice. The host\'s messages wait for the analyzer\'s ACK; an AE/AR answer reaches the Catch node with the analyzer\'s text. Results the LIS did not accept are held: the status of "send results" shows how many; resend or discard them with a lis:resend / lis:discard message or GET /lis-bridge/held (README, Reliability).',
    };
  }
  return {
    line:
      spec.transport === 'serial'
        ? `## Serial line\n${serial.baudRate} baud, ${serial.dataBits} data bits, parity ${serial.parity}, ${serial.stopBits} stop bit(s) (the tab's ANALYZER_BAUD). The serial port config must stay *binary*, split on an empty character.`
        : '## TCP\nNode-RED connects to the analyzer as a TCP client; astm-link keeps one link per connection. The status node on "analyzer" (tcp in) tells astm-link when the connection opens and closes: orders the LIS pushes go to the connected analyzer, and a transfer on a dropped connection fails at once (CONNECTION_CLOSED). To serve several analyzers, set tcp in to listen and give each pushed order msg.analyzer (the analyzer\'s H-5 sender name or its address).',
    journal: '- Every received message is stored in the result journal (lis-bridge/ under the Node-RED user directory) before the analyzer gets its final ACK, and every frame is traced there. Results the LIS did not accept are held: the status of "send results" shows how many; resend or discard them with a lis:resend / lis:discard message or GET /lis-bridge/held (README, Reliability).',
  };
}

/** The one lis-config every example carries, global (no tab): its id and properties the same everywhere. */
function sharedLisConfig(): FlowNode {
  return {
    id: SHARED_LIS_ID,
    type: 'lis-config',
    name: 'LIS',
    labTestsApiUrl: '${LIS_TESTS_URL}',
    transactionInfoApiUrl: '${LIS_ORDERS_URL}',
    resultApiUrl: '${LIS_RESULTS_URL}',
    orderCompletedApiUrl: '${LIS_PROCESSED_URL}',
    bearerTokenEnv: 'LIS_TOKEN',
    timeout: '30000',
    orderAttempts: '3',
    orderBackoffMs: '100',
    transientRetries: '2',
    transientBackoffMs: '1000',
    maxResponseBytes: '10485760',
  };
}

function debugNode(id: string, name: string, place: { z: string; x: number; y: number }): FlowNode {
  return { id, type: 'debug', name, active: true, tosidebar: true, console: false, tostatus: false, complete: 'true', targetType: 'full', statusVal: '', statusType: 'auto', ...place, wires: [] };
}

/** A file instrument's example: one row, folder to LIS, as the other examples' results row. */
const FILE_LAYOUT = {
  comment: [200, 40],
  folder: [150, 140],
  message: [370, 140],
  toLis: [600, 140],
  send: [830, 140],
  processed: [1030, 140],
  split: [1190, 140],
  markProcessed: [1330, 140],
  unmappedDebug: [850, 200],
  otherDebug: [620, 240],
  injectCatalog: [170, 320],
  getTests: [410, 320],
  catalogDebug: [630, 320],
  catch: [160, 400],
  errorsDebug: [400, 400],
} as const satisfies Record<string, Point>;

/**
 * folder-link -> file-message -> test-mapper -> lis-send-results -> processed
 * per sample: an instrument that exports files takes no orders, so there is no
 * order path and no lis-push-in.
 */
function buildFileExample(spec: ExampleSpec, catalog: CatalogTest[]): FlowNode[] {
  const profile = exampleDialect(spec);
  const id = (role: string) => createHash('sha256').update(`${spec.file}/${role}`).digest('hex').slice(0, 16);
  const tab = id('tab');
  const L = FILE_LAYOUT;
  const at = ([x, y]: Point) => ({ z: tab, x, y });
  const mapping = exampleMapping(spec, catalog);
  const settings = tabSettings(spec);
  const placeholders = spec.lisTests !== undefined && spec.lisTests.length > 0;
  const info = [
    `# ${profile.label}: ${profile.vendor} ${profile.model}`,
    '',
    'Results from an instrument that exports result files into a folder, to the LIS (spec 1.5): folder-link takes each complete file once, file-message reads it in the dialect, results go mapped to LIS codes and are sent once; each processed sample is reported. The instrument takes no orders from the LIS, so there is no order path and no lis-push-in.',
    '',
    "## This instrument's settings (the tab's environment variables)",
    'Double-click the tab > Environment Variables; the nodes read them as `${NAME}`:',
    ...settings.map((v) => `- \`${v.name}\` (default \`${v.value}\`): ${v.meaning}`),
    '',
    `**Set \`ANALYZER_FOLDER\` first**: until the folder exists, "${spec.analyzer}" (folder-link) is red ("folder ... does not exist: create it or set ANALYZER_FOLDER") and reports FOLDER_MISSING to the Catch node, and it picks the folder up by itself once it is there. Node-RED needs read and write access to it (it makes done/ and error/ inside).`,
    '',
    "## The LIS (Node-RED's environment, shared by every analyzer)",
    'One lis-config "LIS" serves every example: set these where Node-RED runs (docs/examples.md):',
    ...LIS_ENV.map((v) => `- \`${v}\``),
    '',
    '## The folder',
    `folder-link polls the folder (every 2 s; network shares give no reliable change events) for files named \`${spec.pattern ?? '*.csv'}\` and takes a file once its size and time have not changed for 5 s (or set a marker file). Each file is stored in the result journal (lis-bridge/ under the Node-RED user directory) by its content before it is read: a file seen again, under another name or after a restart, is not sent twice. Once every result of a file is delivered it moves to \`done/\`; a file that cannot be read moves to \`error/\` with a \`.reason.txt\` saying why, and the error reaches the Catch node. Map every test the instrument reports: a result with no LIS test is held for a person, never sent as it came: the Lab sidebar lists it under Waiting for a person; map the test, deploy, then Send it there (it reaches the LIS once), or Dismiss it with the reason. The debug node "held: no LIS test" shows a copy.`,
    '',
    '## Test codes',
    'One test map (the pencil beside Test map in any test-mapper) holds them for orders and results alike: a change takes effect on Deploy.',
    ...mapping.map((m) => `- ${m.lisName} (${m.lisTestId}, LIS code ${m.lisCode}) = instrument test \`${m.instrumentCode}\``),
    ...(placeholders ? ['', "The LIS tests above are placeholders named after the instrument's analytes (the demo LIS catalog has none of them): set your LIS's tests in the analyzer's test map (the pencil beside Test map in its test-mappers)."] : []),
    '',
    '## Notes',
    ...spec.notes.map((n) => `- ${n}`),
    '- The Bearer Token is read from LIS_TOKEN (lis-config: "Bearer Token from env var"); the flow holds no secret.',
    '- Results the LIS did not accept are held (the file stays until they are delivered): the status of "send results" shows how many; resend or discard them with a lis:resend / lis:discard message or GET /lis-bridge/held (README, Reliability).',
  ].join('\n');

  const folder = id('folder-link');
  const message = id('file-message');
  const toLis = id('map-to-lis');
  const send = id('lis-send-results');
  const processed = id('processed-list');
  const split = id('split-processed');
  const markProcessed = id('lis-mark-processed');
  const unmappedDebug = id('debug-unmapped');
  const otherDebug = id('debug-other');
  const errorsDebug = id('debug-errors');
  const lis = SHARED_LIS_ID;
  return [
    { id: tab, type: 'tab', label: tabLabel(spec, profile), disabled: false, info: '', env: settings.map((v) => ({ name: v.name, value: v.value, type: 'str' })) },
    { id: id('comment'), type: 'comment', name: `How to set up: ${profile.label}`, info, ...at(L.comment), wires: [] },
    sharedLisConfig(),
    { id: folder, type: 'folder-link', name: spec.analyzer, analyzer: spec.analyzer, folder: '${ANALYZER_FOLDER}', pattern: spec.pattern ?? '*.csv', marker: '', after: 'move', ...at(L.folder), wires: [[message]] },
    { id: message, type: 'file-message', name: profile.label.slice(0, 40), dialect: profile.id, dialectOverrides: '', timeZone: '', ...at(L.message), wires: [[toLis], []] },
    testMap(id('test-map'), tab, lis, `${profile.vendor} ${profile.model}`, mapping),
    { id: toLis, type: 'test-mapper', name: 'instrument -> LIS codes', map: id('test-map'), direction: 'toLis', unmapped: 'warn', ...at(L.toLis), wires: [[send], []] },
    { id: send, type: 'lis-send-results', name: 'send results', lis, autoResend: false, autoResendSeconds: '30', heldWarnMinutes: '60', ...at(L.send), wires: [[processed]] },
    { id: processed, type: 'change', name: 'processed per sample', rules: [{ t: 'set', p: 'payload', pt: 'msg', to: 'processed', tot: 'msg' }], action: '', property: '', from: '', to: '', reg: false, ...at(L.processed), wires: [[split]] },
    { id: split, type: 'split', name: '', splt: '\\n', spltType: 'str', arraySplt: 1, arraySpltType: 'len', stream: false, addname: '', property: 'payload', ...at(L.split), wires: [[markProcessed]] },
    { id: markProcessed, type: 'lis-mark-processed', name: 'mark processed', lis, ...at(L.markProcessed), wires: [[]] },
    { id: unmappedDebug, type: 'comment', name: 'unmapped: held, Lab sidebar', info: HELD_INFO, ...at(L.unmappedDebug), wires: [] },
    { id: otherDebug, type: 'comment', name: 'QC: counted, not for the LIS', info: ASIDE_INFO, ...at(L.otherDebug), wires: [] },
    { id: id('inject-catalog'), type: 'inject', name: 'read the LIS catalog', props: [{ p: 'payload' }], repeat: '', crontab: '', once: false, onceDelay: 0.1, topic: '', payload: '', payloadType: 'date', ...at(L.injectCatalog), wires: [[id('lis-get-tests')]] },
    { id: id('lis-get-tests'), type: 'lis-get-tests', name: 'LIS test catalog', lis, filterName: '', filterCode: '', ...at(L.getTests), wires: [[id('debug-catalog')]] },
    debugNode(id('debug-catalog'), 'catalog', at(L.catalogDebug)),
    { id: id('catch'), type: 'catch', name: 'every error', scope: null, uncaught: false, ...at(L.catch), wires: [[errorsDebug]] },
    debugNode(errorsDebug, `errors: ${spec.analyzer}`, at(L.errorsDebug)),
  ];
}

export function buildExample(spec: ExampleSpec, catalog: CatalogTest[] = loadCatalog()): FlowNode[] {
  if (spec.protocol === 'file') return buildFileExample(spec, catalog);
  const profile = exampleDialect(spec);
  const hl7 = spec.protocol === 'hl7';
  const id = (role: string) => createHash('sha256').update(`${spec.file}/${role}`).digest('hex').slice(0, 16);
  const tab = id('tab');
  const L = spec.demo ? DEMO_LAYOUT : EXAMPLE_LAYOUT;
  const at = ([x, y]: Point) => ({ z: tab, x, y });
  const serial = profile.serial ?? { baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 };
  const notes = lineNotes(spec, profile);

  const mapping = exampleMapping(spec, catalog);

  const settings = tabSettings(spec);
  const info = [
    `# ${profile.label}: ${profile.vendor} ${profile.model}`,
    '',
    profile.downloads
      ? 'Queries, order downloads and results between the analyzer and the LIS (spec 1.5): the analyzer scans a barcode, lis-get-order asks the LIS, the order goes down mapped to the analyzer\'s test codes; results come back mapped to LIS codes and are sent once; each processed sample is reported.'
      : 'Results from the analyzer to the LIS (spec 1.5): results come mapped to LIS codes and are sent once; each processed sample is reported. The order paths (lis-get-order, orders the LIS pushes) are wired as in every example but stay idle: this dialect has no order download documented in its sources, so the analyzer\'s orders are entered on the analyzer.',
    '',
    '## This analyzer\'s settings (the tab\'s environment variables)',
    'Double-click the tab > Environment Variables; the nodes read them as `${NAME}`:',
    ...settings.map((v) => `- \`${v.name}\` (default \`${v.value}\`): ${v.meaning}`),
    '',
    '## The LIS (Node-RED\'s environment, shared by every analyzer)',
    'One lis-config "LIS" serves every example: set these where Node-RED runs (docs/examples.md):',
    ...LIS_ENV.map((v) => `- \`${v}\``),
    '',
    notes.line,
    '',
    '## Test codes',
    'One test map (the pencil beside Test map in any test-mapper) holds them for orders and results alike: a change takes effect on Deploy.',
    ...mapping.map((m) => `- ${m.lisName} (${m.lisTestId}, LIS code ${m.lisCode}) = analyzer test \`${m.instrumentCode}\``),
    '',
    '## Notes',
    ...spec.notes.map((n) => `- ${n}`),
    '- The Bearer Token is read from LIS_TOKEN (lis-config: "Bearer Token from env var"); the flow holds no secret.',
    '- lis-push-in listens on 127.0.0.1:`LIS_PUSH_PORT` for orders the LIS pushes.',
    notes.journal,
  ].join('\n');

  const lis = SHARED_LIS_ID;
  const nodes: FlowNode[] = [
    { id: tab, type: 'tab', label: tabLabel(spec, profile), disabled: false, info: '', env: settings.map((v) => ({ name: v.name, value: v.value, type: 'str' })) },
    ...(spec.demo ? [{ id: id('about'), type: 'comment', name: spec.protocol === 'hl7' ? 'npm start demo, HL7: read me' : 'npm start demo: read me', info: demoInfo(spec), ...at(L.about ?? L.comment), wires: [] }] : []),
    { id: id('comment'), type: 'comment', name: `How to set up: ${profile.label}`, info, ...at(L.comment), wires: [] },
    sharedLisConfig(),
  ];

  // The line: serial or TCP in -> astm-link -> serial or TCP out.
  const link = id(hl7 ? 'hl7-link' : 'astm-link');
  const astm = id(hl7 ? 'hl7-message' : 'astm-message');
  const lineOut = id('line-out');
  if (spec.transport === 'serial') {
    const port = id('serial-port');
    nodes.push(
      // On the tab, so ${ANALYZER_PORT} is this tab's: a config node outside any tab reads only Node-RED's environment.
      { ...serialPortNode(port, `${spec.analyzer} serial`.slice(0, 60), '${ANALYZER_PORT}', '${ANALYZER_BAUD}', serial), z: tab },
      { id: id('line-in'), type: 'serial in', name: 'analyzer', serial: port, ...at(L.lineIn), wires: [[link]] },
      { id: lineOut, type: 'serial out', name: 'analyzer', serial: port, ...at(L.lineOut), wires: [] },
    );
  } else {
    nodes.push(
      { id: id('line-in'), type: 'tcp in', name: 'analyzer', server: 'client', host: '${ANALYZER_HOST}', port: '${ANALYZER_TCP_PORT}', datamode: 'stream', datatype: 'buffer', newline: '', topic: '', trim: false, base64: false, tls: '', ...at(L.lineIn), wires: [[link]] },
      { id: lineOut, type: 'tcp out', name: 'analyzer', host: '', port: '', beserver: 'reply', base64: false, end: false, tls: '', ...at(L.lineOut), wires: [] },
      { id: id('line-status'), type: 'status', name: 'connection', scope: [id('line-in')], ...at(L.lineStatus), wires: [[link]] },
    );
  }

  const getOrder = id('lis-get-order');
  const toAnalyzer = id('map-to-analyzer');
  const toLis = id('map-to-lis');
  const send = id('lis-send-results');
  const processed = id('processed-list');
  const split = id('split-processed');
  const markProcessed = id('lis-mark-processed');
  const unmappedDebug = id('debug-unmapped');
  const otherDebug = id('debug-other');
  const errorsDebug = id('debug-errors');
  // One test map for the analyzer, which its three test-mappers (queries, results, pushed orders) share.
  const mapId = id('test-map');
  nodes.push(testMap(mapId, tab, lis, `${profile.vendor} ${profile.model}`, mapping));
  const qc = spec.qc ? id('qc') : undefined;
  if (qc) nodes.push({ id: qc, type: 'lis-qc', z: tab, name: '', analyzer: spec.analyzer, controls: [], controlsPerRun: String(spec.qc!.controlsPerRun), meanRule: '', warning: true, rules: '', byTest: [], establishing: 'hold', runMinutes: 60 });
  const mapper = (role: string, direction: string, wires: string[][], place: Point, name: string): FlowNode => ({
    id: role,
    type: 'test-mapper',
    name,
    map: mapId,
    direction,
    unmapped: 'warn',
    ...at(place),
    wires,
  });
  const debug = (nodeId: string, name: string, place: Point): FlowNode => debugNode(nodeId, name, at(place));

  // Everything the analyzer must receive (orders, "no information" answers) enters
  // the message node through one link-in, so the flow reads left to right.
  const toAnalyzerIn = id('link-in-to-analyzer');
  const linkOut = (role: string, name: string, place: Point): FlowNode => ({ id: id(role), type: 'link out', name, mode: 'link', links: [toAnalyzerIn], ...at(place), wires: [] });
  const outs = { order: id('link-out-order'), noOrder: id('link-out-no-order'), pushed: id('link-out-pushed') };

  nodes.push(
    hl7
      ? { id: link, type: 'hl7-link', name: spec.analyzer, transport: 'tcp', charset: 'msh18', ackTimeoutMs: '10000', sendAttempts: '3', maxFrameBytes: '8388608', journal: true, trace: true, traceRedact: false, ...at(L.link), wires: [[lineOut], [astm], []] }
      : { id: link, type: 'astm-link', name: spec.analyzer, transport: spec.transport, framing: 'framed', checksums: profile.astmLink?.checksums !== false, framePerRecord: profile.astmLink?.framePerRecord === true, frameTextMax: String(profile.astmLink?.frameTextMax ?? 240), replyTimeoutMs: '15000', receiveTimeoutMs: '30000', busyWaitMs: '10000', contentionWaitMs: '20000', retryDelayMs: '10000', journal: true, trace: true, traceRedact: false, ...at(L.link), wires: [[lineOut], [astm], []] },
    { id: toAnalyzerIn, type: 'link in', name: 'to the analyzer', links: [outs.order, outs.noOrder, outs.pushed], ...at(L.toAnalyzerIn), wires: [[astm]] },
    { id: astm, type: hl7 ? 'hl7-message' : 'astm-message', name: spec.demo ? (hl7 ? DEMO_HL7_NAME : DEMO_ASTM_NAME) : profile.label.slice(0, 40), dialect: profile.id, timeZone: '', ...(qc ? { qc } : {}), ...at(L.astm), wires: [[getOrder], [toLis], [link], []] },
    { id: getOrder, type: 'lis-get-order', name: 'order for the scanned sample', lis, allTests: false, ...at(L.getOrder), wires: [[toAnalyzer], [outs.noOrder]] },
    mapper(toAnalyzer, 'toInstrument', [[outs.order], []], L.toAnalyzer, 'LIS -> analyzer codes'),
    linkOut('link-out-order', 'order', L.orderOut),
    linkOut('link-out-no-order', 'no order', L.noOrderOut),
    mapper(toLis, 'toLis', [[send], []], L.toLis, 'analyzer -> LIS codes'),
    { id: send, type: 'lis-send-results', name: 'send results', lis, autoResend: false, autoResendSeconds: '30', heldWarnMinutes: '60', ...at(L.send), wires: [[processed]] },
    { id: processed, type: 'change', name: 'processed per sample', rules: [{ t: 'set', p: 'payload', pt: 'msg', to: 'processed', tot: 'msg' }], action: '', property: '', from: '', to: '', reg: false, ...at(L.processed), wires: [[split]] },
    { id: split, type: 'split', name: '', splt: '\\n', spltType: 'str', arraySplt: 1, arraySpltType: 'len', stream: false, addname: '', property: 'payload', ...at(L.split), wires: [[markProcessed]] },
    { id: markProcessed, type: 'lis-mark-processed', name: 'mark processed', lis, ...at(L.markProcessed), wires: [[]] },
    { id: unmappedDebug, type: 'comment', name: 'unmapped: held, Lab sidebar', info: HELD_INFO, ...at(L.unmappedDebug), wires: [] },
    { id: otherDebug, type: 'comment', name: 'QC: counted, not for the LIS', info: ASIDE_INFO, ...at(L.otherDebug), wires: [] },
    // Orders the LIS pushes: mapped and downloaded unsolicited (where the analyzer takes them).
    { id: id('lis-push-in'), type: 'lis-push-in', name: 'orders pushed by the LIS', localApiAddress: '127.0.0.1', localApiPort: '${LIS_PUSH_PORT}', bodyLimit: '1048576', ...at(L.pushIn), wires: [[id('map-pushed')]] },
    mapper(id('map-pushed'), 'toInstrument', [[outs.pushed], []], L.mapPushed, 'pushed order -> analyzer codes'),
    linkOut('link-out-pushed', 'pushed order', L.pushedOut),
    // Set-up: the LIS test catalog, for checking the mapping.
    { id: id('inject-catalog'), type: 'inject', name: 'read the LIS catalog', props: [{ p: 'payload' }], repeat: '', crontab: '', once: false, onceDelay: 0.1, topic: '', payload: '', payloadType: 'date', ...at(L.injectCatalog), wires: [[id('lis-get-tests')]] },
    { id: id('lis-get-tests'), type: 'lis-get-tests', name: 'LIS test catalog', lis, filterName: '', filterCode: '', ...at(L.getTests), wires: [[id('debug-catalog')]] },
    debug(id('debug-catalog'), 'catalog', L.catalogDebug),
    { id: id('catch'), type: 'catch', name: 'every error', scope: null, uncaught: false, ...at(L.catch), wires: [[errorsDebug]] },
    // The debug sidebar shows this name beside every error: which analyzer's.
    debug(errorsDebug, `errors: ${spec.analyzer}`, L.errorsDebug),
  );
  return nodes;
}
