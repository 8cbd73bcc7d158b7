/**
 * The health of every analyzer link, for an operator's overview and for the
 * lab's monitoring: per link node (astm-link now, the HL7 link next) and per
 * TCP connection of it, whether the transport is up, when a message last came
 * and went, and what passed today. Events in (the link and message adapters
 * report what happened, with the time), a snapshot out, and a change
 * subscription.
 *
 * Counting is the whole cost on the message path: a few additions on records
 * that already exist, no allocation. Subscribers are called synchronously on
 * every change and must coalesce what they push (an operator's screen does not
 * need a frame per message).
 *
 * Two kinds of counts: `today` (local calendar day, reset at midnight) for an
 * operator, and totals since the link node was first deployed in this process
 * (kept over redeploys, per analyzer) for Prometheus counters, which must
 * never go down.
 */

/**
 * - unknown: nothing has said yet (a serial line without a Status node, before the first byte);
 * - connected: the port is open, or an analyzer is connected over TCP;
 * - disconnected: the port is closed, or the TCP connection (as a client) dropped;
 * - listening: a TCP server with no analyzer connected;
 * - port-missing: the serial port's device does not exist (unplugged USB adapter, wrong path);
 * - port-shared: another link reads the same serial device and keeps it: this link refuses the line (lib/link/port-claims).
 */
import type { Alarm, AlarmCode } from './alarms';
import type { QueueCounts } from './queues';
import { MAX_SENDER_CHARS, capText } from './labels';

import { TRANSPORT_STATES, type TransportState } from './transport-state';

export { TRANSPORT_STATES, type TransportState };

export interface Counts {
  /** Complete messages received from the analyzer. */
  received: number;
  /** Messages the analyzer acknowledged. */
  sent: number;
  /** Samples the analyzer asked orders for. */
  queries: number;
  /** Results read from its messages: patient results (with those whose sample cannot be told), QC and no-result words. */
  results: number;
  /** Negative acknowledgements we sent (a frame refused) and received (ours refused). */
  naksSent: number;
  naksReceived: number;
  /** Failures on the link: a message not accepted, text discarded, input refused, a message not understood. */
  errors: number;
  /**
   * Where each result read ended first (lib/journal): delivered to the LIS, held for a person, discarded by a person
   * after the LIS refused its batch, or kept from the LIS by its dialect's own rule (QC, a no-result word). Once every
   * result has ended, `results` is their sum.
   */
  delivered: number;
  heldForPerson: number;
  discarded: number;
  notForLis: number;
  /**
   * Held results a person resolved: sent and delivered (released), dismissed with a reason, or (a control the table
   * did not identify) identified and judged in the QC store (evaluated).
   */
  released: number;
  dismissed: number;
  evaluated: number;
}

/** Where a link's line goes, for an operator to check when it is down (nodes/shared/transport-watch lineSettings). */
export interface LineSettings {
  kind: 'tcp-client' | 'tcp-server' | 'serial';
  host?: string;
  port?: string;
  device?: string;
  /** The environment variables the address came from (`${ANALYZER_HOST}` in the flow), in the flow's order. */
  variables: string[];
}

/** The ends a result reaches, as the day's counts name them. */
export type ResultEnding = 'delivered' | 'heldForPerson' | 'discarded' | 'notForLis' | 'released' | 'dismissed' | 'evaluated';

export interface Activity {
  lastReceived: number | undefined;
  lastSent: number | undefined;
}

export type AnalyzerTotals = Counts & Activity;

/** One connection: the serial line, or one TCP session. */
export interface ConnectionHealth extends Activity {
  /** The TCP session (undefined for a serial line). */
  session: string | undefined;
  /** ip:port of the peer, when the transport said. */
  peer: string | undefined;
  /** The analyzer's own name: first component of H-5 (ASTM) or MSH-3 (HL7), once it sent a message. */
  analyzer: string | undefined;
  /** The whole sender field. */
  sender: string | undefined;
  transport: TransportState;
  /** When the transport state last changed (undefined: never reported). */
  transportSince: number | undefined;
  today: Counts;
}

