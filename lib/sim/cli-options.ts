/**
 * The command line of lis-analyzer-sim, parsed into simulator options. Kept
 * apart from cli.ts (which runs on load) so it can be tested in-process.
 * Flags win over environment variables, which win over the dialect's defaults.
 */
import { parseArgs } from 'node:util';
import { PROFILES, findProfile, type SerialSettings } from '../astm/dialects';
import type { Misbehaviour } from './misbehaviour';
import type { TransportSpec } from './transport';

export const USAGE = `lis-analyzer-sim: plays one analyzer (ASTM E1381/E1394) against a LIS host.

Usage:
  lis-analyzer-sim --dialect <id> (--serial <path> [--baud <n>] | --tcp <host:port> | --listen [<host>:]<port>)
                   (--samples S1,S2,... | --count <n> [--prefix <p>]) [options]

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

Misbehaviour (to rehearse the host's handling of faults):
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
`;

export class UsageError extends Error {
  override name = 'UsageError';
}

export interface CliConfig {
  help: boolean;
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

function misbehaviourOf(v: ReturnType<typeof read>['values']): Misbehaviour {
  const m: Misbehaviour = {};
  const corrupt = v['corrupt-checksum'];
  if (corrupt !== undefined) {
    const n = Number(corrupt);
    if (!Number.isFinite(n) || !/^\d*\.?\d+$/.test(corrupt.trim())) throw new UsageError(`--corrupt-checksum must be a frame number or a fraction, not ${JSON.stringify(corrupt)}`);
    m.corruptChecksum = n;
  }
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
    return { help: true, dialect: '', transport: { kind: 'listen', port: 0 }, framing: 'astm', samples: [], intervalMs: 0, analysisMs: 0, seed: '1', misbehaviour: {}, quiet };
  }
  if (v.dialect === undefined) throw new UsageError('--dialect is required');
  const profile = findProfile(v.dialect);
  if (profile === undefined) throw new UsageError(`unknown dialect ${JSON.stringify(v.dialect)}; known: ${PROFILES.map((p) => p.id).join(', ')}`);
  const config: CliConfig = {
    help: false,
    dialect: profile.id,
    transport: transportOf(v, env, profile.transport.serial),
    framing: v['records-only'] === true ? 'records' : 'astm',
    samples: samplesOf(v),
    intervalMs: v.interval === undefined ? 2000 : count(v.interval, '--interval'),
    analysisMs: v['analysis-ms'] === undefined ? 1000 : count(v['analysis-ms'], '--analysis-ms'),
    seed: v.seed ?? '1',
    misbehaviour: misbehaviourOf(v),
    quiet,
  };
  if (v.tests !== undefined) config.tests = list(v.tests);
  if (v['query-timeout-ms'] !== undefined) config.queryTimeoutMs = count(v['query-timeout-ms'], '--query-timeout-ms', 1);
  if (v.tz !== undefined) config.timeZone = v.tz;
  return config;
}
