/**
 * The last lines of a link's frame trace (frame-trace.ts), read back for an
 * operator: each unit as the control byte's name, or a frame's records one by
 * one, with its time, direction and session. A trace written without
 * redaction is redacted here when the link redacts now (lines from before the
 * setting was turned on); a line already redacted is shown as written.
 */
import { open } from 'node:fs/promises';
import { CR, ETB, ETX, STX } from '../astm/control';
import { traceText } from './frame-trace';
import { initialUnitRedaction, redactUnit, type UnitRedaction } from './redact';

export interface TraceEntry {
  /** ISO time the unit was recorded. */
  at: string;
  /** in: from the analyzer; out: to it; note: the trace's own note (lines lost). */
  direction: 'in' | 'out' | 'note';
  session: string | undefined;
  /** A control byte's name (ENQ, ACK, NAK, EOT ...), 'frame' or 'records' (unframed), or 'note'. */
  kind: string;
  /** Frame number, for a frame that has one. */
  frame: number | undefined;
  /** The frame's or unit's records, each as trace text (control and non-ASCII bytes as <NAME> / <0xNN>). */
  records: string[];
  redacted: boolean;
}

const NAMED: Record<string, number> = { STX: 0x02, ETX: 0x03, EOT: 0x04, ENQ: 0x05, ACK: 0x06, LF: 0x0a, CR: 0x0d, NAK: 0x15, ETB: 0x17 };
const BYTE_NAMES = new Map(Object.entries(NAMED).map(([k, v]) => [v, k]));
const LINE = /^(\S+) (in|out|!!)(?: \[([^\]]*)\])? (.*?)( \[redacted\])?$/;

/** The bytes a trace line's text stands for (the inverse of traceText). */
export function traceBytes(text: string): Buffer {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '<') {
      const m = /^<(STX|ETX|ETB|EOT|ENQ|ACK|NAK|CR|LF|0x([0-9A-F]{2}))>/.exec(text.slice(i, i + 6));
      if (m) {
        out.push(m[2] !== undefined ? parseInt(m[2], 16) : NAMED[m[1]!]!);
        i += m[0].length - 1;
        continue;
      }
    }
    out.push(text.charCodeAt(i) & 0xff);
  }
  return Buffer.from(out);
}

/** Reads trace lines into entries; `redact` blanks patient fields of lines not redacted when written. */
export function readTrace(lines: readonly string[], options: { framed: boolean; redact: boolean }): TraceEntry[] {
  const states = new Map<string, UnitRedaction>();
  const entries: TraceEntry[] = [];
  for (const line of lines) {
    const m = LINE.exec(line);
    if (!m) continue;
    const [, at, dir, session, text, mark] = m as unknown as [string, string, string, string | undefined, string, string | undefined];
    if (dir === '!!') {
      entries.push({ at, direction: 'note', session, kind: 'note', frame: undefined, records: [text], redacted: false });
      continue;
    }
    let bytes = traceBytes(text);
    let redacted = mark !== undefined;
    if (options.redact && !redacted) {
      const key = `${dir} ${session ?? ''}`;
      const r = redactUnit(bytes, options.framed, states.get(key) ?? initialUnitRedaction());
      states.set(key, r.state);
      bytes = r.bytes;
      redacted = r.redacted;
    }
    entries.push({ at, direction: dir as 'in' | 'out', session, ...unitOf(bytes, options.framed), redacted });
  }
  return entries;
}

function unitOf(bytes: Buffer, framed: boolean): Pick<TraceEntry, 'kind' | 'frame' | 'records'> {
  const name = bytes.length === 1 ? BYTE_NAMES.get(bytes[0]!) : undefined;
  if (name !== undefined) return { kind: name, frame: undefined, records: [] };
  if (framed && bytes[0] === STX) {
    const d = bytes[1];
    const frame = d !== undefined && d >= 0x30 && d <= 0x39 ? d - 0x30 : undefined;
    let end = bytes.length;
    for (let i = bytes.length - 1; i > 0; i--) if (bytes[i] === ETX || bytes[i] === ETB) end = i;
    return { kind: 'frame', frame, records: recordsOf(bytes.subarray(frame === undefined ? 1 : 2, end)) };
  }
  return { kind: framed ? 'bytes' : 'records', frame: undefined, records: recordsOf(bytes) };
}

function recordsOf(text: Buffer): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i <= text.length; i++) {
    if (i < text.length && text[i] !== CR) continue;
    if (i > start) out.push(traceText(text.subarray(start, i)));
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
