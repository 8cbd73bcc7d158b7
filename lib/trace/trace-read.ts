/**
 * The last lines of a link's frame trace (frame-trace.ts), read back for an
 * operator: each unit as the control byte's name, or a frame's records one by
 * one, with its time, direction and session. A trace written without
 * redaction is redacted here when the link redacts now (lines from before the
 * setting was turned on); a line already redacted is shown as written.
 */
import { open } from 'node:fs/promises';
import { CR, ETB, ETX, FS, STX, VT } from '../link/control-bytes';
import { traceText } from './frame-trace';
import { initialUnitRedaction, redactUnit, type UnitRedaction } from './redact';
import { initialSegmentState, redactHl7, type SegmentState } from './redact-hl7';
import { readTraceLine } from './trace-reader';
import type { UnitFraming } from './wire-splitter';

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

const BYTE_NAMES = new Map<number, string>([[0x02, 'STX'], [0x03, 'ETX'], [0x04, 'EOT'], [0x05, 'ENQ'], [0x06, 'ACK'], [0x0a, 'LF'], [0x0d, 'CR'], [0x15, 'NAK'], [0x17, 'ETB']]);

/** Reads trace lines into entries; `redact` blanks patient fields of lines not redacted when written. */
export function readTrace(lines: readonly string[], options: { framed: UnitFraming; redact: boolean }): TraceEntry[] {
  const states = new Map<string, UnitRedaction>();
  const hl7States = new Map<string, SegmentState>();
  const entries: TraceEntry[] = [];
  for (const line of lines) {
    const t = readTraceLine(line, options.framed === 'mllp');
    if (!t) continue;
    const { at, direction: dir, session } = t;
    if (dir === '!!') {
      entries.push({ at, direction: 'note', session, kind: 'note', frame: undefined, records: [t.bytes.toString('latin1')], redacted: false });
      continue;
    }
    let bytes = t.bytes;
    let redacted = t.redacted;
    if (options.redact && !redacted && options.framed === 'mllp') {
      const key = `${dir} ${session ?? ''}`;
      const r = redactHl7(bytes, hl7States.get(key) ?? initialSegmentState());
      hl7States.set(key, r.state);
      bytes = r.bytes;
      redacted = r.redacted;
    } else if (options.redact && !redacted) {
      const key = `${dir} ${session ?? ''}`;
      const r = redactUnit(bytes, options.framed === true, states.get(key) ?? initialUnitRedaction());
      states.set(key, r.state);
      bytes = r.bytes;
      redacted = r.redacted;
    }
    entries.push({ at, direction: dir, session, ...unitOf(bytes, options.framed), redacted });
  }
  return entries;
}

function unitOf(bytes: Buffer, framed: UnitFraming): Pick<TraceEntry, 'kind' | 'frame' | 'records'> {
  if (framed === 'mllp') {
    // An HL7 message: its segments between VT and FS.
    const from = bytes[0] === VT ? 1 : 0;
    const fs = bytes.indexOf(FS);
    return { kind: from === 1 ? 'message' : 'bytes', frame: undefined, records: recordsOf(bytes.subarray(from, fs === -1 ? bytes.length : fs), true) };
  }
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

function recordsOf(text: Buffer, mllp = false): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i <= text.length; i++) {
    if (i < text.length && text[i] !== CR) continue;
    if (i > start) out.push(traceText(text.subarray(start, i), mllp));
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
