/**
 * Admin endpoints behind the message nodes' dialect section (permission lis.read),
 * for each protocol of the registry (./dialect-protocols.ts), named by
 * `protocol` ('astm' when absent):
 *
 * GET  /lis-bridge/editor/dialect-editor.js       the dialog's dialect section (nodes/editor), one script for every message node
 * GET  /lis-bridge/dialects?protocol=             the built-in dialects, for the picker
 * GET  /lis-bridge/dialects/:id?protocol=         one built-in profile as JSON (the values an override starts from)
 * GET  /lis-bridge/editor/dialect-pointing.js    the clickable capture, role menu and choices prompt (nodes/editor)
 * POST /lis-bridge/dialects/preview   { protocol?, base, overrides?, text? | bytes?, fileName?, timeZone? } -> { issues, overrides, paste, preview, capture, roles }
 * POST /lis-bridge/dialects/point     { protocol?, base, overrides?, text | bytes, fileName?, timeZone?, role, place? | value? (message?) }
 *                                     -> { overrides, changed, setting, place, preview, issues } | { choices } | { refused, issues? }
 *
 * `bytes` is a file loaded in the dialog, in base64 (file dialects only): a
 * workbook, which a paste cannot carry, or a text export read in its own
 * bytes, decoded as file-message decodes it. At most MAX_FILE_BYTES: a larger
 * one is answered 413 naming the limit, before anything is decoded.
 *
 * The preview answers 200 whatever the dialect's problems (they are the
 * answer, each with the path of its setting); 400 for a request that is not
 * one, and for overrides nested deeper than any setting (with its path).
 */
import { join } from 'node:path';
import type { NodeAPI } from 'node-red';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { depthIssue, POINT_ROLES, type PointRole } from '../../lib/dialect';
import { LisError, invalidInput } from '../../lib/errors';
import { answerError, installRoutesOnce } from './admin';
import { DIALECT_PROTOCOL_NAMES, dialectProtocol, readsFiles } from './dialect-protocols';
import { sendJsonInSlices } from './json-answer';

/** A paste larger than this is not a capture someone means to read in a dialog. */
const MAX_TEXT = 4 * 1024 * 1024;
/**
 * The largest file the dialog loads: its base64 (4/3 of it) and the rest of
 * the request stay under Node-RED's admin body limit (apiMaxLength, 5 MB
 * unless a site sets more), and a run's results export is far smaller (the
 * QuantStudio workbooks seen: 50 KB to 1 MB). The dialog says so before sending.
 */
const MAX_FILE_BYTES = 3 * 1024 * 1024;
const MAX_FILE_MB = MAX_FILE_BYTES / (1024 * 1024);
const TOO_LARGE = `more than the ${MAX_FILE_MB} MB (${MAX_FILE_BYTES} bytes) the dialog's preview takes: load a smaller export of the same instrument (one run), or try the dialect on the whole file through folder-link`;

/** A loaded file's fields: its size bounded before the base64 is looked at (abort: no pattern runs over a huge string), then base64 only. */
const LoadedFile = z.object({
  bytes: z
    .string({ error: 'bytes must be the loaded file in base64' })
    .max((MAX_FILE_BYTES / 3) * 4, { abort: true, error: (i) => `bytes holds a file of about ${((String(i.input).length / 4) * 3 / (1024 * 1024)).toFixed(1)} MB, ${TOO_LARGE}` })
    .regex(/^[A-Za-z0-9+/]*={0,2}$/, { abort: true, error: 'bytes must be the loaded file in base64 (A-Z, a-z, 0-9, + and /, padded with =)' })
    .refine((b) => b.length % 4 === 0, { error: 'bytes must be the loaded file in base64: its length is not a multiple of 4 (cut short?)' })
    .optional(),
  fileName: z.string({ error: "fileName must be the file's name" }).max(255, { error: "fileName must be the file's name (at most 255 characters)" }).optional(),
});

