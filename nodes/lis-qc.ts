/**
 * lis-qc: one analyzer's QC settings (docs/qc.md), chosen by that analyzer's message node as lis-test-map is chosen
 * by its test-mappers: the control table, the Westgard rules per test, and what a lot without an accepted target
 * means for patient results. Its monitor (lib/qc/monitor.ts) lives as long as the process: a deploy changes the
 * settings, never what the analyzer's QC has seen.
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { LisError, messageOf } from '../lib/errors';
import type { QcMonitor } from '../lib/qc';
import { parseQcSetup, type QcSetup } from '../lib/qc';
import { installQcRoutesOnce } from './shared/qc-routes';
import { monitorFor } from './shared/qc-runtime';
import type { QcConfigNode } from './shared/types';

interface Def extends NodeDef {
  analyzer?: string;
  controls?: unknown;
  controlsPerRun?: string;
  meanRule?: string;
  warning?: boolean;
  /** A list of rules of the lab's own, comma separated; empty: Westgard's set for controlsPerRun. */
  rules?: string;
  /** Tests with rules of their own: [{ test, controlsPerRun, rules }]. */
  byTest?: unknown;
  establishing?: string;
  runMinutes?: string | number;
}

export = function register(RED: NodeAPI): void {
  installQcRoutesOnce(RED);

  function LisQc(this: Node & QcConfigNode, def: Def) {
    RED.nodes.createNode(this, def);
    const node = this;
    const label = `lis-qc "${def.name || def.analyzer || node.id}"`;
    const parsed = parseQcSetup(setupCandidate(def), label);
    const setup: QcSetup | undefined = 'setup' in parsed ? parsed.setup : undefined;
    const error: LisError | undefined = 'error' in parsed ? parsed.error : undefined;
    let opening: Promise<QcMonitor> | undefined;
    Object.assign(node, {
      analyzer: setup?.analyzer ?? (def.analyzer ?? '').trim(),
      setupError: () => error,
      monitor: (): Promise<QcMonitor> => {
        if (!setup) return Promise.reject(error!);
        opening ??= monitorFor(RED, node.id, setup).catch((err: unknown) => {
          opening = undefined;
          throw err instanceof LisError ? err : new LisError(`${label}: ${messageOf(err)}`, { code: 'NOT_CONFIGURED' });
        });
        return opening;
      },
    });
    // Opened at deploy, so the Lab sidebar shows the analyzer's QC before its first control arrives.
    if (setup) void node.monitor().catch((err: unknown) => node.error(messageOf(err)));
    else node.error(error!.message);
  }

  RED.nodes.registerType('lis-qc', LisQc as never);
};

/** The dialog's fields as lib/qc/setup reads them. */
function setupCandidate(def: Def): Record<string, unknown> {
  const rulesOf = (perRun: unknown, own: unknown, meanRule?: unknown, warning?: unknown) => {
    const list = typeof own === 'string' ? own.split(/[\s,/]+/).filter((r) => r !== '') : [];
    if (list.length > 0) return { rules: list };
    return { controlsPerRun: Number(perRun ?? 2), ...(typeof meanRule === 'string' && meanRule !== '' ? { meanRule } : {}), ...(warning === false ? { warning: false } : {}) };
  };
  const byTest: Record<string, unknown> = {};
  for (const row of Array.isArray(def.byTest) ? (def.byTest as Array<Record<string, unknown>>) : []) {
    const test = typeof row?.test === 'string' ? row.test.trim() : '';
    if (test !== '') byTest[test] = rulesOf(row.controlsPerRun, row.rules);
  }
  const controls = (Array.isArray(def.controls) ? (def.controls as Array<Record<string, unknown>>) : [])
    .filter((r) => r && typeof r === 'object' && Object.values(r).some((v) => typeof v === 'string' && v.trim() !== ''))
    .map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => !(typeof v === 'string' && v.trim() === ''))));
  return {
    analyzer: def.analyzer ?? '',
    controls,
    rules: rulesOf(def.controlsPerRun, def.rules, def.meanRule, def.warning),
    byTest,
    establishing: def.establishing || 'hold',
    runMinutes: def.runMinutes === undefined || def.runMinutes === '' ? 60 : Number(def.runMinutes),
  };
}
