/**
 * HL7 date/times (DTM, v2.5.1 2A.3.22: YYYY[MM[DD[HH[MM[SS[.S…]]]]]][+/-ZZZZ])
 * as UTC instants. A stated offset wins; without one, the offset of the
 * message's MSH-7 applies (the time types of chapter 2A, e.g. TM 2A.3.75:
 * "Where the time zone is not present in a particular TM field but is
 * included as part of the date/time field in the MSH segment, the MSH value
 * will be used as the default time zone"; the cobas pro and pure state
 * `+0900` in MSH-7 and no offset in OBX-19). Only when MSH-7 has none either
 * is the value the analyzer's wall clock in the site's zone, read as ASTM's
 * are.
 */
import { parseAstmTimestamp } from '../../../lab/timestamp';

const DTM = /^(\d{12}|\d{14})(?:\.\d{1,4})?([+-]\d{4})?$/;

/** The offset a date/time states (`+0900`), or undefined. */
export function hl7Offset(value: string): string | undefined {
  return /^\d{4,14}(?:\.\d{1,4})?([+-]\d{4})$/.exec(value.trim())?.[1];
}

/** The instant, or undefined when the value is not a date with a time; `senderOffset` is MSH-7's offset. */
export function hl7Instant(value: string, timeZone: string, senderOffset?: string): string | undefined {
  const m = DTM.exec(value);
  if (!m) return undefined;
  const wall = (m[1] as string).padEnd(14, '0');
  const offset = m[2] ?? senderOffset;
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
export { formatAstmTimestamp as hl7Timestamp } from '../../../lab/timestamp';
