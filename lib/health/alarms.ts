/**
 * Alarms on an analyzer link, decided from its health (link-health.ts) and a
 * clock the caller passes in: no timers here.
 *
 * - LINK_QUIET: an expected-activity rule ("at least one message every N
 *   minutes, on these weekdays, between HH:MM and HH:MM", in the site's time
 *   zone) broken: no message from the analyzer for N minutes inside the
 *   window. The quiet time counts from the last message, or from the
 *   window's start, or from the link's deploy, whichever is latest, so a
 *   morning start or a restart does not raise it at once.
 * - LINK_DOWN: the transport not connected (disconnected, port missing, or a
 *   TCP server with no analyzer connected) for longer than N minutes.
 *
 * Each alarm is raised once and cleared once: `check` returns what changed
 * since the last check. A quiet alarm clears when a message arrives or when
 * the window ends (nothing is expected then); it is not raised while the same
 * link's down alarm is up (one cause, one alarm).
 */
import type { TransportState } from './transport-state';

/** What the alarm rules read of a link (LinkHealth has these fields). */
interface LinkActivity {
  transport: TransportState;
  transportSince: number | undefined;
  lastReceived: number | undefined;
}

export type AlarmCode = 'LINK_QUIET' | 'LINK_DOWN';

export interface ActivityRule {
  /** At least one message every this many minutes (fractions allowed). */
  minutes: number;
  /** Weekdays the rule holds on: 0 = Sunday ... 6 = Saturday. */
  days: readonly number[];
  /** Window within those days, minutes after local midnight: from inclusive, to exclusive (1440 = end of day). */
  from: number;
  to: number;
}

export interface AlarmRules {
  quiet?: ActivityRule;
  /** LINK_DOWN after the transport is down this many minutes (fractions allowed). */
  downMinutes?: number;
  /** IANA zone the rule's days and hours are in (undefined: the process's zone). */
  timeZone?: string;
}

export interface Alarm {
  code: AlarmCode;
  /** Since when the link has been quiet or down (ms). */
  since: number;
  /** When the alarm was raised (ms). */
  raisedAt: number;
  /** LINK_DOWN: the transport state it was raised for. */
  transport?: TransportState;
}

export type ClearReason = 'recovered' | 'window-ended' | 'link-down';

export interface AlarmChange {
  raised: Alarm[];
  /** What cleared, and why: a message arrived / the transport connected, the window ended, or (quiet) the link went down. */
  cleared: Array<Alarm & { reason: ClearReason }>;
}

const DOWN: ReadonlySet<TransportState> = new Set(['disconnected', 'port-missing', 'port-shared', 'listening']);
const MINUTE = 60_000;

/** The alarms of one link node. */
export class LinkAlarms {
  private readonly active = new Map<AlarmCode, Alarm>();

  constructor(
    private readonly rules: AlarmRules,
    /** When the link was deployed: quiet time counts from here at the latest. */
    private readonly startedAt: number,
  ) {}

  /** The link as the health board sees it now; returns what was raised and cleared. */
  check(link: Pick<LinkActivity, 'transport' | 'transportSince' | 'lastReceived'>, now: number): AlarmChange {
    const change: AlarmChange = { raised: [], cleared: [] };
    const down = this.downSince(link, now);
    this.settle('LINK_DOWN', down, now, change, 'recovered', link.transport);
    const isDown = this.active.has('LINK_DOWN');
    const quiet = isDown ? undefined : this.quietSince(link, now);
    this.settle('LINK_QUIET', quiet?.since, now, change, isDown ? 'link-down' : quiet?.outside ? 'window-ended' : 'recovered');
    return change;
  }

  /** The alarms up now, oldest first. */
  list(): Alarm[] {
    return [...this.active.values()].sort((a, b) => a.raisedAt - b.raisedAt);
  }

  private settle(code: AlarmCode, since: number | undefined, now: number, change: AlarmChange, reason: ClearReason, transport?: TransportState): void {
    const up = this.active.get(code);
    if (since !== undefined && !up) {
      const alarm: Alarm = { code, since, raisedAt: now, ...(transport === undefined ? {} : { transport }) };
      this.active.set(code, alarm);
      change.raised.push(alarm);
    } else if (since === undefined && up) {
      this.active.delete(code);
      change.cleared.push({ ...up, reason });
    }
  }

  private downSince(link: Pick<LinkActivity, 'transport' | 'transportSince'>, now: number): number | undefined {
    const limit = this.rules.downMinutes;
    if (limit === undefined || limit <= 0 || !DOWN.has(link.transport)) return undefined;
    const since = link.transportSince ?? this.startedAt;
    return now - since >= limit * MINUTE ? since : undefined;
  }

