/**
 * The command line of lis-analyzer-sim, parsed into simulator options. Kept
 * apart from cli.ts (which runs on load) so it can be tested in-process.
 * Flags win over environment variables, which win over the dialect's defaults.
 */
import { parseArgs } from 'node:util';
import { PROFILES, findProfile, type SerialSettings } from '../protocols/astm/dialects';
import { HL7_PROFILES, findHl7Profile } from '../protocols/hl7/dialects';
import type { Misbehaviour } from './misbehaviour';
import type { Hl7Misbehaviour } from './hl7/misbehaviour';
import type { QcOptions } from './qc';
import type { TransportSpec } from './transport';

export const USAGE = `lis-analyzer-sim: plays one analyzer (ASTM E1381/E1394, or HL7 v2 over MLLP) against a LIS host.

Usage:
  lis-analyzer-sim --dialect <id> (--serial <path> [--baud <n>] | --tcp <host:port> | --listen [<host>:]<port>)
                   (--samples S1,S2,... | --count <n> [--prefix <p>]) [options]
  lis-analyzer-sim --protocol hl7 --dialect <hl7 id> (--tcp <host:port> | --listen [<host>:]<port>) ...

Protocol:
  --protocol <astm|hl7>      default: the protocol of the dialect (an HL7 dialect id means hl7)

Line (environment variable in brackets):
  --serial <path>            serial device, e.g. one end of a socat pty pair (ANALYZER_PORT)
  --baud <n>                 baud rate; default the dialect's, else 9600 (ANALYZER_BAUD)
  --tcp <host:port>          connect to the host, as analyzers do (ANALYZER_HOST + ANALYZER_TCP_PORT)
  --listen [<host>:]<port>   wait for the host to connect (default host 127.0.0.1; port 0 = any)
  --records-only             plain CR-separated records, no E1381 link layer

Samples:
  --samples <list>           comma-separated sample numbers to scan
  --count <n>                n samples named <prefix>001, <prefix>002 ...
  --prefix <p>               prefix for --count, default S
  --tests <list>             tests to report for dialects the package cannot send orders to; default GLU,CREA

Timing and values:
  --interval <ms>            time between the starts of two samples, default 2000
  --analysis-ms <ms>         time from the download to the results, default 1000
  --query-timeout-ms <ms>    give up (and cancel) a query after this; default the dialect's deadline
  --tz <zone>                IANA site time zone for timestamps, default this machine's
  --seed <s>                 results are a function of seed, sample and test; default 1

HL7 (MLLP over TCP):
  --ack-timeout-ms <ms>      wait this long for the host's ACK before sending again, default 10000
  --retries <n>              send a message again at most n times after a time-out, default 2

QC (ASTM and HL7 dialects whose profile marks QC; a run is one value per level and test of --tests):
  --qc <control>             run this control: one run after the samples, or as --qc-every says
  --qc-levels <2|3>          levels per run (materials <control>-L1, -L2 ...), default 2
  --qc-every <n|Nms>         a run after every n samples, or every N ms (e.g. 500ms) while connected
  --qc-bias <SD>             shift the control's mean by this many SD, default 0 (down: --qc-bias=-1.5)
  --qc-bias-from <run>       the first run the bias and the drift act on, default 1
  --qc-drift <SD per run>    add this many SD per run, from --qc-bias-from on, default 0
  --qc-imprecision <factor>  widen the SD by this factor (>0), default 1

Misbehaviour, HL7 (each N counts from 1):
  --missing-start <N|x>      frame N (or a fraction 0<x<1 of frames) without its leading VT
  --junk <N|x>               bytes outside any frame before frame N (or a fraction of frames)
  --split-writes <n>         every frame in writes of at most n bytes
  --no-ack <N>               the host's Nth message that wants an ACK gets none
  --error-ack <N>            the host's Nth message that wants an ACK gets AE with an ERR text
  --drop-ack <N>             the host's ACK of our Nth message is lost: the message goes out again, same MSH-10
  --drop-results-ack <N>     the same for our Nth results message (queries and QC not counted)
  --unordered-result <code>  as for ASTM
  (No HL7 dialect documents a query cancel: an unanswered query is given up after --query-timeout-ms.)

Misbehaviour, ASTM (to rehearse the host's handling of faults):
  --corrupt-checksum <N|x>   frame N goes out once with a wrong checksum; or a fraction 0<x<1 of all frames
  --drop-ack <N>             the host's ACK of frame N is taken as garbled: the frame is sent again
  --contend                  send ENQ at the moment the host sends its ENQ for a download (needs 2+ samples)
  --split-records <n|record> frames of at most n text characters, or one record per frame
  --pause-ms <ms>            silence before frame --pause-at-frame (default 2) of the first result message
  --pause-at-frame <n>
  --unordered-result <code>  also report this test, which was not ordered ('auto': one from the analyte table)

Output:
  --quiet                    no line per frame, only outcomes and the summary
  --help                     this text

Exit status: 0 when every sample got its order and its results were acknowledged; 1 otherwise;
2 for a usage error; 128+signal number when stopped by SIGINT or SIGTERM.

Dialects: ${PROFILES.map((p) => p.id).join(', ')}
HL7 dialects: ${HL7_PROFILES.map((p) => p.id).join(', ')}
`;

