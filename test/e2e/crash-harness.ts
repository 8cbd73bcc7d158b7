/**
 * Crash runs: the installed package in a real Node-RED process, an analyzer
 * simulator uploading a long run of results as fast as the link allows, and
 * Node-RED killed (SIGKILL) at seeded random moments and started again on the
 * same userDir. At the end every result the analyzer got an ACK for must be at
 * the LIS stand-in or held in the journal (a held batch, or a stuck message);
 * a result the LIS got twice is only excused when the one batch that carried
 * it is, or was, uncertain (and so may have been sent again).
 *
 * The analyzer speaks ASTM (generic LIS2-A2, astm-link) or, with
 * `protocol: 'hl7'`, HL7 over MLLP (the Mindray CL-2000i HL7 example's dialect
 * and mapping, hl7-link): the same kills, the same counting.
 *
 * Used by crash.test.ts (a short run), soak.ts (a long one from the command
 * line) and line-drop.test.ts (the Node-RED process, flows and tallies).
 */
import { existsSync, readFileSync } from 'node:fs';
import { EXAMPLES, exampleMapping, loadCatalog, serialPortNode } from '../../demo/examples';
import type { MappingRow } from '../../lib/mapping/model';
import { AnalyzerSimulator, Hl7AnalyzerSimulator, TcpServerTransport, type FrameEvent } from '../../lib/sim';
import { LisStub } from '../support/lis-stub';
import { NodeRedProcess, type HeldAnswer } from '../support/node-red-process';
import { Seeded } from '../support/seeded';
import { LineLog, installPackage, itemsOf, type FlowNode, type Installation } from './harness';
import { sleep, waitUntil, withTimeout } from '../support/wait';
import { killOnJournalLine, type Fired, type JournalLine, type JournalTap } from './journal-tap';
import { LineGate } from './line-gate';

export const TOKEN = 'crash-bearer-5c1e77d0';
export const TIME_ZONE = 'Europe/Berlin';

/** UTC time of day with ms, for logs that must line up with each other. */
export const stamp = (at = new Date()) => `${at.toISOString().slice(11, 23)}Z`;

// ----- the tests the analyzer reports and how the flow maps them -----

/** The analyzer's protocol: ASTM (the generic LIS2-A2 example) or HL7 (the Mindray CL-2000i HL7 example). */
export type Protocol = 'astm' | 'hl7';

const HL7_EXAMPLE = EXAMPLES.find((e) => e.file === 'mindray-cl2000i-hl7-tcp')!;
const exampleOf = (protocol: Protocol) => (protocol === 'hl7' ? HL7_EXAMPLE : EXAMPLES[0]!);

/** The generic LIS2-A2 example's tests (its analyzer codes and the LIS tests they map to). */
export const TESTS = EXAMPLES[0]!.tests;

export function mappingRows(protocol: Protocol = 'astm'): MappingRow[] {
  return exampleMapping(exampleOf(protocol));
}

/** Analyzer test code -> the LIS TestCode its result arrives under. */
export function lisCodes(protocol: Protocol = 'astm'): Map<string, string> {
  return new Map(mappingRows(protocol).map((r) => [r.instrumentCode, r.lisCode]));
}

// ----- the flow -----

export type Line = { kind: 'tcp'; port: number } | { kind: 'serial'; path: string };

export const IDS = {
  tab: 'crash-tab',
  lis: 'crash-lis',
  serial: 'crash-serial-port',
  lineIn: 'crash-line-in',
  lineOut: 'crash-line-out',
  /** Serial only: writes one NUL byte to the line when the test asks (POST /inject/<id>). */
  lineProbe: 'crash-line-probe',
  link: 'crash-astm-link',
  message: 'crash-astm-message',
  /** Only with `handOnDelayMs`: holds each received message back before it is translated. */
  handOnDelay: 'crash-hand-on-delay',
  mapper: 'crash-map-to-lis',
  send: 'crash-send-results',
  catcher: 'crash-catch',
  errors: 'crash-errors',
  /** Only with `qc`: the analyzer's lis-qc. */
  qc: 'crash-qc',
} as const;

/** With `qc`: the control the HL7 analyzer runs, its levels, the tests it covers, and the run that fails (4 SD high). */
export const QC_RUN = { control: 'QC1', levels: 3, tests: ['1', '2'], bias: 4, from: 2 } as const;

export interface CrashFlowOptions {
  /**
   * A delay node between astm-link and astm-message holding every received
   * message this long. lis-send-results journals each batch as `sending` as
   * soon as it gets it (requests run side by side), so however slow the LIS
   * is, a message is handed to the sender a few ms after its final ACK. A
   * slow step before translation (a delay here; in a real flow a lookup, a
   * rate limit) makes ACKed messages wait unhanded, in memory only, for as
   * long: the state a crash must leave to the journal's replay.
   */
  handOnDelayMs?: number;
  /** hl7: hl7-link and hl7-message (mindray-cl-hl7) with the HL7 example's mapping; TCP only. */
  protocol?: Protocol;
  /** hl7 only: a lis-qc its message node keeps the analyzer's QC in, as the HL7 example's (targets from the message). */
  qc?: boolean;
}

/**
 * line in -> astm-link -> astm-message (generic-lis2a2) -> test-mapper (to LIS)
 * -> lis-send-results, and astm-link's bytes back to the line. Ports are the
 * caller's (freePort), never an example's default (8181, ...).
 */
