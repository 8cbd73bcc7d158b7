/**
 * Section 10: the file reader beside allotropy (Benchling-Open-Source/allotropy, MIT, not part of this package), the
 * Python converter of instrument files to the Allotrope Simple Model, over the same files in the same run.
 *
 * The files are the package's fixtures that came from allotropy's test data (test/fixtures/SOURCES.md), each read
 * by its built-in dialect with `fileLabEvents` as test/unit/file-dialects.test.ts and file-xlsx.test.ts read them,
 * and by allotropy under the vendor that reads it, through bench/allotropy-read.py. Then, to show the ratio as the
 * size grows, two larger QuantStudio Design & Analysis workbooks (1.1 and 2.5 MB) of allotropy's test data, read
 * from ALLOTROPY_DIR itself so that nothing big is committed; quick mode leaves them out.
 *
 * Ours: rounds that read the file again and again for `roundMs` (a small file reads in well under a millisecond),
 * half of them before allotropy's rounds and half after, so that a busy spell of the shared machine falls on both.
 * allotropy: one conversion a round, in a python process of its own (bench/allotropy-read.py), timed in its two
 * steps: the file parsed into the model (allotrope_model_from_file) and the model serialized and checked against
 * the ASM schema. MB/s by the clock, medians; the ratio divides CPU time (as section 1's) and sets ours against
 * allotropy's parse alone, not its schema validation, which would only widen it (the whole allotrope_from_file is
 * in results.json). Both count what they read: ours its results, QC results and rows kept aside, allotropy its
 * measurement documents (one per well and target, or per plate well, controls and blanks included).
 *
 * ALLOTROPY_DIR (a checkout) and a python with allotropy's dependencies (ALLOTROPY_PYTHON, default python3) add
 * allotropy; without them, or for a file allotropy fails on, the ratio's row says why (in quick mode without
 * ALLOTROPY_DIR, CI's, that row alone: our reader is not timed). No limit judges these ratios (bench/limits.ts):
 * they are reported.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { LabEvent } from '../lib/lab';
import { APPBIO_QUANTSTUDIO, APPBIO_QUANTSTUDIO_DA_XLSX, fileLabEvents, MOLDEV_SOFTMAX_PRO, siteFileProfile, THERMO_SKANIT_XLSX, type FileDialectProfile } from '../lib/protocols/file';
import { ROOT } from './node-red';
import type { Report } from './report';
import { median } from './stats';

const SECTION = '10 file reader beside allotropy';

export interface FilePeerSizes {
  /** Rounds of our reader per file, half before allotropy's and half after. */
  oursRounds: number;
  /** Each of our rounds reads the file again and again for at least this long. */
  roundMs: number;
  /** allotropy's rounds per fixture, one conversion each (one more before them is not timed). */
  allotropyRounds: number;
  /** allotropy's rounds per larger file from ALLOTROPY_DIR; 0 leaves those files out. */
  largeRounds: number;
  /** Our reader measured also when allotropy is not there to set beside it; false (quick mode, CI): the row saying why only. */
  oursAlone: boolean;
}

interface PeerFile {
  key: string;
  /** The row's name for it. */
  name: string;
  path: string;
  /** The member of allotropy.parser_factory.Vendor that reads it. */
  vendor: string;
  profile: FileDialectProfile;
  timeZone?: string;
}

const FIXTURES = join(ROOT, 'test', 'fixtures', 'file');
const LARGE = 'tests/parsers/appbio_quantstudio_designandanalysis/testdata';

const fixture = (key: string, name: string, vendor: string, profile: FileDialectProfile, timeZone?: string): PeerFile => ({ key, name, path: join(FIXTURES, name), vendor, profile, ...(timeZone ? { timeZone } : {}) });

/** The fixtures from allotropy, each with the dialect that reads it (and a site's changes where the unit tests make them). */
function fixtures(): PeerFile[] {
  const utf16 = siteFileProfile({ base: 'moldev-softmax-pro', overrides: { encoding: 'utf16le', table: { startsAfter: 'Group: Unknowns' }, layout: { tests: ['MeanResult'] } } }).profile!;
  return [
    fixture('qs7flex', 'quantstudio-7-flex-results.txt', 'APPBIO_QUANTSTUDIO', APPBIO_QUANTSTUDIO, 'America/New_York'),
    fixture('qs6flexPa', 'quantstudio-6-flex-presence-absence.txt', 'APPBIO_QUANTSTUDIO', APPBIO_QUANTSTUDIO),
    fixture('qs7proDiomni', 'quantstudio-7-pro-diomni-presence-absence.xlsx', 'APPBIO_QUANTSTUDIO_DESIGNANDANALYSIS', APPBIO_QUANTSTUDIO_DA_XLSX),
    // As shipped the dialect keeps SkanIt's default labels (Un0001 ...) aside; a site that names its wells so says it in its pattern.
    fixture('skanit', 'skanit-7-varioskan-lux-elisa.xlsx', 'THERMO_SKANIT', { ...THERMO_SKANIT_XLSX, sampleNumber: { pattern: '[A-Za-z0-9][A-Za-z0-9._/-]*' } }),
    fixture('softmaxGroups', 'softmax-pro-elisa-groups.txt', 'MOLDEV_SOFTMAX_PRO', MOLDEV_SOFTMAX_PRO),
    fixture('softmaxUtf16', 'softmax-pro-unknowns-utf16.txt', 'MOLDEV_SOFTMAX_PRO', utf16),
  ];
}

