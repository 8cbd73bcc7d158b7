/** The HL7 simulator's public shapes, beside the ASTM ones (../types.ts) and named alike. */
import type { Hl7DialectProfile } from '../../protocols/hl7/dialects';
import type { GeneratedResult } from '../messages';
import type { Transport, TransportSpec } from '../transport';
import type { Counters, FrameEvent } from '../types';
import type { Hl7Misbehaviour } from './misbehaviour';
import type { QcOptions, SentControlRun } from '../qc';
import type { Hl7DownloadedOrder, Hl7HostMessage } from './read-host';

export interface Hl7SimulatorOptions {
  /** An HL7 profile id (`mindray-cl-hl7`, `ihe-law`, `roche-cobas-pro` ...) or the profile itself. */
  dialect: string | Hl7DialectProfile;
  transport: TransportSpec | Transport;
  timeZone?: string;
  seed?: string | number;
  analysisMs?: number;
  intervalMs?: number;
  /** How long a query waits for the host's order; default the profile's queryDeadlineMs. */
  queryTimeoutMs?: number;
  /** How long the analyzer waits for the host's ACK (or query answer) before sending the message again; default 10000. */
  ackTimeoutMs?: number;
  /** How many times a message is sent again after a time-out; default 2. */
  retries?: number;
  /** Tests to report for dialects without a query or order download; default GLU, CREA. */
  tests?: string[];
  misbehaviour?: Hl7Misbehaviour;
  /** MSH-3 instead of the dialect's own. */
  senderName?: string;
  /** Send the dialect's ESU^U01 status message on each connection (cobas pro); default true. */
  status?: boolean;
  now?: () => Date;
  /** Control runs (dialects whose profile has QC markers): the control, its levels, its faults and its schedule. */
  qc?: QcOptions;
}

export type Hl7OutgoingKind = 'query' | 'results' | 'qc' | 'status';

export interface Hl7MessageEvent {
  /** MSH-10. */
  id: string;
  kind: Hl7OutgoingKind;
  sampleNumber: string;
  text: string;
  at: Date;
}

export interface Hl7ReceivedEvent {
  /** MSH-9 and MSH-10 of the host's message. */
  type: string;
  id: string;
  text: string;
  meaning: Hl7HostMessage;
  at: Date;
}

export interface Hl7Counters extends Counters {
  /** ACK messages with AE (or CE) and AR (or CR) the host sent. */
  aeReceived: number;
  arReceived: number;
  /** Acknowledgements the simulator sent for the host's messages. */
  acksSent: number;
}

export interface Hl7ScanResult {
  sampleNumber: string;
  order?: Hl7DownloadedOrder;
  noInformation?: true;
}

export interface Hl7SentResults {
  sampleNumber: string;
  results: GeneratedResult[];
  text: string;
}

export interface Hl7SampleOutcome {
  sampleNumber: string;
  order?: Hl7DownloadedOrder;
  noInformation?: true;
  results?: GeneratedResult[];
  resultsAcked: boolean;
  ok: boolean;
  error?: string;
}

export interface Hl7RunSummary {
  ok: boolean;
  samples: Hl7SampleOutcome[];
  counters: Hl7Counters;
  /** Every control run sent and acknowledged so far. */
  controlRuns: SentControlRun[];
}

export interface Hl7SimulatorEvents {
  frame: [FrameEvent];
  sending: [Hl7MessageEvent];
  sent: [Hl7MessageEvent];
  failed: [Hl7MessageEvent & { reason: string }];
  received: [Hl7ReceivedEvent];
  outcome: [Hl7SampleOutcome];
  /** A control run the host acknowledged in full. */
  controlRun: [SentControlRun];
  order: [Hl7DownloadedOrder];
  discarded: [{ reason: string; text: string }];
  misbehaviour: [string];
  warning: [string];
  connect: [string];
  disconnect: [string];
}