export interface LinkHealth extends ConnectionHealth {
  /** The link node's id. */
  node: string;
  /** Its name in the editor, or its id. */
  name: string;
  /** astm (the HL7 link: hl7). */
  protocol: string;
  /** The dialect the message node reads its messages in, once one did. */
  dialect: string | undefined;
  /** TCP connections, open ones first (closed ones are kept until the analyzer is back, or a few at most). */
  connections: ConnectionHealth[];
  /** Result batches held for an operator (failed, uncertain), messages stuck, and results waiting for a person, from the journal. */
  held: number;
  stuck: number;
  waiting: number;
  /** Alarms up on the link: LINK_QUIET / LINK_DOWN (alarms.ts) and HELD (held batches past their warn-after time). */
  alarms: LinkAlarm[];
  /** Where its line goes, once the flows started. */
  line: LineSettings | undefined;
  /** Totals since first deployed, by analyzer name ('' before the analyzer named itself). */
  totals: ReadonlyMap<string, AnalyzerTotals>;
  /** False between a stop and the next deploy (a snapshot of `all` links only). */
  deployed: boolean;
  /** A folder link's files; undefined for a link over a line. */
  files?: FileCounts;
}

/** A folder link's files (lib/protocols/file): what its sidebar row and metrics show beside the counts every link has. */
export interface FileCounts {
  /** Seen and not complete yet, or taken and their results not all delivered. */
  waiting: number;
  /** Of those taken, held for an operator (a batch failed or uncertain). */
  held: number;
  /** The same bytes again under another name, not sent again (since the link was first deployed in this process). */
  duplicates: number;
  /** Put in error/ (unreadable, too big, not understood), since first deployed. */
  errorFiles: number;
  /** Left in the folder unread (links, names that cannot be opened), as its watcher counts them now. */
  untaken: number;
  /** The name of the last file taken. */
  lastFile: string | undefined;
}

export interface LinkAlarm {
  code: AlarmCode | 'HELD';
  /** Since when the link is quiet or down, or the oldest overdue held batch waits. */
  since: number;
  /** LINK_DOWN: the transport state; HELD: how many batches. */
  transport?: TransportState;
  count?: number;
}

export interface HealthSnapshot {
  at: number;
  links: LinkHealth[];
}

export type NakDirection = 'sent' | 'received';

export interface LinkHealthOptions {
  /** Start of the local day `now` is in (tests pass their own zone). */
  startOfDay?: (now: number) => number;
  /** Closed TCP connections kept per link (an analyzer that reconnects takes its row back). */
  maxClosed?: number;
  /** Distinct analyzer names counted apart per link; the rest count under '(other)'. */
  maxAnalyzers?: number;
}

interface Row extends ConnectionHealth {
  /** Where this connection's totals go: the link's totals of its analyzer. */
  totals: AnalyzerTotals;
  closedAt: number | undefined;
}

interface Link extends Row {
  node: string;
  name: string;
  protocol: string;
  dialect: string | undefined;
  /** What the transport itself says when no session is open (listening server, disconnected client, serial port). */
  base: TransportState;
  sessions: Map<string, Row>;
  /**
   * TCP sessions reported closed, most recent last (at most MAX_ENDED): an
   * event that comes after the close (the discarded rest of a frame, bytes the
   * runtime delivers after the close status) counts on the link, and never
   * brings the connection back as open. Node-RED's session ids are random per
   * connection, so a closed one is never opened again by bytes.
   */
  ended: Set<string>;
  held: number;
  stuck: number;
  waiting: number;
  overdue: { count: number; since: number } | undefined;
  line: LineSettings | undefined;
  alarms: Alarm[];
  byAnalyzer: Map<string, AnalyzerTotals>;
  deployed: boolean;
  files: FileCounts | undefined;
}

const OTHER = '(other)';
const MAX_ENDED = 4096;

export class LinkHealthBoard {
  private readonly links = new Map<string, Link>();
  private readonly listeners = new Set<(node: string) => void>();
  private readonly startOfDay: (now: number) => number;
  private readonly maxClosed: number;
  private readonly maxAnalyzers: number;
  /** The end of the day `today` counts are for; the first event after it starts a new day. */
  private dayEnds = -Infinity;

  constructor(options: LinkHealthOptions = {}) {
    this.startOfDay = options.startOfDay ?? localStartOfDay;
    this.maxClosed = options.maxClosed ?? 8;
    this.maxAnalyzers = options.maxAnalyzers ?? 32;
  }