/** allotropy's larger QuantStudio Design & Analysis workbooks (Apache POI), in its checkout. */
function largeFiles(dir: string): PeerFile[] {
  return [
    ['qsDaPa10', 'appbio_quantstudio_designandanalysis_QS7Pro_Presence_and_Absence_example10.xlsx'],
    ['qsDaStd04', 'appbio_quantstudio_designandanalysis_QS6_Standard_Curve_example04.xlsx'],
  ].map(([key, file]) => ({ key: key!, name: `${file!.replace('appbio_quantstudio_designandanalysis_', '')} (allotropy test data, larger)`, path: join(dir, LARGE, file!), vendor: 'APPBIO_QUANTSTUDIO_DESIGNANDANALYSIS', profile: APPBIO_QUANTSTUDIO_DA_XLSX }));
}

interface Round {
  bytes: number;
  seconds: number;
  cpuSeconds: number;
}

interface AllotropyRound {
  modelSeconds: number;
  modelCpuSeconds: number;
  validateSeconds: number;
  validateCpuSeconds: number;
}

interface AllotropyFile {
  path: string;
  bytes?: number;
  measurements?: number;
  rounds?: AllotropyRound[];
  error?: string;
}

interface AllotropyRun {
  python: string;
  allotropy: string;
  pandas: string;
  jsonschema: string;
  shims: string[];
  files: AllotropyFile[];
}

let sink = 0;

/** One of our rounds: the file read again and again for `ms`, at least `least` times. */
function oursRound(file: PeerFile, bytes: Buffer, ms: number, least = 1): Round {
  let reads = 0;
  const started = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  const until = started + BigInt(Math.round(ms * 1e6));
  do {
    sink += fileLabEvents(bytes, file.profile, { timeZone: file.timeZone ?? 'UTC', fileName: basename(file.path) }).length;
    reads++;
  } while (reads < least || process.hrtime.bigint() < until);
  const used = process.cpuUsage(cpu);
  return { bytes: reads * bytes.length, seconds: Number(process.hrtime.bigint() - started) / 1e9, cpuSeconds: (used.user + used.system) / 1e6 };
}

/** What our reading gave: results, QC results, rows kept aside. */
function counted(events: LabEvent[]): string {
  const n = (type: LabEvent['type']) => events.reduce((sum, e) => sum + (e.type !== type ? 0 : e.type === 'unassigned' ? e.items.length : 'results' in e ? e.results.length : 0), 0);
  return `results ${n('results')}, QC ${n('qc')}, aside ${n('unassigned')}`;
}

/** Why ALLOTROPY_DIR is no checkout of allotropy, or undefined when it is one. */
function notACheckout(dir: string | undefined): string | undefined {
  if (dir === undefined || dir === '') return 'ALLOTROPY_DIR is not set (a checkout of Benchling-Open-Source/allotropy)';
  if (!existsSync(join(dir, 'src', 'allotropy', 'to_allotrope.py'))) return `ALLOTROPY_DIR ${dir} has no src/allotropy/to_allotrope.py`;
  return undefined;
}

/** allotropy over `files`, each converted `rounds(file)` times, in one python process (bench/allotropy-read.py); or why not. */
function runAllotropy(dir: string | undefined, files: PeerFile[], rounds: (f: PeerFile) => number): { run?: AllotropyRun; why?: string } {
  const why = notACheckout(dir);
  if (why !== undefined) return { why };
  const python = process.env.ALLOTROPY_PYTHON || 'python3';
  const args = [join(ROOT, 'bench', 'allotropy-read.py'), dir!, ...files.map((f) => `${f.vendor}:${rounds(f)}=${f.path}`)];
  const out = spawnSync(python, args, { encoding: 'utf8', maxBuffer: 16 << 20, timeout: 15 * 60_000 });
  if (out.error !== undefined) return { why: `${python} did not run (${out.error.message})` };
  let parsed: (AllotropyRun & { error?: string }) | undefined;
  try {
    parsed = JSON.parse(out.stdout) as AllotropyRun & { error?: string };
  } catch {
    return { why: `bench/allotropy-read.py failed (${out.status ?? out.signal}): ${out.stderr.trim().split('\n').slice(-2).join(' / ')}` };
  }
  if (parsed.error !== undefined) return { why: `allotropy does not import under ${python}: ${parsed.error}` };
  return { run: parsed };
}

