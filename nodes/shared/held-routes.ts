/**
 * The operator's admin routes for held result batches and stuck messages:
 * GET /lis-bridge/held lists them (and held results: nodes/shared/hold-routes.ts), POST /lis-bridge/held/<key>/resend and
 * /discard act on one batch (who acted is recorded). Installed once per
 * editor app; a resend goes through the lis-send-results node that holds the
 * batch, which registers itself here while deployed.
 */
import type { NodeAPI } from 'node-red';
import type { Request, Response } from 'express';
import { type BatchRecord, heldSummary, owedSamples, ResultDelivery, type ResultJournal } from '../../lib/journal';
import { LisError } from '../../lib/errors';
import { adminUser, answerError, installRoutesOnce } from './admin';
import { journalFor } from './journal';
import { holdSummary } from './hold-routes';
import { orderGapsFor } from './health';

/** How a deployed sender resends a batch for the admin route. */
export interface Sender {
  resend(key: string, by: string): Promise<void>;
}
const senders = new Map<string, Sender>();

/** A deployed lis-send-results node offers its resends; the returned function withdraws them. */
export function registerSender(nodeId: string, sender: Sender): () => void {
  senders.set(nodeId, sender);
  return () => senders.delete(nodeId);
}

class NotDeployed extends Error {}

/** Once per editor app, when the node type is registered: the routes answer whether or not a sender is deployed. */
export function installHeldRoutes(RED: NodeAPI): void {
  installRoutesOnce(RED, 'held', () => installRoutes(RED));
}

function installRoutes(RED: NodeAPI): void {
  const admin = RED.httpAdmin as unknown as {
    get: (path: string, ...h: unknown[]) => void;
    post: (path: string, ...h: unknown[]) => void;
  };

  admin.get('/lis-bridge/held', RED.auth.needsPermission('lis.read'), (_req: Request, res: Response) => {
    journalFor(RED)
      .then((journal) => {
        const holds = journal.holds();
        const batches = journal.held();
        const stuck = journal.stuck();
        const { onTheirWay, notUnderstood } = journal.unfinished();
        // "Everything reached the LIS" only when nothing of any day waits, is on its way, or was not understood.
        const summary = { waiting: holds.reduce((n, h) => n + h.results.length, 0), heldBatches: batches.length, stuck: stuck.length, onTheirWay, notUnderstood };
        res.json({
          summary: { ...summary, everythingReached: Object.values(summary).every((n) => n === 0) },
          batches: batches.map((b) => ({ ...heldSummary(b), deployed: senders.has(b.node) })),
          // `samples`: those the message still owes the LIS; `others`: its other samples, whose results went on to the LIS.
          stuck: stuck.map((m) => {
            const { owed, others } = owedSamples(m);
            return { id: m.id, link: m.link, at: new Date(m.at).toISOString(), samples: owed, others, reason: m.stuck ?? null, parts: m.parts ?? null, handed: m.handed.size, note: m.note ?? null };
          }),
          // Results held for a person (no LIS test for their code, say): sent once mapped, or dismissed.
          holds: holds.map(holdSummary),
          // Orders that went to an analyzer without some of their tests (no instrument code), the last day's.
          ordersMissingTests: orderGapsFor(RED).list(Date.now()).map((g) => ({ ...g, at: new Date(g.at).toISOString() })),
        });
      })
      .catch((err: unknown) => answerError(res, 500, err));
  });

  /**
   * One held batch, acted on: 404 when unknown; the answer describes the batch
   * afterwards, with its result count taken before (a finished batch's results
   * leave memory).
   */
  const onBatch =
    (act: (journal: ResultJournal, batch: BatchRecord, by: string) => Promise<void>, failStatus: (err: unknown) => number) =>
    (req: Request, res: Response) => {
      const key = String(req.params.key);
      journalFor(RED)
        .then(async (journal) => {
          const batch = journal.batch(key);
          if (!batch) return answerError(res, 404, `no batch ${key}`);
          const { results } = heldSummary(batch);
          try {
            await act(journal, batch, adminUser(req));
            res.json({ ...heldSummary(journal.batch(key)!), results });
          } catch (err) {
            answerError(res, failStatus(err), err);
          }
        })
        .catch((err: unknown) => answerError(res, 500, err));
    };

  admin.post(
    '/lis-bridge/held/:key/resend',
    RED.auth.needsPermission('lis.write'),
    onBatch(
      async (_journal, batch, by) => {
        const sender = senders.get(batch.node);
        if (!sender) throw new NotDeployed(`the lis-send-results node ${batch.node} that held batch ${batch.key} is not deployed: deploy it (or discard the batch)`);
        await sender.resend(batch.key, by);
      },
      (err) => (err instanceof NotDeployed || (err instanceof LisError && err.code === 'INVALID_INPUT') ? 409 : 502),
    ),
  );

  admin.post(
    '/lis-bridge/held/:key/discard',
    RED.auth.needsPermission('lis.write'),
    onBatch(async (journal, batch, by) => void (await new ResultDelivery(journal, batch.node).discard(batch.key, by)), () => 409),
  );
}
