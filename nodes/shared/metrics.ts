/**
 * GET /lis-bridge/metrics: the bridge's metrics in Prometheus's text format
 * (prom-client writes it), with the permission of the other read-only admin
 * routes (`lis.read`). One registry per editor app, not prom-client's global
 * one, so two runtimes in one process, or another package's metrics, never
 * mix with these.
 *
 * Link metrics are read from the health board when scraped: the message path
 * only adds to plain numbers there. LIS requests and journal commits are
 * observed as they happen (a histogram cannot be rebuilt afterwards); both
 * are a handful per message, never per byte.
 *
 * Labels are node ids and names, the analyzer's own name (H-5), endpoints
 * and outcomes: nothing of a patient, a sample or a secret, and few values.
 */
import type { NodeAPI } from 'node-red';
import type { Request, Response } from 'express';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { type Counts, type HealthSnapshot, TRANSPORT_STATES } from '../../lib/health';
import type { AppendObserver } from '../../lib/journal';
import type { LisObserver } from '../../lib/lis';
import type { TestQcState } from '../../lib/qc';
import { answerError, installRoutesOnce } from './admin';
import { healthSnapshot } from './health';
import { openedJournal, whenJournalOpens } from './journal';
import { qcNodes } from './qc-routes';

export const METRICS_PATH = '/lis-bridge/metrics';

export interface BridgeMetrics {
  registry: Registry;
  lis: LisObserver;
  journal: AppendObserver;
  /** The board as read for the latest scrape (a scrape running beside it reads a board as fresh). */
  current: HealthSnapshot | undefined;
  /** The journal's messages not at their end, as read for the latest scrape (the Lab sidebar's verdict counts the same). */
  unfinished: { onTheirWay: number; notUnderstood: number } | undefined;
  /** Each deployed lis-qc's analyzer, as read for the latest scrape. */
  qc: QcReading[];
}

export interface QcReading {
  analyzer: string;
  tests: Array<{ test: string; state: TestQcState; openEvents: number }>;
  violations: Array<{ test: string; rule: string; count: number }>;
}

/** The QC states a test can be in, each a value of lisbridge_qc_state's `state` label. */
const QC_STATES: readonly TestQcState[] = ['in-control', 'warning', 'rejected', 'accepted', 'establishing', 'no-qc-today'];

const byApp = new WeakMap<object, BridgeMetrics>();

/** The editor app's metrics (and their route), made on first use. */
export function metricsFor(RED: NodeAPI): BridgeMetrics {
  const app = RED.httpAdmin as unknown as object;
  let metrics = byApp.get(app);
  if (!metrics) {
    metrics = createMetrics(RED);
    byApp.set(app, metrics);
    const made = metrics;
    whenJournalOpens(RED, (journal) => journal.observe(made.journal));
    installRoutesOnce(RED, 'metrics', () => installRoute(RED, made));
  }
  return metrics;
}

function installRoute(RED: NodeAPI, metrics: BridgeMetrics): void {
  const admin = RED.httpAdmin as unknown as { get: (path: string, ...h: unknown[]) => void };
  admin.get(METRICS_PATH, RED.auth.needsPermission('lis.read'), (_req: Request, res: Response) => {
    healthSnapshot(RED, true)
      .then(async (snapshot) => {
        metrics.current = snapshot;
        metrics.unfinished = (await openedJournal(RED))?.unfinished();
        metrics.qc = await qcReadings(RED);
        const text = await metrics.registry.metrics();
        // Written as is: express's send() would reorder prom-client's content type.
        res.setHeader('Content-Type', metrics.registry.contentType);
        res.end(text);
      })
      .catch((err: unknown) => answerError(res, 500, err));
  });
}

/** A lis-qc whose settings or store failed has no reading: its node's status and the Lab sidebar say why. */
async function qcReadings(RED: NodeAPI): Promise<QcReading[]> {
  const now = Date.now();
  const out: QcReading[] = [];
  for (const node of qcNodes(RED)) {
    if (node.setupError()) continue;
    const monitor = await node.monitor().catch(() => undefined);
    if (!monitor) continue;
    const tests = monitor.view(now).map((t) => ({ test: t.test, state: t.state, openEvents: t.events.length }));
    out.push({ analyzer: node.analyzer, tests, violations: monitor.violationTotals() });
  }
  return out;
}

