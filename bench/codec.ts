/**
 * Section 1: the E1394 record codec (decodeMessage / encodeMessage) over the
 * fixture corpus, i.e. every message of every capture in test/fixtures/astm,
 * repeated until the requested volume has gone through. The volume is split
 * into rounds; the median round is reported, the total is at least `bytes`.
 *
 * Then the same codec beside two others, over the messages whose H record
 * declares the standard delimiters `|\^&` (the only ones python-astm knows),
 * in rounds that alternate between them so that a busy moment of this shared
 * machine falls on all of them alike:
 * - python-astm (kxepal/python-astm, BSD): its decode_record / encode_record,
 *   timed by bench/pyastm-codec.py when python3 and a checkout of it
 *   (PYASTM_DIR) are there; the row says why not otherwise.
 * - a plain split / join over the same text (splitRecords / joinRecords
 *   below): what python-astm does, in JavaScript, in this process. Its ratio
 *   does not depend on python3 being there, and hardly on the CPU, since both
 *   sides run on the same V8.
 * The ratios (ours over theirs) are what quick mode judges (bench/limits.ts);
 * the MB/s figures are for the record.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeMessage, encodeMessage, type AstmMessage } from '../lib/protocols/astm/records';
import { fixtureMessages, loadAllFixtures } from '../test/support/fixtures';
import { ROOT } from './node-red';
import type { Report } from './report';
import { median } from './stats';

export interface CodecSizes {
  /** Bytes of message text per direction, in all rounds together. */
  bytes: number;
  rounds: number;
  /**
   * Rounds of the comparison with python-astm and the plain split. More than
   * `rounds`: on a shared machine one side's round can fall in a busy moment
   * that the other side's missed, and the median of more rounds is steadier.
   */
  compareRounds: number;
}

interface RoundResult {
  bytes: number;
  messages: number;
  seconds: number;
  /** CPU time of the process (all its threads), for the comparison's ratios. */
  cpuSeconds?: number;
}

/**
 * Every message of every fixture, each as one flat string: what the link
 * layer hands over (a Buffer read as Latin-1). The fixture loader builds its
 * texts piece by piece, and V8 reads the characters of such a string more
 * slowly than those of one made from bytes.
 */
export function corpus(): string[] {
  return loadAllFixtures().flatMap((f) => fixtureMessages(f).map((text) => Buffer.from(text, 'latin1').toString('latin1')));
}

/** The messages python-astm can read: those whose H record declares `|\^&`. */
export function standardCorpus(texts: string[]): string[] {
  return texts.filter((t) => t.startsWith('H|\\^&'));
}

/** `passes` whole passes of `one` over the corpus, in corpus order (the comparison's rounds: every round the same mix). */
function passRound(texts: string[], passes: number, one: (i: number) => number): RoundResult {
  let done = 0;
  const started = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  for (let p = 0; p < passes; p++) for (let i = 0; i < texts.length; i++) done += one(i);
  const used = process.cpuUsage(cpu);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { bytes: done, messages: passes * texts.length, seconds, cpuSeconds: (used.user + used.system) / 1e6 };
}

