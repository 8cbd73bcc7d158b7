/**
 * The HL7 v2 link over MLLP (HL7 v2.5.1 Implementation Guide appendix C;
 * message processing rules, v2.5.1 chapter 2.9): a pure machine behind the
 * same LinkMachine interface as the E1381 link, so LinkDriver, LinkSessions,
 * the result journal and the trace run it unchanged. It has no timers and does
 * no I/O; the caller passes the time in and carries out the actions.
 *
 * Receiving: every frame is parsed. A response to one of our messages (its
 * MSA-2 is our MSH-10) completes that send. Anything else goes out as a
 * 'message', held until the journal stored it (confirmStored) when holdAck is
 * on; only then is it acknowledged (ack-plan.ts says with what). A frame that
 * cannot be read, or that states a version or processing ID the host cannot
 * take, is answered AR with an ERR saying why; storage that failed
 * (rejectStored) is answered AE, so the analyzer sends the message again.
 * A resend of a message already acknowledged (same sender, MSH-10 and
 * content; recent-ids.ts) is acknowledged again and not passed on twice.
 *
 * Sending: one message at a time per connection, others queued in order; each
 * waits for the analyzer's ACK (AA/CA: sent; AE/AR/CE/CR: failed with the
 * analyzer's text) for ackTimeoutMs, and is written again with the same
 * MSH-10 up to sendAttempts times in all. A message sent with expectAck false
 * is sent once written.
 */
import { type AckCode, type AckProblem, ERROR_CODES, buildAck, controlIdSource } from './ack';
import { type AckPlan, ackPlan, failurePlan, isQuery } from './ack-plan';
import { type Hl7Charset, encodeText } from './charset';
import { Hl7Error } from './errors';
import { type Hl7Message, type Hl7Segment, parseHl7Bytes } from './message';
import { DEFAULT_MAX_FRAME_BYTES, MllpDeframer, type MllpEvent, frameMllp, readable } from './mllp';
import { rememberHeader } from './peek';
import { RecentControlIds, contentHash, controlKey } from './recent-ids';
import type { LinkAction, LinkState } from '../../link/actions';
import type { LinkMachine, SendOptions } from '../../link/driver';

/** How the link reads the analyzer's bytes: MSH-18 when it names a known set, or one set always. */
export type LinkCharset = 'msh18' | Hl7Charset;
export const LINK_CHARSETS: readonly LinkCharset[] = ['msh18', 'ascii', 'latin1', 'utf8'];

export interface Hl7LinkOptions {
  /** How long an ACK to our message is waited for. */
  ackTimeoutMs: number;
  /** Writes of one message in all (the first and the resends) before it fails. */
  sendAttempts: number;
  /** Longest message accepted, in bytes. */
  maxFrameBytes: number;
  /**
   * Most segments a message may have. Reading is linear in a message's size, but the lab events of each result
   * segment are objects the runtime must build and collect: 100,000 OBX (4.8 MB) take 2-3 s of one core, during
   * which no other analyzer is served. Bytes alone cannot bound that (a message of four base64 histograms is
   * 1.3 MB in a dozen segments); segments do.
   */
  maxSegments: number;
  /** 'msh18': MSH-18 when it names a known set, else UTF-8 (bytes that are not UTF-8 read as Latin-1). */
  charset: LinkCharset;
  /** Hold each message's acknowledgement until confirmStored / rejectStored (the journal is on). */
  holdAck: boolean;
  messageIdPrefix: string;
  /** Recently acknowledged control IDs: shared by a node's connections (a resend may come on a new one). */
  recent?: RecentControlIds;
  /** Wall-clock time for MSH-7 (the `now` passed in is a monotonic clock). */
  clock?: () => Date;
  /** Our MSH-10s. */
  controlIds?: () => string;
}

export const DEFAULT_HL7_LINK: Hl7LinkOptions = {
  ackTimeoutMs: 10_000,
  sendAttempts: 3,
  maxFrameBytes: DEFAULT_MAX_FRAME_BYTES,
  // A run of 300 samples of 30 results sent as one message has 9,300 segments.
  maxSegments: 10_000,
  charset: 'msh18',
  holdAck: true,
  messageIdPrefix: 'rx',
};