const LINK = ['link', 'link_name'] as const;
const ALARM_CODES = ['LINK_QUIET', 'LINK_DOWN', 'HELD'] as const;
const BY_ANALYZER = [...LINK, 'analyzer'] as const;

/** Per link and analyzer, the board's totals: counters that never go down while the process runs. */
const COUNTERS: Array<{ name: string; help: string; count: keyof Counts; extra?: Record<string, string> }> = [
  { name: 'lisbridge_link_messages_received_total', help: 'Complete messages received from the analyzer', count: 'received' },
  { name: 'lisbridge_link_messages_sent_total', help: 'Messages sent to the analyzer and acknowledged by it', count: 'sent' },
  { name: 'lisbridge_link_queries_total', help: 'Samples the analyzer asked orders for (host queries)', count: 'queries' },
  { name: 'lisbridge_link_results_total', help: 'Results read from the analyzer\'s messages: patient results, QC and no-result words', count: 'results' },
  { name: 'lisbridge_link_errors_total', help: 'Failures on the link: a message not accepted, text discarded, input refused, a message not understood', count: 'errors' },
];

/** How the link's results ended, by the `ending` label: the Lab sidebar's day counts, as totals. */
const ENDINGS: Array<[label: string, count: keyof Counts]> = [
  ['delivered', 'delivered'],
  ['held', 'heldForPerson'],
  ['discarded', 'discarded'],
  ['not_for_lis', 'notForLis'],
  ['released', 'released'],
  ['dismissed', 'dismissed'],
  ['evaluated', 'evaluated'],
];