  /** Quiet past the rule: since when; `outside` when the window is what ended it. */
  private quietSince(link: Pick<LinkActivity, 'lastReceived'>, now: number): { since: number | undefined; outside: boolean } | undefined {
    const rule = this.rules.quiet;
    if (!rule || rule.minutes <= 0) return undefined;
    const start = windowStart(rule, now, this.rules.timeZone);
    if (start === undefined) return { since: undefined, outside: true };
    const since = Math.max(link.lastReceived ?? -Infinity, start, this.startedAt);
    return { since: now - since >= rule.minutes * MINUTE ? since : undefined, outside: false };
  }
}

/**
 * When the window `now` is in opened (ms), or undefined outside every window.
 * A whole-day window on consecutive days is one window (a 24/7 rule does not
 * restart its count at midnight), looked back over a week at most.
 */
export function windowStart(rule: ActivityRule, now: number, timeZone?: string): number | undefined {
  const local = localTime(now, timeZone);
  if (!rule.days.includes(local.weekday) || local.minutes < rule.from || local.minutes >= rule.to) return undefined;
  // Local wall-clock arithmetic: a DST change inside the window shifts its start by the hour, which a quiet rule can bear.
  let start = now - (local.minutes - rule.from) * MINUTE - local.subMinute;
  if (rule.from !== 0 || rule.to !== 1440) return start;
  for (let back = 1, day = local.weekday; back <= 7; back++) {
    day = (day + 6) % 7;
    if (!rule.days.includes(day)) break;
    start -= 1440 * MINUTE;
  }
  return start;
}

/** Weekday and minutes after midnight of `now` in `timeZone`, and the ms past that minute. */
export function localTime(now: number, timeZone?: string): { weekday: number; minutes: number; subMinute: number } {
  const parts = formatter(timeZone).formatToParts(new Date(now));
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  const hour = Number(get('hour')) % 24;
  return { weekday: WEEKDAYS.indexOf(get('weekday')), minutes: hour * 60 + Number(get('minute')), subMinute: now - Math.floor(now / MINUTE) * MINUTE };
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string | undefined): Intl.DateTimeFormat {
  const key = timeZone ?? '';
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', ...(timeZone === undefined ? {} : { timeZone }) });
    formatters.set(key, f);
  }
  return f;
}

/**
 * An expected-activity rule as a node stores it: minutes (0 or empty: no
 * rule), weekdays as "1,2,3,4,5,6" (0 = Sunday; empty, as in flows from
 * before the setting: every day; "none": the dialog with every box unticked), and the
 * window as "HH:MM" (empty from: 00:00; empty to: 24:00). Errors name the
 * setting and what to write instead.
 */
export function parseActivityRule(raw: { minutes: number; days?: unknown; from?: unknown; to?: unknown }): { rule: ActivityRule | undefined; errors: string[] } {
  const errors: string[] = [];
  if (!(raw.minutes > 0)) return { rule: undefined, errors };
  const daysText = typeof raw.days === 'string' ? raw.days.trim() : '';
  const days = daysText === '' ? [0, 1, 2, 3, 4, 5, 6] : daysText === 'none' ? [] : daysText.split(/\s*,\s*/).map(Number);
  if (daysText === 'none') errors.push('quietDays: no weekday is ticked: tick the days the analyzer works on, or set quietMinutes to 0 for no rule');
  else if (days.some((d) => !Number.isInteger(d) || d < 0 || d > 6)) errors.push(`quietDays must list weekdays as numbers 0 (Sunday) to 6 (Saturday), comma-separated, not ${JSON.stringify(raw.days)}`);
  const from = clock(raw.from, 0, 'quietFrom', errors);
  const to = clock(raw.to, 1440, 'quietTo', errors);
  if (from !== undefined && to !== undefined && from >= to) errors.push(`quietFrom (${String(raw.from)}) must be before quietTo (${String(raw.to)}): a window across midnight is two rules' worth; use 00:00 to 24:00 for all day`);
  if (errors.length > 0 || from === undefined || to === undefined) return { rule: undefined, errors };
  return { rule: { minutes: raw.minutes, days: [...new Set(days)].sort(), from, to }, errors };
}

function clock(value: unknown, fallback: number, setting: string, errors: string[]): number | undefined {
  const text = typeof value === 'string' ? value.trim() : '';
  if (text === '') return fallback;
  const m = /^(\d{1,2}):(\d{2})$/.exec(text);
  const minutes = m ? Number(m[1]) * 60 + Number(m[2]) : NaN;
  if (!m || Number(m[2]) > 59 || minutes > 1440) {
    errors.push(`${setting} must be a time of day as HH:MM (00:00 to 24:00), not ${JSON.stringify(value)}`);
    return undefined;
  }
  return minutes;
}
