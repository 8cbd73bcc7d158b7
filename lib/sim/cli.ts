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
import { STX } from '../astm/control';
import { AnalyzerSimulator } from './simulator';
import type { RunSummary, SampleOutcome } from './types';
import { TcpServerTransport } from './transport';

type Print = (line: string) => void;

function stamp(at: Date): string {
  return at.toISOString();
}

function describeOutcome(s: SampleOutcome): string {
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

function printSummary(summary: RunSummary, controls: Controls, print: Print): void {
  // Samples never started (the run was stopped) are counted, not listed one by one.
  const notRun = summary.samples.filter((s) => !s.ok && s.order === undefined && s.noInformation !== true && /^not run/.test(s.error ?? ''));
  const ok = summary.samples.filter((s) => s.ok).length;
  const c = summary.counters;
  const tail = notRun.length > 0 ? `, ${notRun.length} not run (stopped)` : '';
  print(`Summary: ${summary.samples.length} sample(s), ${ok} ok, ${summary.samples.length - ok - notRun.length} failed${tail}`);
  print(`  messages sent ${c.sent}, acknowledged ${c.acked}, failed ${c.failed}, received ${c.received}; frames out ${c.framesOut}, in ${c.framesIn}`);
  print(`  control characters out ${describeControls(controls.out)}, in ${describeControls(controls.in)}`);
  for (const s of summary.samples) if (!notRun.includes(s)) print(`  ${describeOutcome(s)}`);
}

async function run(config: CliConfig, print: Print, printError: Print): Promise<number> {
  let sim: AnalyzerSimulator;
  try {
    sim = new AnalyzerSimulator({
    dialect: config.dialect,
    transport: config.transport,
    framing: config.framing,
    seed: config.seed,
    analysisMs: config.analysisMs,
    intervalMs: config.intervalMs,
    misbehaviour: config.misbehaviour,
    ...(config.timeZone === undefined ? {} : { timeZone: config.timeZone }),
    ...(config.queryTimeoutMs === undefined ? {} : { queryTimeoutMs: config.queryTimeoutMs }),
    ...(config.tests === undefined ? {} : { tests: config.tests }),
    });
  } catch (err) {
    // Options the parser could not judge alone (time zone, misbehaviour limits).
    printError(`lis-analyzer-sim: ${(err as Error).message}`);
    return 2;
  }
  if (!config.quiet) {
    sim.on('frame', (f) => print(`${stamp(f.at)} ${f.direction === 'out' ? '→' : '←'} ${f.text}`));
  }
  const controls: Controls = { in: new Map(), out: new Map() };
  sim.on('frame', (f) => {
    if (f.bytes.length !== 1 || f.bytes[0] === STX || config.framing === 'records') return;
    const name = f.text.replace(/^<|>$/g, '');
    controls[f.direction].set(name, (controls[f.direction].get(name) ?? 0) + 1);
  });
  sim.on('misbehaviour', (note) => print(`${stamp(new Date())} ! ${note}`));
  sim.on('warning', (w) => print(`${stamp(new Date())} warning: ${w}`));
  sim.on('failed', (m) => print(`${stamp(m.at)} ${m.kind} for ${m.sampleNumber} failed: ${m.reason}`));
  sim.on('outcome', (o) => print(`${stamp(new Date())} ${describeOutcome(o)}`));
  sim.on('connect', (peer) => print(`${stamp(new Date())} connected: ${peer}`));
  sim.on('disconnect', (reason) => print(`${stamp(new Date())} disconnected: ${reason}`));

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
  let config: CliConfig;
  try {
    config = parseCliOptions(argv, env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    printError(`lis-analyzer-sim: ${err.message}\n\n${USAGE}`);
    return 2;
  }
  if (config.help) {
    print(USAGE);
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