export class UsageError extends Error {
  override name = 'UsageError';
}

export interface CliConfig {
  help: boolean;
  protocol: 'astm' | 'hl7';
  dialect: string;
  transport: TransportSpec;
  framing: 'astm' | 'records';
  samples: string[];
  tests?: string[];
  intervalMs: number;
  analysisMs: number;
  queryTimeoutMs?: number;
  timeZone?: string;
  seed: string;
  misbehaviour: Misbehaviour;
  /** protocol hl7 only. */
  hl7?: { misbehaviour: Hl7Misbehaviour; ackTimeoutMs?: number; retries?: number };
  /** Control runs, for dialects that mark QC. */
  qc?: QcOptions;
  quiet: boolean;
}

function read(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: false,
    strict: true,
    options: {
      dialect: { type: 'string' },
      serial: { type: 'string' },
      baud: { type: 'string' },
      tcp: { type: 'string' },
      listen: { type: 'string' },
      'records-only': { type: 'boolean' },
      samples: { type: 'string' },
      count: { type: 'string' },
      prefix: { type: 'string' },
      tests: { type: 'string' },
      interval: { type: 'string' },
      'analysis-ms': { type: 'string' },
      'query-timeout-ms': { type: 'string' },
      tz: { type: 'string' },
      seed: { type: 'string' },
      'corrupt-checksum': { type: 'string' },
      'drop-ack': { type: 'string' },
      contend: { type: 'boolean' },
      'split-records': { type: 'string' },
      'pause-ms': { type: 'string' },
      'pause-at-frame': { type: 'string' },
      'unordered-result': { type: 'string' },
      protocol: { type: 'string' },
      'ack-timeout-ms': { type: 'string' },
      retries: { type: 'string' },
      qc: { type: 'string' },
      'qc-levels': { type: 'string' },
      'qc-every': { type: 'string' },
      'qc-bias': { type: 'string' },
      'qc-bias-from': { type: 'string' },
      'qc-drift': { type: 'string' },
      'qc-imprecision': { type: 'string' },
      'missing-start': { type: 'string' },
      junk: { type: 'string' },
      'split-writes': { type: 'string' },
      'no-ack': { type: 'string' },
      'error-ack': { type: 'string' },
      'drop-results-ack': { type: 'string' },
      quiet: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
}

function count(text: string, what: string, min = 0): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || n < min) throw new UsageError(`${what} must be a whole number >= ${min}, not ${JSON.stringify(text)}`);
  return n;
}

function port(text: string, what: string): number {
  const n = count(text, what);
  if (n > 65535) throw new UsageError(`${what} must be a port number 0-65535, not ${JSON.stringify(text)}`);
  return n;
}

