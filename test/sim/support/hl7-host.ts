/**
 * A small HL7 host for the simulator tests, from the package's own pieces
 * without Node-RED: the MLLP deframer, hl7LabEventsOf to read what the
 * analyzer sends, buildHl7Order / buildHl7NotFound to answer its queries, and
 * the dialect's ACK. It records everything it saw on the wire (frames with or
 * without VT, discarded bytes, control IDs, ACKs), so each misbehaviour can be
 * checked from the host's side. A repeated MSH-10 is acknowledged again and
 * not processed twice, as HL7 v2.5.1 2.10.3.1 asks of a receiver. Taking
 * connections, orders, queries and stopping are TestHostBase's (test-host.ts).
 */
import type { Hl7DialectProfile } from '../../../lib/protocols/hl7/dialects';
import { buildHl7NotFound, buildHl7Order, hl7LabEventsOf, messageType, parseForProfile, splitBuiltMessages, type Hl7LabEvent } from '../../../lib/protocols/hl7/lab';
import { encodeText } from '../../../lib/protocols/hl7/charset';
import { MllpDeframer, frameMllp, readable } from '../../../lib/protocols/hl7/mllp';
import type { InstrumentResult, LabOrder, QueriedSample } from '../../../lib/lab';
import { buildHl7Ack } from '../../../lib/sim';
import { TestHostBase, type TestHostOptions } from './test-host';

export interface Hl7HostOptions extends TestHostOptions<Hl7DialectProfile> {
  /** How the host acknowledges the analyzer's messages: AA (default), AE or AR with a text, or not at all for the first n. */
  answer?: { code: 'AE' | 'AR'; text: string } | { withhold: number };
}

export interface ReceivedFrame {
  text: string;
  type: string;
  controlId: string;
  missingStart: boolean;
}

export class Hl7TestHost extends TestHostBase<Hl7DialectProfile, Hl7HostOptions> {
  readonly frames: ReceivedFrame[] = [];
  readonly discarded: { reason: string; excerpt: string }[] = [];
  /** Raw reads, to see a frame arrive in pieces. */
  readonly reads: Buffer[] = [];
  readonly events: Hl7LabEvent[] = [];
  readonly qc: InstrumentResult[] = [];
  /** ACKs the analyzer sent: MSA-1, MSA-2 and the text (MSA-3 or ERR). */
  readonly acks: { code: string; acknowledges: string; text: string }[] = [];
  /** Messages the host sent, with their type and MSH-10. */
  readonly sent: { type: string; controlId: string; text: string }[] = [];
  readonly repeats: string[] = [];
  private readonly seen = new Set<string>();
  private deframer = new MllpDeframer();
  private withheld = 0;

  protected override connected(): void {
    this.deframer = new MllpDeframer();
  }

  protected override received(chunk: Buffer): void {
    this.reads.push(Buffer.from(chunk));
    for (const e of this.deframer.push(chunk)) {
      if (e.kind === 'discarded') this.discarded.push({ reason: e.reason, excerpt: e.excerpt });
      else if (e.kind === 'frame') this.onFrame(e.message, e.missingStart === true);
    }
  }

  /** Frames of a type, in order. */
  of(type: string): ReceivedFrame[] {
    return this.frames.filter((f) => f.type === type);
  }

  override trace(): string {
    return this.frames.map((f) => `A->H ${f.missingStart ? '' : '<VT>'}${readable(Buffer.from(f.text), 200)}`).join('\n');
  }

  /** Sends a message of the host's (an unsolicited download) in one frame per message. */
  override send(text: string): void {
    for (const m of splitBuiltMessages(text)) {
      const msh = m.text.split('\r')[0]!.split('|');
      this.sent.push({ type: m.type, controlId: msh[9] ?? '', text: m.text });
      this.options.transport.write(frameMllp(encodeText(m.text, this.profile.charset)));
    }
  }

  private onFrame(bytes: Buffer, missingStart: boolean): void {
    let message;
    try {
      message = parseForProfile(bytes, this.profile);
    } catch (err) {
      this.errors.push(`cannot read ${readable(bytes)}: ${(err as Error).message}`);
      return;
    }
    const type = messageType(message);
    const controlId = message.msh.field(10);
    this.frames.push({ text: message.text, type, controlId, missingStart });
    // The analyzer's acknowledgements: ACK, and LAW's ORL^O34 for an order.
    if (message.msh.field(9) === 'ACK' || type === 'ORL^O34') {
      const msa = message.segment('MSA');
      this.acks.push({ code: msa?.field(1) ?? '', acknowledges: msa?.field(2) ?? '', text: msa?.field(3) || message.segment('ERR')?.field(8) || '' });
      return;
    }
    const events = hl7LabEventsOf(message, this.profile, this.timeZone);
    const isQuery = events.some((e) => e.type === 'query');
    // A query's answer is its acknowledgement; anything else gets an ACK (a repeat too).
    if (!isQuery) this.acknowledge(type, controlId, message.msh.rawField(3));
    if (this.seen.has(controlId)) {
      this.repeats.push(controlId);
      return;
    }
    this.seen.add(controlId);
    if (this.options.answer !== undefined && 'code' in this.options.answer) return;
    this.events.push(...events);
    for (const e of events) {
      if (e.type === 'results') this.results.push(...e.results);
      if (e.type === 'qc') this.qc.push(...e.results);
      if (e.type !== 'query') continue;
      for (const q of e.samples) this.queried(q);
    }
  }

  private acknowledge(type: string, controlId: string, sender: string): void {
    const a = this.options.answer;
    if (a !== undefined && 'withhold' in a && this.withheld < a.withhold) {
      this.withheld++;
      return;
    }
    const code = a !== undefined && 'code' in a ? a.code : 'AA';
    const text = a !== undefined && 'code' in a ? { text: a.text } : {};
    const id = this.profile.ackMode === 'original' ? controlId : `H${++this.count}`;
    const ack = buildHl7Ack(this.profile, { type, controlId, sender, code, ...text }, { now: this.now(), timeZone: this.timeZone, controlId: id });
    this.options.transport.write(frameMllp(encodeText(ack, this.profile.charset)));
  }

  protected override answerFor(query: QueriedSample, order: LabOrder | undefined): string {
    const at = { now: this.now(), timeZone: this.timeZone, controlId: () => `H${++this.count}` };
    return order === undefined ? buildHl7NotFound(this.profile, query.sampleNumber, { ...at, query }) : buildHl7Order(this.profile, order, { ...at, queried: true, query });
  }
}
