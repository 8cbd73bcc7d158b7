/**
 * ASTM date/times (`YYYYMMDD`, `YYYYMMDDHHMM`, `YYYYMMDDHHMMSS`) carry no zone:
 * they are the analyzer's wall clock. The site's IANA zone turns them into
 * instants; Intl supplies the zone rules, so there is no dependency and the
 * rules follow the Node runtime's tz data.
 *
 * Around a DST change a wall-clock time can occur twice (autumn) or not at all
 * (spring). The default, 'compatible', is Temporal's choice: the earlier of two,
 * and for a missing time the instant that the offset before the change gives
 * (02:30 in a spring gap reads as 03:30 summer time). 'reject' refuses both.
 */

/** A date/time value that is not a valid YYYYMMDD[HHMM[SS]] in the site's zone. */
export class AstmTimestampError extends Error {
  readonly value: string;

  constructor(message: string, value: string) {
    super(message);
    this.name = 'AstmTimestampError';
    this.value = value;
  }
}

export type Disambiguation = 'compatible' | 'earlier' | 'later' | 'reject';

export interface ParseTimestampOptions {
  disambiguation?: Disambiguation;
}

const PATTERN = /^(\d{4})(\d{2})(\d{2})(?:(\d{2})(\d{2})(\d{2})?)?$/;
const DAY_MS = 86_400_000;

interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/**
 * Parsed instants by zone, mode and value. A message repeats the same few
 * timestamps on every record, and Intl's formatToParts is the costliest step
 * of decoding at scale (npm run bench): the answer for a given input never
 * changes, so it is kept, in a bounded map.
 */
const parsed = new Map<string, string>();
const PARSED_MAX = 4096;

/** `20261121093015` in Europe/Berlin -> `2026-11-21T08:30:15.000Z`. */
export function parseAstmTimestamp(value: string, timeZone: string, options: ParseTimestampOptions = {}): string {
  const key = `${timeZone}\u0000${options.disambiguation ?? 'compatible'}\u0000${value}`;
  const known = parsed.get(key);
  if (known !== undefined) return known;
  const instant = placeWallClock(value, timeZone, options);
  if (parsed.size >= PARSED_MAX) parsed.delete(parsed.keys().next().value as string);
  parsed.set(key, instant);
  return instant;
}

function placeWallClock(value: string, timeZone: string, options: ParseTimestampOptions): string {
  const wall = readWallClock(value);
  const format = formatterFor(timeZone, value);
  const target = wallMs(wall);
  // The offsets in force a day before and a day after cover any one change of
  // offset; each candidate instant is kept only if it shows this wall time.
  const offsets = [...new Set([offsetAt(format, target - DAY_MS), offsetAt(format, target + DAY_MS)])];
  const candidates = [...new Set(offsets.map((o) => target - o))].filter((t) => wallMs(wallOf(format, t)) === target).sort((a, b) => a - b);
  const mode = options.disambiguation ?? 'compatible';
  let instant: number | undefined;
  if (candidates.length === 1) instant = candidates[0];
  else if (candidates.length > 1) {
    if (mode === 'reject') throw new AstmTimestampError(`ASTM date/time ${JSON.stringify(value)} occurs twice in ${timeZone} (clocks go back); cannot tell which is meant`, value);
    instant = mode === 'later' ? candidates[candidates.length - 1] : candidates[0];
  } else {
    if (mode === 'reject') throw new AstmTimestampError(`ASTM date/time ${JSON.stringify(value)} does not exist in ${timeZone} (clocks go forward)`, value);
    const before = offsetAt(format, target - DAY_MS);
    const after = offsetAt(format, target + DAY_MS);
    instant = mode === 'earlier' ? target - after : target - before;
  }
  if (instant === undefined) throw new AstmTimestampError(`ASTM date/time ${JSON.stringify(value)} could not be placed in ${timeZone}`, value);
  return new Date(instant).toISOString();
}

