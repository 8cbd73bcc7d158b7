/**
 * Admin endpoints are installed when a node module is loaded, which can happen
 * more than once against the same editor app (test runtimes, reloads): each
 * group of routes goes in once per app.
 */
import type { NodeAPI } from 'node-red';
import type { Request } from 'express';

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
