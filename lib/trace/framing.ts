/**
 * What the trace needs of a protocol's framing, given by the protocol
 * (lib/protocols/astm/trace-framing.ts: E1381 frames and records only;
 * lib/protocols/hl7/trace-framing.ts: MLLP) and passed in by the link node:
 * how bytes are cut into units, how its control bytes are named on a trace
 * line, how a unit's patient fields are blanked, how a unit reads in the Lab
 * sidebar and how messages are read back for the dialect preview. The trace
 * itself knows no protocol and no control byte.
 */
import type { RecentReader } from './recent';
import type { TraceEntry } from './trace-read';
import type { WireSplitter } from './wire-splitter';

/**
 * How bytes are written on a trace line and read back: each named control
 * byte as <NAME>, other non-printable bytes as <0xNN>, and a '<' that would
 * read as one of those tokens as <0x3C>. Built once per framing by
 * traceNaming(): the tables are what traceText reads per byte.
 */
export interface TraceNaming {
  /** By byte value: how the byte is shown when not as itself (undefined: as itself). */
  readonly shown: ReadonlyArray<string | undefined>;
  /** A token at the start of a string (the '<' before it is then escaped). */
  readonly token: RegExp;
  /** Every token in a line, for reading it back (global). */
  readonly tokens: RegExp;
  /** Characters traceText looks at after a '<' to see whether a token follows. */
  readonly window: number;
  /** The byte of each name. */
  readonly codes: Readonly<Record<string, number>>;
}

const hex = (b: number): string => `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`;

/** The naming of a framing whose control bytes are these (name -> byte). */
export function traceNaming(codes: Readonly<Record<string, number>>): TraceNaming {
  const names = new Map(Object.entries(codes).map(([name, b]) => [b, name] as const));
  const alternatives = `${Object.keys(codes).join('|')}|0x[0-9A-F]{2}`;
  return {
    shown: Array.from({ length: 256 }, (_, b) => {
      const name = names.get(b);
      return name !== undefined ? `<${name}>` : b < 0x20 || b > 0x7e ? hex(b) : undefined;
    }),
    token: new RegExp(`^<(?:${alternatives})>`),
    tokens: new RegExp(`<(${alternatives})>`, 'g'),
    window: Math.max(6, ...Object.keys(codes).map((n) => n.length + 2)),
    codes: Object.freeze({ ...codes }),
  };
}

/** Blanks the patient fields of one unit after another of one direction of one session (it keeps its state between units). */
export type UnitRedactor = (unit: Buffer) => { bytes: Buffer; redacted: boolean };

export interface TraceFraming {
  /** For messages and readers: 'e1381', 'records', 'mllp'. */
  readonly name: string;
  readonly naming: TraceNaming;
  /** A splitter that cuts one direction of one session into units; `idleMs`: a partial unit is shown anyway after this much silence. */
  splitter(emit: (unit: Buffer) => void, idleMs?: number): WireSplitter;
  /** A fresh redactor for one direction of one session. */
  redactor(): UnitRedactor;
  /** How a unit reads in the Lab sidebar: a control byte's name, a frame and its records, a message's segments. */
  entry(unit: Buffer): Pick<TraceEntry, 'kind' | 'frame' | 'records'>;
  /** How the protocol reads its messages back from the trace (the dialect preview's recent messages). */
  readonly recent: RecentReader;
}