/** A received message whose acknowledgement waits for the journal. */
interface Held {
  header: Hl7Segment;
  message: Hl7Message;
  /** For recognising resends; undefined for queries, which are answered again when repeated. */
  key?: string;
  content: string;
  /** Resends that came while it waited: answered with it. */
  copies: number;
}

interface Outgoing {
  id: string;
  frame: Buffer;
  controlId: string;
  expectAck: boolean;
}

export class Hl7Link implements LinkMachine {
  private readonly options: Hl7LinkOptions;
  private readonly deframer: MllpDeframer;
  private readonly recent: RecentControlIds;
  private readonly clock: () => Date;
  private readonly nextControlId: () => string;
  private readonly held = new Map<string, Held>();
  private readonly queue: Outgoing[] = [];
  private current: { item: Outgoing; attempts: number; deadline: number } | undefined;
  /** Our control IDs answered lately (a CA may be followed by an application ACK for the same message). */
  private readonly done = new Map<string, string>();
  private count = 0;
  private lastState: LinkState = 'idle';

  constructor(options: Partial<Hl7LinkOptions> = {}) {
    this.options = { ...DEFAULT_HL7_LINK, ...options };
    for (const k of ['ackTimeoutMs', 'sendAttempts', 'maxFrameBytes', 'maxSegments'] as const) {
      const v = this.options[k];
      if (!Number.isInteger(v) || v < 1) throw new RangeError(`${k} must be a whole number above 0, got ${v}`);
    }
    if (!LINK_CHARSETS.includes(this.options.charset)) throw new RangeError(`charset must be one of ${LINK_CHARSETS.join(', ')}, got ${String(this.options.charset)}`);
    this.deframer = new MllpDeframer({ maxFrameBytes: this.options.maxFrameBytes });
    this.recent = this.options.recent ?? new RecentControlIds();
    this.clock = this.options.clock ?? (() => new Date());
    this.nextControlId = this.options.controlIds ?? controlIdSource();
  }

  get state(): LinkState {
    if (this.current) return 'waitingAck';
    if (this.deframer.inFrame || this.held.size > 0) return 'receiving';
    return 'idle';
  }

  receive(bytes: Uint8Array, now: number): LinkAction[] {
    const out: LinkAction[] = [];
    for (const event of this.deframer.push(bytes)) this.onEvent(event, now, out);
    this.pump(now, out);
    return this.withState(out);
  }

  send(message: Uint8Array, id: string, now: number, options: SendOptions = {}): LinkAction[] {
    const out: LinkAction[] = [];
    const text = segmentsEndedByCr(Buffer.from(message));
    const expectAck = options.expectAck !== false;
    let controlId: string;
    try {
      controlId = parseHl7Bytes(firstSegment(text), { charset: 'latin1', useMsh18: false }).msh.field(10);
    } catch (err) {
      out.push({ type: 'sendFailed', id, reason: `it is not an HL7 v2 message: ${(err as Error).message}` });
      return this.withState(out);
    }
    if (expectAck && controlId === '') {
      out.push({ type: 'sendFailed', id, reason: 'its MSH-10 (message control ID) is empty, so the analyzer\'s ACK could not be matched to it' });
      return this.withState(out);
    }
    this.queue.push({ id, frame: frameMllp(text), controlId, expectAck });
    this.pump(now, out);
    return this.withState(out);
  }

  tick(now: number): LinkAction[] {
    const out: LinkAction[] = [];
    const c = this.current;
    if (c && now >= c.deadline) {
      if (c.attempts < this.options.sendAttempts) {
        c.attempts++;
        c.deadline = now + this.options.ackTimeoutMs;
        out.push({ type: 'warning', text: `no ACK to message ${c.item.controlId} within ${this.options.ackTimeoutMs} ms: written again (attempt ${c.attempts} of ${this.options.sendAttempts})` });
        out.push({ type: 'write', bytes: c.item.frame });
      } else {
        this.current = undefined;
        out.push({ type: 'sendFailed', id: c.item.id, reason: `no ACK to message ${c.item.controlId} after ${c.attempts} attempts of ${this.options.ackTimeoutMs} ms each` });
        this.pump(now, out);
      }
    }
    return this.withState(out);
  }

