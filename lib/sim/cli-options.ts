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
  --qc <control>             also send one QC run of this control (dialects with QC)

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
  hl7?: { misbehaviour: Hl7Misbehaviour; ackTimeoutMs?: number; retries?: number; qc?: string };
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
const HL7_ONLY = ['ack-timeout-ms', 'retries', 'qc', 'missing-start', 'junk', 'split-writes', 'no-ack', 'error-ack', 'drop-results-ack'] as const;

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
  if (v.qc !== undefined) out.qc = v.qc;
  return out;
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
  }
  if (v.tests !== undefined) config.tests = list(v.tests);
  if (v['query-timeout-ms'] !== undefined) config.queryTimeoutMs = count(v['query-timeout-ms'], '--query-timeout-ms', 1);
  if (v.tz !== undefined) config.timeZone = v.tz;
  return config;
}
