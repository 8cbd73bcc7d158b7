/**
 * The links of one analyzer-link node: the one serial line, or one link per
 * TCP connection, each a link state machine run by its own LinkDriver. Bytes
 * are placed on the link of the connection they came from; a message for the
 * analyzer goes where the SessionBook routes it; a connection reported closed
 * fails what was on it at once. What the links do is reported through typed
 * events, each with the link it happened on, so the adapter only carries
 * things out (writes, traces, Node-RED messages).
 *
 * Protocol-agnostic: the machine comes from a factory, and who the analyzer
 * says it is (ASTM H-5, HL7 MSH-3) from an `identify` function.
 */
import { LinkDriver, type LinkMachine, type SendOptions } from './driver';
import type { LinkAction, LinkState } from './actions';
import { LisError } from '../errors';
import { LINE, SessionBook, type Peer, type TransportMode } from './session-book';
import { tcpConnectionEvent, tcpSessionKey } from './tcp-status';

export interface SessionLink {
  readonly key: string;
  readonly driver: LinkDriver;
  /** Node-RED's TCP session, echoed on what is written so tcp out answers this connection (undefined for the serial line). */
  readonly tcpSession: { type: 'tcp'; id: string } | undefined;
  /** The connection's name in the trace (undefined for the serial line). */
  readonly traceName: string | undefined;
}

export type ReceivedMessage = Extract<LinkAction, { type: 'message' }>;

export interface LinkSessionEvents<C> {
  write(link: SessionLink, bytes: Buffer): void;
  /** `sender`: who the message says sent it, when it names someone. */
  message(link: SessionLink, message: ReceivedMessage, sender: { text: string; name: string } | undefined): void;
  /** The analyzer acknowledged a message we sent. */
  sent(link: SessionLink, context: C | undefined, id: string): void;
  /** A message we sent was given up (SEND_FAILED), or its connection closed (CONNECTION_CLOSED). */
  failed(link: SessionLink, context: C | undefined, err: LisError): void;
  discarded(link: SessionLink, bytes: Buffer, reason: string): void;
  warning(text: string): void;
  state(link: SessionLink, state: LinkState, detail: string): void;
}

export interface LinkSessionsOptions {
  mode: TransportMode;
  /** The link machine of a new connection. */
  machine(key: string): LinkMachine;
  /** Who sent a received message, to route downloads by name. */
  identify(bytes: Buffer): { text: string; name: string } | undefined;
  /** Prefix of the ids given to messages we send. */
  idPrefix: string;
  /** Links kept at once; idle ones beyond it are dropped first. */
  maxLinks?: number;
}

interface Entry<C> extends SessionLink {
  /** Messages asked to be sent, by id, until sent or failed. */
  outgoing: Map<string, C>;
  /** Set when the transport reported the connection closed. */
  closedReason?: string;
}

export class LinkSessions<C> {
  private readonly links = new Map<string, Entry<C>>();
  private readonly book: SessionBook;
  private readonly maxLinks: number;
  private nextId = 0;
  /** Set to serial and fed by TCP: see sawTcp. */
  private tcpInSerial = false;

  constructor(
    private readonly options: LinkSessionsOptions,
    private readonly events: LinkSessionEvents<C>,
  ) {
    this.book = new SessionBook(options.mode);
    this.maxLinks = options.maxLinks ?? 1024;
  }

  /** Where bytes read from the line go: the link of their connection, or why they cannot be placed. */
  place(session: unknown, peer: Peer, now: number): SessionLink | LisError {
    // Set to serial, behind tcp in: every connection would share one link, and its writes (no session) reach them all.
    if (this.options.mode === 'serial' && tcpSessionKey(session) !== undefined) return this.sawTcp();
    const key = this.options.mode === 'serial' ? LINE : (tcpSessionKey(session) ?? LINE);
    if (key === LINE && this.options.mode === 'tcp') {
      return new LisError('the link is set to TCP, but these bytes carry no TCP session (msg._session): wire the tcp in node straight to it, so answers go back on the connection they came from', { code: 'NO_SESSION' });
    }
    this.book.received(key, peer, now);
    return this.linkFor(key);
  }