  nextDeadline(): number | null {
    return this.current ? this.current.deadline : null;
  }

  awaitsStored(id: string): boolean {
    return this.held.has(id);
  }

  confirmStored(id: string, now: number): LinkAction[] {
    return this.settle(id, now, true);
  }

  rejectStored(id: string, now: number): LinkAction[] {
    return this.settle(id, now, false);
  }

  disconnect(now: number, reason: string): LinkAction[] {
    const out: LinkAction[] = [];
    for (const event of this.deframer.end()) this.onEvent(event, now, out, false);
    if (this.current) out.push({ type: 'sendFailed', id: this.current.item.id, reason });
    this.current = undefined;
    for (let m = this.queue.shift(); m; m = this.queue.shift()) out.push({ type: 'sendFailed', id: m.id, reason });
    // Their acknowledgements can no longer go out (the journal's LinkStore sees awaitsStored turn false).
    this.held.clear();
    return this.withState(out);
  }

  private onEvent(event: MllpEvent, now: number, out: LinkAction[], answer = true): void {
    if (event.kind === 'oversize') {
      out.push({ type: 'warning', text: `a message longer than ${event.limit} bytes: its bytes are discarded up to its end` });
      return;
    }
    if (event.kind === 'frame') {
      if (event.missingStart) out.push({ type: 'warning', text: 'a message began without its MLLP start byte (VT): read from its MSH' });
      this.onFrame(event.message, now, out);
      return;
    }
    const why = {
      'outside-frame': 'bytes outside an MLLP frame',
      'cut-by-new-frame': 'a message cut short by the start of another (VT before its FS)',
      oversize: `a message longer than ${this.options.maxFrameBytes} bytes, refused: raise Largest message (bytes) on the hl7-link if the analyzer really sends messages this large (first bytes: ${event.excerpt})`,
      'end-of-stream': 'a message incomplete when the connection closed',
    }[event.reason];
    out.push({ type: 'discarded', reason: `${why}, ${event.count} bytes`, bytes: event.bytes });
    if (event.reason === 'oversize' && answer) {
      const header = readHeader(event.bytes, this.options.charset);
      this.reject(header, { code: ERROR_CODES.internal, text: `the message is longer than the ${this.options.maxFrameBytes} bytes this link accepts` }, out);
    }
  }

