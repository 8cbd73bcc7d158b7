/**
 * The flows the bench deploys. All of them are the generic LIS2-A2 example as
 * shipped (examples/ASTM/generic-lis2a2-serial.json) or as demo/examples.ts builds
 * its TCP variant, and for section 4 the Mindray CL-2000i HL7 example as
 * shipped, with these changes said out loud:
 * - each tab's environment variables (docs/examples.md) are set to the bench's
 *   line and a free lis-push-in port instead of the example's default (8181,
 *   ...), so a bench run never collides with a test or a demo holding it;
 * - for the scale section, the TCP variant's `tcp in` listens (server mode)
 *   instead of connecting to one analyzer, so N analyzers can connect to one
 *   Node-RED; `tcp out` stays "reply to TCP" and astm-link keeps one link per
 *   msg._session, so each analyzer has its own link. Its "journal off"
 *   variant also sets astm-link's `journal` and `trace` to false.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLES, buildExample, examplePath, withTabEnv } from '../demo/examples';
import { ROOT, type FlowNode } from './node-red';

const GENERIC = EXAMPLES[0]!;

/** Section 4's HL7 example: the Mindray CL-2000i over HL7 (QRY^Q02 -> QCK^Q02 + DSR^Q03). */
export function hl7BenchExample(): (typeof EXAMPLES)[number] {
  const spec = EXAMPLES.find((e) => e.file === 'mindray-cl2000i-hl7-tcp');
  if (!spec) throw new Error('demo/examples.ts has no mindray-cl2000i-hl7-tcp example');
  return spec;
}

/** examples/ASTM/generic-lis2a2-serial.json as committed, on `device` at `baud`. */
export function serialExampleFlow(pushPort: number, device: string, baud: number): FlowNode[] {
  const flow = JSON.parse(readFileSync(join(ROOT, 'examples', `${examplePath(GENERIC)}.json`), 'utf8')) as FlowNode[];
  return withTabEnv(flow, { ANALYZER_PORT: device, ANALYZER_BAUD: baud, LIS_PUSH_PORT: pushPort });
}

/** The TCP variant: Node-RED is a TCP client of the analyzer at 127.0.0.1:`analyzerPort`. */
export function tcpClientExampleFlow(pushPort: number, analyzerPort: number): FlowNode[] {
  return withTabEnv(buildExample({ ...GENERIC, transport: 'tcp' }) as FlowNode[], { ANALYZER_HOST: '127.0.0.1', ANALYZER_TCP_PORT: analyzerPort, LIS_PUSH_PORT: pushPort });
}

/**
 * examples/HL7/mindray-cl2000i-hl7-tcp.json as committed, beside the ASTM example
 * in one Node-RED (each its own tab's ANALYZER_TCP_PORT); combine them with
 * combineFlows, which keeps their shared lis-config once.
 */
export function hl7ExampleFlow(pushPort: number, analyzerPort: number): FlowNode[] {
  const flow = JSON.parse(readFileSync(join(ROOT, 'examples', `${examplePath(hl7BenchExample())}.json`), 'utf8')) as FlowNode[];
  return withTabEnv(flow, { ANALYZER_HOST: '127.0.0.1', ANALYZER_TCP_PORT: analyzerPort, LIS_PUSH_PORT: pushPort });
}

/**
 * The TCP variant with `tcp in` listening on `listenPort` (its tab's ANALYZER_TCP_PORT): every analyzer connects as a client.
 *
 * `journal: 'on'` leaves astm-link as shipped (journal and frame trace on).
 * `journal: 'off'` sets astm-link's `journal: false` and `trace: false`: no
 * message is stored before its final ACK and no frame is traced. That is all
 * a flow can switch off: lis-send-results journals every batch whatever the
 * flow says (written and synced before its request, its outcome after).
 */
export function tcpServerExampleFlow(pushPort: number, listenPort: number, journal: 'on' | 'off' = 'on'): FlowNode[] {
  const flow = withTabEnv(buildExample({ ...GENERIC, file: `${GENERIC.file}-bench-server`, transport: 'tcp' }) as FlowNode[], { ANALYZER_TCP_PORT: listenPort, LIS_PUSH_PORT: pushPort });
  const lineIn = flow.filter((n) => n.type === 'tcp in');
  if (lineIn.length !== 1) throw new Error('expected one tcp in node in the TCP example');
  Object.assign(lineIn[0]!, { server: 'server', host: '', port: '${ANALYZER_TCP_PORT}' });
  const link = flow.filter((n) => n.type === 'astm-link');
  if (link.length !== 1) throw new Error('expected one astm-link node in the TCP example');
  if (journal === 'off') Object.assign(link[0]!, { journal: false, trace: false });
  else if (link[0]!.journal === false || link[0]!.trace === false) throw new Error('the example no longer has the journal and trace on: section 5 "journal on" would not measure them');
  return flow;
}

/** The headers lis-get-order sends with an order request, as function-node code (`sample` in scope). */
const ORDER_HEADERS = [
  '{',
  "  'Content-Type': 'application/json',",
  "  Accept: 'application/json',",
  "  'X-Request-ID': RED.util.generateId(),",
  "  'X-Request-Timestamp': new Date().toISOString(),",
  "  'X-Expected-Sample': sample,",
  "  Authorization: 'Bearer ' + env.get('LIS_TOKEN'),",
  '}',
].join('\n');

