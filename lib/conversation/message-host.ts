/**
 * What a protocol gives the analyzer-message node: a received message read into
 * outputs, the host conversation that answers the analyzer, and text turned
 * into the bytes the analyzer's character set makes of it. ASTM's is
 * lib/protocols/astm/host.ts; HL7's will be the same shape, so the node, the mapping and
 * the LIS nodes stay as they are.
 */
import type { InstrumentResult, LabOrder } from '../lab/types';
import type { ConversationAction, HostConversation } from './host-conversation';

export type HostOutput<C> =
  | ConversationAction<C>
  /** Patient results of one sample group: one batch for the LIS, numbered within its message. */
  | { type: 'results'; results: InstrumentResult[]; problems: string[]; orderedTests: string[]; part: number }
  /**
   * QC results, results that belong to no sample, or a message that is neither: never sent to the LIS as patient
   * results. And a file's results handed on before from an earlier version of it: the same value (repeated, not
   * sent again) or another (correction, held for a person).
   */
  | { type: 'aside'; topic: 'qc' | 'unassigned' | 'other' | 'encapsulated' | 'repeated' | 'correction'; payload: unknown; count: number; reasons: string[] };

export interface ReadMessage<C> {
  outputs: HostOutput<C>[];
  /** Result batches made (the journal settles the message once each reached the LIS sender). */
  parts: number;
  /** The samples the message named, for an operator looking for it. */
  samples: string[];
}

export interface MessageHost<C> {
  /** The dialect's id and label. */
  readonly id: string;
  readonly label: string;
  readonly conversation: HostConversation<C>;
  /** A message from the analyzer on `link`; a replay (stored before a restart) gets no answers to its queries. */
  read(bytes: Buffer, link: string, now: number, context: C, replay: boolean): ReadMessage<C>;
  /**
   * The same without holding the event loop (a file of megabytes: read in slices, a workbook in a worker thread);
   * present, the message node reads with it, one message at a time, and hands the outputs on in slices too.
   * `signal` abandons the read (the node is closing).
   */
  readInSlices?(bytes: Buffer, link: string, now: number, context: C, replay: boolean, signal: AbortSignal): Promise<ReadMessage<C>>;
  bytes(text: string): Buffer;
  /**
   * The messages a conversation's text makes, one per frame, when it may hold
   * several (HL7: the query acknowledgement, then the order), each with what
   * the link must know of it. Absent: the text is one message.
   */
  outgoing?(text: string): Outgoing[];
}

/** One message for the link: its bytes, and properties for the link's msg property (msg.hl7.expectAck). */
export interface Outgoing {
  bytes: Buffer;
  about?: Record<string, unknown>;
}

/** Why a site time zone is unusable, or undefined when it is an IANA zone. */
export function timeZoneProblem(timeZone: string): string | undefined {
  try {
    new Intl.DateTimeFormat('en', { timeZone });
    return undefined;
  } catch {
    return `unknown time zone ${JSON.stringify(timeZone)} (expected an IANA name such as Europe/Berlin)`;
  }
}

/** A LIS order after test-mapper: what the message node downloads. */
export function isLabOrder(payload: unknown): payload is LabOrder {
  return typeof payload === 'object' && payload !== null && Array.isArray((payload as { instrumentTests?: unknown }).instrumentTests) && typeof (payload as { SampleNumber?: unknown }).SampleNumber === 'string';
}
