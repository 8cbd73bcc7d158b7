/**
 * The computer's side of HL7 in one analyzer's dialect, with the same shape as
 * lib/protocols/astm/host.ts: a received message read into queries (to the host
 * conversation), result batches for the LIS, and what is kept aside (QC,
 * unassigned, encapsulated data, status and other messages); the
 * conversation answers with the dialect's messages. hl7-message is the
 * Node-RED adapter of this.
 */
import { hl7SiteProfile, type Hl7DialectProfile } from './dialects';
import { siteHostProfile } from '../../dialect/overrides';
import { buildHl7NotFound, buildHl7Order, hl7LabEventsOf, splitBuiltMessages } from './lab';
import { encodeText } from './charset';
import { HostConversation } from '../../conversation/host-conversation';
import { timeZoneProblem, type HostOutput, type MessageHost, type Outgoing, type ReadMessage } from '../../conversation/message-host';

export class Hl7Host<C> implements MessageHost<C> {
  readonly conversation: HostConversation<C>;
  readonly id: string;
  readonly label: string;
  private sent = 0;

  constructor(
    readonly dialect: Hl7DialectProfile,
    private readonly timeZone: string,
  ) {
    this.id = dialect.id;
    this.label = dialect.label;
    // The host numbers the messages it starts (v2.5.1 2.14.9.10: unique per sender).
    const controlId = () => String(++this.sent);
    this.conversation = new HostConversation<C>(
      {
        id: dialect.id,
        label: dialect.label,
        queryDeadlineMs: dialect.queryDeadlineMs,
        acceptsUnsolicitedOrders: dialect.acceptsUnsolicitedOrders,
        canDownload: dialect.answer !== undefined,
        // Every HL7 answer names its query (MSA-2, QAK): none is anonymous.
        anonymousNoInformation: false,
      },
      {
        order: (order, at) => buildHl7Order(dialect, order, { ...at, timeZone, controlId }),
        noInformation: (sample, at) => buildHl7NotFound(dialect, sample, { ...at, timeZone, controlId }),
      },
    );
  }

  read(bytes: Buffer, link: string, now: number, context: C, replay: boolean): ReadMessage<C> {
    const outputs: HostOutput<C>[] = [];
    const samples = new Set<string>();
    let parts = 0;
    for (const event of hl7LabEventsOf(bytes, this.dialect, this.timeZone)) {
      switch (event.type) {
        case 'query':
          event.samples.forEach((q) => samples.add(q.sampleNumber));
          outputs.push(...this.conversation.query(link, event, now, context, replay));
          break;
        case 'results': {
          event.results.forEach((x) => samples.add(x.SampleNumber));
          const orderedTests = this.conversation.orderedTests(event.results.map((x) => x.SampleNumber), now);
          outputs.push({ type: 'results', results: event.results, problems: event.problems, orderedTests, part: parts++ });
          break;
        }
        case 'qc':
          outputs.push({ type: 'aside', topic: 'qc', payload: event.results, count: event.results.length, reasons: [] });
          break;
        case 'unassigned':
          outputs.push({ type: 'aside', topic: 'unassigned', payload: event.items, count: event.items.length, reasons: event.items.map((i) => i.reason) });
          break;
        case 'encapsulated':
          outputs.push({ type: 'aside', topic: 'encapsulated', payload: event.items, count: event.items.length, reasons: [] });
          break;
        case 'other':
          outputs.push({ type: 'aside', topic: 'other', payload: { kind: event.kind, reason: event.reason, text: bytes.toString(this.dialect.charset === 'utf8' ? 'utf8' : 'latin1') }, count: 0, reasons: [event.reason] });
          break;
      }
    }
    return { outputs, parts, samples: [...samples] };
  }

  bytes(text: string): Buffer {
    return encodeText(text, this.dialect.charset);
  }

  /** One message per MLLP frame; those the analyzer does not acknowledge say so (msg.hl7.expectAck = false). */
  outgoing(text: string): Outgoing[] {
    return splitBuiltMessages(text).map((m) => ({ bytes: this.bytes(m.text), about: { messageType: m.type, ...(this.dialect.notAcknowledged.includes(m.type) ? { expectAck: false } : {}) } }));
  }
}

/**
 * The profile an HL7 host runs with: the base dialect with the site's
 * overrides merged on (./dialects/overrides.ts), or every reason it cannot be
 * made, each naming the setting at fault.
 */
export function hl7HostProfile(settings: { dialect: string; overrides?: unknown; timeZone: string }): { profile: Hl7DialectProfile; problems: [] } | { profile?: undefined; problems: string[] } {
  return siteHostProfile(hl7SiteProfile({ base: settings.dialect, overrides: settings.overrides }), timeZoneProblem(settings.timeZone));
}