/** A date-only value (`YYYYMMDD`, e.g. a birth date) as `YYYY-MM-DD`, without any zone shift. */
export function parseAstmDate(value: string): string {
  if (typeof value !== 'string' || !/^\d{8}$/.test(value)) throw new AstmTimestampError(`ASTM date ${JSON.stringify(value)} is not YYYYMMDD`, String(value));
  readWallClock(value);
  return `${value.slice(0, 4)}-${value.slice(4, 6)}-${value.slice(6, 8)}`;
}

/** Whether Intl knows the IANA time zone (its formatter is kept for the conversions). */
export function isKnownTimeZone(timeZone: string): boolean {
  try {
    formatterFor(timeZone, '');
    return true;
  } catch {
    return false;
  }
}

/**
 * The last instant formatted, to the second, per time zone: every message
 * written in the same second (a header's time-stamp, most often "now") has
 * the same text, and Intl's formatToParts is the costly part of writing one.
 */
const lastFormatted = new Map<string, { second: number; text: string }>();

/** An instant as the analyzer's wall clock in `timeZone`: `YYYYMMDDHHMMSS`. */
export function formatAstmTimestamp(date: Date, timeZone: string): string {
  if (!(date instanceof Date) || Number.isNaN(date.getTime())) throw new AstmTimestampError('cannot format an invalid Date as an ASTM date/time', String(date));
  const second = Math.floor(date.getTime() / 1000);
  const last = lastFormatted.get(timeZone);
  if (last !== undefined && last.second === second) return last.text;
  const w = wallOf(formatterFor(timeZone, String(date)), date.getTime());
  if (w.year < 1 || w.year > 9999) throw new AstmTimestampError(`year ${w.year} does not fit an ASTM date/time`, date.toISOString());
  const two = (n: number) => String(n).padStart(2, '0');
  const text = `${String(w.year).padStart(4, '0')}${two(w.month)}${two(w.day)}${two(w.hour)}${two(w.minute)}${two(w.second)}`;
  lastFormatted.set(timeZone, { second, text });
  return text;
}

function readWallClock(value: string): WallClock {
  const m = typeof value === 'string' ? PATTERN.exec(value) : null;
  if (m === null) throw new AstmTimestampError(`ASTM date/time ${JSON.stringify(value)} is not YYYYMMDD, YYYYMMDDHHMM or YYYYMMDDHHMMSS`, String(value));
  const [year, month, day, hour, minute, second] = m.slice(1).map((part) => (part === undefined ? 0 : Number(part))) as [number, number, number, number, number, number];
  const invalid = (what: string) => new AstmTimestampError(`ASTM date/time ${JSON.stringify(value)} has an invalid ${what}`, value);
  if (year < 1) throw invalid('year');
  if (month < 1 || month > 12) throw invalid('month');
  if (day < 1 || day > daysInMonth(year, month)) throw invalid('day');
  if (hour > 23) throw invalid('hour');
  if (minute > 59) throw invalid('minute');
  if (second > 59) throw invalid('second');
  return { year, month, day, hour, minute, second };
}

function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
}

/** The wall clock read as if it were UTC, in ms: the arithmetic base for offsets. */
function wallMs(w: WallClock): number {
  const d = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC maps years 0-99 to 1900-1999.
  d.setUTCFullYear(w.year, w.month - 1, w.day);
  d.setUTCHours(w.hour, w.minute, w.second, 0);
  return d.getTime();
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string, value: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (format === undefined) {
    try {
      format = new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        era: 'short',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      throw new AstmTimestampError(`unknown time zone ${JSON.stringify(timeZone)} (expected an IANA name such as Europe/Berlin)`, value);
    }
    formatters.set(timeZone, format);
  }
  return format;
}

function wallOf(format: Intl.DateTimeFormat, instant: number): WallClock {
  const parts: Record<string, string> = {};
  for (const p of format.formatToParts(new Date(instant))) parts[p.type] = p.value;
  const year = Number(parts.year);
  return {
    year: parts.era === 'BC' || parts.era === 'B' ? 1 - year : year,
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
  };
}

/** The zone's offset from UTC at an instant, in ms (wall clock minus UTC). */
function offsetAt(format: Intl.DateTimeFormat, instant: number): number {
  const whole = Math.floor(instant / 1000) * 1000;
  return wallMs(wallOf(format, whole)) - whole;
}