  private onFrame(bytes: Buffer, now: number, out: LinkAction[]): void {
    const segments = segmentCount(bytes);
    if (segments > this.options.maxSegments) {
      out.push({ type: 'discarded', reason: `a message of ${segments} segments, more than the ${this.options.maxSegments} this link accepts, refused: raise Most segments on the hl7-link if the analyzer really sends messages this long (first bytes: ${readable(bytes, 40)})`, bytes });
      this.reject(readHeader(bytes, this.options.charset), { code: ERROR_CODES.internal, text: `the message has ${segments} segments, more than the ${this.options.maxSegments} this link accepts` }, out);
      return;
    }
    let message: Hl7Message;
    try {
      message = parseHl7Bytes(bytes, this.parseOptions());
    } catch (err) {
      // Only a message that cannot be read whole has its MSH read on its own, to answer it.
      const header = readHeader(bytes, this.options.charset);
      if (!header) {
        out.push({ type: 'discarded', reason: 'a message whose MSH segment could not be read', bytes });
        // An MSH whose own delimiters are refused (MSH-1, MSH-2) is named: the analyzer's operator can fix that.
        const named = err instanceof Hl7Error && err.segmentName === 'MSH' && (err.field === 1 || err.field === 2);
        const text = named ? (err as Error).message : `the message does not start with a readable MSH segment (it starts ${readable(bytes, 20)})`;
        this.reject(undefined, { code: named ? ERROR_CODES.dataType : ERROR_CODES.segmentSequence, text, segment: 'MSH', ...(named ? { field: (err as Hl7Error).field as number } : {}) }, out);
        return;
      }
      const e = err as Error;
      out.push({ type: 'discarded', reason: `a message that is not valid HL7 v2: ${e.message}`, bytes });
      const at = err instanceof Hl7Error ? { ...(err.segmentName ? { segment: err.segmentName } : {}), ...(err.field ? { field: err.field } : {}) } : {};
      this.reject(header, { code: ERROR_CODES.segmentSequence, text: e.message, ...at }, out);
      return;
    }
    const header = message.msh;
    // The link node asks who sent it and whether it is a query: they read this MSH instead of parsing it again.
    rememberHeader(bytes, header);
    if (message.fellBackFrom) out.push({ type: 'warning', text: `message ${nameOf(header)}: its bytes are not valid ${message.fellBackFrom}; read as Latin-1 (check the link's character set and MSH-18)` });
    const msa = message.segment('MSA');
    if (header.field(9) === 'ACK' || (msa && this.current?.item.controlId === msa.field(2) && msa.field(2) !== '')) {
      this.onResponse(message, msa, now, out);
      return;
    }
    const problem = headerProblem(message.msh);
    if (problem) {
      out.push({ type: 'discarded', reason: `message ${header.field(10) || '(no MSH-10)'} refused: ${problem.text}`, bytes });
      this.reject(message.msh, problem, out, message);
      return;
    }
    // Only a message known by its control ID (or, without one, by its content) is compared with an earlier one: a
    // query is answered again when repeated.
    const content = isQuery(message.msh) ? '' : contentHash(bytes);
    const key = isQuery(message.msh) ? undefined : repeatKey(message.msh, content);
    if (key !== undefined && this.repeated(key, content, message, now, out)) return;
    const id = `${this.options.messageIdPrefix}-${++this.count}`;
    // A query carries no result to lose and gets no AA (its answer is the response): it does not wait for the
    // disk, as astm-link's queries do not (docs/design-notes.md, "Queries are not stored before their ACK").
    const hold = this.options.holdAck && key !== undefined;
    out.push({ type: 'message', id, bytes, end: 'frame', held: hold });
    const held: Held = { header: message.msh, message, content, copies: 0, ...(key === undefined ? {} : { key }) };
    if (hold) this.held.set(id, held);
    else this.answer(held, true, now, out);
  }

  /** A resend of a message answered (or being stored): answered again, not passed on. */
  private repeated(key: string, content: string, message: Hl7Message, now: number, out: LinkAction[]): boolean {
    const controlId = nameOf(message.msh);
    for (const h of this.held.values()) {
      if (h.key !== key) continue;
      if (h.content !== content) break;
      h.copies++;
      out.push({ type: 'warning', text: `message ${controlId} came again while the first copy was being stored: both are answered once it is, and it is passed on once` });
      return true;
    }
    const known = this.recent.find(key, now);
    if (!known) return false;
    if (known.content !== content) {
      out.push({ type: 'warning', text: `message control ID ${controlId} was used before for another message: this one is taken as new` });
      return false;
    }
    out.push({ type: 'warning', text: `message ${controlId} was received and acknowledged before (the analyzer did not hear the ACK?): acknowledged again, not passed on again` });
    for (const code of known.codes) this.writeAck(message.msh, message, code as AckCode, undefined, out);
    return true;
  }

  private settle(id: string, now: number, stored: boolean): LinkAction[] {
    const out: LinkAction[] = [];
    const h = this.held.get(id);
    if (!h) {
      out.push({ type: 'warning', text: `${stored ? 'confirmStored' : 'rejectStored'}(${id}): no message awaits that (already answered, or the connection closed)` });
      return out;
    }
    this.held.delete(id);
    this.answer(h, stored, now, out);
    return this.withState(out);
  }

  /** Writes the acknowledgement(s) of a received message, stored or not, for it and each resend of it. */
  private answer(h: Held, stored: boolean, now: number, out: LinkAction[]): void {
    const controlId = nameOf(h.header);
    const plan: AckPlan = stored ? ackPlan(h.header) : failurePlan(h.header);
    const problem: AckProblem | undefined = stored ? undefined : { code: ERROR_CODES.internal, text: 'the message could not be stored by the host; send it again' };
    if (plan.codes.length === 0 && plan.silent) out.push({ type: 'warning', text: `message ${controlId}: ${plan.silent}` });
    for (let n = 0; n <= h.copies; n++) for (const code of plan.codes) this.writeAck(h.header, h.message, code, problem, out);
    if (stored && h.key !== undefined) this.recent.remember(h.key, h.content, plan.codes, now);
  }

