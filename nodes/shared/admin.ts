/**
 * Admin endpoints are installed when a node module is loaded, which can happen
 * more than once against the same editor app (test runtimes, reloads): each
 * group of routes goes in once per app.
 */
import type { NodeAPI } from 'node-red';
import type { Request, Response } from 'express';
import { LisError, messageOf } from '../../lib/errors';

const installed = new WeakMap<object, Set<string>>();

export function installRoutesOnce(RED: NodeAPI, group: string, install: () => void): void {
  const app = RED.httpAdmin as unknown as object;
  const groups = installed.get(app) ?? new Set<string>();
  installed.set(app, groups);
  if (groups.has(group)) return;
  groups.add(group);
  install();
}

/** Who asked, as recorded in the journal for resends, discards and dismissals. */
export function adminUser(req: Request): string {
  return `admin:${(req as Request & { user?: { username?: string } }).user?.username ?? 'anonymous'}`;
}

/**
 * Every admin route answers an error in the LIS's own shape (spec 7):
 * `{ message, errors }`, with the bridge's `code` (and the LIS's HTTP
 * `status`) when there is one.
 */
export function answerError(res: Response, status: number, err: unknown): void {
  const body: { message: string; errors: string[]; code?: string; status?: number } = { message: messageOf(err), errors: [] };
  if (err instanceof LisError) {
    body.errors = err.errors ? [...err.errors] : [];
    body.code = err.code;
    // The LIS's own status, when the LIS is what failed.
    if (err.status !== undefined) body.status = err.status;
  }
  res.status(status).json(body);
}
