/**
 * test-mapper's held results, the Node-RED side: the results it could not map
 * held in the journal before the rest of their batch goes on (one hold per
 * code, all of a batch's in one line; a batch with nothing mapped ends there),
 * and a person's "send" of a hold, mapped again with the table deployed now
 * and passed on under the hold's own batch key (nodes/shared/hold-routes.ts).
 */
import type { Node, NodeAPI } from 'node-red';
import { LisError, messageOf } from '../../lib/errors';
import { contextOf, holdEntryFor, journalOrigin, type HoldRecord } from '../../lib/journal';
import { remapHeld, type MappingRow, type Rejected } from '../../lib/mapping';
import { registerHoldSender } from './hold-routes';
import { journalFor } from './journal';
import { markNothingMapped } from './link-journal';
import { sharedTexts, type StatusReporter } from './status';
import type { Msg } from './types';

export interface MapperHoldHooks {
  /** The rows deployed now. */
  rows(): readonly MappingRow[];
  /** Results held, for the status. */
  held(n: number): void;
  /** Held results sent on, for the status. */
  sent(n: number): void;
}

export function mapperHolds(RED: NodeAPI, node: Node, status: StatusReporter, hooks: MapperHoldHooks): { hold(msg: Msg, rejected: Rejected[], endsPart: boolean): Promise<void> } {
  const r = sharedTexts(RED, 'runtime');

  /** When the journal cannot take them, a journaled batch with nothing mapped is marked stuck instead, and the flow hears of it. */
  async function hold(msg: Msg, rejected: Rejected[], endsPart: boolean): Promise<void> {
    try {
      const journal = await journalFor(RED);
      const origin = journalOrigin(msg.journal);
      await journal.hold(holdEntryFor({ node: node.id, link: origin ? journal.message(origin.message)?.link : undefined, origin, endsPart, msg: contextOf(msg as Record<string, unknown>), rejected }));
      hooks.held(rejected.length);
    } catch (err) {
      if (endsPart) markNothingMapped(RED, node, msg.journal, rejected.map((x) => x.reason));
      const e = new LisError(r('holdNotJournaled', { count: rejected.length, n: rejected.length, reason: messageOf(err) }), { code: 'JOURNAL' });
      status.failed(e);
      node.error(e, { ...RED.util.cloneMessage(msg), payload: rejected, error: e.toMsgError() });
    }
  }

  /** All of it or nothing: refused, sending nothing, while a result still does not map. */
  async function send(held: HoldRecord, by: string): Promise<void> {
    const mapped = remapHeld(held, hooks.rows());
    if ('reasons' in mapped) throw new LisError(r('holdStillUnmapped', { id: held.id, reasons: mapped.reasons.join('; ') }), { code: 'UNMAPPED_TESTS' });
    const journal = await journalFor(RED);
    await journal.actOnHold(held.id, 'send', by);
    const msg: Msg = { ...(RED.util.cloneMessage(held.msg) as Msg), _msgid: RED.util.generateId(), payload: mapped.items, processedTests: mapped.processedTests, processed: mapped.processed, journal: { hold: held.id, ...(held.message !== undefined ? { message: held.message } : {}) } };
    hooks.sent(mapped.items.length);
    node.send([msg, null]);
  }

  node.on('close', registerHoldSender(node.id, send));
  return { hold };
}
