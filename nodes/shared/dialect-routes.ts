/** GET /lis-bridge/dialects: the built-in analyzer dialects, for the editor's dialect picker. */
import type { NodeAPI } from 'node-red';
import type { Request, Response } from 'express';
import { PROFILES } from '../../lib/astm/dialects';
import { installRoutesOnce } from './admin';

export function installDialectRoutes(RED: NodeAPI): void {
  installRoutesOnce(RED, 'dialects', () => {
    const admin = RED.httpAdmin as unknown as { get: (path: string, ...h: unknown[]) => void };
    admin.get('/lis-bridge/dialects', RED.auth.needsPermission('lis.read'), (_req: Request, res: Response) => {
      res.json(PROFILES.map((p) => ({ id: p.id, label: p.label, vendor: p.vendor, model: p.model, transport: p.transport, queryDeadlineMs: p.queryDeadlineMs, orders: p.order !== undefined })));
    });
  });
}
