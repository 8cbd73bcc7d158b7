/**
 * `npm run bench`: the performance figures of the package, as one table, and
 * bench/results.json with the machine they were measured on.
 *
 *   npm run bench                       full run (a few minutes)
 *   npm run bench -- --quick            smaller sizes (under a minute), compared with bench/baseline.json:
 *                                       exit 1 when a throughput or latency figure is more than 2x worse
 *   npm run bench -- --quick --write-baseline   (re)write bench/baseline.json from this run
 *   npm run bench -- --only 3,4         some sections only
 *   npm run bench -- --profile          Node-RED under --cpu-prof; prints where its time went (in each measured window)
 *   npm run bench -- --quick --baseline <file>   compare with another baseline file
 *
 * In quick mode a figure beyond 2x is measured once more (its section only) and
 * fails the run only if the second measurement confirms it: the bench machine is
 * shared, and one busy window must not fail a run.
 *
 * Progress goes to stderr; the table to stdout.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { REGRESSION_FACTOR, baselineOf, describeRegression, regressions, type Baseline } from './baseline';
import { benchCodec } from './codec';
import { benchHostQuery } from './host-query';
import { benchJournalCost, type JournalSizes } from './journal-cost';
import { benchLinkInProcess } from './link-inprocess';
import { ROOT } from './node-red';
import { filesystemOf, machineLoad } from './proc';
import { formatProfile, summarizeProfile, type ProfileWindow } from './profile';
import { Report } from './report';
import { benchScale, type ScaleSizes } from './scale';
import { benchSerial } from './serial';

interface Sizes {
  codec: { bytes: number; rounds: number };
  linkFrames: number;
  ptyMessages: number;
  batchResults: number;
  queries: number;
  scale: ScaleSizes;
  journal: JournalSizes;
}

const FULL: Sizes = {
  codec: { bytes: 50e6, rounds: 5 },
  linkFrames: 200_000,
  ptyMessages: 300,
  batchResults: 100,
  queries: 1000,
  scale: { analyzers: [1, 10, 50, 200], journalOffAnalyzers: [1, 10, 50, 200], windowMs: 10_000, warmUpMs: 2_000 },
  journal: { writers: [1, 10, 100], windowMs: 3_000, warmUpMs: 300, ackMessages: 10_000 },
};

const QUICK: Sizes = {
  codec: { bytes: 5e6, rounds: 5 },
  linkFrames: 20_000,
  ptyMessages: 100,
  batchResults: 50,
  queries: 300,
  // Journal off only at the ends of the range: quick mode must stay under a minute.
  scale: { analyzers: [1, 10, 50, 200], journalOffAnalyzers: [1, 200], windowMs: 1_500, warmUpMs: 400 },
  journal: { writers: [1, 10, 100], windowMs: 1_000, warmUpMs: 200, ackMessages: 3_000 },
};

const BASELINE = join(ROOT, 'bench', 'baseline.json');
const RESULTS = join(ROOT, 'bench', 'results.json');

function log(line: string): void {
  process.stderr.write(`[bench] ${line}\n`);
}

function parseArgs(argv: string[]): { quick: boolean; writeBaseline: boolean; profile: boolean; only: Set<number> | undefined; baseline: string | undefined } {
  const known = new Set(['--quick', '--write-baseline', '--profile', '--only', '--baseline']);
  let only: Set<number> | undefined;
  let baseline: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--baseline') {
      baseline = argv[++i];
      if (!baseline) throw new Error('--baseline needs a file');
    } else if (a.startsWith('--only')) {
      const list = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i];
      if (!list) throw new Error('--only needs a list of section numbers, e.g. --only 1,2');
      only = new Set(list.split(',').map((s) => Number(s.trim())));
    } else if (!known.has(a)) throw new Error(`unknown option ${a} (known: --quick, --write-baseline, --profile, --only <sections>, --baseline <file>)`);
  }
  return { quick: argv.includes('--quick'), writeBaseline: argv.includes('--write-baseline'), profile: argv.includes('--profile'), only, baseline };
}

function machine(): Record<string, unknown> {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    platform: `${os.platform()} ${os.release()}`,
    node: process.version,
    nodeRed: (require('node-red/package.json') as { version: string }).version,
    serialport: (require('node-red-node-serialport/package.json') as { version: string }).version,
    // Node-RED's userDir (so its journal) and section 6's journal files are under os.tmpdir().
    tmpFilesystem: (({ type, device }) => `${type} on ${device}`)(filesystemOf(os.tmpdir())),
  };
}

type Profiles = Array<{ files: string[]; windows: ProfileWindow[] }>;

/** Runs the wanted sections into `report`; returns the profiles Node-RED wrote (with --profile). */
async function measure(report: Report, want: (section: number) => boolean, sizes: Sizes, profile: boolean): Promise<Profiles> {
  const profiles: Profiles = [];
  if (want(1)) {
    log(`1: record codec over the fixture corpus, ${sizes.codec.bytes / 1e6} MB per direction`);
    benchCodec(report, sizes.codec, process.env.PYASTM_DIR);
  }
  if (want(2)) {
    log(`2: link layer in process, ${sizes.linkFrames} frames`);
    benchLinkInProcess(report, sizes.linkFrames);
  }
  if (want(2) || want(3)) {
    const run = await benchSerial(report, { ptyMessages: sizes.ptyMessages, batchResults: sizes.batchResults }, { pty: want(2), line: want(3) }, profile, log);
    profiles.push({ files: run.profiles, windows: run.windows });
  }
  if (want(4)) {
    const run = await benchHostQuery(report, sizes.queries, profile, log);
    profiles.push({ files: run.profiles, windows: run.windows });
  }
  if (want(5)) {
    for (const run of await benchScale(report, sizes.scale, profile, log)) profiles.push({ files: run.profiles, windows: run.windows });
  }
  if (want(6)) await benchJournalCost(report, sizes.journal, log);

  return profiles;
}

