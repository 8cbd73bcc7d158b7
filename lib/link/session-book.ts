/**
 * Which analyzer connection a message for the analyzer goes to.
 *
 * A serial line has one peer. Over TCP (LIS1-A §8 keeps the E1381 rules per
 * connection) Node-RED's tcp nodes tag every read with a session, and the
 * bytes we write go back only to the connection whose session they carry:
 * without one, `tcp out` ("reply to tcp") writes them to every connection,
 * and the analyzer's answer arrives tagged with a session the sending link
 * never hears from. A message that answers a query keeps the query's session;
 * an order nobody asked for (pushed by the LIS) has none and must be given one
 * here, or refused with the reason: an order is never sent to every analyzer,
 * nor to one picked by guess.
 *
 * Pure bookkeeping: no timers, no I/O. The protocol adapters (astm-link now,
 * the HL7 link later) feed it what the transport reported and ask it where to
 * send.
 */

import { MAX_SENDER_CHARS, capText } from '../util/cap-text';

/** The key of the one link of a serial line (or of a link not yet known to be TCP). */
export const LINE = 'line';

/**
 * - serial: one line, TCP sessions ignored.
 * - tcp: one link per TCP connection; messages must carry or be given a session.
 * - auto: serial until the first TCP session is seen (flows from before the setting).
 */
export type TransportMode = 'auto' | 'serial' | 'tcp';

export interface Peer {
  address?: string;
  port?: number;
}

export type RouteErrorCode =
  /** TCP, and no analyzer is connected. */
  | 'NOT_CONNECTED'
  /** msg.analyzer names no connected analyzer. */
  | 'UNKNOWN_ANALYZER'
  /** Several analyzers are connected and nothing says which one the message is for. */
  | 'AMBIGUOUS_ANALYZER'
  /** The message answers a connection that has since closed. */
  | 'CONNECTION_CLOSED';

export type Route = { key: string } | { code: RouteErrorCode; message: string };

export interface SessionView {
  key: string;
  open: boolean;
  peer: Peer;
  /** H-5 (ASTM) or MSH-3 (HL7) of the last message received on the connection, as written. */
  sender?: string;
  /** Its first component: the name most analyzers put first (`CL-2000i` of `CL-2000i^1.0^SN42`). */
  name?: string;
}

interface Entry extends SessionView {
  lastSeen: number;
}

export interface RouteRequest {
  /** The session the message carries (it answers something received on it). */
  session?: string;
  /** Who the message is for: a sender name the analyzer gives, or its address (`10.1.2.3` or `10.1.2.3:5000`). */
  analyzer?: string;
}

export class SessionBook {
  private readonly entries = new Map<string, Entry>();
  /** Recently closed sessions, oldest first: a late answer to one is refused, not sent into the void. */
  private readonly closedKeys = new Set<string>();
  private sawTcp = false;

  constructor(
    readonly mode: TransportMode,
    private readonly limits = { maxClosed: 256 },
  ) {}

  /** Whether messages are routed by TCP session (and a session-less line no longer exists). */
  get tcp(): boolean {
    return this.mode === 'tcp' || (this.mode === 'auto' && this.sawTcp);
  }

  /** Bytes arrived on a session: it is open (unless it was already reported closed). */
  received(key: string, peer: Peer, now: number): void {
    if (key === LINE) return;
    this.sawTcp = true;
    if (this.closedKeys.has(key)) return;
    const e = this.entries.get(key);
    if (e) {
      e.lastSeen = now;
      if (e.peer.address === undefined) e.peer = { ...peer };
    } else this.entries.set(key, { key, open: true, peer: { ...peer }, lastSeen: now });
  }

  /** The transport reported a new connection. */
  opened(key: string, peer: Peer, now: number): void {
    this.sawTcp = true;
    this.closedKeys.delete(key);
    const e = this.entries.get(key);
    if (e) Object.assign(e, { open: true, lastSeen: now, peer: peer.address === undefined ? e.peer : { ...peer } });
    else this.entries.set(key, { key, open: true, peer: { ...peer }, lastSeen: now });
  }

