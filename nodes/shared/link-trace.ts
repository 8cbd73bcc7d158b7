/**
 * The raw frame trace of an analyzer-link node (astm-link now, the HL7 link
 * next): the bytes behind any disputed result, in the directory and with the
 * rotation and retention settings.js gives (lisBridge.trace, retentionDays).
 */
import type { Node, NodeAPI } from 'node-red';
import { join } from 'node:path';
import { FrameTrace } from '../../lib/trace';
import type { TraceFraming } from '../../lib/trace';
import { bridgeSettings } from './journal';
import { sharedTexts } from './status';

/** The traces of the deployed links, by node id, for the admin route that reads their recent messages. */
const deployed = new Map<string, FrameTrace>();

export function deployedTrace(nodeId: string): FrameTrace | undefined {
  return deployed.get(nodeId);
}

export function linkTrace(RED: NodeAPI, node: Node, options: { framing: TraceFraming; redact: boolean }): FrameTrace {
  const settings = bridgeSettings(RED);
  const r = sharedTexts(RED, 'runtime');
  const trace = new FrameTrace({
    dir: join(settings.dir, 'trace'),
    name: node.id,
    framing: options.framing,
    maxBytes: settings.trace.maxBytes,
    maxFiles: settings.trace.maxFiles,
    maxAgeDays: settings.retentionDays,
    redact: options.redact,
    // The link keeps working without its trace; the trace reports at most once a minute.
    onError: (err) => node.warn(r('traceNotWritten', { reason: err.message })),
  });
  deployed.set(node.id, trace);
  node.on('close', () => {
    if (deployed.get(node.id) === trace) deployed.delete(node.id);
  });
  return trace;
}

/** Serial and TCP nodes give Buffers in binary mode; strings are taken as latin1 so every byte survives. */
export function lineBytes(payload: unknown): Buffer | undefined {
  if (Buffer.isBuffer(payload)) return payload;
  if (payload instanceof Uint8Array) return Buffer.from(payload);
  if (typeof payload === 'string') return Buffer.from(payload, 'latin1');
  return undefined;
}
