/**
 * Deliberate faults, so integrators can rehearse them and tests can prove the
 * host survives them. Each one is something real lines and real analyzers do,
 * produced at the byte level between the simulator's (correct) link state
 * machine and the wire: the link itself stays the package's standard one, and
 * every effect on the wire is what LIS1-A prescribes for the fault.
 *
 * - corruptChecksum: a frame goes out with a wrong checksum (line noise). The
 *   host must NAK it (§6.5.1.1); our link then sends it again.
 * - dropAck: an ACK from the host reaches our link garbled. Any reply other
 *   than ACK or EOT is a NAK condition (§6.5.1.2), so our link sends the same
 *   frame again, same number, same text: the host must ACK the duplicate and
 *   not deliver its text twice. (Swallowing the ACK byte altogether would only
 *   run out our 15 s reply timer and repeat the whole message in a new
 *   transfer, which the link layer cannot tell from a new message.)
 * - contend: our ENQ goes out at the very moment the host's ENQ for a
 *   download arrives (§6.2.7.1): the host must yield, take our message, and
 *   send its download afterwards.
 * - splitRecords: small frames or one record per frame.
 * - pauseMs: a long silence before a frame in the middle of a result message,
 *   past the host's receive timer (§6.5.2.4: it discards the partial message).
 * - unorderedResult: a result for a test nobody ordered (messages.ts).
 */
import { ACK, ENQ, ETB, ETX, STX } from '../protocols/astm/control';
import { hexPair } from '../protocols/astm/link/frame';
import type { AstmLinkOptions, LinkState } from '../protocols/astm/link';

export interface Misbehaviour {
  /**
   * An integer N >= 1: the Nth frame the simulator sends goes out once with a
   * wrong checksum. A fraction 0 < x < 1: every frame transmission (repeats
   * included) is corrupted with that probability, from the seeded stream.
   */
  corruptChecksum?: number;
  /** The host's ACK of the Nth frame the simulator sends is garbled once (N >= 1). */
  dropAck?: number;
  /** How many times to provoke ENQ contention with a host download (needs a second scan waiting). */
  contend?: number;
  /** Text characters per frame, or 'record' for one record per frame. */
  splitRecords?: number | 'record';
  /** Silence before frame `pauseAtFrame` of the first result message, in ms. */
  pauseMs?: number;
  /** 1-based frame of the transfer the pause comes before; default 2. */
  pauseAtFrame?: number;
  /** Add a result for this test code, or for a test of the analyte table nobody ordered (true). */
  unorderedResult?: string | true;
}

/** Problems with the options, as sentences; [] when they can be used. */
export function misbehaviourProblems(m: Misbehaviour, framing: 'astm' | 'records'): string[] {
  const out: string[] = [];
  const positiveInt = (name: string, v: number | undefined) => {
    if (v !== undefined && (!Number.isInteger(v) || v < 1)) out.push(`${name} must be a whole number >= 1, got ${String(v)}`);
  };
  if (m.corruptChecksum !== undefined) {
    const v = m.corruptChecksum;
    const fraction = v > 0 && v < 1;
    if (!fraction && (!Number.isInteger(v) || v < 1)) out.push(`corruptChecksum must be a frame number >= 1 or a fraction between 0 and 1, got ${String(v)}`);
  }
  positiveInt('dropAck', m.dropAck);
  positiveInt('contend', m.contend);
  positiveInt('pauseAtFrame', m.pauseAtFrame);
  if (m.splitRecords !== undefined && m.splitRecords !== 'record') positiveInt('splitRecords', m.splitRecords);
  if (m.pauseMs !== undefined && (!Number.isFinite(m.pauseMs) || m.pauseMs < 0)) out.push(`pauseMs must be a number of ms >= 0, got ${String(m.pauseMs)}`);
  if (m.unorderedResult !== undefined && m.unorderedResult !== true && (typeof m.unorderedResult !== 'string' || m.unorderedResult.trim() === '')) {
    out.push('unorderedResult must be a test code or true');
  }
  if (framing === 'records') {
    // Without the link layer there are no frames, checksums, ACKs or ENQs to misuse.
    for (const key of ['corruptChecksum', 'dropAck', 'contend', 'splitRecords', 'pauseMs'] as const) {
      if (m[key] !== undefined) out.push(`${key} needs the E1381 link layer; records-only framing has no frames or replies`);
    }
  }
  return out;
}

/**
 * Link options the misbehaviour needs. A pause must not trip our own reply
 * timer: the link starts it when the frame is handed over, and the frame
 * reaches the wire only after the pause.
 */
export function linkOptionsFor(m: Misbehaviour, base: Partial<AstmLinkOptions>): Partial<AstmLinkOptions> {
  const out: Partial<AstmLinkOptions> = {};
  if (m.splitRecords === 'record') out.framePerRecord = true;
  else if (m.splitRecords !== undefined) {
    out.frameTextMax = m.splitRecords;
    out.framePerRecord = false;
  }
  if (m.pauseMs !== undefined && m.pauseMs > 0) {
    // A pause mid-message needs a message of several frames.
    if (m.splitRecords === undefined) out.framePerRecord = true;
    out.replyTimeoutMs = (base.replyTimeoutMs ?? 15_000) + m.pauseMs;
  }
  return out;
}