export function crashFlow(line: Line, lisUrl: (path: string) => string, options: CrashFlowOptions = {}): FlowNode[] {
  const delayed = options.handOnDelayMs !== undefined && options.handOnDelayMs > 0;
  const protocol = options.protocol ?? 'astm';
  if (protocol === 'hl7' && line.kind !== 'tcp') throw new Error('HL7 runs over TCP');
  if (options.qc && protocol !== 'hl7') throw new Error('QC runs with the HL7 analyzer (its control fields name level, lot and target)');
  const z = IDS.tab;
  const nodes: FlowNode[] = [
    { id: z, type: 'tab', label: 'crash run', disabled: false, info: '' },
    {
      id: IDS.lis,
      type: 'lis-config',
      name: 'LIS stand-in',
      labTestsApiUrl: lisUrl('/tests'),
      transactionInfoApiUrl: lisUrl('/orders'),
      resultApiUrl: lisUrl('/results'),
      orderCompletedApiUrl: lisUrl('/processed'),
      bearerTokenEnv: 'LIS_TOKEN',
      timeout: '5000',
      orderAttempts: '3',
      orderBackoffMs: '100',
      transientRetries: '2',
      transientBackoffMs: '200',
      maxResponseBytes: '1048576',
    },
  ];
  if (line.kind === 'tcp') {
    nodes.push(
      { id: IDS.lineIn, type: 'tcp in', z, name: 'analyzer', server: 'client', host: '127.0.0.1', port: String(line.port), datamode: 'stream', datatype: 'buffer', newline: '', topic: '', trim: false, base64: false, tls: '', x: 130, y: 100, wires: [[IDS.link]] },
      { id: IDS.lineOut, type: 'tcp out', z, name: 'analyzer', host: '', port: '', beserver: 'reply', base64: false, end: false, tls: '', x: 560, y: 60, wires: [] },
    );
  } else {
    nodes.push(
      serialPortNode(IDS.serial, 'analyzer', line.path, '9600'),
      { id: IDS.lineIn, type: 'serial in', z, name: 'analyzer', serial: IDS.serial, x: 130, y: 100, wires: [[IDS.link]] },
      { id: IDS.lineOut, type: 'serial out', z, name: 'analyzer', serial: IDS.serial, x: 560, y: 60, wires: [] },
      // A write makes the serial node notice a device that vanished when its reads did not (see line-drop.test.ts).
      { id: IDS.lineProbe, type: 'inject', z, name: 'probe the line', props: [{ p: 'payload' }], repeat: '', crontab: '', once: false, onceDelay: 0.1, topic: '', payload: '[0]', payloadType: 'bin', x: 330, y: 20, wires: [[IDS.lineOut]] },
    );
  }
  // The same ids whatever the protocol: the tests find the nodes by their part in the flow.
  const link: FlowNode =
    protocol === 'hl7'
      ? { id: IDS.link, type: 'hl7-link', z, name: 'HL7 link', transport: 'tcp', charset: 'msh18', ackTimeoutMs: '10000', sendAttempts: '3', maxFrameBytes: '8388608', journal: true, trace: true, traceRedact: false, x: 330, y: 100, wires: [[IDS.lineOut], [delayed ? IDS.handOnDelay : IDS.message], []] }
      : {
      id: IDS.link,
      type: 'astm-link',
      z,
      name: 'ASTM link',
      framing: 'framed',
      checksums: true,
      framePerRecord: false,
      frameTextMax: '240',
      replyTimeoutMs: '15000',
      // A sender that vanished mid-message (serial line pulled) is given up on quickly.
      receiveTimeoutMs: '3000',
      busyWaitMs: '10000',
      contentionWaitMs: '20000',
      retryDelayMs: '10000',
      x: 330,
      y: 100,
      wires: [[IDS.lineOut], [delayed ? IDS.handOnDelay : IDS.message], []],
    };
  nodes.push(
    link,
    ...(delayed
      ? [{ id: IDS.handOnDelay, type: 'delay', z, name: 'slow step', pauseType: 'delay', timeout: String(options.handOnDelayMs), timeoutUnits: 'milliseconds', rate: '1', nbRateUnits: '1', rateUnits: 'second', randomFirst: '1', randomLast: '5', randomUnits: 'seconds', drop: false, allowrate: false, outputs: 1, x: 450, y: 200, wires: [[IDS.message]] }]
      : []),
    protocol === 'hl7'
      ? { id: IDS.message, type: 'hl7-message', z, name: 'Mindray CL HL7', dialect: HL7_EXAMPLE.dialect, timeZone: TIME_ZONE, ...(options.qc ? { qc: IDS.qc } : {}), x: 560, y: 160, wires: [[], [IDS.mapper], [IDS.link], []] }
      : { id: IDS.message, type: 'astm-message', z, name: 'generic LIS2-A2', dialect: 'generic-lis2a2', timeZone: TIME_ZONE, x: 560, y: 160, wires: [[], [IDS.mapper], [IDS.link], []] },
    { id: IDS.mapper, type: 'test-mapper', z, name: 'analyzer -> LIS codes', lis: IDS.lis, instrument: protocol === 'hl7' ? 'Mindray CL' : 'generic', direction: 'toLis', unmapped: 'warn', mapping: mappingRows(protocol), x: 800, y: 160, wires: [[IDS.send], []] },
    { id: IDS.send, type: 'lis-send-results', z, name: 'send results', lis: IDS.lis, x: 1040, y: 160, wires: [[]] },
    { id: IDS.catcher, type: 'catch', z, name: 'every error', scope: null, uncaught: false, x: 130, y: 260, wires: [[IDS.errors]] },
    { id: IDS.errors, type: 'debug', z, name: 'errors', active: true, tosidebar: true, console: false, tostatus: false, complete: 'true', targetType: 'full', statusVal: '', statusType: 'auto', x: 360, y: 260, wires: [] },
  );
  if (options.qc) nodes.push({ id: IDS.qc, type: 'lis-qc', name: '', analyzer: 'Mindray CL', controls: [], controlsPerRun: String(QC_RUN.levels), meanRule: '', warning: true, rules: '', byTest: [], establishing: 'hold', runMinutes: 60 });
  return nodes;
}

// ----- Node-RED: one userDir, started again and again -----

/**
 * Node-RED on `userDir` with `flows` (the previous run's flows, credentials
 * and journal removed), not yet started: start() after kill() brings it back
 * on the same userDir (same flows, same journal, same port).
 */
export function prepareRed(userDir: string, flows: FlowNode[]): Promise<NodeRedProcess> {
  return NodeRedProcess.prepare({
    userDir,
    flows,
    env: { TZ: TIME_ZONE, LIS_TOKEN: TOKEN },
    // tcp in (client) and the serial port config reconnect quickly after the line drops.
    settings: { socketReconnectTime: 300, serialReconnectTime: 300 },
  });
}

// ----- the journal as the file says -----

export interface JournalView {
  /** Received messages: id -> what they were. */
  rx: Map<string, { at: number; samples: string[]; parts?: number; replayed: boolean; note?: string; /** The message's bytes, base64, as stored: an analyzer's repeat has the same. */ data: string }>;
  /** Batches: key -> what they carried and every state they were put in. */
  tx: Map<string, { at: number; message?: string; part?: number; samples: string[]; items: Array<{ SampleNumber: string; TestCode: string }>; states: string[] }>;
  /** Held results (lib/journal/holds): id -> the batch they came from and the samples they name, each line read once. */
  holds: Map<string, { kind: string; code: string; message?: string; part?: number; endsPart: boolean; samples: string[]; lines: number }>;
  invalid: number;
}

/** Reads journal.jsonl line by line (no validation but JSON): what a post-mortem would look at. */
export function readJournal(file: string): JournalView {
  const view: JournalView = { rx: new Map(), tx: new Map(), holds: new Map(), invalid: 0 };
  if (!existsSync(file)) return view;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    let e: Record<string, unknown>;
    try {
      e = JSON.parse(line) as Record<string, unknown>;
    } catch {
      view.invalid++;
      continue;
    }
    if (e.e === 'rx') view.rx.set(String(e.id), { at: Number(e.at), samples: samplesIn(Buffer.from(String(e.data), 'base64').toString('latin1')), replayed: false, data: String(e.data) });
    else if (e.e === 'rxu') {
      const m = view.rx.get(String(e.id));
      if (!m) continue;
      if (typeof e.parts === 'number') m.parts = e.parts;
      if (e.replayed === true) m.replayed = true;
      if (typeof e.note === 'string') m.note = e.note;
    } else if (e.e === 'tx') {
      const items = Array.isArray(e.body) ? (e.body as Array<{ SampleNumber: string; TestCode: string }>) : [];
      view.tx.set(String(e.key), { at: Number(e.at), ...(typeof e.message === 'string' ? { message: e.message } : {}), ...(typeof e.part === 'number' ? { part: e.part } : {}), samples: (e.samples as string[]) ?? [], items, states: ['sending'] });
    } else if (e.e === 'txu') view.tx.get(String(e.key))?.states.push(String(e.state));
    else if (e.e === 'hold') {
      for (const h of e.holds as Array<{ id: string; kind: string; code: string; results: Array<{ result: { SampleNumber?: string } }> }>) {
        const known = view.holds.get(h.id);
        if (known) known.lines++;
        else view.holds.set(h.id, { kind: String(h.kind), code: String(h.code), ...(typeof e.message === 'string' ? { message: e.message } : {}), ...(typeof e.part === 'number' ? { part: e.part } : {}), endsPart: e.endsPart === true, samples: h.results.map((r) => String(r.result.SampleNumber ?? '')), lines: 1 });
      }
    }
  }
  return view;
}

/** Distinct parts of message `id` handed to the sender: one tx line each (journal.ts markHanded). */
export function handedParts(view: JournalView, id: string): number {
  const parts = new Set<number>();
  for (const b of view.tx.values()) if (b.message === id && b.part !== undefined) parts.add(b.part);
  // A batch whose results were all held ended in its hold line.
  for (const h of view.holds.values()) if (h.endsPart && h.message === id && h.part !== undefined) parts.add(h.part);
  return parts.size;
}

/** Every batch the message made was handed to the sender (journal.ts isSettled). */
export function settledIn(view: JournalView, id: string): boolean {
  const m = view.rx.get(id);
  return m !== undefined && m.parts !== undefined && handedParts(view, id) >= m.parts;
}

/** What the next start replays, per the file (journal.ts toReplay): stored, never settled, never replayed. */
export function dueForReplay(view: JournalView): Set<string> {
  return new Set([...view.rx.keys()].filter((id) => !view.rx.get(id)!.replayed && !settledIn(view, id)));
}

/** Sample numbers in a generic LIS2-A2 message (O-3) or a Mindray CL HL7 one (OBR-2, lib/protocols/hl7/dialects/mindray-cl.ts). */
export function samplesIn(text: string): string[] {
  const out: string[] = [];
  for (const record of text.split(/\r\n?|\n/)) {
    const fields = record.split('|');
    if ((/^\d?O$/.test(fields[0] ?? '') || fields[0] === 'OBR') && fields[2]) out.push(fields[2]);
  }
  return out;
}

// ----- counting -----