export function benchFilePeer(report: Report, sizes: FilePeerSizes, allotropyDir: string | undefined, log: (line: string) => void): void {
  const files = fixtures();
  const noCheckout = notACheckout(allotropyDir);
  if (noCheckout !== undefined && !sizes.oursAlone) return report.notAvailable(SECTION, 'filePeer.vsAllotropy', 'each file: ours / allotropy (CPU time)', noCheckout);
  const wanted = noCheckout === undefined && sizes.largeRounds > 0 ? largeFiles(allotropyDir!) : [];
  // A checkout may lack a large file (a partial clone leaves large objects out): its row says so.
  const large = wanted.filter((f) => existsSync(f.path));
  const all = [...files, ...large];
  const bytes = all.map((f) => readFileSync(f.path));
  const events = all.map((f, i) => fileLabEvents(bytes[i]!, f.profile, { timeZone: f.timeZone ?? 'UTC', fileName: basename(f.path) }));
  // Warm-up: the workbook reader loaded, V8's optimised code in place before anything is timed.
  all.forEach((f, i) => oursRound(f, bytes[i]!, sizes.roundMs, 5));
  const ours: Round[][] = all.map(() => []);
  const oursHalf = (n: number) => all.forEach((f, i) => { for (let r = 0; r < n; r++) ours[i]!.push(oursRound(f, bytes[i]!, sizes.roundMs)); });
  oursHalf(Math.ceil(sizes.oursRounds / 2));

  if (noCheckout === undefined) log(`10: allotropy over ${files.length} fixtures, ${sizes.allotropyRounds} rounds each${large.length > 0 ? `, and ${large.length} larger files, ${sizes.largeRounds} rounds each` : ''}`);
  const theirRun = runAllotropy(allotropyDir, all, (f) => (large.includes(f) ? sizes.largeRounds : sizes.allotropyRounds));
  oursHalf(Math.floor(sizes.oursRounds / 2));

  const theirs = (i: number): { file?: AllotropyFile; why?: string } => {
    if (theirRun.run === undefined) return { why: theirRun.why! };
    const file = theirRun.run.files[i]!;
    return file.error !== undefined ? { why: `allotropy failed on it: ${file.error}` } : { file };
  };
  all.forEach((f, i) => {
    const b = bytes[i]!.length;
    const mine = ours[i]!;
    const cpuRate = median(mine.map((r) => r.bytes / 1e6 / r.cpuSeconds));
    report.add({ key: `filePeer.${f.key}.ours.MBps`, section: SECTION, label: `${f.name}, ${(b / 1000).toFixed(1)} kB: ours (${counted(events[i]!)})`, value: median(mine.map((r) => r.bytes / 1e6 / r.seconds)), unit: 'MB/s' });
    const { file, why } = theirs(i);
    // allotropy not there at all: one row says why, after the files.
    if (file === undefined && theirRun.run === undefined) return;
    if (file === undefined) return report.notAvailable(SECTION, `filePeer.${f.key}.vsAllotropy`, `${f.name}: ours / allotropy (CPU time)`, why!);
    const rounds = file.rounds!;
    report.add({ key: `filePeer.${f.key}.allotropy.MBps`, section: SECTION, label: `${f.name}: allotropy, parsed to the model (${file.measurements} measurements)`, value: median(rounds.map((r) => b / 1e6 / r.modelSeconds)), unit: 'MB/s' });
    report.add({ key: `filePeer.${f.key}.vsAllotropy`, section: SECTION, label: `${f.name}: ours / allotropy's parse (CPU time)`, value: cpuRate / median(rounds.map((r) => b / 1e6 / r.modelCpuSeconds)), unit: 'x' });
  });
  if (theirRun.run === undefined) report.notAvailable(SECTION, 'filePeer.vsAllotropy', 'each file: ours / allotropy (CPU time)', theirRun.why!);
  for (const f of wanted.filter((w) => !large.includes(w))) report.notAvailable(SECTION, `filePeer.${f.key}.vsAllotropy`, `${f.name}: ours / allotropy (CPU time)`, `not in ALLOTROPY_DIR (${LARGE})`);
  if (wanted.length === 0) report.notAvailable(SECTION, 'filePeer.large', 'larger files: two QuantStudio Design & Analysis workbooks of allotropy\'s test data (1.1, 2.5 MB)', noCheckout ?? 'left out in quick mode');
  const run = theirRun.run;
  if (run !== undefined) report.footnote(`10: allotropy ${run.allotropy} under Python ${run.python}, pandas ${run.pandas}, jsonschema ${run.jsonschema}${run.shims.length > 0 ? `; stand-ins: ${run.shims.join(', ')}` : ''} (bench/allotropy-read.py)`);
  report.detail('filePeer', {
    files: all.map((f, i) => ({ name: basename(f.path), vendor: f.vendor, bytes: bytes[i]!.length, ours: ours[i], allotropy: theirs(i).file ?? theirs(i).why })),
    allotropy: run === undefined ? theirRun.why : { python: run.python, allotropy: run.allotropy, pandas: run.pandas, jsonschema: run.jsonschema, shims: run.shims },
    sink,
  });
}
