/** Runtime types shared by the node adapters. */
import type { Node, NodeMessage } from 'node-red';
import type { LisClient } from '../../lib/lis';
import type { LisError } from '../../lib/errors';
import type { MappingRow } from '../../lib/mapping';
import type { QcMonitor } from '../../lib/qc';

/** The runtime face of a deployed lis-config node. */
export interface LisConfigNode extends Node {
  /** The client, or the reason the config cannot make one (bad tuning values). */
  readonly client: LisClient | undefined;
  readonly configErrors: string[];
  /** The environment variable the token is read from when none is stored (shared/lis-token.ts). */
  readonly bearerTokenEnv: string | undefined;
}

/** A deployed lis-test-map, as its test-mappers use it. */
export interface TestMapNode extends Node {
  readonly instrument: string;
  rows(): readonly MappingRow[];
  /** Why the deployed rows could not be used, if they could not. */
  mapError(): LisError | undefined;
  /** A "mapping" message's rows, for every node using the map until the next Deploy; the refusal if unusable. */
  replace(candidate: unknown): LisError | undefined;
  /** Called when the rows change; returns the unsubscribe. */
  onChange(listener: () => void): () => void;
}

/** A deployed test-mapper, as a placement of held results reads it: the rows it maps with now. */
export interface MapperNode extends Node {
  mappingRows(): readonly MappingRow[];
}

/** A deployed lis-send-results, as a placement of held results reads it: the LIS it sends to. */
export interface ResultSenderNode extends Node {
  readonly lisConfigId: string | undefined;
}

export type Msg = NodeMessage & Record<string, unknown>;
export type Send = (msg: NodeMessage | Array<NodeMessage | NodeMessage[] | null>) => void;
export type Done = (err?: Error) => void;

/** Node-RED's i18n namespace of the catalog that holds the strings every LIS node shares. */
export const SHARED_NS = '@lis-bridge/node-red-lis-bridge/lis-config';

/** msg.topic of a message for astm-link to transmit to the analyzer. */
export const ASTM_SEND_TOPIC = 'astm:send';
/** msg.topic of a complete message astm-link received from the analyzer. */
export const ASTM_MESSAGE_TOPIC = 'astm:message';
/** msg.topic of a message hl7-link received from the analyzer (msg.hl7 describes it). */
export const HL7_MESSAGE_TOPIC = 'hl7:message';
/** msg.topic of a message for hl7-link to send to the analyzer. */
export const HL7_SEND_TOPIC = 'hl7:send';
/** msg.topic asking lis-send-results to send held batches again (payload: a key, keys, or "all"). */
export const RESEND_TOPIC = 'lis:resend';
/** msg.topic asking lis-send-results to give up held batches (payload: a key, keys, or "all"). */
export const DISCARD_TOPIC = 'lis:discard';
/** msg.topic of a file folder-link took from its folder (msg.file describes it). */
export const FILE_MESSAGE_TOPIC = 'file:message';

/** A deployed lis-qc, as the message node of its analyzer uses it. */
export interface QcConfigNode extends Node {
  readonly analyzer: string;
  /** Why the deployed settings could not be used, if they could not. */
  setupError(): LisError | undefined;
  /** The analyzer's QC monitor, opened on first use; rejects with what to set. */
  monitor(): Promise<QcMonitor>;
}
