/**
 * ASTM's framings as the trace takes them (lib/trace/framing.ts): E1381
 * frames (E1381_TRACE: a unit is one control character ENQ, ACK, NAK, EOT or
 * one frame STX ... LF) and records only (RECORDS_TRACE: a unit is one record,
 * up to its CR). Both name the E1381 control bytes on a trace line, blank
 * P-6 to P-8 when redacting (trace-redact.ts) and are read back by ASTM_RECENT.
 */
import type { TraceFraming, UnitRedactor } from '../../trace/framing';
import { piecesOf } from '../../trace/trace-read';
import { WireSplitter } from '../../trace/wire-splitter';
import { ACK, CR, ENQ, EOT, ETB, ETX, LF, NAK, STX } from './control';
import { ASTM_RECENT } from './recent';
import { ASTM_NAMING } from './trace-naming';
import { initialUnitRedaction, redactUnit } from './trace-redact';

const SINGLE = new Set([ENQ, ACK, NAK, EOT]);
const BYTE_NAMES = new Map(Object.entries(ASTM_NAMING.codes).map(([name, b]) => [b, name] as const));

/** E1381: one control character, or one frame from STX to its LF (or to where it broke off). */
export class E1381Splitter extends WireSplitter {
  private inFrame = false;
  /**
   * Characters of the frame's checksum still to come after its ETX or ETB
   * (undefined: not there yet). At 0 the frame is whole, as the link reads it
   * (link/frame-reader): the CR LF after the checksum are optional, and the
   * link answers the frame before they come, or without them.
   */
  private checksumToCome: number | undefined;

  protected override scan(chunk: Uint8Array): void {
    let from = 0; // start of the bytes not yet taken into the unit
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (this.inFrame) {
        const whole = this.checksumToCome === 0;
        if (b === STX || b === EOT || (whole && b !== CR && b !== LF)) {
          // The frame broke off, or is whole and something else follows: show it, then the new unit.
          this.take(chunk, from, (from = i));
          this.flush();
        } else {
          if (b === LF) {
            this.take(chunk, from, (from = i + 1));
            this.flush();
          } else if (this.checksumToCome === undefined) {
            if (b === ETX || b === ETB) this.checksumToCome = 2;
          } else if (this.checksumToCome > 0 && b !== CR) this.checksumToCome--;
          continue;
        }
      }
      if (b === STX) {
        this.take(chunk, from, (from = i));
        this.flush();
        this.inFrame = true;
      } else if (SINGLE.has(b)) {
        this.take(chunk, from, i);
        from = i + 1;
        this.flush();
        this.emit(Buffer.from([b]));
      }
    }
    this.take(chunk, from, chunk.length);
  }

  /** A frame whose checksum is read is shown without waiting for a CR LF that may come later or never (they then show as a unit of their own). */
  override settle(): void {
    if (this.inFrame && this.checksumToCome === 0) this.flush();
  }

  protected override reset(): void {
    this.inFrame = false;
    this.checksumToCome = undefined;
  }
}

/** Records only: one record, up to and with its CR. */
export class RecordSplitter extends WireSplitter {
  protected override scan(chunk: Uint8Array): void {
    let from = 0;
    for (let i = 0; i < chunk.length; i++) {
      if (chunk[i] === CR) {
        this.take(chunk, from, (from = i + 1));
        this.flush();
      }
    }
    this.take(chunk, from, chunk.length);
  }
}

function redactor(framed: boolean): UnitRedactor {
  let state = initialUnitRedaction();
  return (unit) => {
    const r = redactUnit(unit, framed, state);
    state = r.state;
    return r;
  };
}

function entry(bytes: Buffer, framed: boolean) {
  const name = bytes.length === 1 ? BYTE_NAMES.get(bytes[0]!) : undefined;
  if (name !== undefined) return { kind: name, frame: undefined, records: [] };
  if (framed && bytes[0] === STX) {
    const d = bytes[1];
    const frame = d !== undefined && d >= 0x30 && d <= 0x39 ? d - 0x30 : undefined;
    let end = bytes.length;
    for (let i = bytes.length - 1; i > 0; i--) if (bytes[i] === ETX || bytes[i] === ETB) end = i;
    return { kind: 'frame', frame, records: piecesOf(bytes.subarray(frame === undefined ? 1 : 2, end), CR, ASTM_NAMING) };
  }
  return { kind: framed ? 'bytes' : 'records', frame: undefined, records: piecesOf(bytes, CR, ASTM_NAMING) };
}

export const E1381_TRACE: TraceFraming = {
  name: 'e1381',
  naming: ASTM_NAMING,
  splitter: (emit, idleMs) => new E1381Splitter(emit, idleMs),
  redactor: () => redactor(true),
  entry: (bytes) => entry(bytes, true),
  recent: ASTM_RECENT,
};

export const RECORDS_TRACE: TraceFraming = {
  name: 'records',
  naming: ASTM_NAMING,
  splitter: (emit, idleMs) => new RecordSplitter(emit, idleMs),
  redactor: () => redactor(false),
  entry: (bytes) => entry(bytes, false),
  recent: ASTM_RECENT,
};

/** The trace framing of an ASTM link: E1381 frames, or records only. */
export function astmTraceFraming(framed: boolean): TraceFraming {
  return framed ? E1381_TRACE : RECORDS_TRACE;
}