function list(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function transportOf(v: ReturnType<typeof read>['values'], env: NodeJS.ProcessEnv, serial: SerialSettings | undefined): TransportSpec {
  const chosen = [v.serial !== undefined, v.tcp !== undefined, v.listen !== undefined].filter(Boolean).length;
  if (chosen > 1) throw new UsageError('give one of --serial, --tcp and --listen');
  const baudText = v.baud ?? env.ANALYZER_BAUD;
  const baudRate = baudText === undefined ? undefined : count(baudText, v.baud !== undefined ? '--baud' : 'ANALYZER_BAUD', 1);
  // The dialect's character format (data bits, parity, stop bits) and baud rate, unless overridden.
  const line = (path: string): TransportSpec => ({ kind: 'serial', path, ...(serial === undefined ? {} : { settings: serial }), ...(baudRate === undefined ? {} : { baudRate }) });
  if (v.serial !== undefined) return line(v.serial);
  if (v.tcp !== undefined) {
    const m = /^(.+):(\d+)$/.exec(v.tcp);
    if (m === null) throw new UsageError(`--tcp must be host:port, not ${JSON.stringify(v.tcp)}`);
    return { kind: 'tcp', host: m[1]!, port: port(m[2]!, '--tcp port') };
  }
  if (v.listen !== undefined) {
    const m = /^(?:(.+):)?(\d+)$/.exec(v.listen);
    if (m === null) throw new UsageError(`--listen must be [host:]port, not ${JSON.stringify(v.listen)}`);
    return { kind: 'listen', port: port(m[2]!, '--listen port'), ...(m[1] === undefined ? {} : { host: m[1] }) };
  }
  if (env.ANALYZER_PORT) return line(env.ANALYZER_PORT);
  if (env.ANALYZER_HOST || env.ANALYZER_TCP_PORT) {
    if (!env.ANALYZER_HOST || !env.ANALYZER_TCP_PORT) throw new UsageError('ANALYZER_HOST and ANALYZER_TCP_PORT go together');
    return { kind: 'tcp', host: env.ANALYZER_HOST, port: port(env.ANALYZER_TCP_PORT, 'ANALYZER_TCP_PORT') };
  }
  throw new UsageError('no line given: use --serial, --tcp or --listen (or ANALYZER_PORT, or ANALYZER_HOST and ANALYZER_TCP_PORT)');
}

/** A frame number or a fraction 0<x<1. */
function frameOrFraction(text: string, what: string): number {
  const n = Number(text);
  if (!Number.isFinite(n) || !/^\d*\.?\d+$/.test(text.trim())) throw new UsageError(`${what} must be a frame number or a fraction, not ${JSON.stringify(text)}`);
  return n;
}

function misbehaviourOf(v: ReturnType<typeof read>['values']): Misbehaviour {
  const m: Misbehaviour = {};
  const corrupt = v['corrupt-checksum'];
  if (corrupt !== undefined) m.corruptChecksum = frameOrFraction(corrupt, '--corrupt-checksum');
  if (v['drop-ack'] !== undefined) m.dropAck = count(v['drop-ack'], '--drop-ack', 1);
  if (v.contend === true) m.contend = 1;
  const split = v['split-records'];
  if (split !== undefined) m.splitRecords = split === 'record' ? 'record' : count(split, '--split-records', 1);
  if (v['pause-ms'] !== undefined) m.pauseMs = count(v['pause-ms'], '--pause-ms');
  if (v['pause-at-frame'] !== undefined) m.pauseAtFrame = count(v['pause-at-frame'], '--pause-at-frame', 1);
  const unordered = v['unordered-result'];
  if (unordered !== undefined) m.unorderedResult = unordered === 'auto' ? true : unordered;
  return m;
}

const ASTM_ONLY = ['serial', 'baud', 'records-only', 'corrupt-checksum', 'contend', 'split-records', 'pause-ms', 'pause-at-frame'] as const;
const HL7_ONLY = ['ack-timeout-ms', 'retries', 'missing-start', 'junk', 'split-writes', 'no-ack', 'error-ack', 'drop-results-ack'] as const;

function hl7Of(v: ReturnType<typeof read>['values']): NonNullable<CliConfig['hl7']> {
  for (const name of ASTM_ONLY) if (v[name] !== undefined) throw new UsageError(`--${name} is an ASTM option; HL7 dialects run over TCP (MLLP)`);
  const m: Hl7Misbehaviour = {};
  if (v['missing-start'] !== undefined) m.missingStart = frameOrFraction(v['missing-start'], '--missing-start');
  if (v.junk !== undefined) m.junk = frameOrFraction(v.junk, '--junk');
  if (v['split-writes'] !== undefined) m.splitWrites = count(v['split-writes'], '--split-writes', 1);
  if (v['no-ack'] !== undefined) m.noAck = count(v['no-ack'], '--no-ack', 1);
  if (v['error-ack'] !== undefined) m.errorAck = count(v['error-ack'], '--error-ack', 1);
  if (v['drop-results-ack'] !== undefined) m.dropResultsAck = count(v['drop-results-ack'], '--drop-results-ack', 1);
  if (v['drop-ack'] !== undefined) m.dropAck = count(v['drop-ack'], '--drop-ack', 1);
  const unordered = v['unordered-result'];
  if (unordered !== undefined) m.unorderedResult = unordered === 'auto' ? true : unordered;
  const out: NonNullable<CliConfig['hl7']> = { misbehaviour: m };
  if (v['ack-timeout-ms'] !== undefined) out.ackTimeoutMs = count(v['ack-timeout-ms'], '--ack-timeout-ms', 1);
  if (v.retries !== undefined) out.retries = count(v.retries, '--retries');
  return out;
}

const QC_DETAILS = ['qc-levels', 'qc-every', 'qc-bias', 'qc-bias-from', 'qc-drift', 'qc-imprecision'] as const;

/** A number of SD: a signed decimal. */
function sd(text: string, what: string): number {
  if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(text.trim())) throw new UsageError(`${what} must be a number of SD (e.g. 1.5 or -0.5), not ${JSON.stringify(text)}`);
  return Number(text);
}