export interface PlannedMessage {
  sample: string;
  /** Analyzer test codes. */
  tests: string[];
}

/** `results` results in messages of 1-3 results, each its own sample, with tests drawn from the example's. */
export function planMessages(results: number, rng: Seeded, prefix: string, protocol: Protocol = 'astm'): PlannedMessage[] {
  const codes = exampleOf(protocol).tests.map((t) => t.instrumentCode);
  const plan: PlannedMessage[] = [];
  for (let left = results, i = 1; left > 0; i++) {
    const n = Math.min(left, rng.int(1, 3));
    plan.push({ sample: `${prefix}${String(i).padStart(5, '0')}`, tests: rng.pick(codes, n) });
    left -= n;
  }
  return plan;
}

export interface Counts {
  sentMessages: number;
  sent: number;
  ackedMessages: number;
  acked: number;
  delivered: number;
  held: number;
  lost: number;
  duplicated: number;
  /** Duplicated results carried by one batch only, which is or was uncertain (so it may have been sent again): the allowed kind. */
  duplicatedUncertain: number;
  heldBatches: number;
  uncertainBatches: number;
  failedBatches: number;
  stuck: number;
  replayed: number;
  /** Results the LIS got that the analyzer never sent. */
  foreign: number;
}

export interface Tally {
  counts: Counts;
  lostKeys: string[];
  /** Every result the LIS got more than once (`sample|TestCode`). */
  duplicatedKeys: string[];
  unexplainedDuplicates: string[];
  foreignKeys: string[];
  /** Journal ids of stuck messages (GET /lis-bridge/held: replayed, yet their results never all reached the sender). */
  stuckIds: string[];
  /** The story of a sample with lost or unexplained results: what the simulator, the LIS and the journal saw. */
  explain(sample: string): string;
  /** Lost, unexplained duplicate, foreign and stuck results, one paragraph per sample. */
  problems(): string;
}

export interface TallyInput {
  plan: PlannedMessage[];
  /** Samples whose message the analyzer got the final ACK for. */
  acked: Set<string>;
  stub: LisStub;
  held: HeldAnswer;
  journal: JournalView;
  /** The simulator's frame log around a sample's messages, for the explanations. */
  simContext?: (sample: string) => string[];
  /** Whose mapping the results arrived under (default astm). */
  protocol?: Protocol;
}

const keyOf = (sample: string, lisCode: string) => `${sample}|${lisCode}`;

export function tally(input: TallyInput): Tally {
  const codes = lisCodes(input.protocol);
  const bySample = new Map(input.plan.map((p) => [p.sample, p]));
  const resultKeys = (sample: string) => (bySample.get(sample)?.tests ?? []).map((t) => keyOf(sample, codes.get(t) ?? t));
  const sent = new Set(input.plan.flatMap((p) => resultKeys(p.sample)));
  const acked = new Set([...input.acked].flatMap(resultKeys));

  // At the LIS: every request, whatever happened to its answer (a request cut by a kill arrived all the same).
  const deliveries = new Map<string, number[]>();
  input.stub.to('/results').forEach((req, i) => {
    for (const item of itemsOf(req)) {
      const k = keyOf(item.SampleNumber, item.TestCode);
      deliveries.set(k, [...(deliveries.get(k) ?? []), i]);
    }
  });

  const heldKeys = new Set<string>();
  for (const b of input.held.batches) {
    const carried = input.journal.tx.get(b.key)?.items;
    if (carried && carried.length > 0) carried.forEach((it) => heldKeys.add(keyOf(it.SampleNumber, it.TestCode)));
    else b.samples.flatMap(resultKeys).forEach((k) => heldKeys.add(k));
  }
  for (const s of input.held.stuck) for (const sample of input.journal.rx.get(s.id)?.samples ?? []) resultKeys(sample).forEach((k) => heldKeys.add(k));
  // Held for a person (a QC gate, an unmapped code): kept in the journal with its reason, each under its code.
  for (const h of input.journal.holds.values()) for (const sample of h.samples) heldKeys.add(keyOf(sample, codes.get(h.code) ?? h.code));

  // Which batches carried each result, and which results only ever travelled in one batch that is or was
  // uncertain (held as such now, or put in that state at some point): sending such a batch again is the one
  // way a result may reach the LIS twice. Two batches for one result mean the bridge processed it twice.
  const carriers = new Map<string, string[]>();
  for (const [key, b] of input.journal.tx) {
    for (const it of b.items) {
      const k = keyOf(it.SampleNumber, it.TestCode);
      carriers.set(k, [...(carriers.get(k) ?? []), key]);
    }
  }
  const heldUncertain = new Set(input.held.batches.filter((b) => b.state === 'uncertain').map((b) => b.key));
  const wasUncertain = (key: string) => heldUncertain.has(key) || (input.journal.tx.get(key)?.states.includes('uncertain') ?? false);
  const uncertainKeys = new Set([...carriers].filter(([, batches]) => batches.length === 1 && wasUncertain(batches[0]!)).map(([k]) => k));

  const lostKeys = [...acked].filter((k) => !deliveries.has(k) && !heldKeys.has(k));
  const duplicated = [...deliveries].filter(([, at]) => at.length > 1).map(([k]) => k);
  const unexplainedDuplicates = duplicated.filter((k) => !uncertainKeys.has(k));
  const foreignKeys = [...deliveries.keys()].filter((k) => !sent.has(k));
  const delivered = [...sent].filter((k) => deliveries.has(k)).length;

  const counts: Counts = {
    sentMessages: input.plan.length,
    sent: sent.size,
    ackedMessages: input.acked.size,
    acked: acked.size,
    delivered,
    held: heldKeys.size,
    lost: lostKeys.length,
    duplicated: duplicated.length,
    duplicatedUncertain: duplicated.length - unexplainedDuplicates.length,
    heldBatches: input.held.batches.length,
    uncertainBatches: input.held.batches.filter((b) => b.state === 'uncertain').length,
    failedBatches: input.held.batches.filter((b) => b.state === 'failed').length,
    stuck: input.held.stuck.length,
    replayed: [...input.journal.rx.values()].filter((m) => m.replayed).length,
    foreign: foreignKeys.length,
  };

  const requests = input.stub.to('/results');
  const explain = (sample: string): string => {
    const keys = [...new Set([...resultKeys(sample), ...[...deliveries.keys()].filter((k) => k.startsWith(`${sample}|`))])];
    const lines = [`sample ${sample}: host ACK ${input.acked.has(sample) ? 'yes' : 'no'}`];
    for (const k of keys) lines.push(`  ${k.split('|')[1]}: LIS requests ${JSON.stringify(deliveries.get(k) ?? [])}, held ${heldKeys.has(k)}, carried by ${(carriers.get(k) ?? []).length} batch(es)${uncertainKeys.has(k) ? ', one that is or was uncertain' : ''}`);
    for (const [id, m] of input.journal.rx) {
      if (!m.samples.includes(sample)) continue;
      lines.push(`  journal rx ${id} at ${stamp(new Date(m.at))}: parts ${m.parts ?? '-'}, replayed ${m.replayed}${m.note ? `, note ${JSON.stringify(m.note)}` : ''}`);
      for (const [k, b] of input.journal.tx) if (b.message === id) lines.push(`    batch ${k} at ${stamp(new Date(b.at))}: ${b.states.join(' -> ')}`);
    }
    const mine = new Set(keys.flatMap((k) => deliveries.get(k) ?? []));
    for (const i of [...mine].sort((a, b) => a - b)) lines.push(`  LIS request #${i} X-Request-ID ${String(requests[i]!.headers['x-request-id'] ?? '-')}`);
    for (const l of input.simContext?.(sample) ?? []) lines.push(`  sim ${l}`);
    return lines.join('\n');
  };
  const problems = (): string => {
    const out: string[] = [];
    const bySampleOf = (keys: string[]) => [...new Set(keys.map((k) => k.split('|')[0]!))];
    for (const sample of bySampleOf(lostKeys)) out.push(`LOST ${lostKeys.filter((k) => k.startsWith(`${sample}|`)).length} result(s) of ${explain(sample)}`);
    for (const sample of bySampleOf(unexplainedDuplicates)) out.push(`DUPLICATE not explained by one uncertain batch: ${unexplainedDuplicates.filter((k) => k.startsWith(`${sample}|`)).length} result(s) of ${explain(sample)}`);
    for (const sample of bySampleOf(foreignKeys)) out.push(`FOREIGN ${explain(sample)}`);
    // Counted as held (the journal keeps them), but nothing moves them on without an operator: each must be told.
    for (const s of input.held.stuck) {
      const samples = input.journal.rx.get(s.id)?.samples ?? [];
      out.push(`STUCK message ${s.id} (parts ${s.parts ?? '-'}, handed ${s.handed}${s.note ? `, note ${JSON.stringify(s.note)}` : ''}): ${samples.length > 0 ? samples.map(explain).join('\n') : '(no rx line in the journal)'}`);
    }
    return out.join('\n');
  };
  return { counts, lostKeys, duplicatedKeys: duplicated, unexplainedDuplicates, foreignKeys, stuckIds: input.held.stuck.map((s) => s.id), explain, problems };
}