/** A new set of the bridge's metrics in a registry of its own (exported for the test of the shipped dashboard). */
export function createMetrics(RED: Pick<NodeAPI, 'settings'>): BridgeMetrics {
  const registry = new Registry();
  const settings = (RED.settings as unknown as { lisBridge?: { metrics?: { process?: boolean } } }).lisBridge?.metrics;
  // The Node.js process's own metrics (memory, event loop lag) only when asked: Node-RED may be scraped for them already.
  if (settings?.process === true) collectDefaultMetrics({ register: registry, prefix: 'lisbridge_' });
  const metrics: BridgeMetrics = { registry, lis: undefined as never, journal: undefined as never, current: undefined, unfinished: undefined, qc: [] };
  const links = () => metrics.current?.links ?? [];
  const nameOf = (l: { node: string; name: string }) => ({ link: l.node, link_name: l.name });

  for (const c of COUNTERS) {
    new Counter({
      name: c.name,
      help: c.help,
      labelNames: BY_ANALYZER,
      registers: [registry],
      collect() {
        this.reset();
        for (const l of links()) for (const [analyzer, totals] of l.totals) this.inc({ ...nameOf(l), analyzer }, totals[c.count]);
      },
    });
  }
  new Counter({
    name: 'lisbridge_link_results_ended_total',
    help: "Results of the link by where they ended first (delivered to the LIS, held for a person, discarded by one after the LIS refused them, not for the LIS by the dialect's own rule: these four add up to the results read), and held ones a person resolved (released: sent and delivered; dismissed; evaluated: a control identified by a person and judged in the QC store)",
    labelNames: [...BY_ANALYZER, 'ending'],
    registers: [registry],
    collect() {
      this.reset();
      for (const l of links()) for (const [analyzer, t] of l.totals) for (const [ending, count] of ENDINGS) this.inc({ ...nameOf(l), analyzer, ending }, t[count]);
    },
  });
  new Counter({
    name: 'lisbridge_link_naks_total',
    help: 'Negative acknowledgements on the link: sent (we refused a frame) or received (the analyzer refused ours)',
    labelNames: [...BY_ANALYZER, 'direction'],
    registers: [registry],
    collect() {
      this.reset();
      for (const l of links())
        for (const [analyzer, t] of l.totals) {
          this.inc({ ...nameOf(l), analyzer, direction: 'sent' }, t.naksSent);
          this.inc({ ...nameOf(l), analyzer, direction: 'received' }, t.naksReceived);
        }
    },
  });
  for (const [name, help, key] of [
    ['lisbridge_link_last_received_timestamp_seconds', 'When the last message from the analyzer was received (Unix time)', 'lastReceived'],
    ['lisbridge_link_last_sent_timestamp_seconds', 'When the analyzer last acknowledged a message sent to it (Unix time)', 'lastSent'],
  ] as const) {
    new Gauge({
      name,
      help,
      labelNames: BY_ANALYZER,
      registers: [registry],
      collect() {
        this.reset();
        for (const l of links()) for (const [analyzer, t] of l.totals) if (t[key] !== undefined) this.set({ ...nameOf(l), analyzer }, t[key] / 1000);
      },
    });
  }
  new Gauge({
    name: 'lisbridge_link_state',
    help: 'Transport state of the link: 1 for the state it is in (connected, disconnected, listening: a TCP server with no analyzer, port-missing, port-shared: another link keeps its serial port, unknown), 0 for the others',
    labelNames: [...LINK, 'state'],
    registers: [registry],
    collect() {
      this.reset();
      for (const l of links()) for (const state of TRANSPORT_STATES) this.set({ ...nameOf(l), state }, l.deployed && l.transport === state ? 1 : 0);
    },
  });
  new Gauge({
    name: 'lisbridge_link_up',
    help: '1 while the link is deployed and its transport connected (the serial port open, or an analyzer connected over TCP)',
    labelNames: LINK,
    registers: [registry],
    collect() {
      this.reset();
      for (const l of links()) this.set(nameOf(l), l.deployed && l.transport === 'connected' ? 1 : 0);
    },
  });
  new Gauge({
    name: 'lisbridge_link_connections',
    help: 'Open TCP connections of the link (0 for a serial line)',
    labelNames: LINK,
    registers: [registry],
    collect() {
      this.reset();
      for (const l of links()) this.set(nameOf(l), l.connections.filter((c) => c.transport === 'connected').length);
    },
  });
  new Gauge({
    name: 'lisbridge_link_alarm',
    help: 'Alarms of the link: 1 while up (LINK_QUIET: quiet past its expected-activity rule; LINK_DOWN: transport down past its limit; HELD: held batches past their warning age), 0 otherwise',
    labelNames: [...LINK, 'code'],
    registers: [registry],
    collect() {
      this.reset();
      // The rules (working hours, limits) live with the flows: an alert on this needs no copy of them in Prometheus.
      for (const l of links()) for (const code of ALARM_CODES) this.set({ ...nameOf(l), code }, l.deployed && l.alarms.some((a) => a.code === code) ? 1 : 0);
    },
  });
  new Gauge({
    name: 'lisbridge_held_batches',
    help: 'Result batches held for an operator (failed or uncertain), by the link their message came over',
    labelNames: LINK,
    registers: [registry],
    collect() {
      this.reset();
      for (const l of links()) this.set(nameOf(l), l.held);
    },
  });
  // A folder link's files (folder-link): what waits in its folder, and what it kept apart.
  new Gauge({
    name: 'lisbridge_folder_files_waiting',
    help: 'Files in a watched folder not yet complete, or taken and their results not all delivered to the LIS',
    labelNames: LINK,
    registers: [registry],
    collect() {
      this.reset();
      for (const l of links()) if (l.files && l.deployed) this.set(nameOf(l), l.files.waiting);
    },
  });
  for (const [name, help, key] of [
    ['lisbridge_folder_duplicate_files_total', 'Files whose bytes had come before under another name: recorded, not sent again', 'duplicates'],
    ['lisbridge_folder_error_files_total', 'Files put in the error/ folder: unreadable, too big, or not understood', 'errorFiles'],
  ] as const) {
    new Counter({
      name,
      help,
      labelNames: LINK,
      registers: [registry],
      collect() {
        this.reset();
        for (const l of links()) if (l.files) this.inc(nameOf(l), l.files[key]);
      },
    });
  }
  for (const [name, key, help] of [
    ['lisbridge_messages_on_their_way', 'onTheirWay', 'Received messages whose results have not all reached their end yet (not stuck: on their way)'],
    ['lisbridge_messages_not_understood', 'notUnderstood', 'Received messages a message node could not read, within the journal\'s retention: their results, if any, are not known'],
  ] as const) {
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(metrics.unfinished?.[key] ?? 0);
      },
    });
  }
  new Gauge({
    name: 'lisbridge_results_waiting',
    help: 'Results held for a person (no LIS test for their code, say): sent once resolved, or dismissed',
    labelNames: LINK,
    registers: [registry],
    collect() {
      this.reset();
      for (const l of links()) this.set(nameOf(l), l.waiting);
    },
  });
  new Gauge({
    name: 'lisbridge_stuck_messages',
    help: 'Received messages that never reached the LIS after a replay, waiting for an operator',
    labelNames: LINK,
    registers: [registry],
    collect() {
      this.reset();
      for (const l of links()) this.set(nameOf(l), l.stuck);
    },
  });

  // QC per analyzer (the lis-qc's name for it) and test: no patient, sample or control value is a label.
  new Gauge({
    name: 'lisbridge_qc_state',
    help: "QC state of a test on an analyzer: 1 for the state it is in (in-control; warning: a 1-2s warning; rejected: an open QC event holds the test's patient results; accepted: the last run was rejected and its event accepted, results go until the next run; establishing: a lot with no accepted target; no-qc-today: no run in the last 24 hours), 0 for the others",
    labelNames: ['analyzer', 'test', 'state'],
    registers: [registry],
    collect() {
      this.reset();
      for (const a of metrics.qc) for (const t of a.tests) for (const state of QC_STATES) this.set({ analyzer: a.analyzer, test: t.test, state }, t.state === state ? 1 : 0);
    },
  });
  new Gauge({
    name: 'lisbridge_qc_open_events',
    help: 'QC events (rejected runs) of a test on an analyzer not yet accepted by a technologist',
    labelNames: ['analyzer', 'test'],
    registers: [registry],
    collect() {
      this.reset();
      for (const a of metrics.qc) for (const t of a.tests) this.set({ analyzer: a.analyzer, test: t.test }, t.openEvents);
    },
  });
  new Counter({
    name: 'lisbridge_qc_violations_total',
    help: 'Westgard rule violations of control runs judged while the process runs, by analyzer, test and rule (1-2s is a warning; each rule counted once per run)',
    labelNames: ['analyzer', 'test', 'rule'],
    registers: [registry],
    collect() {
      this.reset();
      for (const a of metrics.qc) for (const v of a.violations) this.inc({ analyzer: a.analyzer, test: v.test, rule: v.rule }, v.count);
    },
  });

  const requests = new Counter({ name: 'lisbridge_lis_requests_total', help: 'HTTP requests to the LIS, each attempt counted, by endpoint and outcome', labelNames: ['endpoint', 'outcome'], registers: [registry] });
  const retries = new Counter({ name: 'lisbridge_lis_retries_total', help: 'Retries of a LIS request, by endpoint and the outcome that caused them', labelNames: ['endpoint', 'outcome'], registers: [registry] });
  const duration = new Histogram({
    name: 'lisbridge_lis_request_duration_seconds',
    help: 'Duration of one HTTP request to the LIS, answer read, by endpoint',
    labelNames: ['endpoint'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  metrics.lis = {
    request(endpoint, outcome, seconds) {
      requests.inc({ endpoint, outcome });
      duration.observe({ endpoint }, seconds);
    },
    retry(endpoint, outcome) {
      retries.inc({ endpoint, outcome });
    },
  };

  const appends = new Counter({ name: 'lisbridge_journal_appends_total', help: 'Lines written to the result journal', registers: [registry] });
  const fsync = new Histogram({
    name: 'lisbridge_journal_fsync_duration_seconds',
    help: 'Duration of one fdatasync of the result journal (one group commit)',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [registry],
  });
  metrics.journal = {
    committed(lines, seconds) {
      appends.inc(lines);
      fsync.observe(seconds);
    },
  };
  return metrics;
}
