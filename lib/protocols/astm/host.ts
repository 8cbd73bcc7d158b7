/**
 * The computer's side of ASTM in one analyzer's dialect: a received message
 * read into what goes where (queries to the host conversation, result batches
 * for the LIS, QC and unplaceable results kept aside), and the conversation
 * answering with orders and "no information" written in the dialect.
 * astm-message is the Node-RED adapter of this.
 */
import { latin1Bytes } from '../../util/latin1';
import { siteProfile, type DialectProfile } from './dialects';
import { siteHostProfile } from '../../dialect/overrides';
import { buildNoInformation, buildOrderMessage, labEventsOf } from './lab';
import { HostConversation, type ConversationRules } from '../../conversation/host-conversation';
import { timeZoneProblem, type HostOutput, type MessageHost, type ReadMessage } from '../../conversation/message-host';

export class AstmHost<C> implements MessageHost<C> {
  readonly conversation: HostConversation<C>;
  readonly id: string;
  readonly label: string;

  constructor(
    readonly dialect: DialectProfile,
    private readonly timeZone: string,
  ) {
    this.id = dialect.id;
    this.label = dialect.label;
    this.conversation = new HostConversation<C>(conversationRules(dialect), {
      order: (order, at) => buildOrderMessage(order, dialect, { ...at, timeZone }),
      noInformation: (sample, at) => buildNoInformation(sample, dialect, { ...at, timeZone, queried: true }),
    });
  }

  /** A message from the analyzer on `link`; a replay (stored before a restart) gets no answers to its queries. */
  read(bytes: Buffer, link: string, now: number, context: C, replay: boolean): ReadMessage<C> {
    const outputs: HostOutput<C>[] = [];
    const samples = new Set<string>();
    let parts = 0;
    for (const event of labEventsOf(bytes, this.dialect, this.timeZone)) {
      if (event.type === 'query') {
        event.samples.forEach((q) => samples.add(q.sampleNumber));
        outputs.push(...this.conversation.query(link, event, now, context, replay));
      } else if (event.type === 'results') {
        event.results.forEach((x) => samples.add(x.SampleNumber));
        const orderedTests = this.conversation.orderedTests(event.results.map((x) => x.SampleNumber), now);
        outputs.push({ type: 'results', results: event.results, problems: event.problems, orderedTests, part: parts++ });
      } else if (event.type === 'other') {
        outputs.push({ type: 'aside', topic: 'other', payload: { kind: event.kind, reason: event.reason, text: this.text(bytes) }, count: 0, reasons: [event.reason] });
      } else if (event.type === 'qc') {
        outputs.push({ type: 'aside', topic: 'qc', payload: event.results, count: event.results.length, reasons: [] });
      } else {
        outputs.push({ type: 'aside', topic: 'unassigned', payload: event.items, count: event.items.length, reasons: event.items.map((i) => i.reason) });
      }
    }
    return { outputs, parts, samples: [...samples] };
  }

  /** Text for the analyzer as the bytes its dialect's character set makes of it. */
  bytes(text: string): Buffer {
    return this.dialect.charset === 'utf8' ? Buffer.from(text, 'utf8') : latin1Bytes(text);
  }

  private text(bytes: Buffer): string {
    return bytes.toString(this.dialect.charset === 'utf8' ? 'utf8' : 'latin1');
  }
}

/** A node's dialect settings: the built-in base, the site's overrides of it (JSON text or object), and the site zone. */
export interface HostSettings {
  dialect: string;
  overrides?: unknown;
  timeZone: string;
}

/**
 * The profile a host runs with: the base dialect with the site's overrides
 * merged on (lib/protocols/astm/dialects/overrides.ts), or every reason it cannot be
 * made, each naming the setting at fault.
 */
export function hostProfile(settings: HostSettings): { profile: DialectProfile; problems: [] } | { profile?: undefined; problems: string[] } {
  return siteHostProfile(siteProfile({ base: settings.dialect, overrides: settings.overrides }), timeZoneProblem(settings.timeZone));
}

/** What the conversation needs of a dialect. */
function conversationRules(d: DialectProfile): ConversationRules {
  return { id: d.id, label: d.label, queryDeadlineMs: d.queryDeadlineMs, acceptsUnsolicitedOrders: d.acceptsUnsolicitedOrders, canDownload: d.order !== undefined, anonymousNoInformation: d.noOrder?.form === 'terminator' };
}