export function countsLine(label: string, c: Counts, extra = ''): string {
  return (
    `${label}: sent ${c.sent} (${c.sentMessages} messages), acked ${c.acked}, delivered ${c.delivered}, held ${c.held}, lost ${c.lost}, ` +
    `duplicated ${c.duplicated} (uncertain ${c.duplicatedUncertain}) [held batches ${c.heldBatches}: uncertain ${c.uncertainBatches}, failed ${c.failedBatches}; stuck ${c.stuck}; replayed ${c.replayed}${c.foreign ? `; FOREIGN ${c.foreign}` : ''}${extra}]`
  );
}

// ----- the simulator's side, recorded -----

export interface SimLog {
  log: LineLog;
  /** Every line of the run (the frame log is the evidence when a result goes missing). */
  lines: string[];
  /** Lines around each frame that carried `sample`'s O record: the frame, its neighbours, the replies. */
  around(sample: string, before?: number, after?: number): string[];
  /** Samples whose result message was ACKed in full, in order. */
  acked: string[];
  failed: string[];
  /** Every result message frame the simulator put on the wire: how often each sample's O record went out. */
  oFrames: Map<string, number>;
}

/** What recordSim listens to, as both simulators (ASTM and HL7) emit it. */
interface SimEvents {
  frame: FrameEvent;
  sent: { kind: string; sampleNumber: string };
  failed: { sampleNumber: string; reason: string };
  connect: string;
  disconnect: string;
  warning: string;
  discarded: { reason: string };
}
type Listening = { on<K extends keyof SimEvents>(event: K, listener: (e: SimEvents[K]) => void): void; off<K extends keyof SimEvents>(event: K, listener: (e: SimEvents[K]) => void): void };

export function recordSim(simulator: AnalyzerSimulator | Hl7AnalyzerSimulator, max = 20_000): SimLog {
  const sim = simulator as unknown as Listening;
  const lines: string[] = [];
  const log = new LineLog(max);
  const push = log.push.bind(log);
  log.push = (line: string) => {
    lines.push(line);
    push(line);
  };
  const around = (sample: string, before = 2, after = 6): string[] => {
    const out: string[] = [];
    let last = -1;
    lines.forEach((l, i) => {
      if (!l.includes(`|${sample}|`) && !l.endsWith(` ${sample}`)) return;
      const from = Math.max(last + 1, i - before);
      if (from > last + 1 && out.length > 0) out.push('...');
      for (let j = from; j <= Math.min(lines.length - 1, i + after); j++) out.push(lines[j]!.length > 160 ? `${lines[j]!.slice(0, 157)}...` : lines[j]!);
      last = Math.min(lines.length - 1, i + after);
    });
    return out;
  };
  const r: SimLog = { log, lines, around, acked: [], failed: [], oFrames: new Map() };
  sim.on('frame', (f) => {
    r.log.push(`${stamp(f.at)} ${f.direction === 'out' ? '→' : '←'} ${f.text}`);
    if (f.direction === 'out') for (const s of samplesIn(f.bytes.toString('latin1').replace(/[\x00-\x09\x0b\x0c\x0e-\x1f]/g, ''))) r.oFrames.set(s, (r.oFrames.get(s) ?? 0) + 1);
  });
  sim.on('sent', (m) => {
    if (m.kind !== 'results') return;
    r.acked.push(m.sampleNumber);
    r.log.push(`${stamp()} acknowledged: ${m.sampleNumber}`);
  });
  sim.on('failed', (m) => {
    r.failed.push(m.sampleNumber);
    r.log.push(`${stamp()} FAILED: ${m.sampleNumber}: ${m.reason}`);
  });
  sim.on('connect', (p) => r.log.push(`${stamp()} connected: ${p}`));
  sim.on('disconnect', (p) => r.log.push(`${stamp()} disconnected: ${p}`));
  sim.on('warning', (w) => r.log.push(`${stamp()} warning: ${w}`));
  sim.on('discarded', (d) => r.log.push(`${stamp()} discarded: ${d.reason}`));
  return r;
}

/**
 * Waits until the LIS has had no results request for `quietMs` and `done()`
 * says everything is accounted for, or until it has been quiet for
 * `giveUpQuietMs` (whatever is missing then is reported), or `timeoutMs`.
 */
export async function lisIdle(stub: LisStub, opts: { quietMs: number; giveUpQuietMs: number; timeoutMs: number }, done: () => boolean | Promise<boolean> = () => false): Promise<void> {
  const started = Date.now();
  let count = -1;
  let since = Date.now();
  for (;;) {
    const n = stub.to('/results').length;
    if (n !== count) {
      count = n;
      since = Date.now();
    }
    const quiet = Date.now() - since;
    if (quiet >= opts.quietMs && ((await done()) || quiet >= opts.giveUpQuietMs)) return;
    if (Date.now() - started > opts.timeoutMs) return;
    await sleep(250);
  }
}

// ----- one crash run -----

/**
 * Aimed modes: pairs of kills (one triple) where each later kill is aimed at
 * the window the restart after the earlier one opens.
 *
 * - repeat-store: kill right after a received message is stored (before its
 *   final ACK); after the restart the analyzer sends it again: kill right
 *   after that repeat is stored, before the bridge noted it as a repeat.
 * - replay-after-ack: kill the moment the analyzer got the final ACK of a
 *   message not yet handed to the LIS sender; kill the restart as soon as its
 *   replay of the stored messages is under way.
 * - replay-twice: as replay-after-ack, and the restart after that is killed
 *   during its replay too.
 * - after-tx-sending: kill right after a batch is journaled as `sending`
 *   (its request before or at the LIS); then again right after the first
 *   batch journaled as sending once restarted.
 * - after-hold: every message also carries a result for a code the flow does
 *   not map (the simulator's unorderedResult, HOLD_CODE), which test-mapper
 *   holds before the rest of its batch goes on: kill right after a hold is
 *   written, before that batch's own line; then again once restarted. Each
 *   message's held result must be held once, its other results delivered.
 */
export const AIMED_MODES = ['repeat-store', 'replay-after-ack', 'replay-twice', 'after-tx-sending', 'after-hold'] as const;
export type AimedMode = (typeof AIMED_MODES)[number];
export const KILL_MODES = ['random', 'after-rx-write', ...AIMED_MODES] as const;
export type KillMode = (typeof KILL_MODES)[number];
export const isAimed = (mode: KillMode): mode is AimedMode => (AIMED_MODES as readonly string[]).includes(mode);

/** Kills each aimed mode makes (the `kills` option is for random and after-rx-write). */
export const AIMED_KILLS: Readonly<Record<AimedMode, number>> = { 'repeat-store': 2, 'replay-after-ack': 2, 'replay-twice': 3, 'after-tx-sending': 2, 'after-hold': 2 };

/** The code no mapping knows, sent with every message of an after-hold run. */
export const HOLD_CODE = 'XHOLD';

/**
 * How long the replay modes' flow holds each received message before
 * translating it (CrashFlowOptions.handOnDelayMs): long enough that many
 * ACKed messages wait unhanded when the first kill comes, and that a replayed
 * message is still on its way when the kill during the replay comes.
 */
export const REPLAY_HOLD_MS = 1_000;

/** How long an aimed window may take to open after its restart before it counts as missed. */
const WINDOW_MS = 10_000;

