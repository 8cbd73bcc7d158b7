/**
 * Held results on the operator's side: the deployed test-mappers that can map
 * a hold again and send it, the summary GET /lis-bridge/held lists, and the
 * routes a person uses (the Lab sidebar): POST /lis-bridge/holds/send and
 * /lis-bridge/holds/dismiss, each with `{ ids: [...] }` (dismiss also with a
 * `note`: why), and POST /lis-bridge/holds/place with `{ id, sampleNumber }`
 * for results held for their sample number (nodes/shared/hold-placement.ts). A correction is sent through the message
 * node that held it (nodes/shared/correction-sending.ts).
 * All need the package's own permission, lis.write. Installed once per editor app.
 */
import type { NodeAPI } from 'node-red';
import type { Request, Response } from 'express';
import type { HoldRecord } from '../../lib/journal';
import { LisError, messageOf } from '../../lib/errors';
import { adminUser, answerError, installRoutesOnce } from './admin';
import { journalFor } from './journal';
import { holdPlacer, PlacementRefused } from './hold-placement';
import { correctionSender } from './correction-sending';

/** How a deployed test-mapper sends a hold: maps its results again with the map deployed now; throws, sending nothing, when it still cannot. */
export type HoldSender = (hold: HoldRecord, by: string) => Promise<void>;
const mappers = new Map<string, HoldSender>();
// Holds a message node keeps for QC: released (kind qc) or evaluated (kind control) by that node.
const byKind = new Map<string, HoldSender>();

/** A deployed message node offers to act on its holds of `kind`; the returned function withdraws the offer. */
export function registerKindSender(kind: 'qc' | 'control', nodeId: string, send: HoldSender): () => void {
  const key = `${kind}\u0000${nodeId}`;
  byKind.set(key, send);
  return () => {
    if (byKind.get(key) === send) byKind.delete(key);
  };
}

function kindSender(kind: string, nodeId: string): HoldSender | undefined {
  return byKind.get(`${kind}\u0000${nodeId}`);
}

/** A deployed test-mapper offers to send its holds; the returned function withdraws the offer. */
export function registerHoldSender(nodeId: string, send: HoldSender): () => void {
  mappers.set(nodeId, send);
  return () => {
    if (mappers.get(nodeId) === send) mappers.delete(nodeId);
  };
}

/** What a person needs to decide about a hold (its values stay in the journal). */
export function holdSummary(h: HoldRecord): Record<string, unknown> {
  return {
    id: h.id,
    node: h.node,
    link: h.link ?? null,
    message: h.message ?? null,
    kind: h.kind,
    code: h.code,
    samples: h.samples,
    results: h.results.length,
    reason: h.results[0]?.reason ?? '',
    since: new Date(h.at).toISOString(),
    state: h.state,
    // A correction: each result's value handed on before (and where from) beside the new one, for the person who decides.
    ...(h.kind === 'correction' ? { corrections: h.results.slice(0, 20).map(correctionOf) } : {}),
    // Results held for their sample number are placed under the right one (or dismissed); the others are sent once mapped.
    sendable: h.kind !== 'unassigned',
    placeable: h.kind === 'unassigned' && h.results.every((r) => { const x = r.result as { instrumentCode?: unknown; Result?: unknown }; return typeof x.instrumentCode === 'string' && x.instrumentCode !== '' && x.Result !== undefined; }),
    // What the analyzer sent, for the person who places them: the result records, as text.
    records: h.kind === 'unassigned' ? h.results.map((r) => String((r.result as { text?: unknown }).text ?? '')).slice(0, 20) : [],
    deployed: h.kind === 'unassigned' ? holdPlacer(h.node) !== undefined : h.kind === 'correction' ? correctionSender(h.node) !== undefined : h.kind === 'qc' || h.kind === 'control' ? kindSender(h.kind, h.node) !== undefined : mappers.has(h.node),
  };
}

function correctionOf(r: HoldRecord['results'][number]): Record<string, unknown> {
  const x = r.result as { SampleNumber?: unknown; Result?: unknown };
  return { sample: x.SampleNumber, old: r.correction?.was ?? null, oldFile: r.correction?.wasFile ?? null, oldAt: r.correction ? new Date(r.correction.wasAt).toISOString() : null, new: x.Result, file: r.correction?.file ?? null };
}

export function installHoldRoutesOnce(RED: NodeAPI): void {
  installRoutesOnce(RED, 'holds', () => installHoldRoutes(RED));
}

class Refused extends Error {}

/** The most holds one request acts on: each is a journal write, and a request must not hold the runtime for long. */
const MAX_IDS = 1000;

