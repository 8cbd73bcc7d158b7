/**
 * Where the journal and the traces live, read from Node-RED's settings.js:
 *
 *   lisBridge: { dir: '/var/lib/lis-bridge', retentionDays: 30, trace: { maxBytes, maxFiles }, timeZone: 'Europe/Berlin' }
 *
 * (timeZone: the site's zone for the link alarms' weekdays and hours; the process's zone when not set.
 * checkEveryMs: for tests only, the interval of every periodic check (nodes/shared/periodic.ts) in place of
 * the node's own; not in any dialog.)
 * Process-wide on purpose: these are data-protection settings of the host
 * (where patient data is kept, and for how long), not of one flow.
 */
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { NodeAPI } from 'node-red';
import { journalAt, openedJournal as openedAt, type ResultJournal } from '../../lib/journal';

export interface LisBridgeSettings {
  dir: string;
  retentionDays: number;
  trace: { maxBytes: number; maxFiles: number };
  timeZone: string | undefined;
  /** For tests only: every periodic check's interval (ms) in place of the node's own. */
  checkEveryMs: number | undefined;
}

const DEFAULT_RETENTION_DAYS = 30;

export function bridgeSettings(RED: NodeAPI): LisBridgeSettings {
  const settings = RED.settings as unknown as { userDir?: string; lisBridge?: Partial<{ dir: string; retentionDays: number; trace: Partial<LisBridgeSettings['trace']>; timeZone: string; checkEveryMs: number }> };
  const own = settings.lisBridge ?? {};
  const userDir = settings.userDir || join(homedir(), '.node-red');
  const dir = own.dir ? (isAbsolute(own.dir) ? own.dir : resolve(userDir, own.dir)) : join(userDir, 'lis-bridge');
  const retentionDays = positive(own.retentionDays, DEFAULT_RETENTION_DAYS);
  return {
    dir,
    retentionDays,
    trace: { maxBytes: positive(own.trace?.maxBytes, 10 * 1024 * 1024), maxFiles: positive(own.trace?.maxFiles, 10) },
    timeZone: typeof own.timeZone === 'string' && own.timeZone !== '' ? own.timeZone : undefined,
    checkEveryMs: positive(own.checkEveryMs, undefined),
  };
}

/** A periodic check's interval: lisBridge.checkEveryMs when settings.js sets it (tests do), the node's own otherwise. */
export function checkEveryMs(RED: NodeAPI, ownMs: number): number {
  return bridgeSettings(RED).checkEveryMs ?? ownMs;
}

/** The process's result journal under the configured directory. */
export function journalFor(RED: NodeAPI): Promise<ResultJournal> {
  const s = bridgeSettings(RED);
  const opening = journalAt({ file: journalFile(s), retentionMs: s.retentionDays * 24 * 60 * 60_000 });
  const hooks = openHooks.get(RED.httpAdmin as unknown as object);
  if (hooks) void opening.then((journal) => hooks.forEach((hook) => hook.see(journal)), () => undefined);
  return opening;
}

/** The journal, when a node already opened it; undefined otherwise (a look must not create the directory). */
export function openedJournal(RED: NodeAPI): Promise<ResultJournal> | undefined {
  return openedAt(journalFile(bridgeSettings(RED)));
}

/** Calls `hook` once for each journal this runtime's nodes open (the metrics watch its commits). */
export function whenJournalOpens(RED: NodeAPI, hook: (journal: ResultJournal) => void): void {
  const app = RED.httpAdmin as unknown as object;
  const hooks = openHooks.get(app) ?? [];
  openHooks.set(app, hooks);
  const seen = new WeakSet<ResultJournal>();
  const entry = {
    see(journal: ResultJournal) {
      if (seen.has(journal)) return;
      seen.add(journal);
      hook(journal);
    },
  };
  hooks.push(entry);
  const opened = openedJournal(RED);
  if (opened) void opened.then((journal) => entry.see(journal), () => undefined);
}

const openHooks = new WeakMap<object, Array<{ see(journal: ResultJournal): void }>>();

function journalFile(s: LisBridgeSettings): string {
  return join(s.dir, 'journal.jsonl');
}

function positive<T extends number | undefined>(value: unknown, fallback: T): number | T {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : fallback;
}