/** --qc and its details; `dialect` is the profile's id and whether its profile marks QC. */
function qcOf(v: ReturnType<typeof read>['values'], dialect: { id: string; hasQc: boolean }): QcOptions | undefined {
  if (v.qc === undefined) {
    const stray = QC_DETAILS.find((name) => v[name] !== undefined);
    if (stray !== undefined) throw new UsageError(`--${stray} needs --qc <control>: name the control to run`);
    return undefined;
  }
  if (!dialect.hasQc) throw new UsageError(`--qc: dialect ${dialect.id} has no QC marker, so the host could not tell its controls from patient samples; choose a dialect whose profile marks QC`);
  if (v.qc.trim() === '' || /[\x00-\x1f\x7f|\\^&~]/.test(v.qc)) throw new UsageError(`--qc must be a control name without delimiters (| \\ ^ & ~), not ${JSON.stringify(v.qc)}`);
  const qc: QcOptions = { control: v.qc.trim() };
  const levels = v['qc-levels'];
  if (levels !== undefined) {
    if (levels.trim() !== '2' && levels.trim() !== '3') throw new UsageError(`--qc-levels must be 2 or 3, not ${JSON.stringify(levels)}`);
    qc.levels = Number(levels);
  }
  const every = v['qc-every'];
  if (every !== undefined) {
    const m = /^(\d+)\s*(ms)?$/.exec(every.trim());
    const n = m === null ? 0 : Number(m[1]);
    if (n < 1) throw new UsageError(`--qc-every must be a number of samples (e.g. 10) or of ms (e.g. 500ms), at least 1; not ${JSON.stringify(every)}`);
    qc.every = m![2] === undefined ? { samples: n } : { ms: n };
  }
  if (v['qc-bias'] !== undefined) qc.bias = sd(v['qc-bias'], '--qc-bias');
  if (v['qc-bias-from'] !== undefined) qc.from = count(v['qc-bias-from'], '--qc-bias-from (a run number)', 1);
  if (v['qc-drift'] !== undefined) qc.drift = sd(v['qc-drift'], '--qc-drift (SD per run)');
  const imprecision = v['qc-imprecision'];
  if (imprecision !== undefined) {
    const f = sd(imprecision, '--qc-imprecision');
    if (!(f > 0)) throw new UsageError(`--qc-imprecision must be a factor on the SD above 0 (e.g. 2), not ${JSON.stringify(imprecision)}`);
    qc.imprecision = f;
  }
  return qc;
}