  /** A link node was deployed (again: a redeploy keeps its totals). */
  add(node: string, info: { name: string; protocol: string }, now: number): void {
    this.rollOver(now);
    const known = this.links.get(node);
    if (known) {
      Object.assign(known, { name: info.name, protocol: info.protocol, deployed: true, base: 'unknown', transport: 'unknown', transportSince: undefined, alarms: [] });
      known.sessions.clear();
      known.ended.clear();
    } else {
      const byAnalyzer = new Map<string, AnalyzerTotals>();
      const totals = newTotals();
      byAnalyzer.set('', totals);
      this.links.set(node, { ...newRow(undefined, totals), node, name: info.name, protocol: info.protocol, dialect: undefined, base: 'unknown', sessions: new Map(), ended: new Set(), held: 0, stuck: 0, waiting: 0, overdue: undefined, line: undefined, alarms: [], byAnalyzer, deployed: true, files: undefined });
    }
    this.changed(node);
  }

  /** A link node stopped; `removed` (deleted from the flows) forgets it, a redeploy keeps it for add(). */
  remove(node: string, removed: boolean): void {
    const link = this.links.get(node);
    if (!link) return;
    if (removed) this.links.delete(node);
    else {
      link.deployed = false;
      link.sessions.clear();
      link.ended.clear();
      link.alarms = [];
    }
    this.changed(node);
  }

  /**
   * What the transport reported. Without a session: the link's own transport
   * (the serial port; a TCP server listening, a TCP client disconnected).
   * With one: that TCP connection opened (connected) or closed (disconnected).
   */
  transport(node: string, session: string | undefined, state: TransportState, now: number, peer?: string): void {
    const link = this.links.get(node);
    if (!link) return;
    this.rollOver(now);
    if (session === undefined) link.base = state;
    else if (state === 'connected') this.open(link, session, now, peer);
    else this.close(link, session, now);
    this.settle(link, now);
    this.changed(node);
  }

  /** A complete message from the analyzer (stored, when the journal is on). */
  received(node: string, session: string | undefined, now: number): void {
    this.message(node, session, 'received', 'lastReceived', now);
  }

  /** The analyzer acknowledged a message we sent. */
  sent(node: string, session: string | undefined, now: number): void {
    this.message(node, session, 'sent', 'lastSent', now);
  }

  nak(node: string, session: string | undefined, direction: NakDirection, now: number): void {
    this.count(node, session, direction === 'sent' ? 'naksSent' : 'naksReceived', 1, now);
  }

  error(node: string, session: string | undefined, now: number): void {
    this.count(node, session, 'errors', 1, now);
  }

  /** What the message node read in a message: samples queried and patient results, in `dialect`. */
  read(node: string, session: string | undefined, read: { queries: number; results: number; notForLis?: number; dialect: string }, now: number): void {
    const link = this.links.get(node);
    if (!link) return;
    link.dialect = read.dialect;
    if (read.queries > 0) this.count(node, session, 'queries', read.queries, now);
    if (read.results > 0) this.count(node, session, 'results', read.results, now);
    if ((read.notForLis ?? 0) > 0) this.count(node, session, 'notForLis', read.notForLis!, now);
  }

  /** Where the link's line goes, as its flow set it (after each start: a deploy may change it). */
  line(node: string, settings: LineSettings | undefined): void {
    const link = this.links.get(node);
    if (!link) return;
    link.line = settings;
    this.changed(node);
  }

  /** Results of the link that reached an end, or held ones a person resolved (the journal says when). */
  ended(node: string, ending: ResultEnding, n: number, now: number): void {
    if (n > 0) this.count(node, undefined, ending, n, now);
  }

  /** The analyzer named itself (ASTM H-5, HL7 MSH-3); called only when a message names someone. */
  identified(node: string, session: string | undefined, said: { text: string; name: string }, now: number): void {
    const row = this.row(node, session, now);
    // What the analyzer says is kept short: it is a metrics label and a sidebar row (lib/health/labels).
    const sender = { text: capText(said.text, MAX_SENDER_CHARS), name: capText(said.name) };
    if (!row || row.sender === sender.text) return;
    const link = this.links.get(node)!;
    row.sender = sender.text;
    row.analyzer = sender.name;
    row.totals = this.totalsOf(link, sender.name);
    if (row !== link) {
      // The link row names the analyzer last heard from.
      link.sender = sender.text;
      link.analyzer = sender.name;
      link.totals = row.totals;
    }
    this.changed(node);
  }

  /** Result batches held and messages stuck for this link, from the journal. */
  queues(node: string, counts: QueueCounts): void {
    const link = this.links.get(node);
    const overdue = counts.overdue ? { count: counts.overdue, since: counts.overdueSince ?? 0 } : undefined;
    if (!link || (link.held === counts.held && link.stuck === counts.stuck && link.waiting === counts.waiting && link.overdue?.count === overdue?.count && link.overdue?.since === overdue?.since)) return;
    link.held = counts.held;
    link.stuck = counts.stuck;
    link.waiting = counts.waiting;
    link.overdue = overdue;
    this.changed(node);
  }

