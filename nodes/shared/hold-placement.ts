/**
 * Placing results held for their sample number (kind unassigned: it did not decode, or held a raw delimiter) under
 * the sample number a technologist types. The bridge asks the LIS for that sample's order, through the
 * lis-send-results the results would have reached, and passes them on only when the order holds each result's test
 * (mapped as the test-mapper they would have gone through maps it). Otherwise nothing is sent and the person is told
 * why; the hold stays open, to be placed again or dismissed. The user is recorded with the placement.
 */
import type { Node, NodeAPI } from 'node-red';
import type { HoldRecord } from '../../lib/journal';
import type { UnassignedResult } from '../../lib/lab';
import { toLisResults } from '../../lib/mapping';
import { journalFor } from './journal';
import type { LisConfigNode, MapperNode, Msg, ResultSenderNode } from './types';

/** Places a hold under a sample number; throws, sending nothing, with what the person should know. */
export type HoldPlacer = (hold: HoldRecord, sampleNumber: string, by: string) => Promise<void>;
const placers = new Map<string, HoldPlacer>();

export function holdPlacer(nodeId: string): HoldPlacer | undefined {
  return placers.get(nodeId);
}

/** Why a placement was refused: for the person, not a fault of the runtime. */
export class PlacementRefused extends Error {}

/** The deployed nodes after one output of `start`, nearest first (a bounded walk over the wires, each node once). */
export function downstream(RED: NodeAPI, start: Node, output: number): Node[] {
  const wires = (n: Node) => ((n as unknown as { wires?: string[][] }).wires ?? []);
  const seen = new Set<string>([start.id]);
  const out: Node[] = [];
  let next = wires(start)[output] ?? [];
  while (next.length > 0 && out.length < 200) {
    const after: string[] = [];
    for (const id of next) {
      if (seen.has(id)) continue;
      seen.add(id);
      const n = RED.nodes.getNode(id);
      if (!n) continue;
      out.push(n);
      for (const w of wires(n)) after.push(...w);
    }
    next = after;
  }
  return out;
}

/**
 * The message node's placer: `resultsOutput` is the physical output its results leave by, `emit` passes a placed
 * batch on there. Registered for the node's life.
 */
export function registerHoldPlacerFor(RED: NodeAPI, node: Node, resultsOutput: number, emit: (msg: Msg) => void): void {
  const place: HoldPlacer = async (hold, sampleNumber, by) => {
    const results = hold.results.map((r) => r.result as UnassignedResult);
    if (results.some((r) => !r.instrumentCode || r.Result === undefined)) {
      throw new PlacementRefused(`held results ${hold.id} carry no test code or no value: they cannot be placed; enter them at the LIS by hand, then dismiss them with why`);
    }
    const after = downstream(RED, node, resultsOutput);
    const mapper = after.find((n) => n.type === 'test-mapper') as MapperNode | undefined;
    const sender = after.find((n) => n.type === 'lis-send-results') as ResultSenderNode | undefined;
    if (!mapper || !sender) throw new PlacementRefused(`no test-mapper and lis-send-results are wired after the results output of ${node.name || node.id}: wire them, deploy, then place the results`);
    const client = (sender.lisConfigId ? (RED.nodes.getNode(sender.lisConfigId) as LisConfigNode | null) : null)?.client;
    if (!client) throw new PlacementRefused(`the LIS of ${sender.name || sender.id} is not configured: set its lis-config, deploy, then place the results`);
    const answer = await client.getOrder(sampleNumber, {});
    if (answer.kind !== 'order') throw new PlacementRefused(`the LIS has no order for ${sampleNumber}: nothing was sent; check the sample number, or dismiss the results`);
    const ordered = answer.order.Tests;
    const items = results.map((r) => placedItem(r, sampleNumber));
    const mapped = toLisResults(items, mapper.mappingRows(), { orderedTests: ordered });
    if (mapped.rejected.length > 0) throw new PlacementRefused(`${mapped.rejected.map((x) => x.reason).join('; ')}: nothing was sent; map the code, deploy, then place the results`);
    const missing = mapped.processedTests.filter((t) => !ordered.includes(t));
    if (missing.length > 0) throw new PlacementRefused(`the LIS order for ${sampleNumber} does not hold ${missing.join(', ')}: nothing was sent; check the sample number, or dismiss the results`);
    const journal = await journalFor(RED);
    await journal.actOnHold(hold.id, 'send', by, `placed under ${sampleNumber}`);
    emit({ ...(hold.msg as Msg), _msgid: RED.util.generateId(), topic: 'results', payload: items, orderedTests: ordered, journal: { hold: hold.id, ...(hold.message !== undefined ? { message: hold.message } : {}) } });
  };
  placers.set(node.id, place);
  node.on('close', () => {
    if (placers.get(node.id) === place) placers.delete(node.id);
  });
}

/** The result as the message node would have sent it, under the typed sample number. */
function placedItem(r: UnassignedResult, sampleNumber: string): Record<string, unknown> {
  const { record: _record, reason: _reason, notForLis: _notForLis, at: _at, text: _text, ...rest } = r;
  return { ...rest, SampleNumber: sampleNumber };
}