/** Runs `one` over the corpus, in corpus order and round and round, until `bytes` went through. */
function round(texts: string[], bytes: number, one: (i: number) => number): RoundResult {
  let done = 0;
  let messages = 0;
  const started = process.hrtime.bigint();
  while (done < bytes) {
    for (let i = 0; i < texts.length && done < bytes; i++) {
      done += one(i);
      messages++;
    }
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { bytes: done, messages, seconds };
}

const mbps = (r: RoundResult) => r.bytes / 1e6 / r.seconds;

/**
 * python-astm's decode_record over a message, in JavaScript: records split on
 * CR, fields on `|`, repeats on `\`, components on `^`. No escapes, no checks,
 * no named fields: the least a decoder does.
 */
export function splitRecords(text: string): Array<Array<string | string[] | string[][]>> {
  const records = text.split('\r');
  if (records[records.length - 1] === '') records.pop();
  return records.map((r) => r.split('|').map((f) => (f.includes('\\') ? f.split('\\').map((x) => x.split('^')) : f.includes('^') ? f.split('^') : f)));
}

/** The reverse of splitRecords, as python-astm's encode_record joins them. */
export function joinRecords(records: Array<Array<string | string[] | string[][]>>): string {
  return `${records.map((r) => r.map((f) => (typeof f === 'string' ? f : f.map((x) => (typeof x === 'string' ? x : x.join('^'))).join(typeof f[0] === 'string' ? '^' : '\\'))).join('|')).join('\r')}\r`;
}

export function benchCodec(report: Report, sizes: CodecSizes, pyastmDir: string | undefined): void {
  const texts = corpus();
  const decoded: AstmMessage[] = texts.map((t) => decodeMessage(t));
  const corpusBytes = texts.reduce((n, t) => n + t.length, 0);
  // Results go into `sink` so no call can be optimised away.
  let sink = 0;
  const decodeOne = (i: number): number => {
    const text = texts[i]!;
    sink += decodeMessage(text).records.length;
    return text.length;
  };
  const encodeOne = (i: number): number => {
    const text = encodeMessage(decoded[i]!);
    sink += text.length & 1;
    return text.length;
  };
  // Warm-up: the optimising compiler settles before anything is timed.
  round(texts, Math.min(2e6, sizes.bytes / 5), decodeOne);
  round(texts, Math.min(2e6, sizes.bytes / 5), encodeOne);

  const perRound = sizes.bytes / sizes.rounds;
  const results: Record<'decode' | 'encode', RoundResult[]> = { decode: [], encode: [] };
  for (let r = 0; r < sizes.rounds; r++) {
    results.decode.push(round(texts, perRound, decodeOne));
    results.encode.push(round(texts, perRound, encodeOne));
  }
  for (const dir of ['decode', 'encode'] as const) {
    const rs = results[dir];
    const total = rs.reduce((n, r) => n + r.bytes, 0);
    report.add({ key: `codec.${dir}.MBps`, section: '1 record codec', label: `${dir} throughput`, value: median(rs.map(mbps)), unit: 'MB/s', note: `${(total / 1e6).toFixed(1)} MB` });
    report.add({ key: `codec.${dir}.msgps`, section: '1 record codec', label: `${dir} messages`, value: median(rs.map((r) => r.messages / r.seconds)), unit: 'msg/s' });
  }
  const compared = compare(report, sizes, pyastmDir, () => sink);
  report.detail('codec', {
    corpusMessages: texts.length,
    corpusBytes,
    megabytesPerDirection: results.decode.reduce((n, r) => n + r.bytes, 0) / 1e6,
    rounds: results,
    compared,
    sink,
  });
}

type Side = 'ours' | 'split' | 'pyastm';
type Rounds = Record<Side, Record<'decode' | 'encode', RoundResult[]>>;

/** Ours, the split/join reference and python-astm over the standard corpus, in alternating rounds. */
function compare(report: Report, sizes: CodecSizes, pyastmDir: string | undefined, sunk: () => number): Record<string, unknown> {
  const section = '1 record codec, beside others';
  const texts = standardCorpus(corpus());
  const bytes = texts.reduce((n, t) => n + t.length, 0);
  const decoded = texts.map((t) => decodeMessage(t));
  const split = texts.map((t) => splitRecords(t));
  let sink = sunk();
  const one: Record<Exclude<Side, 'pyastm'>, Record<'decode' | 'encode', (i: number) => number>> = {
    ours: {
      decode: (i) => ((sink += decodeMessage(texts[i]!).records.length), texts[i]!.length),
      encode: (i) => ((sink += encodeMessage(decoded[i]!).length & 1), texts[i]!.length),
    },
    split: {
      decode: (i) => ((sink += splitRecords(texts[i]!).length), texts[i]!.length),
      encode: (i) => ((sink += joinRecords(split[i]!).length & 1), texts[i]!.length),
    },
  };
  const python = pythonRunner(pyastmDir, texts);
  // Whole passes (a part of one would be another mix of big and small
  // messages), about half the section's volume per direction in all.
  const passes = Math.max(1, Math.round(sizes.bytes / sizes.compareRounds / 2 / bytes));
  // python-astm is some ten times slower: fewer passes give rounds of about
  // the same length, and its throughput does not depend on their number.
  const pythonPasses = Math.max(1, Math.round(passes / 8));
  const rounds: Rounds = { ours: { decode: [], encode: [] }, split: { decode: [], encode: [] }, pyastm: { decode: [], encode: [] } };
  for (const side of ['ours', 'split'] as const) for (const dir of ['decode', 'encode'] as const) passRound(texts, passes, one[side][dir]);
  let pythonVersion: string | undefined;
  for (let r = 0; r < sizes.compareRounds; r++) {
    if (python.run !== undefined) {
      const py = python.run(pythonPasses);
      pythonVersion = py.python;
      rounds.pyastm.decode.push(py.decode);
      rounds.pyastm.encode.push(py.encode);
    }
    for (const dir of ['decode', 'encode'] as const) for (const side of ['ours', 'split'] as const) rounds[side][dir].push(passRound(texts, passes, one[side][dir]));
  }
  python.cleanUp();

  const rate = (side: Side, dir: 'decode' | 'encode') => median(rounds[side][dir].map(mbps));
  // The ratios divide CPU time, not time by the clock: on a shared machine a
  // round's clock time includes waiting for a CPU, which falls unevenly on
  // the sides (their rounds alternate, but the load changes within one). Our
  // CPU time counts all of Node's threads (the garbage collector's helpers
  // too), python-astm's its one thread: if anything, against us.
  const cpuRate = (side: Side, dir: 'decode' | 'encode') => median(rounds[side][dir].map((r) => r.bytes / 1e6 / r.cpuSeconds!));
  const note = `${texts.length} messages with |\\^&, ${(bytes / 1000).toFixed(1)} kB`;
  report.add({ key: 'codec.std.decode.MBps', section, label: 'decodeMessage, standard-delimiter messages', value: rate('ours', 'decode'), unit: 'MB/s', note });
  report.add({ key: 'codec.std.encode.MBps', section, label: 'encodeMessage, same messages', value: rate('ours', 'encode'), unit: 'MB/s' });
  report.add({ key: 'codec.split.decode.MBps', section, label: 'plain split into records, fields, components (JS reference)', value: rate('split', 'decode'), unit: 'MB/s' });
  report.add({ key: 'codec.split.encode.MBps', section, label: 'plain join of those pieces (JS reference)', value: rate('split', 'encode'), unit: 'MB/s' });
  report.add({ key: 'codec.decode.vsSplit', section, label: 'decode: ours / plain split (CPU time)', value: cpuRate('ours', 'decode') / cpuRate('split', 'decode'), unit: 'x' });
  report.add({ key: 'codec.encode.vsJoin', section, label: 'encode: ours / plain join (CPU time)', value: cpuRate('ours', 'encode') / cpuRate('split', 'encode'), unit: 'x' });
  if (python.run === undefined) {
    for (const dir of ['decode', 'encode'] as const) report.notAvailable(section, `codec.${dir}.vsPyastm`, `${dir}: ours / python-astm (CPU time)`, python.why);
  } else {
    const version = `python-astm under Python ${pythonVersion ?? '?'}`;
    report.add({ key: 'codec.pyastm.decode.MBps', section, label: 'python-astm decode_record, same messages', value: rate('pyastm', 'decode'), unit: 'MB/s', note: version });
    report.add({ key: 'codec.pyastm.encode.MBps', section, label: 'python-astm encode_record, same messages', value: rate('pyastm', 'encode'), unit: 'MB/s' });
    for (const dir of ['decode', 'encode'] as const) {
      const ratio = cpuRate('ours', dir) / cpuRate('pyastm', dir);
      report.add({ key: `codec.${dir}.vsPyastm`, section, label: `${dir}: ours / python-astm (CPU time)`, value: ratio, unit: 'x', goal: { text: '>= 5x', met: ratio >= 5 } });
    }
  }
  return { messages: texts.length, bytes, passes, pythonPasses: python.run === undefined ? undefined : pythonPasses, python: python.run === undefined ? python.why : pythonVersion, rounds, sink };
}

interface PythonRound {
  python: string;
  decode: RoundResult;
  encode: RoundResult;
}

/**
 * How to time python-astm: a function that runs one round of each direction
 * in a python3 process (bench/pyastm-codec.py), or the reason there is none.
 */
function pythonRunner(pyastmDir: string | undefined, texts: string[]): { run?: (passes: number) => PythonRound; why: string; cleanUp: () => void } {
  const none = (why: string) => ({ why, cleanUp: () => undefined });
  if (pyastmDir === undefined || pyastmDir === '') return none('PYASTM_DIR is not set (a checkout of kxepal/python-astm)');
  if (!existsSync(join(pyastmDir, 'astm', 'codec.py'))) return none(`PYASTM_DIR ${pyastmDir} has no astm/codec.py`);
  const probe = spawnSync('python3', ['--version'], { encoding: 'utf8' });
  if (probe.error !== undefined || probe.status !== 0) return none('python3 is not installed');
  const dir = mkdtempSync(join(tmpdir(), 'lis-bench-pyastm-'));
  const file = join(dir, 'corpus.json');
  // JSON strings hold the Latin-1 characters; the driver encodes them back to those bytes.
  writeFileSync(file, JSON.stringify(texts));
  const driver = join(ROOT, 'bench', 'pyastm-codec.py');
  const cleanUp = () => rmSync(dir, { recursive: true, force: true });
  const run = (passes: number): PythonRound => {
    const out = spawnSync('python3', [driver, pyastmDir, file, String(passes), '1'], { encoding: 'utf8', maxBuffer: 1 << 20 });
    if (out.status !== 0) throw new Error(`bench/pyastm-codec.py failed (${out.status ?? out.signal}): ${out.stderr.trim().split('\n').slice(-3).join(' / ')}`);
    const parsed = JSON.parse(out.stdout) as { python: string; decode: RoundResult[]; encode: RoundResult[] };
    return { python: parsed.python, decode: parsed.decode[0]!, encode: parsed.encode[0]! };
  };
  // One small round first: a python-astm that does not import under this
  // python3 is a row not available, with the reason, not a failed bench.
  try {
    run(1);
  } catch (err) {
    cleanUp();
    return none(err instanceof Error ? err.message : String(err));
  }
  return { run, why: '', cleanUp };
}
