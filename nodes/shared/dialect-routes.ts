/**
 * GET /lis-bridge/dialects and /lis-bridge/hl7-dialects: the built-in analyzer
 * dialects of each protocol, for the editor's dialect picker.
 */
import type { NodeAPI } from 'node-red';
import type { Request, Response } from 'express';
import { PROFILES } from '../../lib/astm/dialects';
import { HL7_PROFILES } from '../../lib/hl7/dialects';
import { installRoutesOnce } from './admin';

function installList(RED: NodeAPI, name: string, path: string, list: () => unknown[]): void {
  installRoutesOnce(RED, name, () => {
    const admin = RED.httpAdmin as unknown as { get: (path: string, ...h: unknown[]) => void };
    admin.get(path, RED.auth.needsPermission('lis.read'), (_req: Request, res: Response) => {
      res.json(list());
    });
  });
}

export function installDialectRoutes(RED: NodeAPI): void {
  installList(RED, 'dialects', '/lis-bridge/dialects', () =>
    PROFILES.map((p) => ({ id: p.id, label: p.label, vendor: p.vendor, model: p.model, transport: p.transport, queryDeadlineMs: p.queryDeadlineMs, orders: p.order !== undefined })),
  );
}

export function installHl7DialectRoutes(RED: NodeAPI): void {
  installList(RED, 'hl7-dialects', '/lis-bridge/hl7-dialects', () =>
    HL7_PROFILES.map((p) => ({ id: p.id, label: p.label, vendor: p.vendor, model: p.model, versions: p.versions, queryDeadlineMs: p.queryDeadlineMs, queries: p.query !== undefined, orders: p.answer !== undefined })),
  );
}
