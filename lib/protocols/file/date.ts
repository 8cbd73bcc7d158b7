/**
 * Dates and times as instruments write them in files (`08/02/2016 14:11:28`,
 * `2010-10-01 01:44:54 AM`, `9/23/2016 11:54:59 AM`), read by a format of
 * tokens into the `YYYYMMDDHHMMSS` wall clock lib/lab places in a zone. One
 * pass over the text, no regular expression built from the format.
 */

const TOKENS = ['YYYY', 'MM', 'DD', 'HH', 'hh', 'mm', 'ss', 'M', 'D', 'H', 'h', 'A'] as const;
type Token = (typeof TOKENS)[number];
type Part = { token: Token } | { literal: string };

function partsOf(format: string): Part[] {
  const parts: Part[] = [];
  let i = 0;
  while (i < format.length) {
    const token = TOKENS.find((t) => format.startsWith(t, i));
    if (token !== undefined) {
      parts.push({ token });
      i += token.length;
    } else {
      parts.push({ literal: format.charAt(i) });
      i += 1;
    }
  }
  return parts;
}

/** Why a format cannot read a date and time, or undefined when it can. */
export function formatProblem(format: string): string | undefined {
  const tokens = partsOf(format).flatMap((p) => ('token' in p ? [p.token] : []));
  const has = (...ts: Token[]) => ts.some((t) => tokens.includes(t));
  if (!has('YYYY') || !has('MM', 'M') || !has('DD', 'D')) return `${JSON.stringify(format)} must name the year (YYYY), month (MM or M) and day (DD or D)`;
  if (has('hh', 'h') !== has('A')) return `${JSON.stringify(format)}: a 12-hour clock (hh, h) goes with A (AM/PM), and A with a 12-hour clock`;
  return undefined;
}

const isDigit = (c: number) => c >= 48 && c <= 57;

/**
 * `text` read by `format` as `YYYYMMDDHHMMSS` (the analyzer's wall clock), or
 * undefined when it is not written that way. Text after the format's end (a
 * zone name such as `EDT`) is ignored.
 */
export function readDateTime(text: string, format: string): string | undefined {
  const v: Record<'Y' | 'M' | 'D' | 'H' | 'm' | 's', number> = { Y: 0, M: 0, D: 0, H: 0, m: 0, s: 0 };
  let pm: boolean | undefined;
  let i = 0;
  const digits = (min: number, max: number): number | undefined => {
    let n = 0;
    let count = 0;
    while (count < max && i < text.length && isDigit(text.charCodeAt(i))) {
      n = n * 10 + text.charCodeAt(i) - 48;
      i++;
      count++;
    }
    return count >= min ? n : undefined;
  };
  for (const part of partsOf(format)) {
    if ('literal' in part) {
      if (text.charAt(i) !== part.literal) return undefined;
      i++;
      continue;
    }
    const t = part.token;
    if (t === 'A') {
      const ap = text.slice(i, i + 2).toUpperCase();
      if (ap !== 'AM' && ap !== 'PM') return undefined;
      pm = ap === 'PM';
      i += 2;
      continue;
    }
    const n = t === 'YYYY' ? digits(4, 4) : t.length === 2 ? digits(2, 2) : digits(1, 2);
    if (n === undefined) return undefined;
    const key = ({ YYYY: 'Y', MM: 'M', M: 'M', DD: 'D', D: 'D', HH: 'H', H: 'H', hh: 'H', h: 'H', mm: 'm', ss: 's' } as const)[t];
    v[key] = n;
  }
  if (pm !== undefined) {
    if (v.H < 1 || v.H > 12) return undefined;
    v.H = (v.H % 12) + (pm ? 12 : 0);
  }
  const two = (n: number) => String(n).padStart(2, '0');
  return `${String(v.Y).padStart(4, '0')}${two(v.M)}${two(v.D)}${two(v.H)}${two(v.m)}${two(v.s)}`;
}