function samplesOf(v: ReturnType<typeof read>['values']): string[] {
  if (v.samples !== undefined && v.count !== undefined) throw new UsageError('give --samples or --count, not both');
  if (v.samples !== undefined) {
    const samples = list(v.samples);
    if (samples.length === 0) throw new UsageError('--samples holds no sample number');
    return samples;
  }
  if (v.count !== undefined) {
    const n = count(v.count, '--count', 1);
    const prefix = v.prefix ?? 'S';
    const width = Math.max(3, String(n).length);
    return Array.from({ length: n }, (_, i) => `${prefix}${String(i + 1).padStart(width, '0')}`);
  }
  throw new UsageError('no samples given: use --samples S1,S2 or --count <n>');
}

export function parseCliOptions(argv: string[], env: NodeJS.ProcessEnv): CliConfig {
  let parsed: ReturnType<typeof read>;
  try {
    parsed = read(argv);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const v = parsed.values;
  const quiet = v.quiet === true;
  if (v.help === true) {
    return { help: true, protocol: 'astm', dialect: '', transport: { kind: 'listen', port: 0 }, framing: 'astm', samples: [], intervalMs: 0, analysisMs: 0, seed: '1', misbehaviour: {}, quiet };
  }
  if (v.dialect === undefined) throw new UsageError('--dialect is required');
  if (v.protocol !== undefined && v.protocol !== 'astm' && v.protocol !== 'hl7') throw new UsageError(`--protocol must be astm or hl7, not ${JSON.stringify(v.protocol)}`);
  const hl7Profile = findHl7Profile(v.dialect);
  const astmProfile = findProfile(v.dialect);
  // An id both protocols know is ASTM unless --protocol says otherwise.
  const protocol = v.protocol ?? (astmProfile === undefined && hl7Profile !== undefined ? 'hl7' : 'astm');
  const common = {
    help: false,
    samples: samplesOf(v),
    intervalMs: v.interval === undefined ? 2000 : count(v.interval, '--interval'),
    analysisMs: v['analysis-ms'] === undefined ? 1000 : count(v['analysis-ms'], '--analysis-ms'),
    seed: v.seed ?? '1',
    quiet,
  };
  let config: CliConfig;
  if (protocol === 'hl7') {
    if (hl7Profile === undefined) throw new UsageError(`unknown HL7 dialect ${JSON.stringify(v.dialect)}; known: ${HL7_PROFILES.map((p) => p.id).join(', ')}`);
    const hl7 = hl7Of(v);
    config = { ...common, protocol, dialect: hl7Profile.id, transport: transportOf(v, env, undefined), framing: 'astm', misbehaviour: {}, hl7 };
    const qc = qcOf(v, { id: hl7Profile.id, hasQc: hl7Profile.qc.length > 0 });
    if (qc !== undefined) config.qc = qc;
    if (config.transport.kind === 'serial') throw new UsageError('HL7 dialects run over TCP (MLLP): use --tcp or --listen');
  } else {
    if (astmProfile === undefined) throw new UsageError(`unknown dialect ${JSON.stringify(v.dialect)}; known: ${PROFILES.map((p) => p.id).join(', ')}; HL7: ${HL7_PROFILES.map((p) => p.id).join(', ')}`);
    for (const name of HL7_ONLY) if (v[name] !== undefined) throw new UsageError(`--${name} is an HL7 option; ${astmProfile.id} is an ASTM dialect`);
    config = {
      ...common,
      protocol,
      dialect: astmProfile.id,
      transport: transportOf(v, env, astmProfile.transport.serial),
      framing: v['records-only'] === true ? 'records' : 'astm',
      misbehaviour: misbehaviourOf(v),
    };
    const qc = qcOf(v, { id: astmProfile.id, hasQc: astmProfile.qc.length > 0 });
    if (qc !== undefined) config.qc = qc;
  }
  if (v.tests !== undefined) config.tests = list(v.tests);
  if (v['query-timeout-ms'] !== undefined) config.queryTimeoutMs = count(v['query-timeout-ms'], '--query-timeout-ms', 1);
  if (v.tz !== undefined) config.timeZone = v.tz;
  return config;
}
