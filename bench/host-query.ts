/**
 * Section 4: host query overhead. Node-RED runs the generic example's TCP
 * variant (demo/examples.ts buildExample with transport 'tcp': Node-RED is a
 * TCP client of the analyzer) plus one tab where the core `http request` node
 * makes the same LIS call (flows.ts httpRequestTab).
 *
 * Our path, per query: the simulator scans a barcode (t_scan, just before
 * scan()), the query goes over the link (ENQ, frame, EOT with their ACKs),
 * astm-message reads it, lis-get-order asks the stand-in, test-mapper maps the
 * order, astm-message writes the download and astm-link sends its ENQ: the
 * first byte of the order download (t_first, when the simulator's transport
 * reads it). Overhead = t_first - t_scan - (time the stand-in spent answering).
 *
 * The HL7 path, in the same Node-RED: the Mindray CL-2000i HL7 example as
 * shipped, Node-RED again a TCP client, of bench/hl7-analyzer.ts. Per query:
 * the QRY^Q02 written (t_scan), hl7-link journals it, hl7-message reads it,
 * lis-get-order asks the stand-in, test-mapper maps the order, hl7-message
 * writes QCK^Q02 + DSR^Q03: the first byte of the QCK (its VT) read is
 * t_first. Same overhead formula.
 *
 * Core http request path: "<sample>\n" written to the trigger port (t0), the
 * reply read (t1). Overhead = t1 - t0 - (time the stand-in spent answering).
 */
import net from 'node:net';
import { ACK, ENQ, EOT, STX } from '../lib/astm/control';
import { AnalyzerSimulator, TcpServerTransport } from '../lib/sim';
import { httpRequestTab, hl7ExampleFlow, tcpClientExampleFlow } from './flows';
import { Hl7QueryAnalyzer } from './hl7-analyzer';
import type { AnsweredRequest } from '../test/support/lis-stub';
import { HL7_SAMPLE_PREFIX, benchLisEnv, sampleOf, startBenchLis } from './lis';
import { freePort, startNodeRed } from './node-red';
import type { Report } from './report';
import type { SectionRun } from './serial';
import { summarize, type Summary } from './stats';
import { TappedTransport } from './tap';
import { nowUs, type ProfileWindow } from './profile';
import { ProcessWindow, machineLoad } from './proc';

const WARM_UP = 50;

interface Timing {
  overhead: number;
  total: number;
  lis: number;
  /** Scan or trigger to the request's arrival at the stand-in. */
  before: number;
  /** Stand-in's answer finished to the first byte back. */
  after: number;
}

function timingOf(start: number, end: number, served: AnsweredRequest): Timing {
  const lis = served.answeredAt - served.arrivedAt;
  return { overhead: end - start - lis, total: end - start, lis, before: served.arrivedAt - start, after: end - served.answeredAt };
}

function summaries(ts: Timing[]): Record<keyof Timing, Summary> {
  return {
    overhead: summarize(ts.map((t) => t.overhead)),
    total: summarize(ts.map((t) => t.total)),
    lis: summarize(ts.map((t) => t.lis)),
    before: summarize(ts.map((t) => t.before)),
    after: summarize(ts.map((t) => t.after)),
  };
}

