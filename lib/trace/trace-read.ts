/**
 * The last lines of a link's frame trace (frame-trace.ts), read back for an
 * operator: each unit as the control byte's name, or a frame's records one by
 * one, with its time, direction and session. A trace written without
 * redaction is redacted here when the link redacts now (lines from before the
 * setting was turned on); a line already redacted is shown as written.
 */
import { open } from 'node:fs/promises';
import { traceText } from './frame-trace';
import type { TraceFraming, TraceNaming, UnitRedactor } from './framing';
import { readTraceLine } from './trace-reader';

export interface TraceEntry {
  /** ISO time the unit was recorded. */
  at: string;
  /** in: from the analyzer; out: to it; note: the trace's own note (lines lost). */
  direction: 'in' | 'out' | 'note';
  session: string | undefined;
  /** A control byte's name (ENQ, ACK, NAK, EOT ...), 'frame' or 'records' (unframed), 'message' (MLLP), or 'note'. */
  kind: string;
  /** Frame number, for a frame that has one. */
  frame: number | undefined;
  /** The frame's or unit's records, each as trace text (control and non-ASCII bytes as <NAME> / <0xNN>). */
  records: string[];
  redacted: boolean;
}

/** Reads trace lines into entries, each unit as its framing reads it; `redact` blanks patient fields of lines not redacted when written. */
export function readTrace(lines: readonly string[], options: { framing: TraceFraming; redact: boolean }): TraceEntry[] {
  const { framing } = options;
  const redactors = new Map<string, UnitRedactor>();
  const entries: TraceEntry[] = [];
  for (const line of lines) {
    const t = readTraceLine(line, framing.naming);
    if (!t) continue;
    const { at, direction: dir, session } = t;
    if (dir === '!!') {
      entries.push({ at, direction: 'note', session, kind: 'note', frame: undefined, records: [t.bytes.toString('latin1')], redacted: false });
      continue;
    }
    let bytes = t.bytes;
    let redacted = t.redacted;
    if (options.redact && !redacted) {
      const key = `${dir} ${session ?? ''}`;
      let redact = redactors.get(key);
      if (redact === undefined) redactors.set(key, (redact = framing.redactor()));
      const r = redact(bytes);
      bytes = r.bytes;
      redacted = r.redacted;
    }
    entries.push({ at, direction: dir, session, ...framing.entry(bytes), redacted });
  }
  return entries;
}

/** A unit's text cut at each `separator` byte (the record or segment end), each piece as trace text; empty pieces left out. */
export function piecesOf(text: Buffer, separator: number, naming: TraceNaming): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i <= text.length; i++) {
    if (i < text.length && text[i] !== separator) continue;
    if (i > start) out.push(traceText(text.subarray(start, i), naming));
    start = i + 1;
  }
  return out;
}

/** The last `max` complete lines of a file (reading at most `maxBytes` from its end); none when it does not exist. */
export async function lastLines(file: string, max: number, maxBytes = 256 * 1024): Promise<string[]> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, maxBytes);
    const buf = Buffer.alloc(length);
    await handle.read(buf, 0, length, size - length);
    const lines = buf.toString('latin1').split('\n');
    lines.pop(); // after the last newline: nothing, or a line still being written
    if (length < size) lines.shift(); // cut at the start
    return lines.slice(-max);
  } finally {
    await handle.close();
  }
}
