/**
 * A small host for the simulator tests, built from the package's own host-side
 * pieces without Node-RED: the E1381 link in the computer role, toLabEvents
 * to read what the analyzer sends, buildOrderMessage / buildNoInformation to
 * answer its queries. It records everything it saw and did on the wire, so the
 * tests can check the effect of each misbehaviour from the host's side.
 */
import { readable } from '../../../lib/protocols/astm/control';
import type { DialectProfile } from '../../../lib/protocols/astm/dialects';
import { buildNoInformation, buildOrderMessage, toLabEvents, type InstrumentResult, type LabEvent, type LabOrder, type QueriedSample } from '../../../lib/protocols/astm/lab';
import { AstmLink, type AstmLinkOptions, type LinkAction, type LinkState } from '../../../lib/protocols/astm/link';
import { LinkDriver, type LinkMachine } from '../../../lib/link/driver';
import { decodeMessage } from '../../../lib/protocols/astm/records';
import { UnframedLink } from '../../../lib/protocols/astm/unframed-link';
import type { Transport } from '../../../lib/sim';

export interface HostOptions {
  profile: DialectProfile;
  transport: Transport;
  orders?: LabOrder[];
  link?: Partial<AstmLinkOptions>;
  framing?: 'astm' | 'records';
  timeZone?: string;
  now?: () => Date;
  /** Read queries but never answer them (the analyzer's deadline runs out). */
  silent?: boolean;
}

export interface WireEntry {
  direction: 'in' | 'out';
  bytes: Buffer;
}

export class TestHost {
  readonly profile: DialectProfile;
  readonly orders = new Map<string, LabOrder>();
  /** Every complete message the link delivered, as text. */
  readonly messages: string[] = [];
  readonly events: LabEvent[] = [];
  readonly results: InstrumentResult[] = [];
  readonly queries: QueriedSample[] = [];
  readonly cancels: QueriedSample[] = [];
  /** Answers the host sent, as text. */
  readonly answers: string[] = [];
  readonly wire: WireEntry[] = [];
  readonly warnings: string[] = [];
  readonly discarded: string[] = [];
  readonly states: LinkState[] = [];
  readonly errors: string[] = [];
  private driver: LinkDriver | undefined;
  private count = 0;
  private readonly timeZone: string;
  private readonly now: () => Date;

  constructor(private readonly options: HostOptions) {
    this.profile = options.profile;
    this.timeZone = options.timeZone ?? 'Europe/Berlin';
    this.now = options.now ?? (() => new Date());
    for (const o of options.orders ?? []) this.orders.set(o.SampleNumber, o);
  }

  async start(): Promise<void> {
    const t = this.options.transport;
    t.on('connect', () => {
      this.driver?.close();
      const link: LinkMachine =
        this.options.framing === 'records'
          ? new UnframedLink({ messageIdPrefix: 'an' })
          : new AstmLink({ ...this.profile.link, ...this.options.link, role: 'computer', messageIdPrefix: 'an' });
      this.driver = new LinkDriver(link, (a) => this.onAction(a));
    });
    t.on('data', (chunk) => {
      this.wire.push({ direction: 'in', bytes: Buffer.from(chunk) });
      this.driver?.receive(chunk);
    });
    t.on('error', (err) => this.errors.push(err.message));
    await t.open();
  }

  async stop(): Promise<void> {
    this.driver?.close();
    await this.options.transport.close();
  }

  /** The host's view of the line as one readable string per direction change, for failure messages. */
  trace(): string {
    return this.wire.map((w) => `${w.direction === 'in' ? 'A->H' : 'H->A'} ${readable(w.bytes)}`).join('\n');
  }

  /** Bytes the host wrote, in order. */
  written(): Buffer {
    return Buffer.concat(this.wire.filter((w) => w.direction === 'out').map((w) => w.bytes));
  }

  /** Sends a message to the analyzer (an unsolicited download). */
  send(text: string): void {
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
      for (const q of e.samples) {
        this.queries.push(q);
        if (this.options.silent !== true) this.answer(q);
      }
    }
  }

  private answer(query: QueriedSample): void {
    const order = this.orders.get(query.sampleNumber);
    const opts = { now: this.now(), timeZone: this.timeZone, query };
    try {
      const text = order === undefined ? buildNoInformation(query.sampleNumber, this.profile, opts) : buildOrderMessage(order, this.profile, opts);
      this.answers.push(text);
      this.send(text);
    } catch (err) {
      this.errors.push(`cannot answer ${query.sampleNumber}: ${(err as Error).message}`);
    }
  }
}

/** Polls until `check` holds; fails with `what` and the trace after `timeoutMs`. */
export async function waitUntil(check: () => boolean, what: string, timeoutMs = 5000, trace?: () => string): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}${trace ? `\n${trace()}` : ''}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A LIS order after the test-mapper, as lis-get-order + test-mapper hand it to astm-message. */
export function labOrder(sample: string, tests: string[], extra: Partial<LabOrder> = {}): LabOrder {
  return {
    SampleNumber: sample,
    TransactionDate: '20261121093015',
    Priority: 'R',
    SampleType: 'Serum',
    instrumentTests: tests,
    patient: { ID: `P-${sample}`, Name: 'Roe, Jane', Sex: 'F', DateOfBirth: '19800102', Age: '46', AgeUnit: 'Y' },
    ...extra,
  };
}