function installHoldRoutes(RED: NodeAPI): void {
  const admin = RED.httpAdmin as unknown as { post: (path: string, ...h: unknown[]) => void };

  /** Each named hold acted on in turn; the answer says, per id, what became of it. 400 without ids, 409 when none could be. */
  const onHolds = (act: (hold: HoldRecord, by: string, note: string | undefined) => Promise<void>, needsNote: boolean) => (req: Request, res: Response) => {
    const body = (req.body ?? {}) as { ids?: unknown; note?: unknown };
    const ids = Array.isArray(body.ids) && body.ids.length > 0 && body.ids.length <= MAX_IDS && body.ids.every((i) => typeof i === 'string') ? (body.ids as string[]) : undefined;
    if (!ids) return answerError(res, 400, `ids must be a list of 1 to ${MAX_IDS} held result ids (GET /lis-bridge/held lists them)`);
    const note = typeof body.note === 'string' && body.note.trim() !== '' ? body.note.trim().slice(0, 500) : undefined;
    if (needsNote && note === undefined) return answerError(res, 400, 'note must say why the results are dismissed: it is kept with them');
    const by = adminUser(req);
    journalFor(RED)
      .then(async (journal) => {
        const done: string[] = [];
        const failed: Array<{ id: string; error: string }> = [];
        for (const id of ids) {
          const hold = journal.heldResults(id);
          try {
            if (!hold) throw new Refused(`no held results ${id}`);
            if (hold.state !== 'open') throw new Refused(`held results ${id} are ${hold.state === 'sending' ? 'being sent' : hold.state} already`);
            await act(hold, by, note);
            done.push(id);
          } catch (err) {
            failed.push({ id, error: messageOf(err) });
          }
        }
        if (done.length === 0) return res.status(409).json({ message: failed.map((f) => f.error).join('; '), errors: failed.map((f) => `${f.id}: ${f.error}`), done, failed });
        res.json({ done, failed });
      })
      .catch((err: unknown) => answerError(res, 500, err));
  };

  admin.post(
    '/lis-bridge/holds/send',
    RED.auth.needsPermission('lis.write'),
    onHolds(async (hold, by) => {
      if (hold.kind === 'unassigned') throw new Refused(`held results ${hold.id} have no sample number the bridge can trust: place them under the right sample number (POST /lis-bridge/holds/place, Place in the Lab sidebar), or dismiss them with why`);
      if (hold.kind === 'correction') {
        const sendCorrection = correctionSender(hold.node);
        if (!sendCorrection) throw new Refused(`the message node ${hold.node} that held correction ${hold.id} is not deployed: deploy it, then send it (or dismiss it)`);
        return sendCorrection(hold, by);
      }
      if (hold.kind === 'qc' || hold.kind === 'control') {
        const act = kindSender(hold.kind, hold.node);
        if (!act) throw new Refused(`the message node ${hold.node} that held ${hold.kind === 'qc' ? 'results' : 'control'} ${hold.id} is not deployed (or its lis-qc is not open): deploy it, then ${hold.kind === 'qc' ? 'release' : 'evaluate'} them (or dismiss them)`);
        return act(hold, by);
      }
      const send = mappers.get(hold.node);
      if (!send) throw new Refused(`the test-mapper ${hold.node} that held results ${hold.id} is not deployed: deploy it, then send them (or dismiss them)`);
      await send(hold, by);
    }, false),
  );
  admin.post('/lis-bridge/holds/place', RED.auth.needsPermission('lis.write'), (req: Request, res: Response) => {
    const body = (req.body ?? {}) as { id?: unknown; sampleNumber?: unknown };
    const sampleNumber = typeof body.sampleNumber === 'string' ? body.sampleNumber.trim() : '';
    if (typeof body.id !== 'string' || body.id === '') return answerError(res, 400, 'id must name one held result (GET /lis-bridge/held lists them)');
    if (sampleNumber === '' || sampleNumber.length > 100 || /[\u0000-\u001f\u007f]/.test(sampleNumber)) return answerError(res, 400, 'sampleNumber must be the sample number the results belong to: 1 to 100 characters, no control characters');
    const id = body.id;
    const by = adminUser(req);
    journalFor(RED)
      .then(async (journal) => {
        const hold = journal.heldResults(id);
        if (!hold) throw new PlacementRefused(`no held results ${id}`);
        if (hold.kind !== 'unassigned') throw new PlacementRefused(`held results ${id} have their sample number: map their code and Send them instead`);
        if (hold.state !== 'open') throw new PlacementRefused(`held results ${id} are ${hold.state === 'sending' ? 'being sent' : hold.state} already`);
        const place = holdPlacer(hold.node);
        if (!place) throw new PlacementRefused(`the node ${hold.node} that held results ${id} is not deployed: deploy it, then place them (or dismiss them)`);
        await place(hold, sampleNumber, by);
        res.json({ done: [id], sampleNumber });
      })
      .catch((err: unknown) => answerError(res, err instanceof PlacementRefused ? 409 : err instanceof LisError ? 502 : 500, err));
  });
  admin.post(
    '/lis-bridge/holds/dismiss',
    RED.auth.needsPermission('lis.write'),
    onHolds(async (hold, by, note) => {
      const journal = await journalFor(RED);
      await journal.actOnHold(hold.id, 'dismiss', by, note);
    }, true),
  );
}
