/**
 * The trace's redaction for HL7 (trace-framing.ts gives it to lib/trace).
 * Blanks the patient-identifying fields of HL7 v2 PID segments in a byte
 * trace: PID-5 patient name, PID-6 mother's maiden name and PID-7 birth date
 * (v2.5.1 3.4.2; the same positions in v2.3.1). A non-empty field becomes
 * `***`, an empty one stays empty, as the ASTM trace does for P records.
 *
 * The scan carries its state from one trace unit to the next, because a unit
 * cut by the trace's idle timer may end inside a PID segment. Segments end at
 * CR or LF (analyzers send both); the MLLP bytes VT and FS start and end a
 * message. The field separator is MSH's fourth byte. For a log only.
 */
import { CR, FS, VT } from './mllp';

const LF = 0x0a;

const STAR = Buffer.from('***', 'latin1');
const HIDDEN = new Set([5, 6, 7]);

export interface SegmentState {
  /** Field separator of the current message ('|' until its MSH says otherwise). */
  readonly separator: number;
  /** The bytes of the current segment's name read so far (up to 3), or the MSH's fourth byte to come. */
  readonly name: string;
  /** Field number of the current segment the scan is in (0 while in the name). */
  readonly field: number;
  readonly starred: boolean;
}

export function initialSegmentState(): SegmentState {
  return { separator: 0x7c, name: '', field: 0, starred: false };
}

export function redactHl7(unit: Uint8Array, state: SegmentState): { bytes: Buffer; state: SegmentState; redacted: boolean } {
  let { separator, name, field, starred } = state;
  let redacted = false;
  const out: number[] = [];
  for (const b of unit) {
    if (b === CR || b === LF || b === VT || b === FS) {
      name = '';
      field = 0;
      starred = false;
      out.push(b);
    } else if (field === 0 && name.length < 3) {
      name += String.fromCharCode(b);
      out.push(b);
    } else if (field === 0 && name === 'MSH') {
      // MSH-1: the byte after the name is the message's field separator.
      separator = b;
      field = 1;
      out.push(b);
    } else if (b === separator) {
      field += 1;
      starred = false;
      out.push(b);
    } else if (name === 'PID' && HIDDEN.has(field)) {
      if (!starred) out.push(...STAR);
      starred = true;
      redacted = true;
    } else {
      out.push(b);
    }
  }
  return { bytes: Buffer.from(out), state: { separator, name, field, starred }, redacted };
}