export function installDialectRoutes(RED: NodeAPI): void {
  installRoutesOnce(RED, 'dialects', () => {
    const admin = RED.httpAdmin as unknown as { get: (path: string, ...h: unknown[]) => void; post: (path: string, ...h: unknown[]) => void };
    const read = RED.auth.needsPermission('lis.read');
    // Built beside the compiled nodes (scripts/build.mjs copies nodes/editor).
    admin.get('/lis-bridge/editor/dialect-editor.js', read, (_req: Request, res: Response) => {
      res.type('application/javascript').sendFile(join(__dirname, '..', 'editor', 'dialect-editor.js'));
    });
    admin.get('/lis-bridge/editor/dialect-pointing.js', read, (_req: Request, res: Response) => {
      res.type('application/javascript').sendFile(join(__dirname, '..', 'editor', 'dialect-pointing.js'));
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
    admin.post('/lis-bridge/dialects/preview', read, async (req: Request, res: Response) => {
      try {
        const checked = checkRequest(req.body, false);
        if (checked.errors.length > 0 || !checked.protocol) return answerError(res, checked.status, invalidInput('not a dialect preview request', checked.errors));
        const site = { base: checked.base, overrides: checked.overrides };
        const protocol = checked.protocol;
        await answer(res, readsFiles(protocol) ? protocol.preview(site, checked.bytes ?? checked.text, checked.timeZone, checked.fileName) : protocol.preview(site, checked.text, checked.timeZone, checked.fileName));
      } catch (err) {
        if (!res.headersSent) answerError(res, 500, err);
        else res.destroy();
      }
    });
    // Pointing: what a clicked value is, written as the override that reads it from there (lib/protocols/<p>/point.ts).
    admin.post('/lis-bridge/dialects/point', read, async (req: Request, res: Response) => {
      try {
        const body = (req.body ?? {}) as { role?: unknown; place?: unknown; value?: unknown; message?: unknown };
        const checked = checkRequest(req.body, true);
        const errors = [...checked.errors];
        const roles = checked.protocol?.roles ?? POINT_ROLES;
        // One of the protocol's own roles (a file's include flags): its point() takes those.
        const role = typeof body.role === 'string' && roles.includes(body.role) ? (body.role as PointRole) : undefined;
        if (role === undefined) errors.push(`role must be one of ${roles.join(', ')}`);
        if (body.place === undefined && (typeof body.value !== 'string' || body.value.trim() === '')) errors.push('give the place clicked in the capture, or the value clicked in the table');
        if (body.message !== undefined && !(typeof body.message === 'number' && Number.isInteger(body.message) && body.message >= 1)) errors.push('message must be the 1-based message of the capture');
        const point = checked.protocol?.point;
        if (checked.protocol && !point) errors.push(`protocol ${JSON.stringify((req.body as { protocol?: unknown }).protocol)} offers no pointing`);
        if (errors.length > 0 || !point || role === undefined) return answerError(res, checked.status, invalidInput('not a pointing request', errors));
        await answer(
          res,
          point({
            base: checked.base,
            overrides: checked.overrides,
            text: checked.text ?? '',
            ...(checked.bytes === undefined ? {} : { bytes: checked.bytes }),
            ...(checked.fileName === undefined ? {} : { fileName: checked.fileName }),
            timeZone: checked.timeZone,
            role,
            ...(body.place === undefined ? {} : { place: body.place }),
            ...(typeof body.value === 'string' ? { value: body.value } : {}),
            ...(typeof body.message === 'number' ? { message: body.message } : {}),
          }),
        );
      } catch (err) {
        if (!res.headersSent) answerError(res, 500, err);
        else res.destroy();
      }
    });
  });
}

/** A protocol's answer: a file protocol's comes later, and may be megabytes of JSON, sent in slices. */
async function answer(res: Response, value: unknown): Promise<void> {
  if (!(value instanceof Promise)) return void res.json(value);
  await sendJsonInSlices(res, await value);
}

/**
 * What a preview and a pointing request share: the protocol, the base, the
 * overrides, the capture (text, or a loaded file's bytes) and the zone,
 * checked; `status`, what to answer when there are errors (413: a file too large).
 */
function checkRequest(raw: unknown, captureRequired: boolean) {
  const body = (raw ?? {}) as { protocol?: unknown; base?: unknown; overrides?: unknown; text?: unknown; timeZone?: unknown; bytes?: unknown; fileName?: unknown };
  const errors: string[] = [];
  let status = 400;
  const protocol = dialectProtocol(body.protocol);
  if (!protocol) errors.push(protocolProblem(body.protocol));
  if (typeof body.base !== 'string' || body.base === '') errors.push('base must be the id of a built-in dialect');
  if (body.text !== undefined && typeof body.text !== 'string') errors.push('text must be the pasted capture as text');
  const file = LoadedFile.safeParse({ bytes: body.bytes, fileName: body.fileName });
  if (!file.success) {
    for (const issue of file.error.issues) errors.push(issue.message);
    if (file.error.issues.some((i) => i.code === 'too_big' && i.path[0] === 'bytes')) status = 413;
  }
  const bytes = file.success && file.data.bytes !== undefined ? Buffer.from(file.data.bytes, 'base64') : undefined;
  if (body.bytes !== undefined && protocol && !readsFiles(protocol)) errors.push(`protocol ${JSON.stringify(body.protocol ?? 'astm')} takes its capture as text: bytes (a file loaded) are read for file dialects only`);
  if (body.bytes !== undefined && typeof body.text === 'string' && body.text.trim() !== '') errors.push('give the capture as text (pasted) or as bytes (a file loaded), not both');
  if (captureRequired && body.bytes === undefined && (typeof body.text !== 'string' || body.text.trim() === '')) errors.push('text must be the capture pointed at');
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
  return {
    errors,
    status,
    protocol,
    base: typeof body.base === 'string' ? body.base : '',
    overrides: body.overrides,
    text: typeof body.text === 'string' ? body.text : undefined,
    bytes,
    fileName: file.success ? file.data.fileName : undefined,
    timeZone,
  };
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
