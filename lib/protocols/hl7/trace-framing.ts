/**
 * MLLP as the trace takes it (lib/trace/framing.ts): a unit is one HL7
 * message from VT to FS and the CR after it, and the bytes between messages
 * a unit of their own; trace lines name VT, FS, CR and LF; redacting blanks
 * PID-5 to PID-7 (trace-redact.ts); HL7_RECENT reads messages back.
 */
import type { TraceFraming, UnitRedactor } from '../../trace/framing';
import { piecesOf } from '../../trace/trace-read';
import { WireSplitter } from '../../trace/wire-splitter';
import { CR, FS, VT } from './mllp';
import { HL7_RECENT } from './recent';
import { MLLP_NAMING } from './trace-naming';
import { initialSegmentState, redactHl7 } from './trace-redact';

/** A message from VT to FS and the CR after it; bytes outside one as a unit of their own. */
export class MllpSplitter extends WireSplitter {
  protected override scan(chunk: Uint8Array): void {
    let from = 0; // start of the bytes not yet taken into the unit
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (b === VT) {
        this.take(chunk, from, (from = i));
        this.flush();
      } else if (b === FS) {
        const end = chunk[i + 1] === CR ? i + 2 : i + 1;
        this.take(chunk, from, (from = end));
        this.flush();
        i = end - 1;
      }
    }
    this.take(chunk, from, chunk.length);
  }
}

function redactor(): UnitRedactor {
  let state = initialSegmentState();
  return (unit) => {
    const r = redactHl7(unit, state);
    state = r.state;
    return r;
  };
}

export const MLLP_TRACE: TraceFraming = {
  name: 'mllp',
  naming: MLLP_NAMING,
  splitter: (emit, idleMs) => new MllpSplitter(emit, idleMs),
  redactor,
  entry(bytes) {
    // An HL7 message: its segments between VT and FS.
    const from = bytes[0] === VT ? 1 : 0;
    const fs = bytes.indexOf(FS);
    return { kind: from === 1 ? 'message' : 'bytes', frame: undefined, records: piecesOf(bytes.subarray(from, fs === -1 ? bytes.length : fs), CR, MLLP_NAMING) };
  },
  recent: HL7_RECENT,
};