  /** A folder link's files as its watcher counts them now (kept over a redeploy: duplicates and errors are totals). */
  files(node: string, counts: Partial<FileCounts>): void {
    const link = this.links.get(node);
    if (!link) return;
    const next = { ...(link.files ?? { waiting: 0, held: 0, duplicates: 0, errorFiles: 0, untaken: 0, lastFile: undefined }), ...counts };
    const before = link.files;
    if (before && (Object.keys(next) as Array<keyof FileCounts>).every((k) => before[k] === next[k])) return;
    link.files = next;
    this.changed(node);
  }

  /** The link's LINK_QUIET / LINK_DOWN alarms as its alarm watch has them now. */
  alarms(node: string, alarms: Alarm[]): void {
    const link = this.links.get(node);
    if (!link) return;
    link.alarms = alarms;
    this.changed(node);
  }

  /** One link, as in a snapshot (the alarm watch's look, without copying every link). */
  link(node: string, now: number): LinkHealth | undefined {
    const link = this.links.get(node);
    if (!link) return undefined;
    this.rollOver(now);
    return this.viewOfLink(link);
  }

  /** Every link ever deployed in this process and not removed: deployed ones only, unless `all`. */
  snapshot(now: number, all = false): HealthSnapshot {
    this.rollOver(now);
    const links: LinkHealth[] = [];
    for (const link of this.links.values()) {
      if (!link.deployed && !all) continue;
      links.push(this.viewOfLink(link));
    }
    return { at: now, links };
  }

  private viewOfLink(link: Link): LinkHealth {
    const connections = [...link.sessions.values()].sort((a, b) => Number(a.closedAt !== undefined) - Number(b.closedAt !== undefined)).map(viewOf);
    const alarms: LinkAlarm[] = link.alarms.map((a) => ({ code: a.code, since: a.since, ...(a.transport === undefined ? {} : { transport: a.transport }) }));
    if (link.overdue) alarms.push({ code: 'HELD', since: link.overdue.since, count: link.overdue.count });
    return { ...viewOf(link), node: link.node, name: link.name, protocol: link.protocol, dialect: link.dialect, connections, held: link.held, stuck: link.stuck, waiting: link.waiting, alarms, line: link.line ? { ...link.line, variables: [...link.line.variables] } : undefined, deployed: link.deployed, totals: new Map([...link.byAnalyzer].map(([k, v]) => [k, { ...v }])), ...(link.files ? { files: { ...link.files } } : {}) };
  }

  /** The ids of the link nodes known (deployed or stopped for a redeploy). */
  nodes(): string[] {
    return [...this.links.keys()];
  }

  /** Whether anyone subscribed (worth keeping held and stuck counts up to date between snapshots). */
  get watched(): boolean {
    return this.listeners.size > 0;
  }

