/**
 * A small host for the simulator tests, built from the package's own host-side
 * pieces without Node-RED: the E1381 link in the computer role, toLabEvents
 * to read what the analyzer sends, buildOrderMessage / buildNoInformation to
 * answer its queries. It records everything it saw and did on the wire, so the
 * tests can check the effect of each misbehaviour from the host's side. Taking
 * connections, orders, queries and stopping are TestHostBase's (test-host.ts).
 */
import { readable } from '../../../lib/protocols/astm/control';
import type { DialectProfile } from '../../../lib/protocols/astm/dialects';
import { buildNoInformation, buildOrderMessage, toLabEvents, type LabEvent, type LabOrder, type QueriedSample } from '../../../lib/protocols/astm/lab';
import { AstmLink, type AstmLinkOptions, type LinkAction, type LinkState } from '../../../lib/protocols/astm/link';
import { LinkDriver, type LinkMachine } from '../../../lib/link/driver';
import { decodeMessage } from '../../../lib/protocols/astm/records';
import { UnframedLink } from '../../../lib/protocols/astm/unframed-link';
import { TestHostBase, type TestHostOptions } from './test-host';

export interface HostOptions extends TestHostOptions<DialectProfile> {
  link?: Partial<AstmLinkOptions>;
  framing?: 'astm' | 'records';
}

export interface WireEntry {
  direction: 'in' | 'out';
  bytes: Buffer;
}

export class TestHost extends TestHostBase<DialectProfile, HostOptions> {
  /** Every complete message the link delivered, as text. */
  readonly messages: string[] = [];
  readonly events: LabEvent[] = [];
  readonly cancels: QueriedSample[] = [];
  /** Answers the host sent, as text. */
  readonly answers: string[] = [];
  readonly wire: WireEntry[] = [];
  readonly warnings: string[] = [];
  readonly discarded: string[] = [];
  readonly states: LinkState[] = [];
  private driver: LinkDriver | undefined;

  protected override connected(): void {
    this.driver?.close();
    const link: LinkMachine =
      this.options.framing === 'records'
        ? new UnframedLink({ messageIdPrefix: 'an' })
        : new AstmLink({ ...this.profile.link, ...this.options.link, role: 'computer', messageIdPrefix: 'an' });
    this.driver = new LinkDriver(link, (a) => this.onAction(a));
  }

  protected override received(chunk: Buffer): void {
    this.wire.push({ direction: 'in', bytes: Buffer.from(chunk) });
    this.driver?.receive(chunk);
  }

  protected override closing(): void {
    this.driver?.close();
  }

  /** The host's view of the line as one readable string per direction change, for failure messages. */
  override trace(): string {
    return this.wire.map((w) => `${w.direction === 'in' ? 'A->H' : 'H->A'} ${readable(w.bytes)}`).join('\n');
  }

  /** Bytes the host wrote, in order. */
  written(): Buffer {
    return Buffer.concat(this.wire.filter((w) => w.direction === 'out').map((w) => w.bytes));
  }

  /** Sends a message to the analyzer (an unsolicited download). */
  override send(text: string): void {
    this.driver?.send(Buffer.from(text, 'latin1'), `host-${++this.count}`);
  }

  private onAction(a: LinkAction): void {
    switch (a.type) {
      case 'write':
        this.wire.push({ direction: 'out', bytes: Buffer.from(a.bytes) });
        this.options.transport.write(a.bytes);
        break;
      case 'message':
        this.onMessage(a.bytes.toString('latin1'));
        break;
      case 'warning':
        this.warnings.push(a.text);
        break;
      case 'discarded':
        this.discarded.push(a.reason);
        break;
      case 'state':
        this.states.push(a.state);
        break;
      case 'sendFailed':
        this.errors.push(`send failed: ${a.reason}`);
        break;
      case 'sent':
        break;
    }
  }

  private onMessage(text: string): void {
    this.messages.push(text);
    let events: LabEvent[];
    try {
      events = toLabEvents(decodeMessage(text), this.profile, { timeZone: this.timeZone });
    } catch (err) {
      this.errors.push(`cannot read ${JSON.stringify(text)}: ${(err as Error).message}`);
      return;
    }
    this.events.push(...events);
    for (const e of events) {
      if (e.type === 'results') this.results.push(...e.results);
      if (e.type !== 'query') continue;
      if (e.cancel) {
        this.cancels.push(...e.samples);
        continue;
      }
      for (const q of e.samples) this.queried(q);
    }
  }

  protected override answerFor(query: QueriedSample, order: LabOrder | undefined): string {
    const opts = { now: this.now(), timeZone: this.timeZone, query };
    const text = order === undefined ? buildNoInformation(query.sampleNumber, this.profile, opts) : buildOrderMessage(order, this.profile, opts);
    this.answers.push(text);
    return text;
  }
}