export interface KillRecord {
  at: string;
  afterAcks: number;
  /** False for an aimed kill whose window never came: recorded (as missed) but never sent. */
  killed: boolean;
  note?: string;
  /** Aimed modes: the window the kill was aimed at. */
  aim?: string;
  /** Whether it hit that window, as the journal left at death (and the analyzer) show. */
  hit?: boolean;
  /** What shows it (or why it missed). */
  evidence?: string;
}

export interface CrashRunOptions {
  results: number;
  /** Kills for random and after-rx-write; aimed modes make AIMED_KILLS[mode]. */
  kills: number;
  seed: number;
  /** A package already installed into a userDir (test files install once); default: install one now. */
  installation?: Installation;
  /** Progress lines (the soak runner prints them). */
  progress?: (line: string) => void;
  /** Whole-run limit. */
  timeoutMs?: number;
  /** The analyzer's protocol (default astm): hl7 runs the Mindray CL-2000i HL7 example's dialect over MLLP. */
  protocol?: Protocol;
  /**
   * 'random' (default): each kill a random few ms after its point in the run.
   * 'after-rx-write': each kill as soon as, after its point, Node-RED writes a
   * received message to the journal (seen through inotify on the journal's
   * directory): between the write and the final ACK of that message, the
   * moment fdatasync and the ACK are still under way.
   * The aimed modes (AIMED_MODES) are described there.
   */
  killMode?: KillMode;
  /**
   * hl7 only: the analyzer runs its control (QC_RUN) before the first sample and again a third of the way through,
   * 4 SD high: from then on the results of the tests the control covers are held by the QC gate (kind qc), not sent.
   */
  qc?: boolean;
}

export interface CrashReport {
  mode: KillMode;
  counts: Counts;
  tally: Tally;
  line: string;
  elapsedMs: number;
  kills: KillRecord[];
  /** Aimed modes: kills aimed (the mode's number, made or not) and kills that hit their window. Random modes: 0 and 0. */
  windows: { aimed: number; hit: number };
  /** Held results by the journal file: per acknowledged sample, how many holds name it; and holds written in more than one line. */
  holds: { perAckedSample: Map<string, number>; foreign: string[]; writtenTwice: string[] };
  /**
   * With `qc`: the results of the tests the control covers, sent after the failing run (`sample|LIS code`), those of
   * them at the LIS, and results held by the QC gate in more than one hold.
   */
  qc?: { coveredAfterFail: string[]; atLis: string[]; heldTwice: string[] };
  /** Lost, unexplained duplicate, foreign and stuck results, each with its story, and aimed kills that missed. */
  problems(): string;
  /** Aimed kills that missed their window or were never made ('' when none). */
  missed(): string;
  diagnostics(): string;
}

/** What the kill schedules work with. */
interface RunContext {
  red: NodeRedProcess;
  sim: AnalyzerSimulator | Hl7AnalyzerSimulator;
  simLog: SimLog;
  stub: LisStub;
  plan: PlannedMessage[];
  rng: Seeded;
  startedAt: number;
  deadline: number;
  kills: KillRecord[];
  progress: (line: string) => void;
  allSettled: () => boolean;
  /** repeat-store only: the relay between Node-RED and the analyzer, to hold the analyzer's reconnection back. */
  gate: LineGate | undefined;
  /** Evidence only the end of the run can give (the analyzer's later repeats), checked against the final journal. */
  finals: Array<(journal: JournalView) => void>;
}

/**
 * One run: LIS stand-in, simulator as a TCP server, Node-RED (tcp in client)
 * on a fresh userDir; every message queued at once so the link runs flat out;
 * SIGKILLs as the mode says, each followed by a restart on the same userDir;
 * then the LIS is left to go quiet and everything is counted.
 */
export async function crashRun(options: CrashRunOptions): Promise<CrashReport> {
  const startedAt = Date.now();
  const mode: KillMode = options.killMode ?? 'random';
  const rng = new Seeded(options.seed);
  const progress = options.progress ?? (() => undefined);
  const timeoutMs = options.timeoutMs ?? 60_000 + options.results * 60;
  const ownInstall = options.installation === undefined;
  const installation = options.installation ?? installPackage();
  const protocol = options.protocol ?? 'astm';
  const plan = planMessages(options.results, rng, `C${options.seed % 1000}-`, protocol);
  const lisRng = new Seeded(options.seed ^ 0x5eed);
  const replayMode = mode === 'replay-after-ack' || mode === 'replay-twice';

  const stub = await new LisStub().start();
  // Mostly quick answers, some slow: a kill then often lands while a request is out (an uncertain batch).
  stub.handle('/results', () => ({ delayMs: lisRng.next() < 0.25 ? lisRng.int(20, 150) : lisRng.int(0, 3), body: { status: 'success' } }));
  stub.reply('/tests', { body: loadCatalog() });
  stub.reply('/processed', { body: { status: 'success' } });

  const transport = new TcpServerTransport(0, '127.0.0.1');
  const qc = options.qc === true;
  const simOptions = { transport, timeZone: TIME_ZONE, seed: options.seed, analysisMs: 0, intervalMs: 0, ...(mode === 'after-hold' ? { misbehaviour: { unorderedResult: HOLD_CODE } } : {}), ...(qc ? { qc: QC_RUN } : {}) };
  const sim = protocol === 'hl7' ? new Hl7AnalyzerSimulator({ ...simOptions, dialect: HL7_EXAMPLE.dialect }) : new AnalyzerSimulator({ ...simOptions, dialect: 'generic-lis2a2' });
  const simLog = recordSim(sim);
  let red: NodeRedProcess | undefined;
  let gate: LineGate | undefined;
  const kills: KillRecord[] = [];
  const diagnostics = () =>
    [
      '--- Node-RED log (tail) ---',
      red?.tail(150) ?? '(not started)',
      '--- simulator frame log (tail) ---',
      simLog.log.tail(150),
    ].join('\n');
  try {
    await sim.start();
    if (mode === 'repeat-store') gate = new LineGate({ host: '127.0.0.1', port: transport.boundPort });
    const linePort = gate ? await gate.start() : transport.boundPort;
    const flow = crashFlow({ kind: 'tcp', port: linePort }, (p) => stub.url(p), { protocol, qc, ...(replayMode ? { handOnDelayMs: REPLAY_HOLD_MS } : {}) });
    red = await prepareRed(installation.userDir, flow);
    await red.start();
    await withTimeout(sim.waitConnected(), 15_000, 'Node-RED\'s tcp in to connect');

    // Every message queued at once, in the analyzer's order: with QC, a control run first and the failing one a third of the way.
    let settled = 0;
    const sends: Array<Promise<void>> = [];
    const queue = (sending: Promise<unknown>) => sends.push(sending.then(() => void settled++, () => void settled++));
    const failAt = qc ? Math.floor(plan.length / 3) : -1;
    if (qc) queue((sim as Hl7AnalyzerSimulator).sendControlRun());
    plan.forEach((m, i) => {
      if (i === failAt) queue((sim as Hl7AnalyzerSimulator).sendControlRun());
      queue(sim.sendResults(m.sample, m.tests));
    });
    const all = Promise.all(sends);
    const deadline = startedAt + timeoutMs;
    const c: RunContext = { red, sim, simLog, stub, plan, rng, startedAt, deadline, kills, progress, allSettled: () => settled === sends.length, gate, finals: [] };
    if (isAimed(mode)) await aimedKills(mode, c);
    else await scatteredKills(mode, options.kills, c);
    await withTimeout(all, Math.max(1_000, deadline - Date.now()), `the simulator to finish (${simLog.acked.length}/${plan.length} acknowledged)`);
    progress(`simulator done: ${simLog.acked.length} acknowledged, ${simLog.failed.length} failed (${((Date.now() - startedAt) / 1000).toFixed(1)} s)`);

    // The LIS is left alone until nothing more comes (replays happen at start, sends follow ACKs closely).
    // Done when every acknowledged result is at the LIS or held, and no replay of the last start is still under way (a
    // message replayed and not settled yet is listed with the stuck ones, without a reason). The quiet allowed before
    // giving up is long: on a machine running two suites at once the last start and its replay took more than 10 s.
    const ackedSamples = new Set(simLog.acked);
    const accounted = async () => {
      const held = await red!.held();
      return held.stuck.every((s) => s.reason !== null) && tally({ plan, acked: ackedSamples, stub, held, journal: readJournal(red!.journalFile), protocol }).counts.lost === 0;
    };
    await lisIdle(stub, { quietMs: 1_000, giveUpQuietMs: 60_000, timeoutMs: 120_000 }, accounted);

    const held = await red.held();
    const journal = readJournal(red.journalFile);
    for (const check of c.finals) check(journal);
    const t = tally({ plan, acked: ackedSamples, stub, held, journal, simContext: (sample) => simLog.around(sample), protocol });
    const elapsedMs = Date.now() - startedAt;
    const windows = isAimed(mode) ? { aimed: AIMED_KILLS[mode], hit: kills.filter((k) => k.hit === true).length } : { aimed: 0, hit: 0 };
    const qcSeen = qc ? qcOutcome(plan.slice(failAt), stub, journal, protocol) : undefined;
    const line = countsLine(
      `crash run (${protocol === 'hl7' ? 'HL7, ' : ''}${qc ? 'QC, ' : ''}${mode})`,
      t.counts,
      `${qcSeen ? `; QC: ${qcSeen.coveredAfterFail.length} results of covered tests after the failing run, ${qcSeen.atLis.length} at the LIS, ${qcSeen.heldTwice.length} held twice` : ''}; kills ${kills.filter((k) => k.killed).length}${isAimed(mode) ? `, windows hit ${windows.hit}/${windows.aimed}` : ''}; seed ${options.seed}; ${(elapsedMs / 1000).toFixed(1)} s`,
    );
    const missed = () => {
      if (!isAimed(mode)) return '';
      const out = kills.filter((k) => k.hit !== true).map((k) => `MISSED kill at ${k.at} aimed at ${k.aim}: ${k.evidence}`);
      // A pair stops at a window that never came: the kills after it are missing from the list.
      if (kills.length < windows.aimed) out.push(`MISSED ${windows.aimed - kills.length} of ${windows.aimed} aimed kills were never aimed (an earlier window never came)`);
      return out.join('\n');
    };
    const killList = () => `kills: ${kills.map((k) => `${k.at} after ${k.afterAcks} acks${k.killed ? '' : ' (NOT sent)'}${k.note ? ` (${k.note})` : ''}${k.aim ? ` [aimed at ${k.aim}: ${k.hit ? 'HIT' : 'MISSED'}; ${k.evidence}]` : ''}`).join(', ')}`;
    const perAckedSample = new Map([...ackedSamples].map((s) => [s, 0]));
    const foreign: string[] = [];
    for (const [id, h] of journal.holds) {
      for (const s of h.samples) {
        if (perAckedSample.has(s)) perAckedSample.set(s, perAckedSample.get(s)! + 1);
        else foreign.push(`${id}: ${s}`);
      }
    }
    const holds = { perAckedSample, foreign, writtenTwice: [...journal.holds].filter(([, h]) => h.lines > 1).map(([id]) => id) };
    return {
      ...(qcSeen ? { qc: qcSeen } : {}),
      mode,
      counts: t.counts,
      tally: t,
      line,
      elapsedMs,
      kills,
      windows,
      holds,
      problems: () => [t.problems(), missed(), killList()].filter((x) => x !== '').join('\n'),
      missed,
      diagnostics,
    };
  } catch (err) {
    if (err instanceof Error) err.message = `${err.message}\n${diagnostics()}`;
    throw err;
  } finally {
    await sim.stop().catch(() => undefined);
    await red?.stop().catch(() => undefined);
    await gate?.stop().catch(() => undefined);
    await stub.stop().catch(() => undefined);
    if (ownInstall) installation.remove();
  }
}