  /** Answers a message that cannot be taken: AR (CR in enhanced mode), unless the analyzer asked for no answer. */
  private reject(header: Hl7Segment | undefined, problem: AckProblem, out: LinkAction[], message?: Hl7Message): void {
    if (!header || header.field(10) === '') {
      out.push({ type: 'warning', text: `a message without a readable MSH-10 is answered AR with an empty MSA-2: ${problem.text}` });
      this.writeAck(header, message, 'AR', problem, out);
      return;
    }
    const plan = failurePlan(header, 'reject');
    if (plan.codes.length === 0 && plan.silent) out.push({ type: 'warning', text: `message ${header.field(10)}: ${plan.silent}` });
    for (const code of plan.codes) this.writeAck(header, message, code, problem, out);
  }

  private writeAck(header: Hl7Segment | undefined, message: Hl7Message | undefined, code: AckCode, problem: AckProblem | undefined, out: LinkAction[]): void {
    const text = buildAck({ code, header, ...(message ? { delimiters: message.delimiters } : {}), controlId: this.nextControlId(), time: this.clock(), ...(problem ? { problem } : {}) });
    // In the character set the analyzer's message was read in, so copied names come back as they were sent.
    out.push({ type: 'write', bytes: frameMllp(encodeText(text, message?.charset ?? 'latin1')) });
  }

  private onResponse(message: Hl7Message, msa: Hl7Segment | undefined, now: number, out: LinkAction[]): void {
    const answered = msa?.field(2) ?? '';
    const code = msa?.field(1) ?? '';
    const c = this.current;
    if (c && answered === c.item.controlId) {
      this.current = undefined;
      this.done.set(answered, code);
      if (this.done.size > 100) this.done.delete(this.done.keys().next().value as string);
      if (code === 'AA' || code === 'CA') out.push({ type: 'sent', id: c.item.id });
      else out.push({ type: 'sendFailed', id: c.item.id, reason: `the analyzer answered ${code || 'with no MSA-1'} to message ${answered}${errorText(message, msa)}` });
      this.pump(now, out);
      return;
    }
    if (this.done.has(answered)) {
      // An application ACK after the accept ACK already completed the send: only an error is news.
      if (code !== 'AA' && code !== 'CA') out.push({ type: 'warning', text: `the analyzer answered ${code} to message ${answered} after accepting it${errorText(message, msa)}` });
      return;
    }
    out.push({ type: 'warning', text: `an acknowledgement (${code || 'no MSA-1'}) to message ${answered || '(no MSA-2)'}, which is not one waiting for its ACK on this connection: ignored` });
  }

  /** Writes the next queued message once nothing is outstanding. */
  private pump(now: number, out: LinkAction[]): void {
    while (!this.current && this.queue.length > 0) {
      const item = this.queue.shift() as Outgoing;
      out.push({ type: 'write', bytes: item.frame });
      if (!item.expectAck) {
        out.push({ type: 'sent', id: item.id });
        continue;
      }
      this.current = { item, attempts: 1, deadline: now + this.options.ackTimeoutMs };
    }
  }

  private parseOptions(): { charset: Hl7Charset; useMsh18: boolean; maxLength: number } {
    const fixed = this.options.charset !== 'msh18';
    return { charset: fixed ? (this.options.charset as Hl7Charset) : 'utf8', useMsh18: !fixed, maxLength: this.options.maxFrameBytes };
  }

  private withState(out: LinkAction[]): LinkAction[] {
    const state = this.state;
    if (state !== this.lastState || out.some((a) => a.type === 'message' || a.type === 'sent')) {
      this.lastState = state;
      out.push({ type: 'state', state, detail: this.detail(state) });
    }
    return out;
  }

  private detail(state: LinkState): string {
    if (state === 'waitingAck') return `waiting for the ACK to message ${this.current?.item.controlId ?? ''}`;
    if (state === 'receiving') return this.held.size > 0 ? `storing ${this.held.size} message(s) before their ACK` : 'receiving a message';
    return 'idle';
  }
}