/** The section that measures a figure, to measure it again. */
function sectionOf(key: string): number {
  if (key.startsWith('codec.')) return 1;
  if (key.startsWith('link.')) return 2;
  if (key.startsWith('serial.')) return 3;
  if (key.startsWith('hostQuery.')) return 4;
  if (key.startsWith('journal.')) return 6;
  return 5;
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  const sizes = args.quick ? QUICK : FULL;
  const want = (section: number) => args.only === undefined || args.only.has(section);
  const report = new Report();
  const started = Date.now();
  const info = machine();
  const loadAtStart = machineLoad().loadAverage1m;
  log(`${args.quick ? 'quick' : 'full'} run on ${String(info.cpuModel)} x${String(info.cores)}, Node ${String(info.node)}, Node-RED ${String(info.nodeRed)}`);

  const profiles = await measure(report, want, sizes, args.profile);
  if (args.profile) report.detail('profiles', profiles);

  const seconds = (Date.now() - started) / 1000;
  const loadAtEnd = machineLoad().loadAverage1m;
  process.stdout.write(`\nnpm run bench${args.quick ? ' -- --quick' : ''}: ${String(info.cpuModel)} (${String(info.cores)} cores), Node ${String(info.node)}, Node-RED ${String(info.nodeRed)}, tmp ${String(info.tmpFilesystem)}, ${seconds.toFixed(0)} s, load average ${loadAtStart.toFixed(2)} -> ${loadAtEnd.toFixed(2)}\n\n`);
  process.stdout.write(`${report.table()}\n`);

  const results = {
    mode: args.quick ? 'quick' : 'full',
    finishedAt: new Date().toISOString(),
    seconds,
    machine: info,
    loadAverage1m: { start: loadAtStart, end: loadAtEnd },
    sizes,
    figures: Object.fromEntries(report.figures.map((f) => [f.key, { section: f.section, label: f.label, value: f.value, unit: f.unit, ...(f.better ? { better: f.better } : {}), ...(f.goal ? { goal: f.goal } : {}), ...(f.note ? { note: f.note } : {}) }])),
    goals: report.figures.filter((f) => f.goal).map((f) => ({ key: f.key, label: f.label, value: f.value, goal: f.goal!.text, met: f.goal!.met })),
    details: report.details,
  };
  writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
  log(`wrote ${RESULTS}`);

  for (const p of profiles) for (const file of p.files) for (const w of p.windows) process.stderr.write(`\n${formatProfile(summarizeProfile(file, w))}\n`);

  const missed = report.figures.filter((f) => f.goal && !f.goal.met);
  for (const f of missed) process.stdout.write(`goal missed: ${f.section}: ${f.label} = ${f.value === null ? 'n/a' : f.value.toPrecision(4)} ${f.unit} (goal ${f.goal!.text})\n`);

  if (args.writeBaseline) {
    if (!args.quick) log('note: the baseline is meant to come from a quick run (--quick --write-baseline)');
    const baseline = baselineOf(report.figures, info, args.quick ? 'quick' : 'full');
    writeFileSync(BASELINE, `${JSON.stringify(baseline, null, 2)}\n`);
    log(`wrote ${BASELINE}`);
    return 0;
  }
  if (args.quick) {
    const baselineFile = args.baseline ?? BASELINE;
    if (!existsSync(baselineFile)) {
      process.stdout.write('no bench/baseline.json to compare with (npm run bench -- --quick --write-baseline)\n');
      return 0;
    }
    const baseline = JSON.parse(readFileSync(baselineFile, 'utf8')) as Baseline;
    if (baseline.machine.cpuModel !== info.cpuModel || baseline.machine.cores !== info.cores) {
      process.stdout.write(`note: the baseline was measured on ${String(baseline.machine.cpuModel)} x${String(baseline.machine.cores)}, this is ${String(info.cpuModel)} x${String(info.cores)}\n`);
    }
    const { compared, found } = regressions(report.figures, baseline);
    let confirmed = found;
    if (found.length > 0) {
      // A busy machine (this one is shared) can slow one window down: a regression
      // counts only if the section, measured once more, shows it again.
      const again = new Set(found.map((r) => sectionOf(r.figure.key)));
      const keys = new Set(found.map((r) => r.figure.key));
      log(`${found.length} figure(s) beyond ${REGRESSION_FACTOR}x: measuring section(s) ${[...again].join(', ')} once more to confirm`);
      const second = new Report();
      await measure(second, (n) => again.has(n), sizes, false);
      confirmed = regressions(second.figures.filter((f) => keys.has(f.key)), baseline).found;
      for (const r of found) {
        const re = second.get(r.figure.key);
        const kept = confirmed.find((c) => c.figure.key === r.figure.key);
        process.stdout.write(kept ? `${describeRegression(kept)}; first measurement ${r.figure.value!.toPrecision(4)} ${r.figure.unit} (${r.factor.toFixed(1)}x): confirmed\n` : `not confirmed: ${r.figure.key} was ${r.figure.value!.toPrecision(4)} ${r.figure.unit} (${r.factor.toFixed(1)}x worse than ${r.baseline.toPrecision(4)}), measured again ${re?.value === null || re === undefined ? 'n/a' : re.value.toPrecision(4)} ${r.figure.unit}: within ${REGRESSION_FACTOR}x\n`);
      }
    }
    process.stdout.write(confirmed.length === 0 ? `baseline: ${compared} figures compared, no regression beyond ${REGRESSION_FACTOR}x\n` : `baseline: ${confirmed.length} of ${compared} figures regressed beyond ${REGRESSION_FACTOR}x (confirmed by a second measurement)\n`);
    const comparison = {
      baseline: baselineFile,
      compared,
      beyondLimitFirst: found.map((r) => ({ key: r.figure.key, value: r.figure.value, baseline: r.baseline, factor: r.factor })),
      confirmed: confirmed.map((r) => ({ key: r.figure.key, value: r.figure.value, baseline: r.baseline, factor: r.factor })),
    };
    writeFileSync(RESULTS, `${JSON.stringify({ ...results, baselineComparison: comparison }, null, 2)}\n`);
    return confirmed.length === 0 ? 0 : 1;
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`[bench] failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(2);
  },
);
