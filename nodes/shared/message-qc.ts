/**
 * A message node's QC, the Node-RED side (docs/qc.md, "How QC reaches the bridge"): the QC results a message holds
 * recorded through its analyzer's lis-qc monitor before the message counts as read, an unidentified control held
 * for a person (kind `control`), and the gate on each patient result batch: a test whose QC is rejected (or
 * establishing, where the lab holds those) has its results held (kind `qc`) naming why, the rest go on, and what
 * went on is noted for the review list a later failing control makes.
 *
 * A person's actions: a `qc` hold is released (sent once, under its batch hold:<id>, through the test-mapper and
 * lis-send-results after this node) only once its test's QC no longer holds; a `control` hold is evaluated once
 * the deployed control table identifies it.
 */
import type { Node, NodeAPI } from 'node-red';
import { randomUUID } from 'node:crypto';
import { LisError, messageOf } from '../../lib/errors';
import { contextOf, holdEntryFor, holdsFor, type HoldRecord } from '../../lib/journal';
import type { InstrumentResult } from '../../lib/lab';
import type { QcMonitor, RecordOutcome } from '../../lib/qc';
import { PlacementRefused } from './hold-placement';
import { registerKindSender } from './hold-routes';
import { journalFor } from './journal';
import { qcChanged } from './qc-runtime';
import { sendHeldOn } from './correction-sending';
import type { StatusReporter } from './status';
import type { Msg, QcConfigNode } from './types';

export interface MessageQc {
  /** Resolves once the analyzer's monitor is open; rejects with what to set. */
  ready: Promise<QcMonitor>;
  /** Records a message's QC results; `written` resolves once they are on disk and unidentified ones held. */
  record(results: readonly InstrumentResult[], msg: Msg, journalId: string | undefined, link: string | undefined): { held: number; written: Promise<void> };
  /** A patient batch through the gate: what may go on now. Held results are journaled before the caller goes on. */
  gate(results: readonly InstrumentResult[], msg: Msg, origin: { message: string; part: number } | undefined, link: string | undefined): { pass: InstrumentResult[]; written: Promise<void> };
}

export function messageQc(RED: NodeAPI, node: Node, status: StatusReporter, qcNode: QcConfigNode, resultsOutput: number, emit: (msg: Msg) => void): MessageQc {
  const ready = qcNode.monitor();
  let monitor: QcMonitor | undefined;
  void ready.then((m) => (monitor = m), () => undefined);
  const must = (): QcMonitor => {
    if (!monitor) throw new LisError(`the QC of ${qcNode.analyzer || qcNode.id} is not open yet`, { code: 'NOT_CONFIGURED' });
    return monitor;
  };

  const failed = (what: string, payload: unknown) => (err: unknown) => {
    const e = new LisError(`${what}: ${messageOf(err)}`, { code: 'JOURNAL' });
    status.failed(e);
    node.error(e, { payload, error: e.toMsgError() });
    throw e;
  };

  function record(results: readonly InstrumentResult[], msg: Msg, journalId: string | undefined, link: string | undefined) {
    const base = journalId ?? `${node.id}:${randomUUID()}`;
    const out = must().record(results.map((result) => ({ result, id: pointId(base, result), receivedAt: Date.now() })));
    warnOf(out);
    const holding =
      out.unidentified.length === 0
        ? Promise.resolve()
        : journalFor(RED).then((j) =>
            j.hold({
              node: node.id,
              ...(link !== undefined ? { link } : {}),
              ...(journalId !== undefined ? { message: journalId } : {}),
              msg: contextOf(msg as Record<string, unknown>),
              holds: holdsFor(out.unidentified.map((u) => ({ result: u.result, reason: u.reason, kind: 'control' as const, code: u.code })), base),
            }),
          );
    const written = Promise.all([out.written, holding]).then(() => qcChanged(), failed(`the QC of ${qcNode.analyzer} could not be recorded`, results));
    return { held: out.unidentified.length, written };
  }

  function warnOf(out: RecordOutcome): void {
    for (const e of out.expired) node.warn(`QC lot expired: ${e}`);
    for (const n of out.notJudged) node.warn(n.reason);
  }

  function gate(results: readonly InstrumentResult[], msg: Msg, origin: { message: string; part: number } | undefined, link: string | undefined) {
    const m = must();
    const pass: InstrumentResult[] = [];
    const held: Array<{ result: unknown; reason: string; kind: 'qc'; code: string }> = [];
    for (const r of results) {
      const hold = m.gate(r.instrumentCode);
      if (hold) held.push({ result: r, reason: hold.reason, kind: 'qc', code: r.instrumentCode });
      else pass.push(r);
    }
    const key = origin ? `${origin.message}#${origin.part}` : `${node.id}:${randomUUID()}`;
    const byTest = new Map<string, Array<{ sample: string; key: string; at: number }>>();
    for (const r of pass) {
      const list = byTest.get(r.instrumentCode) ?? [];
      list.push({ sample: r.SampleNumber, key, at: Date.now() });
      byTest.set(r.instrumentCode, list);
    }
    const noted = Promise.all([...byTest].map(([test, list]) => m.passed(test, list)));
    const holding =
      held.length === 0
        ? Promise.resolve()
        : journalFor(RED).then((j) => j.hold(holdEntryFor({ node: node.id, link, origin, endsPart: pass.length === 0, msg: contextOf(msg as Record<string, unknown>), rejected: held })));
    const written = Promise.all([noted, holding]).then(() => undefined, failed(`${held.length} patient results held for QC could not be journaled`, held));
    return { pass, written };
  }

  // A person releases results held for QC, once the test's QC lets them go.
  const release = async (hold: HoldRecord, by: string) => {
    const m = await ready;
    const still = m.gate(hold.code);
    if (still) throw new PlacementRefused(`the QC of ${hold.code} on ${m.analyzer} still holds its results (${still.state}): ${still.reason.split('; ')[1] ?? still.reason}`);
    await sendHeldOn(RED, node, resultsOutput, emit, hold, by, `released after QC of ${hold.code} was accepted`);
  };
  // A person evaluates a control the table did not identify, once it does.
  const evaluate = async (hold: HoldRecord, by: string) => {
    const m = await ready;
    const results = hold.results.map((r) => r.result as InstrumentResult);
    const base = hold.message ?? hold.id;
    const out = m.record(results.map((result) => ({ result, id: pointId(base, result), receivedAt: hold.at })));
    if (out.unidentified.length > 0) {
      await out.written;
      throw new PlacementRefused(`${out.unidentified[0]!.reason.replace(/, then Evaluate$/, '')}, then Evaluate again`);
    }
    warnOf(out);
    await out.written;
    const journal = await journalFor(RED);
    const as = out.recorded.map((p) => `${p.material} lot ${p.lot}`);
    await journal.actOnHold(hold.id, 'evaluate', by, `identified as ${[...new Set(as)].join(', ')}`);
    qcChanged();
  };
  const withdraw = [registerKindSender('qc', node.id, release), registerKindSender('control', node.id, evaluate)];
  node.on('close', () => withdraw.forEach((w) => w()));

  return { ready, record, gate };
}

/** A QC result's point id: its message and place in it, so a replay names the same point. */
function pointId(base: string, r: InstrumentResult): string {
  return `${base}:${r.record}:${r.instrumentCode}`;
}
