/**
 * QC on the operator's side (the Lab sidebar's QC section and its Levey-Jennings charts):
 * GET  /lis-bridge/editor/qc-config-dialog.js   the lis-qc dialog's tables                               (lis.read)
 * GET  /lis-bridge/qc                     each deployed lis-qc's analyzer: its QC state per test, open events (with the
 *                                         results sent since the last good control), series and rules     (lis.read)
 * GET  /lis-bridge/qc/chart?analyzer=&test=&material=&lot=&days=30|90   one series' chart data            (lis.read)
 * GET  /lis-bridge/qc/export.csv?from=YYYY-MM-DD&to=YYYY-MM-DD          QC history as CSV, to included    (lis.read)
 * POST /lis-bridge/qc/accept   { analyzer, test, run, reason, action, note? }  a technologist accepts a QC event
 * POST /lis-bridge/qc/target   { analyzer, test, material, lot, mean, sd } or { ..., proposed: true }   a target
 * POST /lis-bridge/qc/exclude  { analyzer, test, material, lot, id, reason }   a point out of the statistics
 * The POSTs need lis.write and record the user with the time.
 */
import type { NodeAPI } from 'node-red';
import type { Request, Response } from 'express';
import { join } from 'node:path';
import { CORRECTIVE_ACTIONS, type CorrectiveAction, type SeriesKey } from '../../lib/qc';
import type { QcMonitor, TestView } from '../../lib/qc';
import { adminUser, answerError, installRoutesOnce } from './admin';
import { openedQcRuntime, qcChanged, qcRuntimeFor } from './qc-runtime';
import type { QcConfigNode } from './types';

const DAY = 24 * 3600_000;

export function installQcRoutesOnce(RED: NodeAPI): void {
  installRoutesOnce(RED, 'qc', () => installQcRoutes(RED));
}

/** The deployed lis-qc nodes. */
export function qcNodes(RED: NodeAPI): QcConfigNode[] {
  const out: QcConfigNode[] = [];
  RED.nodes.eachNode((n) => {
    if (n.type !== 'lis-qc') return;
    const node = RED.nodes.getNode(n.id) as QcConfigNode | null;
    if (node) out.push(node);
  });
  return out;
}

class Refused extends Error {}

async function monitorNamed(RED: NodeAPI, analyzer: unknown): Promise<QcMonitor> {
  const node = qcNodes(RED).find((n) => n.analyzer === analyzer);
  if (!node) throw new Refused(`no deployed lis-qc node files its QC under ${JSON.stringify(analyzer)}: GET /lis-bridge/qc lists the analyzers`);
  return node.monitor();
}

function text(v: unknown, max = 500): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim().slice(0, max) : undefined;
}

function keyOf(q: Record<string, unknown>): SeriesKey | string {
  const k = { analyzer: text(q.analyzer, 100), test: text(q.test, 100), material: text(q.material, 100), lot: text(q.lot, 100) };
  const missing = Object.entries(k).filter(([, v]) => v === undefined).map(([n]) => n);
  return missing.length > 0 ? `${missing.join(', ')} must name the series (GET /lis-bridge/qc lists each analyzer's series)` : (k as SeriesKey);
}