  /** Queues a message for the analyzer where the book routes it (its session, or msg.analyzer); or says why it cannot go. */
  send(session: unknown, analyzer: string | undefined, bytes: Buffer, context: C, options?: SendOptions): SessionLink | LisError {
    if (this.tcpInSerial) return transportMismatch();
    const route = this.book.route({ session: this.book.tcp ? tcpSessionKey(session) : undefined, analyzer });
    if ('code' in route) return new LisError(route.message, { code: route.code });
    const link = this.linkFor(route.key);
    const id = `${this.options.idPrefix}-tx-${++this.nextId}`;
    link.outgoing.set(id, context);
    link.driver.send(bytes, id, options);
    return link;
  }

  /**
   * A tcp in node's status (through a Status node): connections opened and
   * closed. Other statuses are ignored. Set to serial, the first connection
   * reported is the mistake TRANSPORT_MISMATCH names (returned once).
   */
  report(status: unknown, now: number): LisError | undefined {
    const event = tcpConnectionEvent(status);
    if (this.options.mode === 'serial') return event && !this.tcpInSerial ? this.sawTcp() : undefined;
    if (event?.kind === 'opened') this.book.opened(event.key, event.peer, now);
    if (event?.kind !== 'closed') return undefined;
    this.book.closed(event.key);
    const link = this.links.get(event.key);
    if (!link) return undefined;
    this.links.delete(event.key);
    link.closedReason = 'the TCP connection to the analyzer closed';
    link.driver.disconnect(link.closedReason);
    return undefined;
  }

  /**
   * A link set to serial was found fed by TCP (tcp in wired to it, a TCP
   * session on its input, a connection reported): from now on it takes no
   * TCP input (not acknowledged: the analyzer keeps its data and retries)
   * and sends nothing (its writes would reach every connection).
   */
  sawTcp(): LisError {
    this.tcpInSerial = true;
    return transportMismatch();
  }

  /** Stops every link; returns what was still waiting to be sent, for the caller to fail. */
  close(): C[] {
    const unsent: C[] = [];
    for (const link of this.links.values()) {
      link.driver.close();
      unsent.push(...link.outgoing.values());
    }
    this.links.clear();
    return unsent;
  }

  private linkFor(key: string): Entry<C> {
    const known = this.links.get(key);
    if (known) {
      // Most recently used last, so the oldest idle link is the first to go.
      this.links.delete(key);
      this.links.set(key, known);
      return known;
    }
    const tcp = key !== LINE;
    const created = { key, outgoing: new Map<string, C>(), tcpSession: tcp ? { type: 'tcp' as const, id: key } : undefined, traceName: tcp ? key : undefined } as Entry<C>;
    (created as { driver: LinkDriver }).driver = new LinkDriver(this.options.machine(key), (action) => this.onAction(created, action));
    this.links.set(key, created);
    this.forgetIdle();
    return created;
  }

  /** TCP analyzers reconnect under new session ids: at most maxLinks links, idle ones dropped first. */
  private forgetIdle(): void {
    for (const [key, link] of this.links) {
      if (this.links.size <= this.maxLinks) break;
      if (link.driver.state === 'idle' && link.outgoing.size === 0) {
        link.driver.close();
        this.links.delete(key);
        this.book.forget(key);
      }
    }
  }

  private onAction(link: Entry<C>, action: LinkAction): void {
    switch (action.type) {
      case 'write':
        return this.events.write(link, action.bytes);
      case 'message': {
        const who = this.options.identify(action.bytes);
        if (who) this.book.identified(link.key, who.text, who.name);
        return this.events.message(link, action, who);
      }
      case 'sent': {
        const context = link.outgoing.get(action.id);
        link.outgoing.delete(action.id);
        return this.events.sent(link, context, action.id);
      }
      case 'sendFailed': {
        const context = link.outgoing.get(action.id);
        link.outgoing.delete(action.id);
        const err = link.closedReason
          ? new LisError(`message ${action.id} was not sent: ${link.closedReason}`, { code: 'CONNECTION_CLOSED' })
          : new LisError(`the analyzer did not accept message ${action.id}: ${action.reason}`, { code: 'SEND_FAILED' });
        return this.events.failed(link, context, err);
      }
      case 'discarded':
        return this.events.discarded(link, action.bytes, action.reason);
      case 'warning':
        return this.events.warning(action.text);
      case 'state':
        return this.events.state(link, action.state, action.detail);
    }
  }
}

function transportMismatch(): LisError {
  return new LisError(
    'the link\'s Transport is serial, but TCP connections arrive (msg._session from tcp in): set Transport to TCP. Until then nothing from TCP is acknowledged or passed on, and nothing is sent: a serial link\'s writes carry no session, and tcp out would write them to every connection',
    { code: 'TRANSPORT_MISMATCH' },
  );
}