function timeout<T>(p: Promise<T>, msToWait: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: nothing within ${msToWait} ms`)), msToWait);
    }),
  ]);
}

async function connectWithRetry(port: number, forMs: number): Promise<net.Socket> {
  const until = Date.now() + forMs;
  for (;;) {
    try {
      return await new Promise<net.Socket>((resolve, reject) => {
        const s = net.connect({ host: '127.0.0.1', port });
        s.setNoDelay(true);
        s.once('error', reject);
        s.once('connect', () => {
          s.off('error', reject);
          resolve(s);
        });
      });
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

export async function benchHostQuery(report: Report, queries: number, profile: boolean, log: (s: string) => void): Promise<SectionRun> {
  const lis = await startBenchLis();
  const orders = new Map<string, AnsweredRequest>();
  lis.onAnswered = (r) => {
    if (r.path === '/api/orders') orders.set(sampleOf(r), r);
  };
  const analyzerPort = await freePort();
  const hl7Port = await freePort();
  const triggerPort = await freePort();
  const hl7Analyzer = new Hl7QueryAnalyzer();
  await hl7Analyzer.listen(hl7Port);
  const tap = new TappedTransport(new TcpServerTransport(analyzerPort));
  const sim = new AnalyzerSimulator({ dialect: 'generic-lis2a2', transport: tap, seed: 'bench', timeZone: 'UTC', queryTimeoutMs: 30_000 });
  await sim.start();
  const red = await startNodeRed({
    flow: [...tcpClientExampleFlow(await freePort()), ...hl7ExampleFlow(await freePort()), ...httpRequestTab()],
    env: { ...benchLisEnv(lis), ANALYZER_HOST: '127.0.0.1', ANALYZER_TCP_PORT: String(analyzerPort), HL7_ANALYZER_TCP_PORT: String(hl7Port), BENCH_TRIGGER_PORT: String(triggerPort) },
    profile,
  });
  let profiles: string[] = [];
  const windows: ProfileWindow[] = [];
  let trigger: net.Socket | undefined;
  try {
    await timeout(sim.waitConnected(), 20_000, 'Node-RED connecting to the analyzer');
    await timeout(hl7Analyzer.waitConnected(), 20_000, 'Node-RED connecting to the HL7 analyzer');

    // ----- our nodes -----
    log(`4: ${queries} host queries through astm-link, astm-message, lis-get-order, test-mapper (+${WARM_UP} warm-up)`);
    let scanning = false;
    let firstAt: number | undefined;
    let onEot: (() => void) | undefined;
    // Each query's way over the link, for the breakdown: writes of ENQ, frame(s), EOT and the ACKs read.
    let marks: { enq?: number; ack1?: number; frame?: number; ack2?: number; eot?: number } = {};
    tap.onWrite = (bytes, at) => {
      if (!scanning) return;
      if (bytes[0] === ENQ && marks.enq === undefined) marks.enq = at;
      else if (bytes[0] === STX) marks.frame = at;
      else if (bytes[0] === EOT && marks.eot === undefined) marks.eot = at;
    };
    tap.onRead = (bytes, at) => {
      if (scanning && bytes.includes(ACK)) {
        if (marks.frame === undefined) marks.ack1 ??= at;
        else marks.ack2 = at;
      }
      if (scanning && firstAt === undefined && bytes.includes(ENQ)) firstAt = at;
      if (onEot && bytes.includes(EOT)) {
        const done = onEot;
        onEot = undefined;
        done();
      }
    };
    const ours: Timing[] = [];
    const hops: Record<'scanToEnq' | 'enqToAck' | 'frameToAck' | 'eotToLis' | 'lisToDownload', number[]> = { scanToEnq: [], enqToAck: [], frameToAck: [], eotToLis: [], lisToDownload: [] };
    let noOrder = 0;
    let fromUs = nowUs();
    let redWindow = new ProcessWindow(red.pid);
    let benchWindow = new ProcessWindow(process.pid);
    for (let i = 0; i < WARM_UP + queries; i++) {
      const sample = `HQ-${i + 1}`;
      firstAt = undefined;
      marks = {};
      scanning = true;
      const downloadEnded = new Promise<void>((resolve) => (onEot = resolve));
      const scanAt = performance.now();
      const answer = await timeout(sim.scan(sample), 30_000, `query ${sample}`);
      // The host's EOT ends its transfer: the line is neutral again before the next scan.
      await timeout(downloadEnded, 5_000, `EOT after the download for ${sample}`);
      scanning = false;
      if (!answer.order) noOrder++;
      const served = orders.get(sample);
      if (i >= WARM_UP && served && firstAt !== undefined) {
        ours.push(timingOf(scanAt, firstAt, served));
        const m = marks;
        if (m.enq !== undefined && m.ack1 !== undefined && m.frame !== undefined && m.ack2 !== undefined && m.eot !== undefined) {
          hops.scanToEnq.push(m.enq - scanAt);
          hops.enqToAck.push(m.ack1 - m.enq);
          hops.frameToAck.push(m.ack2 - m.frame);
          hops.eotToLis.push(served.arrivedAt - m.eot);
          hops.lisToDownload.push(firstAt - served.answeredAt);
        }
      }
    }
    tap.onRead = undefined;
    tap.onWrite = undefined;
    windows.push({ label: 'section 4, our nodes', fromUs, toUs: nowUs() });
    const oursProcess = { nodeRed: redWindow.end(), bench: benchWindow.end(), ...machineLoad() };

    // ----- our nodes, HL7 -----
    log(`4: ${queries} host queries through hl7-link, hl7-message, lis-get-order, test-mapper (+${WARM_UP} warm-up)`);
    const hl7: Timing[] = [];
    let hl7NotFound = 0;
    fromUs = nowUs();
    redWindow = new ProcessWindow(red.pid);
    benchWindow = new ProcessWindow(process.pid);
    for (let i = 0; i < WARM_UP + queries; i++) {
      const sample = `${HL7_SAMPLE_PREFIX}${i + 1}`;
      const scanAt = performance.now();
      const answer = await timeout(hl7Analyzer.query(sample), 30_000, `HL7 query ${sample}`);
      if (answer.status !== 'OK') hl7NotFound++;
      const served = orders.get(sample);
      if (i >= WARM_UP && served) hl7.push(timingOf(scanAt, answer.firstAt, served));
    }
    windows.push({ label: 'section 4, our nodes, HL7', fromUs, toUs: nowUs() });
    const hl7Process = { nodeRed: redWindow.end(), bench: benchWindow.end(), ...machineLoad() };

    // ----- the core http request node -----
    log(`4: ${queries} of the same LIS call through the core http request node (+${WARM_UP} warm-up)`);
    trigger = await connectWithRetry(triggerPort, 10_000);
    let onReply: ((at: number) => void) | undefined;
    trigger.on('data', () => {
      const at = performance.now();
      const done = onReply;
      onReply = undefined;
      done?.(at);
    });
    const core: Timing[] = [];
    fromUs = nowUs();
    redWindow = new ProcessWindow(red.pid);
    benchWindow = new ProcessWindow(process.pid);
    for (let i = 0; i < WARM_UP + queries; i++) {
      const sample = `HR-${i + 1}`;
      const replied = new Promise<number>((resolve) => (onReply = resolve));
      const t0 = performance.now();
      trigger.write(`${sample}\n`);
      const t1 = await timeout(replied, 10_000, `http request for ${sample}`);
      const served = orders.get(sample);
      if (i >= WARM_UP && served) core.push(timingOf(t0, t1, served));
    }

    windows.push({ label: 'section 4, core http request node', fromUs, toUs: nowUs() });
    const coreProcess = { nodeRed: redWindow.end(), bench: benchWindow.end(), ...machineLoad() };
    const o = summaries(ours);
    const c = summaries(core);
    const section = '4 host query overhead';
    report.add({ key: 'hostQuery.ours.p50', section, label: 'scan -> first download byte minus LIS time, p50 (our nodes, TCP)', value: o.overhead.p50, unit: 'ms', note: `${o.overhead.n} queries` });
    report.add({ key: 'hostQuery.ours.p99', section, label: 'same, p99', value: o.overhead.p99, unit: 'ms', goal: { text: '< 2 ms', met: o.overhead.p99 < 2 } });
    report.add({ key: 'hostQuery.core.p50', section, label: 'same LIS call by core http request node, p50', value: c.overhead.p50, unit: 'ms', note: `${c.overhead.n} calls` });
    report.add({ key: 'hostQuery.core.p99', section, label: 'core http request node, p99', value: c.overhead.p99, unit: 'ms' });
    const h = summaries(hl7);
    report.add({ key: 'hostQuery.hl7.p50', section, label: 'QRY^Q02 written -> first byte of QCK^Q02 minus LIS time, p50 (our nodes, HL7 example, TCP)', value: h.overhead.p50, unit: 'ms', note: `${h.overhead.n} queries` });
    report.add({ key: 'hostQuery.hl7.p99', section, label: 'same, HL7, p99', value: h.overhead.p99, unit: 'ms', goal: { text: '< 2 ms', met: h.overhead.p99 < 2 } });
    report.add({ key: 'hostQuery.ratio.p50', section, label: 'ratio ours / core http request, p50', value: o.overhead.p50 / c.overhead.p50, unit: 'x' });
    report.add({ key: 'hostQuery.ratio.p99', section, label: 'ratio ours / core http request, p99', value: o.overhead.p99 / c.overhead.p99, unit: 'x' });
    report.add({ key: 'hostQuery.hl7Ratio.p50', section, label: 'ratio ours HL7 / core http request, p50', value: h.overhead.p50 / c.overhead.p50, unit: 'x' });
    report.add({ key: 'hostQuery.hl7Ratio.p99', section, label: 'ratio ours HL7 / core http request, p99', value: h.overhead.p99 / c.overhead.p99, unit: 'x' });
    report.detail('hostQuery', {
      queries,
      warmUp: WARM_UP,
      ours: o,
      core: c,
      oursHops: Object.fromEntries(Object.entries(hops).map(([k, v]) => [k, summarize(v)])),
      answeredWithoutOrder: noOrder,
      hl7: h,
      hl7AnsweredNotFound: hl7NotFound,
      hl7Process,
      oursProcess,
      coreProcess,
    });
  } finally {
    trigger?.destroy();
    await sim.stop();
    await hl7Analyzer.stop();
    profiles = await red.stop();
    await lis.stop();
  }
  return { profiles, windows };
}
