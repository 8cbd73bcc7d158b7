/**
 * Sending a correction a person decided on (a hold of kind correction: a file brought another value for a sample and
 * test than the one handed on from its earlier version). The new values go on once, as the file would have sent
 * them, through the test-mapper and lis-send-results after the message node that held them, under the hold's own
 * batch key (hold:<id>): no sample number is changed and no order is asked for, as the first value went without one.
 * Refused, sending nothing, while they do not map or nothing is wired to send them.
 */
import type { Node, NodeAPI } from 'node-red';
import type { HoldRecord } from '../../lib/journal';
import { toLisResults } from '../../lib/mapping';
import { downstream, PlacementRefused } from './hold-placement';
import { journalFor } from './journal';
import type { MapperNode, Msg, ResultSenderNode } from './types';

/** Sends a correction's new values; throws, sending nothing, with what the person should know. */
export type CorrectionSender = (hold: HoldRecord, by: string) => Promise<void>;
const senders = new Map<string, CorrectionSender>();

export function correctionSender(nodeId: string): CorrectionSender | undefined {
  return senders.get(nodeId);
}

/** The message node's sender of corrections: `resultsOutput` is the output its results leave by, `emit` passes them on there. */
export function registerCorrectionSenderFor(RED: NodeAPI, node: Node, resultsOutput: number, emit: (msg: Msg) => void): void {
  const send: CorrectionSender = (hold, by) => {
    const values = hold.results.map((r) => `${r.correction?.was ?? '?'} -> ${String((r.result as { Result?: unknown }).Result)}`).join(', ');
    return sendHeldOn(RED, node, resultsOutput, emit, hold, by, `correction sent: ${values}`);
  };
  senders.set(node.id, send);
  node.on('close', () => {
    if (senders.get(node.id) === send) senders.delete(node.id);
  });
}

/**
 * Held results of a message node passed on as they were read, under the hold's own batch key: refused, sending
 * nothing, while they do not map or nothing is wired to send them. `note` is kept with the person's action.
 */
export async function sendHeldOn(RED: NodeAPI, node: Node, resultsOutput: number, emit: (msg: Msg) => void, hold: HoldRecord, by: string, note: string): Promise<void> {
  const after = downstream(RED, node, resultsOutput);
  const mapper = after.find((n) => n.type === 'test-mapper') as MapperNode | undefined;
  const sender = after.find((n) => n.type === 'lis-send-results') as ResultSenderNode | undefined;
  if (!mapper || !sender) throw new PlacementRefused(`no test-mapper and lis-send-results are wired after the results output of ${node.name || node.id}: wire them, deploy, then send the held results`);
  const items = hold.results.map((r) => r.result);
  const mapped = toLisResults(items, mapper.mappingRows());
  if (mapped.rejected.length > 0) throw new PlacementRefused(`${mapped.rejected.map((x) => x.reason).join('; ')}: nothing was sent; map the code, deploy, then send the held results`);
  const journal = await journalFor(RED);
  await journal.actOnHold(hold.id, 'send', by, note);
  emit({ ...(hold.msg as Msg), _msgid: RED.util.generateId(), topic: 'results', payload: items, journal: { hold: hold.id, ...(hold.message !== undefined ? { message: hold.message } : {}) } });
}