/** What the QC gate did with the results sent after the failing control run (`after`). */
function qcOutcome(after: PlannedMessage[], stub: LisStub, journal: JournalView, protocol: Protocol): NonNullable<CrashReport['qc']> {
  const codes = lisCodes(protocol);
  const covered: readonly string[] = QC_RUN.tests;
  const coveredAfterFail = after.flatMap((m) => m.tests.filter((t) => covered.includes(t)).map((t) => keyOf(m.sample, codes.get(t) ?? t)));
  const delivered = new Set(stub.to('/results').flatMap((r) => itemsOf(r).map((i) => keyOf(i.SampleNumber, i.TestCode))));
  const holdsOf = new Map<string, number>();
  for (const h of journal.holds.values()) {
    if (h.kind !== 'qc') continue;
    for (const sample of h.samples) {
      const k = keyOf(sample, codes.get(h.code) ?? h.code);
      holdsOf.set(k, (holdsOf.get(k) ?? 0) + 1);
    }
  }
  return { coveredAfterFail, atLis: coveredAfterFail.filter((k) => delivered.has(k)), heldTwice: [...holdsOf].filter(([, n]) => n > 1).map(([k]) => k) };
}

/** random and after-rx-write: `count` kills after random numbers of acknowledged messages, spread over the run. */
async function scatteredKills(mode: 'random' | 'after-rx-write', count: number, c: RunContext): Promise<void> {
  const { red, simLog, plan, rng } = c;
  const thresholds = Array.from({ length: count }, () => Math.floor(plan.length * (0.05 + 0.9 * rng.next()))).sort((a, b) => a - b);
  for (const [i, threshold] of thresholds.entries()) {
    await waitUntil(() => simLog.acked.length >= threshold || c.allSettled(), Math.max(0, c.deadline - Date.now()), () => `${threshold} acknowledged messages before kill ${i + 1} (have ${simLog.acked.length})`, 2);
    if (c.allSettled()) break;
    let note: string | undefined;
    if (mode === 'after-rx-write') {
      const fired = await killOnJournalLine(red, (l) => l.e === 'rx', Math.max(1_000, c.deadline - Date.now())).result;
      if (!fired) throw new Error(`Node-RED wrote no received message to its journal before the run's time limit`);
      note = `SIGKILL ${fired.killMs.toFixed(1)} ms after Node-RED wrote rx ${fired.line.id ?? '?'} to the journal`;
      simLog.log.push(`${stamp()} ===== ${note} (kill ${i + 1}, after ${simLog.acked.length} acks) =====`);
    } else {
      const jitter = rng.int(0, 60);
      if (jitter > 0) await sleep(jitter);
      simLog.log.push(`${stamp()} ===== SIGKILL to Node-RED (kill ${i + 1}, after ${simLog.acked.length} acks) =====`);
    }
    const afterAcks = simLog.acked.length;
    c.kills.push({ at: stamp(), afterAcks, killed: true, ...(note ? { note } : {}) });
    await red.kill();
    c.progress(`kill ${i + 1}/${thresholds.length} after ${afterAcks}/${plan.length} acknowledged messages (${((Date.now() - c.startedAt) / 1000).toFixed(1)} s)`);
    await sleep(rng.int(0, 300));
    await red.start();
    simLog.log.push(`${stamp()} ===== Node-RED started again (life ${red.lives}) =====`);
  }
}

// ----- aimed kills -----

function aimedKills(mode: AimedMode, c: RunContext): Promise<void> {
  switch (mode) {
    case 'repeat-store':
      return repeatStore(c);
    case 'replay-after-ack':
      return replayKills(c, 1);
    case 'replay-twice':
      return replayKills(c, 2);
    case 'after-tx-sending':
      return afterTxSending(c);
    case 'after-hold':
      return afterHold(c);
  }
}

/** A point in the run between `from` and `to` (fractions of the messages acknowledged), at least 2 messages in and 2 before the end. */
function ackPoint(c: RunContext, from: number, to: number): number {
  const n = c.plan.length;
  return Math.min(Math.max(2, n - 2), Math.max(2, Math.floor(n * (from + (to - from) * c.rng.next()))));
}

async function waitForAcks(c: RunContext, n: number, what: string): Promise<void> {
  await waitUntil(() => c.simLog.acked.length >= n, Math.max(0, c.deadline - Date.now()), () => `${n} acknowledged messages before ${what} (have ${c.simLog.acked.length})`, 2);
}

/** Time left for a window to open: WINDOW_MS, or less when the run's limit is nearer. */
const windowLeft = (c: RunContext) => Math.max(1_000, Math.min(WINDOW_MS, c.deadline - Date.now()));

/** Waits for Node-RED to be dead (the aimed kill was sent synchronously), and reads the journal as the dead process left it. */
async function dead(c: RunContext): Promise<JournalView> {
  await c.red.kill();
  return readJournal(c.red.journalFile);
}

