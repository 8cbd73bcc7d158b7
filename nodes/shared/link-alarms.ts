/**
 * A link node's alarms (lib/health/alarms): checked every few seconds against
 * the health board (a periodic check: nodes/shared/periodic.ts). A raised
 * alarm goes to Catch nodes once (node.error with
 * code LINK_QUIET / LINK_DOWN, msg.topic "lis:alarm"), to the node's status
 * (a red or yellow ring, kept while the link is idle) and to the board (the
 * Lab sidebar). A clear is a log line and the status back to what the link
 * does (green when idle): a Status node watching the link sees it (msg.status.fill "green").
 */
import type { Node, NodeAPI, NodeStatus } from 'node-red';
import { type Alarm, type AlarmChange, type AlarmRules, type ClearReason, LinkAlarms, localTime, parseActivityRule } from '../../lib/health';
import { LisError } from '../../lib/errors';
import { boardFor } from './health';
import { bridgeSettings, checkEveryMs } from './journal';
import { periodic } from './periodic';
import { setCondition, sharedTexts } from './status';

export interface LinkAlarmDef {
  /** Weekdays of the expected-activity rule, "1,2,3,4,5,6" (0 = Sunday; empty: every day). */
  quietDays?: string;
  /** Its window, "HH:MM" (empty: all day). */
  quietFrom?: string;
  quietTo?: string;
}

export interface LinkAlarmSettings {
  rules: AlarmRules;
  /** The check's interval (settings.js's lisBridge.checkEveryMs replaces it). */
  checkEveryMs: number;
}

/** The rules from the node's settings (minutes already read as numbers), or the errors naming what is wrong. */
export function readAlarmSettings(RED: NodeAPI, def: LinkAlarmDef, numbers: { quietMinutes: number; downMinutes: number; alarmCheckSeconds: number }): { settings: LinkAlarmSettings; errors: string[] } {
  const { rule, errors } = parseActivityRule({ minutes: numbers.quietMinutes, days: def.quietDays, from: def.quietFrom, to: def.quietTo });
  const timeZone = bridgeSettings(RED).timeZone;
  try {
    localTime(0, timeZone);
  } catch {
    errors.push(`lisBridge.timeZone in settings.js (${String(timeZone)}) is not a time zone: write an IANA name such as Europe/Berlin, or leave it out for the host's zone`);
  }
  const rules: AlarmRules = { ...(rule ? { quiet: rule } : {}), ...(numbers.downMinutes > 0 ? { downMinutes: numbers.downMinutes } : {}), ...(timeZone === undefined ? {} : { timeZone }) };
  return { settings: { rules, checkEveryMs: numbers.alarmCheckSeconds * 1000 }, errors };
}

/** A kind of link's own words for its alarms (a folder link: "no run file since ..."); the line links' otherwise. */
export interface AlarmTexts {
  /** LINK_QUIET's error text; vars: link, analyzer, since, minutes. */
  quiet?: (vars: Record<string, string | number>) => string;
  /** LINK_QUIET's status text; `time` is HH:MM. */
  quietStatus?: (time: string) => string;
  /** LINK_DOWN's error text; vars: link, analyzer, since, minutes, state. */
  down?: (vars: Record<string, string | number>) => string;
  /** LINK_DOWN's status text; `time` is HH:MM. */
  downStatus?: (time: string) => string;
}

export interface AlarmWatch {
  close(): void;
}

/** A raised alarm is a condition of the node's status (nodes/shared/status.ts): kept over what the link does until it clears. */
export function watchAlarms(RED: NodeAPI, node: Node, settings: LinkAlarmSettings, texts: AlarmTexts = {}): AlarmWatch {
  const board = boardFor(RED);
  const { rules } = settings;
  if (!rules.quiet && rules.downMinutes === undefined) return { close: () => undefined };
  const r = sharedTexts(RED, 'runtime');
  const t = sharedTexts(RED, 'link');
  const alarms = new LinkAlarms(rules, Date.now());
  // The site's local time as "2024-05-06 09:30:00" (Sweden's format is ISO's), in the zone the rules are in.
  const time = (ms: number) => new Date(ms).toLocaleString('sv-SE', rules.timeZone === undefined ? {} : { timeZone: rules.timeZone });

  const describe = (a: Alarm, analyzer: string, now: number) => {
    const vars = { link: node.name || node.id, analyzer, since: time(a.since), minutes: Math.round((now - a.since) / 60_000), state: a.transport ?? '' };
    return a.code === 'LINK_QUIET' ? (texts.quiet?.(vars) ?? r('linkQuiet', vars)) : (texts.down?.(vars) ?? r('linkDown', vars));
  };
  const statusOf = (list: Alarm[]): NodeStatus | undefined => {
    const a = list[list.length - 1];
    if (!a) return undefined;
    const at = time(a.since).slice(11, 16);
    return a.code === 'LINK_DOWN' ? { fill: 'red', shape: 'ring', text: texts.downStatus?.(at) ?? t('down', { state: a.transport ?? '', time: at }) } : { fill: 'yellow', shape: 'ring', text: texts.quietStatus?.(at) ?? t('quiet', { time: at }) };
  };
  const whyCleared = (code: Alarm['code'], reason: ClearReason) => r(reason === 'recovered' ? (code === 'LINK_QUIET' ? 'alarmMessageCame' : 'alarmConnected') : reason === 'window-ended' ? 'alarmWindowEnded' : 'alarmLinkDown');

  const apply = (change: AlarmChange, analyzer: string, now: number) => {
    if (change.raised.length === 0 && change.cleared.length === 0) return;
    const list = alarms.list();
    board.alarms(node.id, list);
    for (const a of change.cleared) node.log(r('alarmCleared', { code: a.code, link: node.name || node.id, why: whyCleared(a.code, a.reason) }));
    for (const a of change.raised) {
      const err = new LisError(describe(a, analyzer, now), { code: a.code });
      node.error(err, { topic: 'lis:alarm', payload: { code: a.code, link: node.id, name: node.name || node.id, analyzer, since: new Date(a.since).toISOString(), ...(a.transport ? { transport: a.transport } : {}) }, error: err.toMsgError() });
    }
    setCondition(node, 'alarm', statusOf(list));
  };

  const check = (now: number) => {
    const link = board.link(node.id, now);
    if (link) apply(alarms.check(link, now), link.analyzer ?? r('analyzerUnnamed'), now);
  };
  const rounds = periodic(check, { everyMs: checkEveryMs(RED, settings.checkEveryMs), onError: (err) => node.error(err) });
  return {
    close() {
      rounds.stop();
      setCondition(node, 'alarm', undefined);
      board.alarms(node.id, []);
    },
  };
}
