/**
 * The trace's redaction for ASTM (trace-framing.ts gives it to lib/trace).
 * Blanks the patient-identifying fields of ASTM E1394 / LIS2-A2 P records in a
 * byte trace: P-6 patient name, P-7 mother's maiden name and P-8 birth date
 * (field 1 is the record type letter). A non-empty field becomes `***`; an
 * empty one stays empty, so the trace still shows what the analyzer left out.
 *
 * Everything here is a pure function over an explicit state, because a P
 * record may be cut anywhere by the link layer (E1381 intermediate frames end
 * in ETB and the record goes on in the next frame) and the same state must
 * carry over from one unit to the next.
 *
 * This is for a log only; nothing here decides anything about the message.
 * When in doubt it errs towards blanking (a record it cannot place is
 * treated as it reads), never towards showing more.
 */
import { CR, ENQ, EOT, ETB, ETX, STX } from './control';

const P = 0x50; // 'P'
const H = 0x48; // 'H'
const STAR = Buffer.from('***', 'latin1');
/** 1-based field numbers of P-6 name, P-7 mother's maiden name, P-8 birth date. */
const HIDDEN_FIELDS = new Set([6, 7, 8]);

/** Where the scan stands in the record text of one direction of one session. */
export interface RecordState {
  /** Field delimiter: the byte right after 'H' in the last H record, '|' until one is seen. */
  readonly delimiter: number;
  /** The next text byte begins a record (start of text, or just after CR). */
  readonly atStart: boolean;
  /** Type letter of the current record (0 before one is read). */
  readonly type: number;
  /** 1-based field of the current record the scan is in. */
  readonly field: number;
  /** `***` was already written for the current field (it may go on in the next frame). */
  readonly starred: boolean;
}

export function initialRecordState(): RecordState {
  return { delimiter: 0x7c, atStart: true, type: 0, field: 1, starred: false };
}

/** The state after a record ended (CR, or ETX), keeping the delimiter. */
export function endRecord(s: RecordState): RecordState {
  return { delimiter: s.delimiter, atStart: true, type: 0, field: 1, starred: false };
}

export interface Redacted<S> {
  bytes: Buffer;
  state: S;
  /** Some bytes were replaced (the frame checksum no longer matches the text shown). */
  redacted: boolean;
}

/**
 * Redacts record text: records separated by CR, no link-layer bytes. Text may
 * begin or end inside a record; `state` says where the previous piece ended.
 */
export function redactRecords(text: Uint8Array, state: RecordState): Redacted<RecordState> {
  let { delimiter, atStart, type, field, starred } = state;
  let redacted = false;
  const out: number[] = [];
  for (const b of text) {
    if (atStart) {
      // Control bytes between records (the LF of a CR LF) do not start one.
      if (b >= 0x20) {
        atStart = false;
        type = b;
        field = 1;
        starred = false;
      }
      out.push(b);
    } else if (b === CR) {
      atStart = true;
      type = 0;
      field = 1;
      starred = false;
      out.push(b);
    } else if (type === H && field === 1) {
      // The byte after 'H' defines the delimiters of this message (H|\^& or H|@^\ ...).
      if (b >= 0x20) delimiter = b;
      field = 2;
      out.push(b);
    } else if (b === delimiter) {
      field += 1;
      starred = false;
      out.push(b);
    } else if (type === P && HIDDEN_FIELDS.has(field)) {
      if (!starred) out.push(...STAR);
      starred = true;
      redacted = true;
    } else {
      out.push(b);
    }
  }
  return { bytes: Buffer.from(out), state: { delimiter, atStart, type, field, starred }, redacted };
}

/** Redaction state of one direction of one session, across the units of a trace. */
export interface UnitRedaction {
  readonly records: RecordState;
  /** Frame number of the last frame seen, to recognise a retransmission. */
  readonly lastFn: number | undefined;
  /** Record state before that frame: a retransmitted frame is read again from here. */
  readonly beforeLast: RecordState;
  /** The last frame was cut short (idle, or broken off): loose bytes that follow continue it. */
  readonly midFrame: boolean;
}

export function initialUnitRedaction(): UnitRedaction {
  const records = initialRecordState();
  return { records, lastFn: undefined, beforeLast: records, midFrame: false };
}

/**
 * Redacts one trace unit (as cut by WireSplitter): with E1381 framing a control
 * byte, a frame `STX [FN] text ETX|ETB C1 C2 CR LF` (FN optional, as some
 * analyzers omit it) or loose bytes; without framing, record text.
 * Only the frame text is touched; STX, FN, terminator and checksum are kept.
 */
export function redactUnit(unit: Uint8Array, framed: boolean, state: UnitRedaction): Redacted<UnitRedaction> {
  if (!framed) {
    const r = redactRecords(unit, state.records);
    return { bytes: r.bytes, redacted: r.redacted, state: { ...state, records: r.state } };
  }
  const first = unit[0];
  if (unit.length === 1 && (first === ENQ || first === EOT)) {
    // A transmission starts or ends: no record can go on across it.
    const records = endRecord(state.records);
    return { bytes: Buffer.from(unit), redacted: false, state: { records, lastFn: undefined, beforeLast: records, midFrame: false } };
  }
  if (first === STX) {
    const d = unit[1];
    const fn = d !== undefined && d >= 0x30 && d <= 0x39 ? d - 0x30 : undefined;
    // Same frame number as the last frame: the sender is repeating it (after a
    // NAK or a timeout), so read it from where that frame began. Reading it on
    // from where the first copy ended would shift the field count and could
    // show a name in clear. The delimiter is kept from the later state: a
    // repeated H frame sets it again anyway, and an analyzer that reuses a
    // number for a new frame (some do) must not lose its H delimiter.
    const again = fn !== undefined && fn === state.lastFn;
    const from = again ? { ...state.beforeLast, delimiter: state.records.delimiter } : state.records;
    const r = redactFrameText(unit, fn === undefined ? 1 : 2, from);
    return { bytes: r.bytes, redacted: r.redacted, state: { records: r.state, lastFn: fn, beforeLast: from, midFrame: r.open } };
  }
  if (state.midFrame) {
    // The rest of a frame that was shown early after an idle pause.
    const r = redactFrameText(unit, 0, state.records);
    return { bytes: r.bytes, redacted: r.redacted, state: { ...state, records: r.state, midFrame: r.open } };
  }
  // ACK, NAK or stray bytes outside a frame: no record text.
  return { bytes: Buffer.from(unit), redacted: false, state };
}

/** Redacts the text from `start` up to ETX/ETB (or the end if the frame was cut short). */
function redactFrameText(unit: Uint8Array, start: number, from: RecordState): Redacted<RecordState> & { open: boolean } {
  let end = start;
  while (end < unit.length && unit[end] !== ETX && unit[end] !== ETB) end++;
  const r = redactRecords(unit.subarray(start, end), from);
  const bytes = Buffer.concat([unit.subarray(0, start), r.bytes, unit.subarray(end)]);
  const open = end >= unit.length;
  // ETX ends the record even without a CR before it (E1381: a record ends in
  // its last frame); ETB means it goes on in the next frame.
  const state = unit[end] === ETX ? endRecord(r.state) : r.state;
  return { bytes, state, redacted: r.redacted, open };
}