/** Files a kill: in the report, the simulator's log (where the frames around it are) and the progress lines. */
function noteKill(c: RunContext, kill: Omit<KillRecord, 'at' | 'afterAcks' | 'killed'>, killed = true): KillRecord {
  const record: KillRecord = { at: stamp(), afterAcks: c.simLog.acked.length, killed, ...kill };
  c.kills.push(record);
  c.simLog.log.push(`${record.at} ===== aimed SIGKILL ${c.kills.length} at ${kill.aim}: ${kill.evidence} =====`);
  c.progress(`kill ${c.kills.length} after ${record.afterAcks}/${c.plan.length} acknowledged messages (${((Date.now() - c.startedAt) / 1000).toFixed(1)} s), aimed at ${kill.aim}: ${kill.hit ? 'hit' : 'MISSED'}: ${kill.evidence}`);
  return record;
}

/** What the tap fired on, or undefined when its window did not open within `ms` from now (the tap is then disarmed). */
async function within(tap: JournalTap, ms: number): Promise<Fired | undefined> {
  const timer = setTimeout(() => tap.cancel(), ms);
  try {
    return await tap.result;
  } finally {
    clearTimeout(timer);
  }
}

/** A restart whose aimed kill may come before Node-RED has finished starting. */
async function restartInto(c: RunContext, tap: JournalTap | undefined): Promise<void> {
  await c.red.start(60_000, { killedOnPurpose: () => tap?.fired === true });
  c.simLog.log.push(`${stamp()} ===== Node-RED started again (life ${c.red.lives})${tap?.fired ? ', killed while starting' : ''} =====`);
}

/** A restart that is left to run (the last one of a run, or after a window never came). */
async function restart(c: RunContext): Promise<void> {
  if (c.red.running) return;
  await restartInto(c, undefined);
}

const describeLine = (l: JournalLine) =>
  l.e === 'rx' ? `rx ${l.id}` : l.e === 'rxu' ? `rxu ${l.id}${l.replayed ? ' replayed' : ''}${l.parts !== undefined ? ` parts ${l.parts}` : ''}` : l.e === 'tx' ? `tx ${l.key} (${String(l.state ?? 'sending')})` : `${l.e} ${String(l.key ?? l.id ?? '')} ${String(l.state ?? '')}`;

/** Journal lines about `id` after its rx line: a translation (parts), a replay mark, a note, a batch. */
function laterLinesAbout(view: JournalView, id: string): string[] {
  const m = view.rx.get(id);
  const out: string[] = [];
  if (m?.parts !== undefined) out.push(`parts ${m.parts}`);
  if (m?.replayed) out.push('replayed');
  if (m?.note !== undefined) out.push(`note ${JSON.stringify(m.note)}`);
  for (const [key, b] of view.tx) if (b.message === id) out.push(`batch ${key}`);
  return out;
}

const copiesOf = (view: JournalView, data: string) => [...view.rx.values()].filter((m) => m.data === data).length;

/**
 * (1) Kill right after a received message is stored, before its final ACK;
 * the analyzer repeats it after the restart: kill right after the repeat is
 * stored, before the bridge wrote down that it is a repeat (and before its
 * final ACK).
 */
async function repeatStore(c: RunContext): Promise<void> {
  await waitForAcks(c, ackPoint(c, 0.2, 0.5), 'the first kill');
  const first = await killOnJournalLine(c.red, (l) => l.e === 'rx', windowLeft(c)).result;
  if (!first) {
    noteKill(c, { aim: 'a received message stored, before its final ACK', hit: false, evidence: `no message was stored within ${windowLeft(c)} ms: Node-RED was not killed` }, false);
    return;
  }
  const atFirst = await dead(c);
  const id1 = first.line.id!;
  const data1 = String(first.line.data);
  const samples1 = atFirst.rx.get(id1)?.samples ?? [];
  const ackedAtFirst = samples1.filter((s) => c.simLog.acked.includes(s));
  const later1 = laterLinesAbout(atFirst, id1);
  const kill1 = noteKill(c, {
    aim: 'a received message stored, before its final ACK',
    hit: later1.length === 0 && ackedAtFirst.length === 0,
    evidence: `rx ${id1} (${samples1.join(', ')}) seen, SIGKILL ${first.killMs.toFixed(1)} ms later; at death the journal had ${later1.length === 0 ? 'nothing more about it' : later1.join(', ')}; the analyzer had ${ackedAtFirst.length === 0 ? 'no' : 'its'} final ACK`,
  });

  // Armed before the restart, so nothing the new life writes goes unseen. Aimed at the analyzer's repeat: the same bytes again.
  // Its own limit covers the start; within() gives the window its time once Node-RED is up.
  const tap = killOnJournalLine(c.red, (l) => l.e === 'rx' && l.data === data1, WINDOW_MS + 60_000);
  // The analyzer is let back in once the restart's replay has handed the stored copy on (as when an analyzer
  // reconnects a while after the host came back): the repeat then meets a copy already on its way to the LIS.
  c.gate?.close();
  await restartInto(c, tap);
  let replayedFirst = false;
  await waitUntil(() => (replayedFirst = handedParts(readJournal(c.red.journalFile), id1) > 0) || tap.fired, 5_000, 'the replay', 50).catch(() => undefined);
  kill1.evidence += replayedFirst ? '; the restart replayed it and handed it on before the analyzer reconnected' : '; the restart had NOT handed it on 5 s after starting; the analyzer was let back in all the same';
  c.gate?.open();
  const second = await within(tap, windowLeft(c));
  if (!second) {
    kill1.hit = false;
    kill1.evidence += `; the analyzer did not send it again within ${windowLeft(c)} ms of the restart (its final ACK may have reached it)`;
    noteKill(c, { aim: 'the analyzer\'s repeat of that message being stored', hit: false, evidence: 'no repeat was stored: Node-RED was not killed' }, false);
    return restart(c);
  }
  const atSecond = await dead(c);
  const id2 = second.line.id!;
  // The repeat is the proof the first kill came before the final ACK reached the analyzer.
  kill1.evidence += `; the analyzer sent the same message again after the restart (rx ${id2})`;
  const later2 = laterLinesAbout(atSecond, id2);
  const ackedAtSecond = samples1.filter((s) => c.simLog.acked.includes(s));
  const kill2 = noteKill(c, {
    aim: 'the analyzer\'s repeat of that message being stored',
    hit: later2.length === 0 && ackedAtSecond.length === 0,
    evidence: `rx ${id2} (same bytes as rx ${id1}) seen, SIGKILL ${second.killMs.toFixed(1)} ms later; at death the journal had ${later2.length === 0 ? 'nothing more about it (not yet noted as a repeat)' : later2.join(', ')}; rx ${id1} then: ${laterLinesAbout(atSecond, id1).join(', ') || 'nothing more'}`,
  });
  const copiesAtSecond = copiesOf(atSecond, data1);
  // A third copy from the analyzer shows no final ACK reached it for the repeat either: only the end of the run can tell.
  c.finals.push((final) => {
    const third = copiesOf(final, data1) > copiesAtSecond;
    kill2.evidence += third ? '; the analyzer sent it a third time after the restart (no final ACK for the repeat)' : '; the analyzer did NOT send it a third time: the repeat\'s final ACK had gone out';
    if (!third) kill2.hit = false;
  });
  await restart(c);
}

/**
 * (2) and (3) Kill the moment the analyzer gets the final ACK of a message
 * that is still on its way to the LIS sender (held in the flow's slow step);
 * then kill each of the next `replays` restarts as soon as its replay of the
 * stored messages is under way.
 */
