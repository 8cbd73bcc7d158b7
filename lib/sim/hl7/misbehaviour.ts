/**
 * Deliberate faults of an HL7 analyzer on an MLLP line, so integrators can
 * rehearse them and tests can prove the host survives them. Each one is
 * something real analyzers and networks do (test/fixtures/SOURCES.md: the
 * BC-6200, BA400 and CLINITEK captures start without VT; the cobas pure log
 * shows one message in five reads):
 *
 * - missingStart: a frame goes out without its leading VT.
 * - junk: bytes outside any frame before a frame (line noise, a half-closed
 *   session's leftovers); the host discards them and reads the frame.
 * - splitWrites: every frame in writes of at most n bytes, a moment apart.
 * - noAck: the analyzer takes a host message but never acknowledges it; the
 *   host must time out and send it again (with the same MSH-10).
 * - errorAck: a host message is answered AE with an ERR text and not taken.
 * - dropAck: the host's ACK of one of our messages is "lost": the same
 *   message goes out again with the same MSH-10; the host must acknowledge it
 *   again and not process it twice (HL7 v2.5.1 2.10.3.1). dropResultsAck
 *   counts results messages only, so the lost ACK is a result's however the
 *   queries interleave with them.
 * - unorderedResult: a result for a test nobody ordered (messages.ts).
 *
 * Query cancel: neither HL7 source documents one (the Mindray CL manual's
 * chapter 1 has QRY^Q02 and no cancel; IHE LAW LAB-27 has none): an analyzer
 * whose query goes unanswered just gives up, and so does the simulator.
 */
import { frameMllp } from '../../protocols/hl7/mllp';

export interface Hl7Misbehaviour {
  /** Frame N (N >= 1, every frame the simulator writes counts) without VT; or a fraction 0<x<1 of all frames. */
  missingStart?: number;
  /** Junk bytes before frame N; or before a fraction 0<x<1 of all frames. */
  junk?: number;
  /** Each frame written in pieces of at most n bytes. */
  splitWrites?: number;
  /** The host's Nth message that wants an acknowledgement gets none. */
  noAck?: number;
  /** The host's Nth message that wants an acknowledgement gets AE with an ERR text, and is not taken. */
  errorAck?: number;
  /** The host's ACK of the simulator's Nth message is lost: the message goes out again, same MSH-10. */
  dropAck?: number;
  /** The host's ACK of the simulator's Nth results message is lost (queries and QC not counted). */
  dropResultsAck?: number;
  unorderedResult?: string | true;
}

/** What the junk looks like on the wire: text and a stray FS, nothing that could start a frame. */
export const JUNK = Buffer.from('#noise\x1c\r\n', 'latin1');

/** Problems with the options, as sentences; [] when they can be used. */
export function hl7MisbehaviourProblems(m: Hl7Misbehaviour): string[] {
  const out: string[] = [];
  for (const key of ['noAck', 'errorAck', 'dropAck', 'dropResultsAck', 'splitWrites'] as const) {
    const v = m[key];
    if (v !== undefined && (!Number.isInteger(v) || v < 1)) out.push(`${key} must be a whole number >= 1, got ${String(v)}`);
  }
  for (const key of ['missingStart', 'junk'] as const) {
    const v = m[key];
    if (v !== undefined && !(v > 0 && v < 1) && (!Number.isInteger(v) || v < 1)) out.push(`${key} must be a frame number >= 1 or a fraction between 0 and 1, got ${String(v)}`);
  }
  if (m.unorderedResult !== undefined && m.unorderedResult !== true && (typeof m.unorderedResult !== 'string' || m.unorderedResult.trim() === '')) out.push('unorderedResult must be a test code or true');
  return out;
}

export interface ShapedFrame {
  /** The writes, in order. */
  writes: Buffer[];
  /** Everything that goes on the wire for this frame, for the log. */
  bytes: Buffer;
  notes: string[];
}

/** Turns each outgoing message into the bytes and writes the options ask for. */
export class Hl7WireShaper {
  private frames = 0;

  constructor(
    private readonly m: Hl7Misbehaviour,
    private readonly random: () => number,
  ) {}

  frame(message: Buffer): ShapedFrame {
    const n = ++this.frames;
    const notes: string[] = [];
    let framed = frameMllp(message);
    if (this.hits(this.m.missingStart, n)) {
      framed = framed.subarray(1);
      notes.push(`missingStart: frame ${n} sent without its VT`);
    }
    if (this.hits(this.m.junk, n)) {
      framed = Buffer.concat([JUNK, framed]);
      notes.push(`junk: ${JUNK.length} bytes outside any frame before frame ${n}`);
    }
    const size = this.m.splitWrites;
    const writes: Buffer[] = [];
    if (size === undefined) writes.push(framed);
    else for (let i = 0; i < framed.length; i += size) writes.push(framed.subarray(i, i + size));
    if (writes.length > 1) notes.push(`splitWrites: frame ${n} in ${writes.length} writes of at most ${size} bytes`);
    return { writes, bytes: framed, notes };
  }

  private hits(option: number | undefined, n: number): boolean {
    if (option === undefined) return false;
    return option > 0 && option < 1 ? this.random() < option : option === n;
  }
}
