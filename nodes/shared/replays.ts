/**
 * The runtime side of operator replays (lib/replay): the deployed links that
 * can put captured messages on their message output, the replays under way
 * (their reports, by id), and the few calls the nodes on a replay's path make
 * to fill a report in. Process-wide, like the journal: a replay outlives no
 * restart, and only the last MAX_KEPT reports are kept.
 */
import { messageOf } from '../../lib/errors';
import { isReplayMark, KeptReports, REPLAY_LIMITS, type ReplayMark, ReplayRun } from '../../lib/replay';
import type { FrameTrace } from '../../lib/trace';
import type { Msg } from './types';

/** The msg properties a protocol's nodes describe a message in: where a replay's mark travels. */
const CARRIERS = ['astm', 'hl7'] as const;

export interface CaptureRead {
  messages: Buffer[];
  notes: string[];
  problems: string[];
}

/** What a deployed link offers to replays. */
export interface ReplayInjector {
  /** The messages in captured text (a paste, or trace lines), in the link's protocol. */
  read(text: string): CaptureRead;
  /** The link's trace, when it keeps one. */
  trace(): FrameTrace | undefined;
  /** Puts a message on the link's message output as if just received (never on the line, never ACKed, never journaled as received). */
  inject(bytes: Buffer, mark: ReplayMark): void;
}

const injectors = new Map<string, ReplayInjector>();
const stopWatching = new Map<string, () => void>();
const runs = new KeptReports<ReplayRun>(REPLAY_LIMITS, (run) => {
  stopWatching.get(run.id)?.();
  stopWatching.delete(run.id);
});

/** Registers a deployed link; returns the removal for its close. */
export function registerReplayInjector(nodeId: string, injector: ReplayInjector): () => void {
  injectors.set(nodeId, injector);
  return () => {
    if (injectors.get(nodeId) === injector) injectors.delete(nodeId);
  };
}

export function replayInjector(nodeId: string): ReplayInjector | undefined {
  return injectors.get(nodeId);
}

export function keepRun(run: ReplayRun): void {
  // A report grows as its messages go through the flow: the budget is checked again as it does.
  stopWatching.set(run.id, run.onChange(() => runs.fit()));
  runs.keep(run);
}

export function replayRun(id: string): ReplayRun | undefined {
  return runs.get(id);
}

export interface ReplayOf {
  run: ReplayRun;
  mark: ReplayMark;
  /** The msg property the mark is in (astm, hl7). */
  about: string;
}

/**
 * The operator replay a message belongs to; undefined for any other message
 * (a restart's replay carries `replay: true`, not a mark). A replay whose
 * report was dropped (the budget) is still a replay: its messages go on as
 * its mode says, into a report that keeps nothing, never as live traffic.
 */
export function replayOf(msg: Msg): ReplayOf | undefined {
  for (const about of CARRIERS) {
    const mark = (msg[about] as { replay?: unknown } | undefined)?.replay;
    if (!isReplayMark(mark)) continue;
    const run = runs.get(mark.id) ?? new ReplayRun({ id: mark.id, link: '', mode: mark.mode, source: 'paste', messages: 0, notes: [], problems: [], now: 0, limitBytes: 0 });
    return { run, mark, about };
  }
  return undefined;
}

/** A node failed on a replayed message: noted in its report (a message of no replay is left alone). */
export function replayFailed(msg: Msg, node: { id: string; name?: string; type: string }, err: unknown): void {
  const r = replayOf(msg);
  if (!r) return;
  const where = r.mark.batch !== undefined ? { batch: r.mark.batch } : { message: r.mark.message };
  r.run.failed(`${node.type} ${node.name || node.id}`, messageOf(err), where);
}
