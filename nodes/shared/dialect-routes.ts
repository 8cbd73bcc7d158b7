/**
 * Admin endpoints behind the message nodes' dialect section (permission lis.read),
 * for each protocol of the registry (./dialect-protocols.ts), named by
 * `protocol` ('astm' when absent):
 *
 * GET  /lis-bridge/editor/dialect-editor.js       the dialog's dialect section (nodes/editor), one script for every message node
 * GET  /lis-bridge/dialects?protocol=             the built-in dialects, for the picker
 * GET  /lis-bridge/dialects/:id?protocol=         one built-in profile as JSON (the values an override starts from)
 * POST /lis-bridge/dialects/preview   { protocol?, base, overrides?, text?, timeZone? } -> { issues, overrides, paste, preview }
 *
 * The preview answers 200 whatever the dialect's problems (they are the
 * answer, each with the path of its setting); 400 for a request that is not
 * one, and for overrides nested deeper than any setting (with its path).
 */
import { join } from 'node:path';
import type { NodeAPI } from 'node-red';
import type { Request, Response } from 'express';
import { depthIssue } from '../../lib/dialect';
import { LisError, invalidInput } from '../../lib/errors';
import { answerError, installRoutesOnce } from './admin';
import { DIALECT_PROTOCOL_NAMES, dialectProtocol } from './dialect-protocols';

/** A paste larger than this is not a capture someone means to read in a dialog. */
const MAX_TEXT = 4 * 1024 * 1024;

export function installDialectRoutes(RED: NodeAPI): void {
  installRoutesOnce(RED, 'dialects', () => {
    const admin = RED.httpAdmin as unknown as { get: (path: string, ...h: unknown[]) => void; post: (path: string, ...h: unknown[]) => void };
    const read = RED.auth.needsPermission('lis.read');
    // Built beside the compiled nodes (scripts/build.mjs copies nodes/editor).
    admin.get('/lis-bridge/editor/dialect-editor.js', read, (_req: Request, res: Response) => {
      res.type('application/javascript').sendFile(join(__dirname, '..', 'editor', 'dialect-editor.js'));
    });
    admin.get('/lis-bridge/dialects', read, (req: Request, res: Response) => {
      const protocol = protocolOf(req.query.protocol, res);
      if (protocol) res.json(protocol.builtIns());
    });
    admin.get('/lis-bridge/dialects/:id', read, (req: Request, res: Response) => {
      const protocol = protocolOf(req.query.protocol, res);
      if (!protocol) return;
      const profile = protocol.profile(String(req.params.id));
      if (profile === undefined) return answerError(res, 404, new LisError(`unknown dialect ${JSON.stringify(req.params.id)}`, { code: 'INVALID_INPUT' }));
      res.json(profile);
    });
    admin.post('/lis-bridge/dialects/preview', read, (req: Request, res: Response) => {
      try {
        const body = (req.body ?? {}) as { protocol?: unknown; base?: unknown; overrides?: unknown; text?: unknown; timeZone?: unknown };
        const errors: string[] = [];
        const protocol = dialectProtocol(body.protocol);
        if (!protocol) errors.push(protocolProblem(body.protocol));
        if (typeof body.base !== 'string' || body.base === '') errors.push('base must be the id of a built-in dialect');
        if (body.text !== undefined && typeof body.text !== 'string') errors.push('text must be the pasted capture as text');
        if (typeof body.text === 'string' && body.text.length > MAX_TEXT) errors.push(`text is longer than ${MAX_TEXT} characters`);
        // Refused before anything recurses into it (a stack overflow answered 500); the error names the setting's path.
        const deep = depthIssue(body.overrides);
        if (deep) errors.push(`overrides.${deep.message}`);
        const timeZone = typeof body.timeZone === 'string' && body.timeZone.trim() !== '' ? body.timeZone.trim() : Intl.DateTimeFormat().resolvedOptions().timeZone;
        try {
          new Intl.DateTimeFormat('en', { timeZone });
        } catch {
          errors.push(`timeZone ${JSON.stringify(timeZone)} is not an IANA zone such as Europe/Berlin`);
        }
        if (errors.length > 0 || !protocol) return answerError(res, 400, invalidInput('not a dialect preview request', errors));
        res.json(protocol.preview({ base: body.base as string, overrides: body.overrides }, body.text as string | undefined, timeZone));
      } catch (err) {
        answerError(res, 500, err);
      }
    });
  });
}

function protocolProblem(name: unknown): string {
  return `protocol ${JSON.stringify(name)} is not one the dialect editor serves (${DIALECT_PROTOCOL_NAMES.join(', ')})`;
}

/** The protocol a query names, or a 400 answered. */
function protocolOf(name: unknown, res: Response) {
  const protocol = dialectProtocol(name);
  if (!protocol) answerError(res, 400, invalidInput('not a dialect request', [protocolProblem(name)]));
  return protocol;
}