async function replayKills(c: RunContext, replays: number): Promise<void> {
  const aim1 = 'the final ACK of a message not yet handed to the LIS sender';
  const sample = await killOnAck(c, ackPoint(c, 0.3, 0.6), Math.max(1_000, c.deadline - Date.now()));
  if (sample === undefined) {
    noteKill(c, { aim: aim1, hit: false, evidence: 'the analyzer got no final ACK at its point in the run: Node-RED was not killed' }, false);
    return;
  }
  let view = await dead(c);
  const id = [...view.rx].find(([, m]) => m.samples.includes(sample))?.[0];
  const atLis = c.stub.to('/results').some((r) => itemsOf(r).some((i) => i.SampleNumber === sample));
  let due = dueForReplay(view);
  noteKill(c, {
    aim: aim1,
    hit: id !== undefined && handedParts(view, id) === 0 && !atLis && due.has(id),
    evidence:
      id === undefined
        ? `the analyzer got the final ACK for ${sample}, but the journal has no rx line for it`
        : `SIGKILL as the analyzer got the final ACK for ${sample} (rx ${id}); at death ${handedParts(view, id)} batch(es) of it journaled, ${atLis ? 'some of it AT the LIS' : 'nothing of it at the LIS'}; ${due.size} message(s) due for replay`,
  });

  const aim = 'the restart replaying the stored messages never handed on';
  for (let r = 1; r <= replays; r++) {
    // Any line the new life writes about a message of an earlier life is the replay at work, however the
    // journal orders its steps (mark then hand on, or hand on then mark): repeats and new messages get new ids.
    const earlier = new Set(view.rx.keys());
    const knownBatches = new Set(view.tx.keys());
    const dueNow = due;
    const about = (l: JournalLine): string | undefined => {
      if (l.e === 'rx') return undefined;
      if (l.e === 'tx') return l.message !== undefined && earlier.has(l.message) && !knownBatches.has(String(l.key)) ? l.message : undefined;
      return typeof l.id === 'string' && earlier.has(l.id) ? l.id : undefined;
    };
    const tap = killOnJournalLine(c.red, (l) => about(l) !== undefined, WINDOW_MS + 60_000);
    await restartInto(c, tap);
    const fired = await within(tap, windowLeft(c));
    if (!fired) {
      noteKill(c, { aim, hit: false, evidence: `the restart wrote nothing about the ${dueNow.size} message(s) due for replay within ${windowLeft(c)} ms: nothing was replayed, Node-RED was not killed` }, false);
      return restart(c);
    }
    view = await dead(c);
    const target = about(fired.line)!;
    const unfinished = [...new Set([...dueNow, target])].filter((m) => !settledIn(view, m));
    const marked = [...dueNow].filter((m) => view.rx.get(m)?.replayed).length;
    noteKill(c, {
      aim,
      // In the window while the replay has begun and not yet handed everything it replays to the sender.
      hit: unfinished.length > 0,
      evidence: `${describeLine(fired.line)} seen, SIGKILL ${fired.killMs.toFixed(1)} ms later; at death ${target} ${settledIn(view, target) ? 'handed on' : 'not yet handed on'}, ${unfinished.length} of ${dueNow.size} message(s) due at the restart not yet handed on, ${marked} marked replayed`,
    });
    due = dueForReplay(view);
  }
  await restart(c);
}

/**
 * Kills Node-RED synchronously from the simulator's event for a final ACK
 * (the `threshold`-th message acknowledged or later): the analyzer has
 * its ACK, so it will not send the message again.
 */
function killOnAck(c: RunContext, threshold: number, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const onSent = (m: { kind: string; sampleNumber: string }) => {
      // recordSim's listener ran first: acked already counts this one.
      if (m.kind !== 'results' || c.simLog.acked.length < threshold) return;
      c.red.killNow();
      done(m.sampleNumber);
    };
    const timer = setTimeout(() => done(undefined), timeoutMs);
    const sim = c.sim as unknown as Listening;
    function done(sample: string | undefined): void {
      clearTimeout(timer);
      sim.off('sent', onSent);
      resolve(sample);
    }
    sim.on('sent', onSent);
  });
}

/** One kill of a pair aimed at a journal line: what it is aimed at, the line that fires it, what the dead process's journal says of it. */
interface LineAim {
  aim: string;
  /** What the line is, for "no ... was written within": "batch was journaled", "hold was written". */
  what: string;
  line: (l: JournalLine) => boolean;
  evidence: (view: JournalView, fired: Fired) => { hit: boolean; evidence: string };
}

/**
 * A pair of kills, each right after a journal line: the first after its point
 * in the run, the second at the first such line once restarted (`second` gets
 * the journal as the first kill left it, to aim at a line it did not hold).
 */
async function killPairOnLines(c: RunContext, first: LineAim, second: (before: JournalView) => LineAim): Promise<void> {
  await waitForAcks(c, ackPoint(c, 0.2, 0.5), 'the first kill');
  const fired = await killOnJournalLine(c.red, first.line, windowLeft(c)).result;
  if (!fired) {
    noteKill(c, { aim: first.aim, hit: false, evidence: `no ${first.what} within ${windowLeft(c)} ms: Node-RED was not killed` }, false);
    return;
  }
  const before = await dead(c);
  noteKill(c, { aim: first.aim, ...first.evidence(before, fired) });
  const next = second(before);
  const tap = killOnJournalLine(c.red, next.line, WINDOW_MS + 60_000);
  await restartInto(c, tap);
  const again = await within(tap, windowLeft(c));
  if (!again) {
    noteKill(c, { aim: next.aim, hit: false, evidence: `no ${next.what} within ${windowLeft(c)} ms of the restart: Node-RED was not killed` }, false);
    return restart(c);
  }
  noteKill(c, { aim: next.aim, ...next.evidence(await dead(c), again) });
  await restart(c);
}

/**
 * (4) Kill right after a batch is journaled as `sending` (its request about
 * to leave, or at the LIS); once restarted, kill right after the first batch
 * journaled as sending again (often one of a message the restart replays).
 */
function afterTxSending(c: RunContext): Promise<void> {
  return killPairOnLines(
    c,
    { aim: 'a result batch journaled as sending', what: 'batch was journaled', line: (l) => l.e === 'tx', evidence: (view, fired) => sendingEvidence(c, view, fired) },
    (before) => {
      const earlier = new Set(before.rx.keys());
      const knownBatches = new Set(before.tx.keys());
      const due = dueForReplay(before);
      return {
        aim: 'the first batch journaled as sending after the restart',
        what: 'batch was journaled',
        line: (l) => l.e === 'tx' && !knownBatches.has(String(l.key)),
        evidence: (view, fired) => {
          const of = fired.line.message;
          const whose = of !== undefined && earlier.has(of) ? `, a batch of rx ${of} from before the restart${due.has(of) ? ' (replayed)' : ''}` : '';
          const e = sendingEvidence(c, view, fired);
          return { hit: e.hit, evidence: e.evidence + whose };
        },
      };
    },
  );
}

/** (5) Kill right after a hold is written, before the rest of its batch; once restarted, right after the first new hold. */
function afterHold(c: RunContext): Promise<void> {
  return killPairOnLines(c, { aim: 'a hold written before the rest of its batch', what: 'hold was written', line: (l) => l.e === 'hold', evidence: holdEvidence }, (before) => ({
    aim: 'the first hold written after the restart',
    what: 'hold was written',
    line: (l) => l.e === 'hold' && (l.holds as Array<{ id: string }>).some((h) => !before.holds.has(h.id)),
    evidence: holdEvidence,
  }));
}

/** Hit when the batch the hold came from had not been journaled when Node-RED died: the kill fell between the two lines. */
function holdEvidence(view: JournalView, fired: Fired): { hit: boolean; evidence: string } {
  const key = `${String(fired.line.message)}#${String(fired.line.part)}`;
  const b = view.tx.get(key);
  return { hit: b === undefined, evidence: `hold of ${key} seen, SIGKILL ${fired.killMs.toFixed(1)} ms later; at death its batch was ${b ? b.states.join(' -> ') : 'not yet written'}` };
}

/** Hit when the batch the kill fired on was still `sending` when Node-RED died (no answer journaled). */
function sendingEvidence(c: RunContext, view: JournalView, fired: Fired): { hit: boolean; evidence: string } {
  const key = String(fired.line.key);
  const b = view.tx.get(key);
  const items = new Set((b?.items ?? []).map((i) => `${i.SampleNumber}|${i.TestCode}`));
  const atLis = c.stub.to('/results').some((r) => itemsOf(r).some((i) => items.has(`${i.SampleNumber}|${i.TestCode}`)));
  return {
    hit: b !== undefined && b.states.length === 1 && b.states[0] === 'sending',
    evidence: `tx ${key} (${(b?.samples ?? []).join(', ')}) seen, SIGKILL ${fired.killMs.toFixed(1)} ms later; at death the batch was ${b ? b.states.join(' -> ') : 'NOT in the journal'}; its request had ${atLis ? 'reached' : 'not reached'} the LIS`,
  };
}
