/**
 * Admin endpoints behind file-message's dialect section (permission lis.read),
 * the file protocol's side of the dialect editor contract:
 *
 * GET  /lis-bridge/file-dialects            the built-in file dialects, for the picker
 * GET  /lis-bridge/file-dialects/:id        one as JSON (the values an override starts from)
 * POST /lis-bridge/file-dialects/preview    { base, overrides?, text?, timeZone?, fileName? } -> { issues, overrides, paste, preview, capture, roles }
 * POST /lis-bridge/file-dialects/point      { base, overrides?, text, timeZone?, role, place? | value? } -> { overrides, changed, preview, issues } | { choices } | { refused }
 *
 * FILE_DIALECT_PROTOCOL is the same four answers for the shared registry
 * (nodes/shared/dialect-protocols.ts) to dispatch 'file' to.
 */
import type { NodeAPI } from 'node-red';
import type { Request, Response } from 'express';
import { depthIssue } from '../../lib/dialect';
import { FILE_POINT_ROLES, FILE_PROFILES, findFileProfile, pointFileAt, previewFileSite, type FilePointRole } from '../../lib/protocols/file';
import { LisError, invalidInput } from '../../lib/errors';
import { answerError, installRoutesOnce } from './admin';

/** A paste larger than this is not an export someone means to read in a dialog. */
const MAX_TEXT = 4 * 1024 * 1024;

export const FILE_DIALECT_PROTOCOL = {
  builtIns: () => FILE_PROFILES.map((p) => ({ id: p.id, label: p.label, vendor: p.vendor, model: p.model, layout: p.layout.form, delimiter: typeof p.delimiter === 'string' ? p.delimiter : 'fixed widths' })),
  profile: (id: string) => findFileProfile(id),
  preview: (site: { base: string; overrides?: unknown }, text: string | undefined, timeZone: string, fileName?: string) => ({ ...previewFileSite(site, text, timeZone, fileName), roles: FILE_POINT_ROLES.map((id) => ({ id })) }),
  point: pointFileAt,
};

/** The request's common fields checked; the errors say what to send. */
function readRequest(body: Record<string, unknown>, errors: string[]): { base: string; timeZone: string; text?: string } {
  if (typeof body.base !== 'string' || body.base === '') errors.push('base must be the id of a built-in file dialect');
  if (body.text !== undefined && typeof body.text !== 'string') errors.push('text must be the pasted file as text');
  if (typeof body.text === 'string' && body.text.length > MAX_TEXT) errors.push(`text is longer than ${MAX_TEXT} characters`);
  const deep = depthIssue(body.overrides);
  if (deep) errors.push(`overrides.${deep.message}`);
  const timeZone = typeof body.timeZone === 'string' && body.timeZone.trim() !== '' ? body.timeZone.trim() : Intl.DateTimeFormat().resolvedOptions().timeZone;
  try {
    new Intl.DateTimeFormat('en', { timeZone });
  } catch {
    errors.push(`timeZone ${JSON.stringify(timeZone)} is not an IANA zone such as Europe/Berlin`);
  }
  return { base: body.base as string, timeZone, text: body.text as string | undefined };
}

export function installFileDialectRoutes(RED: NodeAPI): void {
  installRoutesOnce(RED, 'file-dialects', () => {
    const admin = RED.httpAdmin as unknown as { get: (path: string, ...h: unknown[]) => void; post: (path: string, ...h: unknown[]) => void };
    const read = RED.auth.needsPermission('lis.read');
    admin.get('/lis-bridge/file-dialects', read, (_req: Request, res: Response) => {
      res.json(FILE_DIALECT_PROTOCOL.builtIns());
    });
    admin.get('/lis-bridge/file-dialects/:id', read, (req: Request, res: Response) => {
      const profile = FILE_DIALECT_PROTOCOL.profile(String(req.params.id));
      if (profile === undefined) return answerError(res, 404, new LisError(`unknown file dialect ${JSON.stringify(req.params.id)}`, { code: 'INVALID_INPUT' }));
      res.json(profile);
    });
    admin.post('/lis-bridge/file-dialects/preview', read, (req: Request, res: Response) => {
      try {
        const body = (req.body ?? {}) as Record<string, unknown>;
        const errors: string[] = [];
        const r = readRequest(body, errors);
        if (errors.length > 0) return answerError(res, 400, invalidInput('not a file dialect preview request', errors));
        res.json(FILE_DIALECT_PROTOCOL.preview({ base: r.base, overrides: body.overrides }, r.text, r.timeZone, typeof body.fileName === 'string' ? body.fileName : undefined));
      } catch (err) {
        answerError(res, 500, err);
      }
    });
    admin.post('/lis-bridge/file-dialects/point', read, (req: Request, res: Response) => {
      try {
        const body = (req.body ?? {}) as Record<string, unknown>;
        const errors: string[] = [];
        const r = readRequest(body, errors);
        if (typeof r.text !== 'string') errors.push('text must be the pasted file as text');
        if (!(FILE_POINT_ROLES as readonly unknown[]).includes(body.role)) errors.push(`role must be one of ${FILE_POINT_ROLES.join(', ')}`);
        if (body.place === undefined && typeof body.value !== 'string') errors.push('give the place of a cell of the capture, or a value of the table');
        if (errors.length > 0) return answerError(res, 400, invalidInput('not a file dialect point request', errors));
        res.json(FILE_DIALECT_PROTOCOL.point({ base: r.base, overrides: body.overrides, text: r.text!, timeZone: r.timeZone, role: body.role as FilePointRole, place: body.place, value: typeof body.value === 'string' ? body.value : undefined }));
      } catch (err) {
        answerError(res, 500, err);
      }
    });
  });
}