  /** Called with the link node's id after every change; returns the unsubscribe. */
  onChange(listener: (node: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private message(node: string, session: string | undefined, count: 'received' | 'sent', last: keyof Activity, now: number): void {
    const row = this.row(node, session, now);
    if (!row) return;
    const link = this.links.get(node)!;
    link.today[count]++;
    link[last] = now;
    row.totals[count]++;
    row.totals[last] = now;
    if (row !== link) {
      row.today[count]++;
      row[last] = now;
    }
    this.changed(node);
  }

  private count(node: string, session: string | undefined, what: keyof Counts, n: number, now: number): void {
    const row = this.row(node, session, now);
    if (!row) return;
    const link = this.links.get(node)!;
    link.today[what] += n;
    row.totals[what] += n;
    if (row !== link) row.today[what] += n;
    this.changed(node);
  }

  /** The row an event belongs to; a session heard of first through its bytes is open. */
  private row(node: string, session: string | undefined, now: number): Row | undefined {
    const link = this.links.get(node);
    if (!link) return undefined;
    if (now >= this.dayEnds) this.rollOver(now);
    if (session === undefined) {
      // Bytes on a line nothing reported on: it works.
      if (link.base === 'unknown') {
        link.base = 'connected';
        this.settle(link, now);
      }
      return link;
    }
    const row = link.sessions.get(session);
    if (row) return row;
    if (link.ended.has(session)) return link;
    this.open(link, session, now, undefined);
    this.settle(link, now);
    return link.sessions.get(session)!;
  }

  /** An analyzer that reconnects (same address, or a client's one connection) takes its closed row back: one row per analyzer. */
  private open(link: Link, session: string, now: number, peer: string | undefined): void {
    // Only the transport saying so opens an ended session again (row() never does).
    link.ended.delete(session);
    if (link.sessions.has(session)) {
      const row = link.sessions.get(session)!;
      if (row.closedAt !== undefined) setState(row, 'connected', now);
      row.closedAt = undefined;
      return;
    }
    const host = hostOf(peer);
    let back: [string, Row] | undefined;
    for (const entry of link.sessions) if (entry[1].closedAt !== undefined && hostOf(entry[1].peer) === host) back = entry;
    let row: Row;
    if (back) {
      link.sessions.delete(back[0]);
      row = back[1];
      row.session = session;
      row.closedAt = undefined;
    } else row = newRow(session, link.byAnalyzer.get('')!);
    row.peer = peer ?? row.peer;
    setState(row, 'connected', now);
    link.sessions.set(session, row);
  }

  private close(link: Link, session: string, now: number): void {
    link.ended.delete(session);
    link.ended.add(session);
    if (link.ended.size > MAX_ENDED) link.ended.delete(link.ended.values().next().value!);
    const row = link.sessions.get(session);
    if (!row) return;
    row.closedAt = now;
    setState(row, 'disconnected', now);
    // Most recently closed last, the oldest beyond the limit forgotten.
    link.sessions.delete(session);
    link.sessions.set(session, row);
    let closed = 0;
    for (const r of link.sessions.values()) if (r.closedAt !== undefined) closed++;
    for (const [key, r] of link.sessions) {
      if (closed <= this.maxClosed) break;
      if (r.closedAt !== undefined) {
        link.sessions.delete(key);
        closed--;
      }
    }
  }

  /** The link's state: connected while any TCP connection is open, else what its transport said. */
  private settle(link: Link, now: number): void {
    let open = false;
    for (const r of link.sessions.values()) if (r.closedAt === undefined) open = true;
    const state = open ? 'connected' : link.base;
    if (state !== link.transport) setState(link, state, now);
  }

  private totalsOf(link: Link, name: string): AnalyzerTotals {
    const known = link.byAnalyzer.get(name);
    if (known) return known;
    const key = link.byAnalyzer.size >= this.maxAnalyzers ? OTHER : name;
    const totals = link.byAnalyzer.get(key) ?? newTotals();
    link.byAnalyzer.set(key, totals);
    return totals;
  }

  private rollOver(now: number): void {
    if (now < this.dayEnds) return;
    const start = this.startOfDay(now);
    // The next local midnight: 36 h on, then back to its day's start (days of 23 and 25 hours).
    this.dayEnds = this.startOfDay(start + 36 * 3_600_000);
    for (const link of this.links.values()) {
      link.today = newCounts();
      for (const r of link.sessions.values()) r.today = newCounts();
    }
  }

  private changed(node: string): void {
    for (const l of this.listeners) l(node);
  }
}

function localStartOfDay(now: number): number {
  const d = new Date(now);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
}

function newCounts(): Counts {
  return { received: 0, sent: 0, queries: 0, results: 0, naksSent: 0, naksReceived: 0, errors: 0, delivered: 0, heldForPerson: 0, discarded: 0, notForLis: 0, released: 0, dismissed: 0, evaluated: 0 };
}

function newTotals(): AnalyzerTotals {
  return { ...newCounts(), lastReceived: undefined, lastSent: undefined };
}

function newRow(session: string | undefined, totals: AnalyzerTotals): Row {
  return { session, peer: undefined, analyzer: undefined, sender: undefined, transport: 'unknown', transportSince: undefined, lastReceived: undefined, lastSent: undefined, today: newCounts(), totals, closedAt: undefined };
}

function setState(row: Row, state: TransportState, now: number): void {
  row.transport = state;
  row.transportSince = now;
}

/** The address without the port: an analyzer reconnects from a new port. */
function hostOf(peer: string | undefined): string | undefined {
  if (peer === undefined) return undefined;
  const i = peer.lastIndexOf(':');
  return i < 0 ? peer : peer.slice(0, i);
}

function viewOf(row: Row): ConnectionHealth {
  return {
    session: row.session,
    peer: row.peer,
    analyzer: row.analyzer,
    sender: row.sender,
    transport: row.transport,
    transportSince: row.transportSince,
    lastReceived: row.lastReceived,
    lastSent: row.lastSent,
    today: { ...row.today },
  };
}
