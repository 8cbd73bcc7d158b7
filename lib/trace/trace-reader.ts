/**
 * Reads back the lines FrameTrace writes (see frame-trace.ts for the format):
 * the time, the direction, the session and the exact bytes of each unit. For
 * the dialect preview's "pick a recent message" and for a trace pasted into
 * it; nothing here decides anything about the link.
 */
import { ACK, CR, ENQ, EOT, ETB, ETX, FS, LF, NAK, STX, VT } from '../link/control-bytes';

export interface TraceLine {
  /** The ISO time the line starts with. */
  at: string;
  /** `in` from the analyzer, `out` to it, `!!` a note of the trace itself. */
  direction: 'in' | 'out' | '!!';
  session?: string;
  bytes: Buffer;
  /** Patient fields were blanked: the checksums shown no longer match. */
  redacted: boolean;
}

const LINE = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z) (in|out|!!)(?: \[([^\]]*)\])? (.*)$/;
const REDACTED = ' [redacted]';
const CODES: Readonly<Record<string, number>> = { STX, ETX, ETB, EOT, ENQ, ACK, NAK, CR, LF };
const TOKEN = /<(STX|ETX|ETB|EOT|ENQ|ACK|NAK|CR|LF|0x[0-9A-F]{2})>/g;
// An MLLP trace (the HL7 link) names VT and FS and escapes `<` only before those names (frame-trace.ts).
const MLLP_CODES: Readonly<Record<string, number>> = { VT, FS, CR, LF };
const MLLP_TOKEN = /<(VT|FS|CR|LF|0x[0-9A-F]{2})>/g;

/** One line of a trace file, or undefined when the line is not one. */
export function readTraceLine(line: string, mllp = false): TraceLine | undefined {
  const m = LINE.exec(line.replace(/\r$/, ''));
  if (m === null) return undefined;
  const [, at = '', direction = 'in', session, rest = ''] = m;
  const redacted = rest.endsWith(REDACTED);
  const body = redacted ? rest.slice(0, -REDACTED.length) : rest;
  // A note's text is the trace's own words, not bytes from the line.
  const bytes = direction === '!!' ? Buffer.from(body, 'latin1') : traceBytes(body, mllp);
  return { at, direction: direction as TraceLine['direction'], ...(session === undefined ? {} : { session }), bytes, redacted };
}

/** The bytes a trace line's text stands for: the inverse of traceText. */
export function traceBytes(text: string, mllp = false): Buffer {
  const out: Buffer[] = [];
  const codes = mllp ? MLLP_CODES : CODES;
  let plain = 0;
  for (const m of text.matchAll(mllp ? MLLP_TOKEN : TOKEN)) {
    out.push(Buffer.from(text.slice(plain, m.index), 'latin1'));
    const name = m[1] ?? '';
    out.push(Buffer.of(name.startsWith('0x') ? Number.parseInt(name.slice(2), 16) : (codes[name] ?? 0)));
    plain = m.index + m[0].length;
  }
  out.push(Buffer.from(text.slice(plain), 'latin1'));
  return Buffer.concat(out);
}
