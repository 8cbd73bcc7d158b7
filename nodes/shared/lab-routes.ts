/**
 * The Lab sidebar's read routes (the held and stuck ones are in held-routes.ts
 * and link-journal.ts):
 * - GET /lis-bridge/editor/lab-sidebar.js: the sidebar's own code (nodes/editor);
 * - GET /lis-bridge/editor/lab-qc.js and qc-chart.js: the sidebar's QC section and the Levey-Jennings chart it draws (nodes/editor);
 * - GET /lis-bridge/links: every deployed analyzer link's health, alarms included,
 *   and the label of the dialect its message node speaks (dialectLabel);
 * - GET /lis-bridge/links/<node>/trace?lines=N: the last units of that link's
 *   frame trace, readable (lib/trace/trace-read), redacted when the link redacts.
 * All need `lis.read`: the trace holds patient data.
 */
import type { TraceFraming } from '../../lib/trace';
import { join } from 'node:path';
import type { NodeAPI } from 'node-red';
import type { Request, Response } from 'express';
import { lastLines, readTrace } from '../../lib/trace';
import type { LinkHealth } from '../../lib/health';
import { answerError, installRoutesOnce } from './admin';
import { healthSnapshot } from './health';
import { configuredDialects, dialectLabel } from './link-dialect';

interface TraceSource {
  file: string;
  framing: TraceFraming;
  redact: boolean;
}

const traces = new Map<string, TraceSource>();

/** A deployed link offers its trace to the sidebar; the returned function withdraws it. */
export function registerTrace(nodeId: string, source: TraceSource): () => void {
  traces.set(nodeId, source);
  return () => {
    if (traces.get(nodeId) === source) traces.delete(nodeId);
  };
}

const MAX_LINES = 500;

export function installLabRoutes(RED: NodeAPI): void {
  installRoutesOnce(RED, 'lab', () => {
    const admin = RED.httpAdmin as unknown as { get: (path: string, ...h: unknown[]) => void };
    // The sidebar's own code, built beside the compiled nodes (scripts/build.mjs copies nodes/editor).
    for (const file of ['lab-sidebar.js', 'lab-qc.js', 'qc-chart.js']) {
      admin.get(`/lis-bridge/editor/${file}`, RED.auth.needsPermission('lis.read'), (_req: Request, res: Response) => {
        res.type('application/javascript').sendFile(join(__dirname, '..', 'editor', file));
      });
    }
    admin.get('/lis-bridge/links', RED.auth.needsPermission('lis.read'), (_req: Request, res: Response) => {
      healthSnapshot(RED)
        .then((snapshot) => {
          const configured = configuredDialects(RED);
          res.json({ at: new Date(snapshot.at).toISOString(), links: snapshot.links.map((link) => linkView(link, configured.get(link.node))) });
        })
        .catch((err: unknown) => answerError(res, 500, err));
    });
    admin.get('/lis-bridge/links/:node/trace', RED.auth.needsPermission('lis.read'), (req: Request, res: Response) => {
      const node = String(req.params.node);
      const source = traces.get(node);
      if (!source) return answerError(res, 404, `no trace of link ${node}: the link is not deployed, or its trace is off (turn on "Trace everything read and written" in its settings)`);
      const asked = Number(req.query.lines ?? 60);
      const lines = Number.isInteger(asked) && asked > 0 ? Math.min(asked, MAX_LINES) : 60;
      lastLines(source.file, lines)
        .then((text) => res.json({ node, redact: source.redact, units: readTrace(text, source) }))
        .catch((err: unknown) => answerError(res, 500, err));
    });
  });
}

/** The JSON shape: times as ISO strings, totals (Prometheus's business) left out. */
function linkView(link: LinkHealth, configuredDialect: string | undefined): Record<string, unknown> {
  const { totals: _totals, ...link0 } = link;
  // The message node's dialect as deployed; else the one it last read in.
  const dialect = configuredDialect ?? link.dialect;
  const rest = { ...link0, dialectLabel: dialect === undefined ? undefined : dialectLabel(link.protocol, dialect) };
  return JSON.parse(JSON.stringify(rest, (key, value: unknown) => (typeof value === 'number' && TIMES.has(key) ? new Date(value).toISOString() : value))) as Record<string, unknown>;
}

const TIMES = new Set(['lastReceived', 'lastSent', 'transportSince', 'since']);