  /** The transport reported the connection gone. Returns whether it was known. */
  closed(key: string): boolean {
    this.sawTcp = true;
    const known = this.entries.delete(key);
    this.closedKeys.delete(key);
    this.closedKeys.add(key);
    for (const k of this.closedKeys) {
      if (this.closedKeys.size <= this.limits.maxClosed) break;
      this.closedKeys.delete(k);
    }
    return known;
  }

  /** A link for the session was dropped (idle, over the limit) without the transport saying it closed. */
  forget(key: string): void {
    this.entries.delete(key);
  }

  /**
   * The analyzer on this session named itself (whole sender field, and its
   * first component). Kept capped, as the Lab sidebar keeps it: a sender field
   * is bounded only by the message size, and a session lives for hours.
   */
  identified(key: string, sender: string, name: string): void {
    const e = this.entries.get(key);
    if (!e || sender === '') return;
    e.sender = capText(sender, MAX_SENDER_CHARS);
    e.name = capText(name, MAX_SENDER_CHARS);
  }

  list(): SessionView[] {
    return [...this.entries.values()].map(({ lastSeen: _, ...view }) => ({ ...view, peer: { ...view.peer } }));
  }

  /** Where a message for the analyzer goes, or why it cannot go anywhere. */
  route(req: RouteRequest): Route {
    if (!this.tcp) return { key: LINE };
    if (req.session !== undefined) {
      if (this.closedKeys.has(req.session)) {
        return { code: 'CONNECTION_CLOSED', message: `the analyzer connection this message answers (session ${req.session}) has closed; it is not sent to another connection` };
      }
      return { key: req.session };
    }
    const open = [...this.entries.values()].filter((e) => e.open);
    const analyzer = req.analyzer?.trim();
    if (analyzer !== undefined && analyzer !== '') {
      const hits = open.filter((e) => matches(e, analyzer));
      if (hits.length === 1) return { key: hits[0]!.key };
      if (hits.length === 0) {
        return { code: 'UNKNOWN_ANALYZER', message: `no connected analyzer is "${analyzer}" (msg.analyzer): ${describe(open)}` };
      }
      return { code: 'AMBIGUOUS_ANALYZER', message: `${hits.length} connected analyzers match "${analyzer}" (msg.analyzer): ${describe(hits)}; name one by its address and port` };
    }
    if (open.length === 1) return { key: open[0]!.key };
    if (open.length === 0) return { code: 'NOT_CONNECTED', message: 'no analyzer is connected: the message was not sent' };
    return {
      code: 'AMBIGUOUS_ANALYZER',
      message: `${open.length} analyzers are connected and the message names none of them: ${describe(open)}; set msg.analyzer to the sender name or address of the one it is for`,
    };
  }
}

function addressOf(peer: Peer): string | undefined {
  if (peer.address === undefined) return undefined;
  return peer.port === undefined ? peer.address : `${peer.address}:${peer.port}`;
}

/**
 * An address matches exactly; a sender matches whole or by its first component, ignoring case
 * (a name longer than the kept one matches by what was kept of it).
 */
function matches(e: Entry, analyzer: string): boolean {
  if (e.peer.address !== undefined && (e.peer.address === analyzer || addressOf(e.peer) === analyzer)) return true;
  const wanted = capText(analyzer, MAX_SENDER_CHARS).toLowerCase();
  return e.sender?.toLowerCase() === wanted || e.name?.trim().toLowerCase() === wanted;
}

function describe(entries: Entry[]): string {
  if (entries.length === 0) return 'none is connected';
  const names = entries.map((e) => `${e.sender === undefined ? 'an analyzer that has sent nothing yet' : `"${e.sender}"`} at ${addressOf(e.peer) ?? `session ${e.key}`}`);
  return `connected: ${names.join(', ')}`;
}