export interface Shaped {
  bytes: Buffer;
  /** Hold the bytes back this long before they go on the wire. */
  delayMs: number;
  /** What was done, for the log. */
  notes: string[];
}

export interface Incoming {
  /** The bytes the link is to see. */
  bytes: Buffer;
  /** Index in `bytes` of a host ENQ before which the held message must be handed to the link. */
  contendAt?: number;
  notes: string[];
}

/** A byte no reply could be: what the simulator's link "hears" instead of a garbled ACK. */
const NOISE = 0xff;

/**
 * Applies the options to the bytes between the link and the wire. It counts
 * frames itself: a frame written again unchanged is a retransmission, so
 * "the Nth frame" means the Nth new frame whatever happened to earlier ones.
 */
export class WireShaper {
  private framesSent = 0;
  private frameInTransfer = 0;
  private lastFrame: Buffer | null = null;
  private corruptedNth = false;
  private droppedAck = false;
  private paused = false;
  private contendLeft: number;

  constructor(
    private readonly m: Misbehaviour,
    private readonly random: () => number,
    private readonly isResultsInTransfer: () => boolean,
  ) {
    this.contendLeft = m.contend ?? 0;
  }

  /** Contention is still to be provoked: the simulator holds a second query back for it. */
  get wantsContention(): boolean {
    return this.contendLeft > 0;
  }

  outgoing(bytes: Buffer): Shaped {
    const notes: string[] = [];
    let delayMs = 0;
    if (bytes.length === 1 && bytes[0] === ENQ) {
      this.frameInTransfer = 0;
      this.lastFrame = null;
      return { bytes, delayMs, notes };
    }
    if (bytes[0] !== STX) return { bytes, delayMs, notes };
    const repeat = this.lastFrame !== null && this.lastFrame.equals(bytes);
    this.lastFrame = bytes;
    if (!repeat) {
      this.framesSent++;
      this.frameInTransfer++;
    }
    let out = bytes;
    const m = this.m;
    if (m.corruptChecksum !== undefined) {
      const nth = Number.isInteger(m.corruptChecksum) && !repeat && !this.corruptedNth && this.framesSent === m.corruptChecksum;
      const chance = m.corruptChecksum > 0 && m.corruptChecksum < 1 && this.random() < m.corruptChecksum;
      if (nth || chance) {
        const bad = corruptChecksum(bytes);
        if (bad !== null) {
          if (nth) this.corruptedNth = true;
          out = bad;
          notes.push(`corruptChecksum: frame ${this.framesSent} sent with a wrong checksum`);
        }
      }
    }
    if (m.pauseMs !== undefined && m.pauseMs > 0 && !this.paused && !repeat && this.frameInTransfer === (m.pauseAtFrame ?? 2) && this.isResultsInTransfer()) {
      this.paused = true;
      delayMs = m.pauseMs;
      notes.push(`pauseMs: ${m.pauseMs} ms of silence before frame ${this.frameInTransfer} of the result message`);
    }
    return { bytes: out, delayMs, notes };
  }

  incoming(bytes: Buffer, state: LinkState, holding: boolean): Incoming {
    const notes: string[] = [];
    let out = bytes;
    if (this.m.dropAck !== undefined && !this.droppedAck && state === 'waitingAck' && this.framesSent === this.m.dropAck) {
      const at = bytes.indexOf(ACK);
      if (at >= 0) {
        this.droppedAck = true;
        out = Buffer.from(bytes);
        out[at] = NOISE;
        notes.push(`dropAck: the ACK of frame ${this.framesSent} is taken as garbled; the frame goes out again`);
      }
    }
    if (this.contendLeft > 0 && holding && state === 'idle') {
      const at = out.indexOf(ENQ);
      if (at >= 0) {
        this.contendLeft--;
        notes.push('contend: our ENQ goes out as the host\'s ENQ arrives');
        return { bytes: out, contendAt: at, notes };
      }
    }
    return { bytes: out, notes };
  }
}

/** The frame with its two checksum characters replaced by a different valid pair; null when it has none. */
function corruptChecksum(frame: Buffer): Buffer | null {
  // STX FN text ETB|ETX C1 C2 CR LF
  const end = frame.length - 5;
  if (end < 1 || (frame[end] !== ETX && frame[end] !== ETB)) return null;
  const c1 = frame[end + 1]!;
  const c2 = frame[end + 2]!;
  const value = Number.parseInt(String.fromCharCode(c1, c2), 16);
  if (!Number.isInteger(value)) return null;
  const wrong = hexPair((value + 0x5a) & 0xff);
  const out = Buffer.from(frame);
  out[end + 1] = wrong.charCodeAt(0);
  out[end + 2] = wrong.charCodeAt(1);
  return out;
}
