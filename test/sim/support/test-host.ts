/**
 * What the simulator tests' hosts share whatever the protocol: open the
 * transport and take its connections, keep the orders it answers queries
 * with, record queries, results and errors, answer each query (or stay
 * silent), close. TestHost (ASTM, host.ts) and Hl7TestHost (HL7, hl7-host.ts)
 * extend it with how they read and frame messages; labOrder is here
 * because both protocols' tests use it.
 */
import type { InstrumentResult, LabOrder, QueriedSample } from '../../../lib/lab';
import type { Transport } from '../../../lib/sim';

export interface TestHostOptions<P> {
  profile: P;
  transport: Transport;
  orders?: LabOrder[];
  timeZone?: string;
  now?: () => Date;
  /** Read queries but never answer them (the analyzer's deadline runs out). */
  silent?: boolean;
}

export abstract class TestHostBase<P, O extends TestHostOptions<P>> {
  readonly profile: P;
  readonly orders = new Map<string, LabOrder>();
  readonly results: InstrumentResult[] = [];
  readonly queries: QueriedSample[] = [];
  readonly errors: string[] = [];
  protected readonly timeZone: string;
  protected readonly now: () => Date;
  /** Numbers the host's own messages. */
  protected count = 0;

  constructor(protected readonly options: O) {
    this.profile = options.profile;
    this.timeZone = options.timeZone ?? 'Europe/Berlin';
    this.now = options.now ?? (() => new Date());
    for (const o of options.orders ?? []) this.orders.set(o.SampleNumber, o);
  }

  async start(): Promise<void> {
    const t = this.options.transport;
    t.on('connect', () => this.connected());
    t.on('data', (chunk) => this.received(chunk));
    t.on('error', (err) => this.errors.push(err.message));
    await t.open();
  }

  async stop(): Promise<void> {
    this.closing();
    await this.options.transport.close();
  }

  /** What the host saw on the line, readable, for failure messages. */
  abstract trace(): string;

  /** Sends a message of the host's to the analyzer (an answer, or an unsolicited download). */
  abstract send(text: string): void;

  /** A connection came: fresh per-connection state (nothing of an earlier one carries over). */
  protected abstract connected(): void;

  protected abstract received(chunk: Buffer): void;

  /** The host's answer to a query: the order's download, or the dialect's "not found" when it has none. */
  protected abstract answerFor(query: QueriedSample, order: LabOrder | undefined): string;

  /** stop(), before the transport closes. */
  protected closing(): void {}

  /** A query read: recorded, and answered unless the host is silent; an answer that cannot be built is an error. */
  protected queried(query: QueriedSample): void {
    this.queries.push(query);
    if (this.options.silent === true) return;
    try {
      this.send(this.answerFor(query, this.orders.get(query.sampleNumber)));
    } catch (err) {
      this.errors.push(`cannot answer ${query.sampleNumber}: ${(err as Error).message}`);
    }
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