/**
 * Section 4's comparison: the same LIS call made by Node-RED's core
 * `http request` node. A line "<sample>\n" on a TCP connection to
 * BENCH_TRIGGER_PORT triggers it (the bench times from outside, through the
 * same kind of TCP edge the analyzer path has); a function node builds the
 * body and the headers lis-get-order sends (Content-Type, Accept,
 * X-Request-ID, X-Request-Timestamp, X-Expected-Sample, Authorization); the
 * http request node POSTs to LIS_ORDERS_URL with keep-alive (our nodes'
 * HTTP client keeps connections too) and parses the JSON answer; the reply
 * goes back on the same connection.
 */
export function httpRequestTab(): FlowNode[] {
  const tab = 'bench-http-request-tab';
  const at = (x: number, y: number) => ({ z: tab, x, y });
  const build = [
    'const sample = String(msg.payload).trim();',
    'msg.sample = sample;',
    'msg.payload = { SampleNumber: sample };',
    `msg.headers = ${ORDER_HEADERS};`,
    'return msg;',
  ].join('\n');
  return [
    { id: tab, type: 'tab', label: 'bench: core http request', disabled: false, info: '' },
    { id: 'bench-trigger', type: 'tcp in', name: 'trigger', server: 'server', host: '', port: '${BENCH_TRIGGER_PORT}', datamode: 'stream', datatype: 'utf8', newline: '\\n', topic: '', trim: false, base64: false, tls: '', ...at(120, 80), wires: [['bench-build']] },
    { id: 'bench-build', type: 'function', name: 'order request', func: build, outputs: 1, timeout: 0, noerr: 0, initialize: '', finalize: '', libs: [], ...at(300, 80), wires: [['bench-http']] },
    { id: 'bench-http', type: 'http request', name: 'LIS orders', method: 'POST', ret: 'obj', paytoqs: 'ignore', url: '${LIS_ORDERS_URL}', tls: '', persist: true, proxy: '', insecureHTTPParser: false, authType: '', senderr: false, headers: [], ...at(480, 80), wires: [['bench-answer']] },
    { id: 'bench-answer', type: 'change', name: 'answer', rules: [{ t: 'set', p: 'payload', pt: 'msg', to: 'sample', tot: 'msg' }], action: '', property: '', from: '', to: '', reg: false, ...at(660, 80), wires: [['bench-reply']] },
    { id: 'bench-reply', type: 'tcp out', name: 'reply', host: '', port: '', beserver: 'reply', base64: false, end: false, tls: '', ...at(840, 80), wires: [] },
  ];
}

/**
 * Section 4's floor: the round trips of our host query with no more Node-RED
 * work than they need, made of core nodes. A line client (the bench) writes
 * ENQ, a query frame and EOT, each after the ACK of the one before, as the
 * analyzer does; a function node ACKs ENQ and the frame (keeping the sample
 * the frame names) and, at EOT, makes the same LIS call as httpRequestTab
 * through the core http request node, whose answer is turned into the first
 * byte of a download (ENQ) on the same connection. No checksum is checked, no
 * message decoded, stored or traced, no order mapped or written: what is left
 * is the reads, writes, hops and HTTP exchange a host query cannot do without.
 * Its port: BENCH_FLOOR_PORT.
 */
export function floorTab(): FlowNode[] {
  const tab = 'bench-floor-tab';
  const at = (x: number, y: number) => ({ z: tab, x, y });
  const link = [
    'const b = msg.payload;',
    'const s = msg._session;',
    'const ack = { payload: Buffer.from([6]), _session: s };',
    'if (b.length === 1 && b[0] === 5) return [ack, null];',
    'if (b[0] === 2) {',
    "  const m = /\\rQ\\|1\\|\\^([^|^\\r]*)/.exec(b.toString('latin1'));",
    "  if (m) context.set('sample', m[1]);",
    '  return [ack, null];',
    '}',
    'if (b.length === 1 && b[0] === 4) {',
    "  const sample = context.get('sample');",
    `  return [null, { payload: { SampleNumber: sample }, headers: ${ORDER_HEADERS}, _session: s }];`,
    '}',
    'return [null, null];',
  ].join('\n');
  const answer = 'return { payload: Buffer.from([5]), _session: msg._session };';
  return [
    { id: tab, type: 'tab', label: 'bench: floor', disabled: false, info: '' },
    { id: 'floor-in', type: 'tcp in', name: 'line', server: 'server', host: '', port: '${BENCH_FLOOR_PORT}', datamode: 'stream', datatype: 'buffer', newline: '', topic: '', trim: false, base64: false, tls: '', ...at(120, 80), wires: [['floor-link']] },
    { id: 'floor-link', type: 'function', name: 'ACK, LIS call at EOT', func: link, outputs: 2, timeout: 0, noerr: 0, initialize: '', finalize: '', libs: [], ...at(300, 80), wires: [['floor-out'], ['floor-http']] },
    { id: 'floor-http', type: 'http request', name: 'LIS orders', method: 'POST', ret: 'obj', paytoqs: 'ignore', url: '${LIS_ORDERS_URL}', tls: '', persist: true, proxy: '', insecureHTTPParser: false, authType: '', senderr: false, headers: [], ...at(480, 120), wires: [['floor-answer']] },
    { id: 'floor-answer', type: 'function', name: 'ENQ', func: answer, outputs: 1, timeout: 0, noerr: 0, initialize: '', finalize: '', libs: [], ...at(660, 120), wires: [['floor-out']] },
    { id: 'floor-out', type: 'tcp out', name: 'line', host: '', port: '', beserver: 'reply', base64: false, end: false, tls: '', ...at(840, 80), wires: [] },
  ];
}
