/**
 * HL7 date/times (DTM, v2.5.1 2A.3.22: YYYY[MM[DD[HH[MM[SS[.S…]]]]]][+/-ZZZZ])
 * as UTC instants. A stated offset wins; without one the value is the
 * analyzer's wall clock in the site's zone, read as ASTM's are.
 */
import { parseAstmTimestamp } from '../../astm/records/timestamp';

const DTM = /^(\d{12}|\d{14})(?:\.\d{1,4})?([+-]\d{4})?$/;

/** The instant, or undefined when the value is not a date with a time. */
export function hl7Instant(value: string, timeZone: string): string | undefined {
  const m = DTM.exec(value);
  if (!m) return undefined;
  const wall = (m[1] as string).padEnd(14, '0');
  const offset = m[2];
  try {
    if (offset === undefined) return parseAstmTimestamp(wall, timeZone);
    const sign = offset.startsWith('-') ? -1 : 1;
    const minutes = sign * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(3, 5)));
    const utc = Date.UTC(Number(wall.slice(0, 4)), Number(wall.slice(4, 6)) - 1, Number(wall.slice(6, 8)), Number(wall.slice(8, 10)), Number(wall.slice(10, 12)), Number(wall.slice(12, 14)));
    return Number.isNaN(utc) ? undefined : new Date(utc - minutes * 60_000).toISOString();
  } catch {
    return undefined;
  }
}

/** A date as HL7 writes one in the site's zone: YYYYMMDDHHMMSS. */
export { formatAstmTimestamp as hl7Timestamp } from '../../astm/records/timestamp';
