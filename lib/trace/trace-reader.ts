/**
 * Reads back the lines FrameTrace writes (see frame-trace.ts for the format):
 * the time, the direction, the session and the exact bytes of each unit. For
 * the dialect preview's "pick a recent message" and for a trace pasted into
 * it; nothing here decides anything about the link. The bytes are read with
 * the naming of the framing that wrote them (framing.ts).
 */
import type { TraceNaming } from './framing';

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
/** When a trace line was recorded (its ISO time), or undefined when the line is not one; its bytes are not read. */
export function traceLineAt(line: string): string | undefined {
  return LINE.exec(line.replace(/\r$/, ''))?.[1];
}

/** One line of a trace file, or undefined when the line is not one. */
export function readTraceLine(line: string, naming: TraceNaming): TraceLine | undefined {
  const m = LINE.exec(line.replace(/\r$/, ''));
  if (m === null) return undefined;
  const [, at = '', direction = 'in', session, rest = ''] = m;
  const redacted = rest.endsWith(REDACTED);
  const body = redacted ? rest.slice(0, -REDACTED.length) : rest;
  // A note's text is the trace's own words, not bytes from the line.
  const bytes = direction === '!!' ? Buffer.from(body, 'latin1') : traceBytes(body, naming);
  return { at, direction: direction as TraceLine['direction'], ...(session === undefined ? {} : { session }), bytes, redacted };
}

/** The bytes a trace line's text stands for: the inverse of traceText. */
export function traceBytes(text: string, naming: TraceNaming): Buffer {
  const out: Buffer[] = [];
  const codes = naming.codes;
  let plain = 0;
  for (const m of text.matchAll(naming.tokens)) {
    out.push(Buffer.from(text.slice(plain, m.index), 'latin1'));
    const name = m[1] ?? '';
    out.push(Buffer.of(name.startsWith('0x') ? Number.parseInt(name.slice(2), 16) : (codes[name] ?? 0)));
    plain = m.index + m[0].length;
  }
  out.push(Buffer.from(text.slice(plain), 'latin1'));
  return Buffer.concat(out);
}
