/**
 * GET /lis-bridge/links/:id/recent?count=10 (permission lis.read): the last
 * messages a deployed link received, read from its trace (redacted when the
 * link redacts its trace), so the dialect editor can preview one instead of a
 * paste. 404 when no link with that id is deployed with its trace on.
 */
import type { NodeAPI } from 'node-red';
import type { Request, Response } from 'express';
import { traceText } from '../../lib/trace';
import { recentMessages } from '../../lib/trace';
import { LisError } from '../../lib/errors';
import { answerError, installRoutesOnce } from './admin';
import { deployedTrace } from './link-trace';

const DEFAULT_COUNT = 10;
const MAX_COUNT = 100;

export function installTraceRoutes(RED: NodeAPI): void {
  installRoutesOnce(RED, 'trace', () => {
    const admin = RED.httpAdmin as unknown as { get: (path: string, ...h: unknown[]) => void };
    admin.get('/lis-bridge/links/:id/recent', RED.auth.needsPermission('lis.read'), (req: Request, res: Response) => {
      const id = String(req.params.id);
      const asked = req.query.count === undefined ? DEFAULT_COUNT : Number(req.query.count);
      if (!Number.isInteger(asked) || asked < 1 || asked > MAX_COUNT) {
        return answerError(res, 400, new LisError(`count must be a whole number from 1 to ${MAX_COUNT}`, { code: 'INVALID_INPUT' }));
      }
      const trace = deployedTrace(id);
      if (trace === undefined) {
        return answerError(res, 404, new LisError(`no link ${JSON.stringify(id)} is deployed with its trace on: deploy it, or turn its trace on`, { code: 'INVALID_INPUT' }));
      }
      trace
        .flush()
        .then(() => recentMessages(trace.file, asked, trace.framing.recent))
        .then((recent) =>
          res.json({
            link: id,
            // The trace's readable form, a record a line: every byte exact whatever the dialect's character set, and read back by the preview.
            // `at`: when the message's H record came; `summary`: what tells it from the others in the picker.
            messages: recent.messages.map((m) => ({ at: m.at ?? null, session: m.session ?? null, redacted: m.redacted === true, summary: m.summary, text: traceText(m.bytes, trace.framing.naming).replace(/<CR>/g, '<CR>\n') })),
            notes: recent.notes,
            problems: recent.problems,
          }),
        )
        .catch((err: unknown) => answerError(res, 500, err));
    });
  });
}