function installQcRoutes(RED: NodeAPI): void {
  const admin = RED.httpAdmin as unknown as { get: (path: string, ...h: unknown[]) => void; post: (path: string, ...h: unknown[]) => void };
  const read = RED.auth.needsPermission('lis.read');
  const write = RED.auth.needsPermission('lis.write');
  const fail = (res: Response) => (err: unknown) => answerError(res, err instanceof Refused ? 409 : (err as { code?: string }).code === 'INVALID_INPUT' ? 400 : 500, err);

  // The lis-qc dialog's tables (nodes/editor), read when the dialog first opens.
  admin.get('/lis-bridge/editor/qc-config-dialog.js', read, (_req: Request, res: Response) => {
    res.type('application/javascript').sendFile(join(__dirname, '..', 'editor', 'qc-config-dialog.js'));
  });

  admin.get('/lis-bridge/qc', read, (_req: Request, res: Response) => {
    const now = Date.now();
    Promise.all(
      qcNodes(RED).map(async (n) => {
        const base = { node: n.id, name: n.name || n.analyzer, analyzer: n.analyzer };
        const err = n.setupError();
        if (err) return { ...base, error: err.message, tests: [] };
        try {
          return { ...base, tests: (await n.monitor()).view(now).map(testJson) };
        } catch (e) {
          return { ...base, error: (e as Error).message, tests: [] };
        }
      }),
    )
      .then((analyzers) => res.json({ at: new Date(now).toISOString(), analyzers }))
      .catch(fail(res));
  });

  admin.get('/lis-bridge/qc/chart', read, (req: Request, res: Response) => {
    const key = keyOf(req.query as Record<string, unknown>);
    if (typeof key === 'string') return answerError(res, 400, key);
    const days = Number(req.query.days ?? 30) === 90 ? 90 : 30;
    (async () => {
      const monitor = await monitorNamed(RED, key.analyzer);
      const rt = await qcRuntimeFor(RED);
      const to = Date.now() + DAY;
      const from = to - (days + 1) * DAY;
      const chart = await rt.store.chart(key, from, to);
      const target = rt.store.target(key);
      const byPoint = new Map<string, { state: string; rules: Set<string> }>();
      for (const r of chart.runs) {
        for (const p of chart.points.filter((x) => x.run === r.run)) byPoint.set(p.id, { state: r.state, rules: byPoint.get(p.id)?.rules ?? new Set() });
        for (const v of r.violations) for (const id of v.points) (byPoint.get(id) ?? byPoint.set(id, { state: r.state, rules: new Set() }).get(id)!).rules.add(v.rule);
      }
      res.json({
        ...key,
        from: new Date(from).toISOString(),
        to: new Date(to).toISOString(),
        // Control points carry no unit in the store: the chart reads values in the analyzer's own.
        unit: null,
        target: target ? { ...target, at: new Date(target.at).toISOString() } : null,
        proposed: rt.store.proposedTarget(key) ?? null,
        rules: monitor.view(Date.now()).find((t) => t.test === key.test)?.rules ?? '',
        points: chart.points.map((p) => ({
          id: p.id,
          at: new Date(p.at).toISOString(),
          value: p.value,
          z: target ? (p.value - target.mean) / target.sd : null,
          run: p.run,
          state: byPoint.get(p.id)?.state ?? 'establishing',
          violations: [...(byPoint.get(p.id)?.rules ?? [])],
          ...(p.excluded !== undefined ? { excluded: p.excluded } : {}),
        })),
      });
    })().catch(fail(res));
  });

  admin.get('/lis-bridge/qc/export.csv', read, (req: Request, res: Response) => {
    const day = (v: unknown) => (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v) ? Date.parse(`${v}T00:00:00Z`) : NaN);
    const from = day(req.query.from);
    const to = day(req.query.to);
    if (!Number.isFinite(from) || !Number.isFinite(to) || to < from) return answerError(res, 400, 'from and to must be dates YYYY-MM-DD, to not before from (to is included)');
    const rt = openedQcRuntime(RED);
    (async () => {
      const store = (await (rt ?? qcRuntimeFor(RED))).store;
      res.type('text/csv').attachment(`qc-${String(req.query.from)}-${String(req.query.to)}.csv`);
      for await (const chunk of store.exportCsv(from, to + DAY)) {
        if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve));
      }
      res.end();
    })().catch((err: unknown) => (res.headersSent ? res.destroy(err as Error) : fail(res)(err)));
  });

  admin.post('/lis-bridge/qc/accept', write, (req: Request, res: Response) => {
    const b = (req.body ?? {}) as Record<string, unknown>;
    const reason = text(b.reason);
    const action = b.action as CorrectiveAction;
    if (!text(b.analyzer) || !text(b.test) || !text(b.run)) return answerError(res, 400, 'analyzer, test and run must name the QC event (GET /lis-bridge/qc lists the open ones)');
    if (!reason) return answerError(res, 400, 'reason must say why the QC event is accepted: it is kept with the decision');
    if (!CORRECTIVE_ACTIONS.includes(action)) return answerError(res, 400, `action must be the corrective action taken: one of ${CORRECTIVE_ACTIONS.join(', ')}`);
    const by = adminUser(req);
    (async () => {
      const monitor = await monitorNamed(RED, b.analyzer);
      if (!monitor.event(String(b.test), String(b.run))) throw new Refused(`run ${String(b.run)} of ${String(b.analyzer)} ${String(b.test)} is no open QC event (accepted already, or not rejected)`);
      const note = text(b.note);
      await monitor.accept({ test: String(b.test), run: String(b.run), reason, action, ...(note ? { note } : {}), by });
      qcChanged();
      res.json({ accepted: { analyzer: b.analyzer, test: b.test, run: b.run }, by, gate: monitor.gate(String(b.test)) ?? null });
    })().catch(fail(res));
  });

  admin.post('/lis-bridge/qc/target', write, (req: Request, res: Response) => {
    const b = (req.body ?? {}) as Record<string, unknown>;
    const key = keyOf(b);
    if (typeof key === 'string') return answerError(res, 400, key);
    const by = adminUser(req);
    (async () => {
      await monitorNamed(RED, key.analyzer);
      const rt = await qcRuntimeFor(RED);
      if (b.proposed === true) {
        const p = rt.store.proposedTarget(key);
        if (!p) throw new Refused(`series ${key.test} ${key.material} lot ${key.lot} has fewer than 2 points: no target can be established yet`);
        const d = await rt.store.setTarget({ ...key, mean: p.mean, sd: p.sd, n: p.n, source: 'established', by });
        qcChanged();
        return res.json({ target: d });
      }
      const mean = Number(b.mean);
      const sd = Number(b.sd);
      if (!Number.isFinite(mean) || !Number.isFinite(sd) || sd <= 0) return answerError(res, 400, 'mean must be a number and sd a number above 0 (the insert\'s range), or send proposed: true to accept the established one');
      const d = await rt.store.setTarget({ ...key, mean, sd, source: 'entered', by });
      qcChanged();
      res.json({ target: d });
    })().catch(fail(res));
  });

  admin.post('/lis-bridge/qc/exclude', write, (req: Request, res: Response) => {
    const b = (req.body ?? {}) as Record<string, unknown>;
    const key = keyOf(b);
    if (typeof key === 'string') return answerError(res, 400, key);
    const reason = text(b.reason);
    if (!text(b.id, 300) || !reason) return answerError(res, 400, 'id must name the point and reason say why it leaves the statistics');
    const by = adminUser(req);
    (async () => {
      await monitorNamed(RED, key.analyzer);
      const rt = await qcRuntimeFor(RED);
      const at = Date.parse(String(b.at ?? ''));
      const points = await rt.store.series(key, Number.isFinite(at) ? at : 0, Number.isFinite(at) ? at + 1 : Date.now() + DAY);
      const point = points.find((p) => p.id === b.id);
      if (!point) throw new Refused(`no point ${String(b.id)} in ${key.test} ${key.material} lot ${key.lot}`);
      const d = await rt.store.exclude(point, reason, by);
      qcChanged();
      res.json({ excluded: d });
    })().catch(fail(res));
  });
}

function testJson(t: TestView): Record<string, unknown> {
  const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());
  return {
    test: t.test,
    state: t.state,
    rules: t.rules,
    latest: t.latest ? { run: t.latest.run, at: iso(t.latest.at), state: t.latest.state, violations: t.latest.violations } : null,
    events: t.events.map((e) => ({ run: e.run, at: iso(e.at), violations: e.violations, review: { items: e.review.items.slice(0, 200).map((i) => ({ ...i, at: iso(i.at) })), more: e.review.more + Math.max(0, e.review.items.length - 200) } })),
    series: t.series.map((s) => ({ material: s.material, lot: s.lot, count: s.count, expiry: s.expiry ?? null, expired: s.expired, target: s.target ? { mean: s.target.mean, sd: s.target.sd, source: s.target.source, by: s.target.by, at: iso(s.target.at) } : null, proposed: s.proposed ?? null })),
  };
}
