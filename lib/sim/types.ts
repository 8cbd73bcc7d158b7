/**
 * The simulator's public shapes: options, events, and what scans and runs
 * return. Kept apart so callers (tests, benchmarks, the CLI) can import them
 * without the machinery.
 */
import type { DialectProfile } from '../protocols/astm/dialects';
import type { AstmLinkOptions } from '../protocols/astm/link';
import type { DownloadedOrder, GeneratedResult, HostAnswer } from './messages';
import type { Misbehaviour } from './misbehaviour';
import type { QcOptions, SentControlRun } from './qc';
import type { Transport, TransportSpec } from './transport';

export interface SimulatorOptions {
  /** A profile id (`generic-lis2a2`, `roche-cobas-e411`, `mindray-cl` ...) or the profile itself. */
  dialect: string | DialectProfile;
  transport: TransportSpec | Transport;
  /** 'records': plain CR-separated records without the E1381 link layer (the astm-link "records only" option). */
  framing?: 'astm' | 'records';
  /** The site's IANA zone for every timestamp the analyzer writes; default the machine's zone. */
  timeZone?: string;
  /** Values are a function of (seed, sample, test); default 1. */
  seed?: string | number;
  /** Time between a download and its results, in ms; default 1000. */
  analysisMs?: number;
  /** runSamples: time between the starts of two samples, in ms; default 2000. */
  intervalMs?: number;
  /** How long a query waits for its answer before the analyzer gives up; default the profile's queryDeadlineMs. */
  queryTimeoutMs?: number;
  /** Tests to report for dialects whose downloads the package cannot build (profile without `order`); default GLU, CREA. */
  tests?: string[];
  /** Link options over the dialect's (timers for tests, frame size ...); role is always 'instrument'. */
  link?: Partial<AstmLinkOptions>;
  misbehaviour?: Misbehaviour;
  /** H-5's first component (the analyzer's name) instead of the dialect's own, to tell several simulated analyzers apart. */
  senderName?: string;
  /** The clock for timestamps written into messages (tests pin it). */
  now?: () => Date;
  /** Control runs (dialects whose profile has QC markers): the control, its levels, its faults and its schedule. */
  qc?: QcOptions;
}

export interface FrameEvent {
  direction: 'in' | 'out';
  bytes: Buffer;
  /** The readable form: `<STX>1H|\^&...<ETX>A5<CR><LF>`. */
  text: string;
  at: Date;
}

export type OutgoingKind = 'query' | 'cancel' | 'results' | 'qc';

export interface MessageEvent {
  id: string;
  kind: OutgoingKind;
  sampleNumber: string;
  text: string;
  at: Date;
}

export interface ReceivedEvent {
  id: string;
  text: string;
  answers: HostAnswer[];
  at: Date;
}

export interface ScanResult {
  sampleNumber: string;
  order?: DownloadedOrder;
  noInformation?: true;
}

export interface SentResults {
  sampleNumber: string;
  results: GeneratedResult[];
  text: string;
}

export interface SampleOutcome {
  sampleNumber: string;
  order?: DownloadedOrder;
  noInformation?: true;
  results?: GeneratedResult[];
  resultsAcked: boolean;
  ok: boolean;
  error?: string;
}

export interface Counters {
  /** Messages handed to the link. */
  sent: number;
  /** Messages the host acknowledged in full. */
  acked: number;
  /** Messages the link gave up on. */
  failed: number;
  /** Complete messages received from the host. */
  received: number;
  framesOut: number;
  framesIn: number;
}

export interface RunSummary {
  ok: boolean;
  samples: SampleOutcome[];
  counters: Counters;
  /** Every control run sent and acknowledged so far. */
  controlRuns: SentControlRun[];
}

export interface RunOptions {
  intervalMs?: number;
  analysisMs?: number;
  tests?: string[];
}

export interface SimulatorEvents {
  frame: [FrameEvent];
  /** A message handed to the link (or held for contention). */
  sending: [MessageEvent];
  sent: [MessageEvent];
  failed: [MessageEvent & { reason: string }];
  received: [ReceivedEvent];
  /** runSamples: one sample is done (results acknowledged, or failed). */
  outcome: [SampleOutcome];
  /** A control run the host acknowledged in full. */
  controlRun: [SentControlRun];
  /** Every order download read, whether a scan was waiting for it or not. */
  order: [DownloadedOrder];
  discarded: [{ reason: string; text: string }];
  /** What a misbehaviour option just did. */
  misbehaviour: [string];
  warning: [string];
  connect: [string];
  disconnect: [string];
}
