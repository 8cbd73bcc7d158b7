/**
 * Admin endpoints behind the test map's dialogs (relative URLs under the editor's root):
 *
 * GET  lis-bridge/editor/test-map-merge.js    the test-mapper dialog's test-map line and merge offer (nodes/editor)
 * GET  lis-bridge/editor/test-map-dialog.js   the lis-test-map dialog's users and "seen, not mapped" (nodes/editor)
 * POST lis-bridge/mapping/merge  { tables, choices? } -> { rows, differences }   (lis.read: it only computes)
 * GET  lis-bridge/test-map/seen?nodes=id,id  -> { seen: [...] }   codes and texts held for those test-mappers (lis.read)
 */
import { join } from 'node:path';
import type { NodeAPI } from 'node-red';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { describeIssues } from '../../lib/lis';
import { applyMerge, cleanRow, MappingSchema, planMerge, seenNotMapped } from '../../lib/mapping';
import { answerError, installRoutesOnce } from './admin';
import { journalFor } from './journal';

const TablesSchema = z.object({
  tables: z
    .array(z.object({ node: z.string().min(1), name: z.string(), direction: z.enum(['toInstrument', 'toLis', 'auto']), rows: MappingSchema }))
    .min(1, { message: 'tables must list at least one test-mapper table' })
    .max(100, { message: 'at most 100 tables are merged at once' }),
  choices: z.record(z.string(), z.number().int().min(0)).optional(),
});

/** A node id list in a query, bounded: the editor sends a map's users. */
const MAX_NODES = 500;

export function installTestMapRoutesOnce(RED: NodeAPI): void {
  installRoutesOnce(RED, 'test-map', () => {
    const admin = RED.httpAdmin as unknown as { post: (path: string, ...h: unknown[]) => void; get: (path: string, ...h: unknown[]) => void };
    const read = RED.auth.needsPermission('lis.read');
    for (const file of ['test-map-merge.js', 'test-map-dialog.js']) {
      admin.get(`/lis-bridge/editor/${file}`, read, (_req: Request, res: Response) => {
        res.type('application/javascript').sendFile(join(__dirname, '..', 'editor', file));
      });
    }

    admin.post('/lis-bridge/mapping/merge', read, (req: Request, res: Response) => {
      const parsed = TablesSchema.safeParse(req.body ?? {});
      if (!parsed.success) return answerError(res, 400, `the tables to merge are unusable: ${describeIssues(parsed.error, 'body').join('; ')}`);
      const tables = parsed.data.tables.map((t) => ({ ...t, rows: t.rows.map(cleanRow) }));
      const plan = planMerge(tables);
      if (!parsed.data.choices) return res.json({ rows: plan.rows, differences: plan.differences });
      try {
        res.json({ rows: applyMerge(plan, parsed.data.choices), differences: [] });
      } catch (err) {
        answerError(res, 400, err);
      }
    });

    admin.get('/lis-bridge/test-map/seen', read, (req: Request, res: Response) => {
      const list = typeof req.query.nodes === 'string' ? req.query.nodes.split(',').filter((n) => n !== '') : [];
      if (list.length > MAX_NODES) return answerError(res, 400, `nodes lists at most ${MAX_NODES} test-mapper ids`);
      journalFor(RED).then(
        (journal) => res.json({ seen: seenNotMapped(journal.holds(), new Set(list)).map((s) => ({ ...s, since: new Date(s.since).toISOString() })) }),
        (err: unknown) => answerError(res, 500, err),
      );
    });
  });
}