/** The MSH of a frame (or of its first bytes), or undefined when none can be read. */
function readHeader(bytes: Buffer, charset: LinkCharset): Hl7Segment | undefined {
  try {
    const fixed = charset !== 'msh18';
    return parseHl7Bytes(firstSegment(bytes), { charset: fixed ? charset : 'utf8', useMsh18: !fixed }).msh;
  } catch {
    return undefined;
  }
}

/**
 * What a repeat is known by: the sender and MSH-10, or, when MSH-10 is empty
 * (the EDAN i15 leaves it so), the sender and the content, as the journal
 * knows repeats (docs/design-notes.md, "A message without a control ID").
 */
function repeatKey(msh: Hl7Segment, content: string): string {
  const controlId = msh.field(10);
  return controlKey(msh.field(3), msh.field(4), controlId === '' ? `\u0000${content}` : controlId);
}

/** A received message as warnings name it. */
function nameOf(msh: Hl7Segment): string {
  return msh.field(10) || '(no MSH-10)';
}

const PROCESSING_IDS: readonly string[] = ['', 'P', 'D', 'T', 'Q'];

/** A header the host cannot take: table 0008's AR cases (message type, version, processing ID). */
function headerProblem(msh: Hl7Segment): AckProblem | undefined {
  if (msh.field(9) === '') return { code: ERROR_CODES.requiredFieldMissing, text: 'MSH-9 (message type) is empty', segment: 'MSH', field: 9 };
  const version = msh.field(12);
  if (!/^2\.\d/.test(version)) return { code: ERROR_CODES.unsupportedVersion, text: `MSH-12 (version) is ${JSON.stringify(version)}; this host reads HL7 v2 (2.x)`, segment: 'MSH', field: 12 };
  const processing = msh.field(11);
  // Table 0103 has D, P and T; Mindray's BC hematology analyzers mark QC
  // with Q (the BC-5380 manual's QC example, test/fixtures/hl7/
  // mindray-bc5380-oru-r01-xr-qc-manual.txt): refused, the controls would
  // never arrive; the dialect keeps them apart as QC.
  if (!PROCESSING_IDS.includes(processing)) return { code: ERROR_CODES.unsupportedProcessingId, text: `MSH-11 (processing ID) is ${JSON.stringify(processing)}; P, D, T or Q are taken`, segment: 'MSH', field: 11 };
  return undefined;
}

/** The analyzer's own words in an error ACK: MSA-3, ERR-8, ERR-3's text, or ERR-1's. */
function errorText(message: Hl7Message, msa: Hl7Segment | undefined): string {
  const texts = [msa?.field(3) ?? ''];
  for (const err of message.all('ERR')) texts.push(err.field(8), err.field(3, 1, 2), err.field(1, 1, 4, 2));
  const said = [...new Set(texts.map((t) => t.trim()).filter((t) => t !== ''))];
  return said.length > 0 ? `: ${said.join('; ')}` : '';
}

/** The first segment of a message (up to its first CR or LF). */
function firstSegment(bytes: Buffer): Buffer {
  let end = 0;
  while (end < bytes.length && bytes[end] !== 0x0d && bytes[end] !== 0x0a) end++;
  return bytes.subarray(0, end);
}

/** A message to send with CR after each segment (v2.5.1 2.5.1), whatever line ends it was given with. */
function segmentsEndedByCr(bytes: Buffer): Buffer {
  const out: number[] = [];
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] as number;
    if (b === 0x0d && bytes[i + 1] === 0x0a) continue;
    out.push(b === 0x0a ? 0x0d : b);
  }
  if (out.length > 0 && out[out.length - 1] !== 0x0d) out.push(0x0d);
  return Buffer.from(out);
}

/** Segments in a message's bytes: its segment ends (CR, or LF where an analyzer ends lines so), and a last one unended. */
function segmentCount(bytes: Buffer): number {
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    // CR LF ends one segment.
    if (b === 0x0d || (b === 0x0a && bytes[i - 1] !== 0x0d)) n++;
  }
  return bytes.length > 0 && bytes[bytes.length - 1] !== 0x0d && bytes[bytes.length - 1] !== 0x0a ? n + 1 : n;
}
