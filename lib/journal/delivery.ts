/**
 * Results to the LIS through the journal: each batch is written before its
 * request leaves and followed to its end. Spec 4.3 sends results once, so a
 * failure is never retried here: the batch is held (failed when the LIS said
 * no or could not be reached, uncertain when it may have arrived) until an
 * operator resends or discards it. Plain TypeScript: the node is an adapter.
 */
import { LisError, messageOf } from '../errors';
import { checkResults, type LisClient, type PlainAnswer } from '../lis/client';
import type { AttemptHooks } from '../lis/retry';
import type { ResultItem } from '../lis/schemas';
import type { BatchOutcome, BatchRecord, ResultJournal } from './journal';
import { selectKeys } from './held';
import type { BatchEntry, BatchState } from './entries';

export interface NewBatch {
  key: string;
  /** The journaled analyzer message this batch came from, and which of its batches it is. */
  message?: string | undefined;
  part?: number | undefined;
  items: unknown;
  /** What else the flow's message carried (msg.processed for lis-mark-processed ...), JSON-safe. */
  context: Record<string, unknown>;
  /** Sent by an operator's replay (lib/replay): journaled with the batch. */
  replay?: BatchEntry['replay'];
}

export type SendOutcome =
  | { kind: 'delivered'; answer: PlainAnswer; batch: BatchRecord }
  /** The key is already in the journal: a replayed message whose batch was handed over before. */
  | { kind: 'duplicate'; batch: BatchRecord };

export class ResultDelivery {
  constructor(
    private readonly journal: ResultJournal,
    /** The sender node's id: held batches belong to it. */
    private readonly owner: string,
  ) {}

  /** Journals then sends one batch. Throws the LIS error after journaling the batch as held. */
  async send(client: LisClient, batch: NewBatch, hooks: AttemptHooks): Promise<SendOutcome> {
    const items = checkResults(batch.items);
    const known = this.journal.batch(batch.key);
    if (known) return { kind: 'duplicate', batch: known };
    try {
      await this.journal.beginSend({
        key: batch.key,
        node: this.owner,
        ...(batch.message !== undefined ? { message: batch.message } : {}),
        ...(batch.part !== undefined ? { part: batch.part } : {}),
        samples: [...new Set(items.map((i) => i.SampleNumber))],
        body: items,
        msg: batch.context,
        ...(batch.replay !== undefined ? { replay: batch.replay } : {}),
      });
    } catch (err) {
      throw journalError('results not sent', err);
    }
    return this.attempt(client, batch.key, items, hooks);
  }

  /** Sends a held batch again (the operator's decision, or auto-resend of one that provably never left). */
  async resend(client: LisClient, key: string, by: string, hooks: AttemptHooks): Promise<SendOutcome & { kind: 'delivered' }> {
    const batch = this.heldBatch(key);
    try {
      await this.journal.resending(key, by);
    } catch (err) {
      throw journalError(`batch ${key} not resent`, err);
    }
    // Read back from the file: checked again, as anything from disk is.
    return this.attempt(client, key, checkResults(batch.body), hooks);
  }

  async discard(key: string, by: string): Promise<BatchRecord> {
    const batch = this.heldBatch(key);
    await this.journal.settle(key, 'discarded', { by });
    return batch;
  }

  /**
   * Resends the held batches a command names (a key, keys, or all), one after
   * the other; `resent` hears of each delivered one. Returns how many were
   * named and why the others were not resent.
   */
  async resendSelected(client: LisClient, selection: unknown, by: string, hooks: AttemptHooks, resent: (r: SendOutcome & { kind: 'delivered' }) => void): Promise<{ total: number; failures: string[] }> {
    const keys = selectKeys(selection, this.held());
    const failures: string[] = [];
    for (const key of keys) {
      try {
        resent(await this.resend(client, key, by, hooks));
      } catch (err) {
        failures.push(`${key}: ${messageOf(err)}`);
      }
    }
    return { total: keys.length, failures };
  }

  /** Discards the held batches a command names (a key or keys, or "all" said outright); `discarded` hears of each as it goes. */
  async discardSelected(selection: unknown, by: string, discarded: (batch: BatchRecord) => void): Promise<void> {
    for (const key of selectKeys(selection, this.held(), false)) discarded(await this.discard(key, by));
  }

  /** The age warning was raised for a batch: remembered, so a restart does not raise it again. */
  warned(key: string): Promise<void> {
    return this.journal.warned(key);
  }

  /** Whether the LIS holds a result already (ResultJournal.resultSeen). */
  resultSeen(key: string): 'delivered' | 'sending' | 'held' | undefined {
    return this.journal.resultSeen(key);
  }

  held(): BatchRecord[] {
    return this.journal.held(this.owner);
  }

  private heldBatch(key: string): BatchRecord {
    const batch = this.journal.batch(key);
    if (!batch) throw new LisError(`no batch ${key} in the journal`, { code: 'INVALID_INPUT' });
    if (batch.state !== 'failed' && batch.state !== 'uncertain') {
      throw new LisError(`batch ${key} is ${batch.state}, not held: nothing to do`, { code: 'INVALID_INPUT' });
    }
    return batch;
  }

  private async attempt(client: LisClient, key: string, items: ResultItem[], hooks: AttemptHooks): Promise<SendOutcome & { kind: 'delivered' }> {
    let answer: PlainAnswer;
    try {
      answer = await client.sendCheckedResults(items, hooks);
    } catch (err) {
      const { state, outcome } = heldOutcome(err);
      // Journaled before the error reaches the flow, so what the flow sees is already safe.
      await this.journal.settle(key, state, outcome).catch(() => undefined);
      throw err;
    }
    // Settling as delivered drops the batch's content from memory, but a resend
    // rebuilds the flow's message (msg.processed ...) from it: keep it for the caller.
    const { body, msg } = this.journal.batch(key)!;
    // The LIS has it; a failure to note that only leaves the batch looking uncertain after a crash.
    await this.journal.settle(key, 'delivered').catch(() => undefined);
    return { kind: 'delivered', answer, batch: { ...this.journal.batch(key)!, body, msg } };
  }
}

/**
 * Which kind of held a failure makes. The LIS answering an error means it did
 * not take the results; a time-out, a dropped connection or a garbled answer
 * after the request left means it may have.
 */
export function heldOutcome(err: unknown): { state: BatchState; outcome: BatchOutcome } {
  const e = err instanceof LisError ? err : undefined;
  const error = { code: e?.code ?? 'INTERNAL', message: messageOf(err), ...(e?.status !== undefined ? { status: e.status } : {}) };
  if (e?.notSent) return { state: 'failed', outcome: { error, notSent: true } };
  if (e && (e.code === 'HTTP_STATUS' || e.code === 'REDIRECT' || e.code === 'INVALID_INPUT')) return { state: 'failed', outcome: { error } };
  return { state: 'uncertain', outcome: { error } };
}

function journalError(what: string, err: unknown): LisError {
  const reason = messageOf(err);
  return new LisError(`${what}: the journal could not store them (${reason})`, { code: 'JOURNAL' });
}
