/**
 * lis-analyzer-sim: the simulator from the command line (bin/lis-analyzer-sim
 * loads this file; `node dist/lib/sim/cli.js` works the same). It runs on
 * load: this module is an entry point, never a library.
 *
 * Every frame sent and received is logged in the readable form with a
 * timestamp and a direction arrow (→ analyzer to host, ← host to analyzer),
 * so an integrator can lay the log beside the host's own trace.
 */
import { USAGE, UsageError, parseCliOptions, type CliConfig } from './cli-options';
import { STX } from '../protocols/astm/control';
import { AnalyzerSimulator } from './simulator';
import { Hl7AnalyzerSimulator } from './hl7/simulator';
import type { Hl7RunSummary } from './hl7/types';
import type { RunSummary } from './types';
import { TcpServerTransport } from './transport';
import { FOLDER_USAGE, isFolderRun, parseFolderOptions, runFolderExport } from './file/cli';

type Print = (line: string) => void;

function stamp(at: Date): string {
  return at.toISOString();
}

/** What the summary reads of a sample's outcome, ASTM or HL7. */
interface Outcome {
  sampleNumber: string;
  order?: { tests: string[] };
  noInformation?: true;
  results?: { code: string; value: string; units?: string; flag?: string }[];
  resultsAcked: boolean;
  ok: boolean;
  error?: string;
}

function describeOutcome(s: Outcome): string {
  const parts: string[] = [];
  if (s.order !== undefined) parts.push(`order ${s.order.tests.join(',')}`);
  if (s.noInformation === true) parts.push('no order at the host');
  if (s.results !== undefined) parts.push(`results ${s.results.map((r) => `${r.code}=${r.value}${r.units === undefined ? '' : ` ${r.units}`}${r.flag === undefined || r.flag === 'N' ? '' : ` ${r.flag}`}`).join(', ')}`);
  if (s.resultsAcked) parts.push('acknowledged');
  if (s.error !== undefined && s.noInformation !== true) parts.push(s.error);
  return `${s.sampleNumber}: ${s.ok ? 'ok' : 'FAILED'} (${parts.join('; ')})`;
}

/**
 * Control characters (ENQ, EOT, ACK, NAK) per direction, by name. The
 * simulator's frame counters leave them out, so a run that only ever sent
 * ENQ to a host that never answered would otherwise read as "frames out 0".
 */
type Controls = Record<'in' | 'out', Map<string, number>>;

function describeControls(seen: Map<string, number>): string {
  const total = [...seen.values()].reduce((a, b) => a + b, 0);
  if (total === 0) return '0';
  return `${total} (${[...seen].map(([name, n]) => `${name} ${n}`).join(', ')})`;
}

function printSummary(summary: RunSummary | Hl7RunSummary, controls: Controls, print: Print): void {
  // Samples never started (the run was stopped) are counted, not listed one by one.
  const notRun = summary.samples.filter((s) => !s.ok && s.order === undefined && s.noInformation !== true && /^not run/.test(s.error ?? ''));
  const ok = summary.samples.filter((s) => s.ok).length;
  const c = summary.counters;
  const tail = notRun.length > 0 ? `, ${notRun.length} not run (stopped)` : '';
  print(`Summary: ${summary.samples.length} sample(s), ${ok} ok, ${summary.samples.length - ok - notRun.length} failed${tail}`);
  print(`  messages sent ${c.sent}, acknowledged ${c.acked}, failed ${c.failed}, received ${c.received}; frames out ${c.framesOut}, in ${c.framesIn}`);
  if ('aeReceived' in c) print(`  AE received ${c.aeReceived}, AR received ${c.arReceived}; ACKs sent for the host's messages ${c.acksSent}`);
  else print(`  control characters out ${describeControls(controls.out)}, in ${describeControls(controls.in)}`);
  for (const s of summary.samples) if (!notRun.includes(s)) print(`  ${describeOutcome(s)}`);
}

async function run(config: CliConfig, print: Print, printError: Print): Promise<number> {
  let sim: AnalyzerSimulator | Hl7AnalyzerSimulator;
  const shared = {
    dialect: config.dialect,
    transport: config.transport,
    seed: config.seed,
    analysisMs: config.analysisMs,
    intervalMs: config.intervalMs,
    ...(config.timeZone === undefined ? {} : { timeZone: config.timeZone }),
    ...(config.queryTimeoutMs === undefined ? {} : { queryTimeoutMs: config.queryTimeoutMs }),
    ...(config.tests === undefined ? {} : { tests: config.tests }),
    ...(config.qc === undefined ? {} : { qc: config.qc }),
  };
  try {
    const hl7 = config.hl7;
    sim =
      config.protocol === 'hl7' && hl7 !== undefined
        ? new Hl7AnalyzerSimulator({
            ...shared,
            misbehaviour: hl7.misbehaviour,
            ...(hl7.ackTimeoutMs === undefined ? {} : { ackTimeoutMs: hl7.ackTimeoutMs }),
            ...(hl7.retries === undefined ? {} : { retries: hl7.retries }),
          })
        : new AnalyzerSimulator({ ...shared, framing: config.framing, misbehaviour: config.misbehaviour });
  } catch (err) {
    // Options the parser could not judge alone (time zone, misbehaviour limits).
    printError(`lis-analyzer-sim: ${(err as Error).message}`);
    return 2;
  }
  // The two simulators emit the same events; the listeners below take either.
  const events = sim as unknown as AnalyzerSimulator;
  if (!config.quiet) {
    events.on('frame', (f) => print(`${stamp(f.at)} ${f.direction === 'out' ? '→' : '←'} ${f.text}`));
  }
  const controls: Controls = { in: new Map(), out: new Map() };
  events.on('frame', (f) => {
    if (f.bytes.length !== 1 || f.bytes[0] === STX || config.framing === 'records') return;
    const name = f.text.replace(/^<|>$/g, '');
    controls[f.direction].set(name, (controls[f.direction].get(name) ?? 0) + 1);
  });
  events.on('misbehaviour', (note) => print(`${stamp(new Date())} ! ${note}`));
  events.on('warning', (w) => print(`${stamp(new Date())} warning: ${w}`));
  events.on('failed', (m) => print(`${stamp(m.at)} ${m.kind} for ${m.sampleNumber} failed: ${m.reason}`));
  events.on('outcome', (o) => print(`${stamp(new Date())} ${describeOutcome(o)}`));
  events.on('controlRun', (c) => {
    const values = c.values.map((v) => `${v.test} ${v.material.level}=${v.value}${v.units === undefined ? '' : ` ${v.units}`} (z ${v.z >= 0 ? '+' : ''}${v.z.toFixed(2)})`);
    print(`${stamp(new Date())} QC ${c.control} run ${c.run}: ${values.join(', ')} acknowledged`);
  });
  events.on('connect', (peer) => print(`${stamp(new Date())} connected: ${peer}`));
  events.on('disconnect', (reason) => print(`${stamp(new Date())} disconnected: ${reason}`));

  let signal: NodeJS.Signals | undefined;
  const onSignal = (s: NodeJS.Signals) => {
    if (signal !== undefined) process.exit(128 + signalNumber(s)); // a second signal: stop at once
    signal = s;
    print(`${stamp(new Date())} ${s}: stopping`);
    void sim.stop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    await sim.start();
  } catch (err) {
    printError(`cannot open ${sim.transport.description}: ${(err as Error).message}`);
    return 1;
  }
  print(`${stamp(new Date())} ${sim.profile.label} simulator on ${sim.transport.description}, ${config.samples.length} sample(s), site zone ${sim.timeZone}`);
  if (sim.transport instanceof TcpServerTransport && !sim.connected) print(`${stamp(new Date())} listening on port ${sim.transport.boundPort}; waiting for the host to connect`);

  const summary = await sim.runSamples(config.samples, config.tests === undefined ? {} : { tests: config.tests });
  const qc = config.qc;
  // Without a schedule, --qc sends one run once the samples are done.
  if (qc !== undefined && qc.every === undefined && signal === undefined) {
    try {
      await sim.sendControlRun();
    } catch (err) {
      print(`${stamp(new Date())} QC ${qc.control} FAILED: ${(err as Error).message}`);
      summary.ok = false;
    }
    summary.counters = sim.counters;
  }
  if (qc !== undefined) print(`${stamp(new Date())} QC ${qc.control}: ${sim.controlRuns.length} control run(s) acknowledged`);
  await sim.stop();
  printSummary(summary, controls, print);
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  if (signal !== undefined) return 128 + signalNumber(signal);
  return summary.ok ? 0 : 1;
}

function signalNumber(s: NodeJS.Signals): number {
  return s === 'SIGINT' ? 2 : s === 'SIGTERM' ? 15 : 1;
}

export async function main(argv: string[], env: NodeJS.ProcessEnv, print: Print, printError: Print): Promise<number> {
  // A file-exporting instrument has no line and no dialect: its own options.
  if (isFolderRun(argv)) {
    let folder;
    try {
      folder = parseFolderOptions(argv);
    } catch (err) {
      printError(`lis-analyzer-sim: ${(err as Error).message}\n\n${FOLDER_USAGE}`);
      return 2;
    }
    return runFolderExport(folder, print);
  }
  let config: CliConfig;
  try {
    config = parseCliOptions(argv, env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    printError(`lis-analyzer-sim: ${err.message}\n\n${USAGE}`);
    return 2;
  }
  if (config.help) {
    print(`${USAGE}\n${FOLDER_USAGE}`);
    return 0;
  }
  try {
    return await run(config, print, printError);
  } catch (err) {
    printError(`lis-analyzer-sim: ${(err as Error).message}`);
    return 1;
  }
}

main(
  process.argv.slice(2),
  process.env,
  (line) => process.stdout.write(`${line}\n`),
  (line) => process.stderr.write(`${line}\n`),
).then(
  (code) => {
    // Let stdout drain before exiting; a pipe may still hold the summary.
    process.exitCode = code;
    process.stdout.write('', () => process.exit(code));
  },
  (err: unknown) => {
    process.stderr.write(`lis-analyzer-sim: ${String(err)}\n`);
    process.exit(1);
  },
);
