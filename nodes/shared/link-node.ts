/**
 * An analyzer-link node, whatever the protocol (astm-link now, the HL7 link
 * next): bytes from serial in / tcp in placed on the link of their connection
 * (lib/link/LinkSessions), what the link writes sent on output 1 with its
 * TCP session, each message received stored before its final ACK (the result
 * journal) and passed on on output 2, each message the analyzer accepted on
 * output 3, the raw trace, and tcp in's connection reports through a Status
 * node. The protocol node supplies its link machine and what it knows of its
 * messages.
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { type LinkMachine, LinkSessions, type SendOptions, type SessionLink, tcpSessionKey, type TransportMode } from '../../lib/link';
import type { TraceFraming } from '../../lib/trace';
import { LisError, invalidInput } from '../../lib/errors';
import { fail } from './lis-request-node';
import { lineBytes, linkTrace } from './link-trace';
import { linkJournal } from './link-journal';
import { boardFor } from './health';
import { sharedTexts, type StatusReporter } from './status';
import { lineSettings, watchTransport } from './transport-watch';
import { watchLine } from './line-status';
import { watchPortShare } from './port-share';
import type { TransportState } from '../../lib/health';
import { raiseWhenStarted } from './setting-status';
import { registerReplayInjector, type CaptureRead } from './replays';
import { installReplayRoutes } from './replay-routes';
import { registerTrace } from './lab-routes';
import { watchAlarms, type LinkAlarmDef, type LinkAlarmSettings } from './link-alarms';
import type { Done, Msg } from './types';

export interface LinkNodeDef extends NodeDef, LinkAlarmDef {
  /** Store each received message in the result journal before its final ACK (default on). */
  journal?: boolean;
  /** Write every unit in and out to a rotated trace file (default on). */
  trace?: boolean;
  /** Blank patient names and birth dates in the trace. */
  traceRedact?: boolean;
  /** serial: one line; tcp: one link per connection; auto (flows from before the setting): serial until a TCP session is seen. */
  transport?: TransportMode;
}

export interface LinkProtocol {
  /** The link machine of a new connection (its key names it in message ids). */
  machine(key: string): LinkMachine;
  /** Who sent a message (to route downloads by name). */
  identify(bytes: Buffer): { text: string; name: string } | undefined;
  /** Whether a message carries results (only those are kept from being processed twice). */
  carriesResults(bytes: Uint8Array): boolean;
  /** Whether a message is stored in the journal before its final ACK (all but queries only: docs/design-notes.md). */
  storedBeforeAck(bytes: Uint8Array): boolean;
  /** How the trace cuts, names and redacts units: the protocol's (ASTM E1381 frames or records only, MLLP). */
  traceFraming: TraceFraming;
  /** What goes with a message to send (HL7: msg.hl7.expectAck). */
  sendOptions?(msg: Msg): SendOptions | undefined;
  /** msg.topic of a message received, and of one to send. */
  messageTopic: string;
  sendTopic: string;
  /** The msg property that says where a message came from and what became of it (msg.astm). */
  about: string;
  /** Whether bytes written or read are a negative acknowledgement (counted for the link's health; one check per write or read). */
  isNak(bytes: Uint8Array): boolean;
  /** The messages in captured text (a paste or trace lines), for an operator's replay through the flow. */
  readCapture(text: string): CaptureRead;
  /**
   * Write what the link writes within one turn of the event loop as one
   * message to tcp out (HL7: an answer of several messages, QCK^Q02 then
   * DSR^Q03). Node-RED's tcp nodes leave Nagle's algorithm on, so a second
   * small write waits for the analyzer to acknowledge the first, up to its
   * delayed-ACK time (40 ms on Linux, 200 ms on Windows). Off for ASTM, whose
   * writes each answer something the analyzer sent.
   */
  coalesceWrites?: boolean;
}

/** `alarmSettings`: from readAlarmSettings (link-alarms.ts), required so that no link is left without its alarms. */
export function runLinkNode(RED: NodeAPI, node: Node, def: LinkNodeDef, status: StatusReporter, protocol: LinkProtocol, alarmSettings: LinkAlarmSettings): void {
  const r = sharedTexts(RED, 'runtime');
  // The link's health (lib/health): counts on the message path, the transport's state from the nodes wired to it.
  const health = boardFor(RED);
  health.add(node.id, { name: node.name || node.id, protocol: protocol.about }, Date.now());
  const sessionOf = (link: SessionLink): string | undefined => (link.tcpSession === undefined ? undefined : link.key);
  const outputs = (def as { wires?: string[][] }).wires?.[0];
  // The line's state on the status: never "idle" while the port or connection is down, a setting unset, or TCP behind a serial link.
  let started = false;
  // A dead line is a condition of the status: it stays over what the link does until the line is back (status.ts).
  const showLine = () => status.condition('transport', share.status() ?? line.status());
  // Another link reading the same serial device keeps it: this one refuses the line (port-share.ts), its port "shared" on the board.
  let portState: TransportState = 'unknown';
  const share = watchPortShare(RED, node, (clash) => {
    health.transport(node.id, undefined, clash ? 'port-shared' : portState, Date.now());
    showLine();
  });
  const line = watchLine(RED, node, def.transport, outputs, () => started && showLine());
  // Where the line goes, for the Lab sidebar to name what to check while it is down: read once every node is built.
  const onStarted = () => health.line(node.id, lineSettings(RED, node, outputs));
  RED.events.on('flows:started', onStarted);
  node.on('close', () => RED.events.removeListener('flows:started', onStarted));
  const stopWatching = watchTransport(RED, node, outputs, (session, state, peer) => {
    if (session === undefined) portState = state;
    if (session !== undefined || !share.clash) health.transport(node.id, session, state, Date.now(), peer);
    line.report(session, state);
  });
  const refuse = (msg: Msg, err: unknown, done: Done): void => {
    health.error(node.id, tcpSessionKey(msg._session), Date.now());
    fail(status, msg, err, done);
    if (err instanceof LisError && err.code === 'TRANSPORT_MISMATCH') line.mismatch();
  };
  const t = sharedTexts(RED, 'link');
  let sentCount = 0;
  const idleStatus = () => ({ fill: 'green', shape: 'dot', text: t('idle', { n: sentCount }) }) as const;
  // An alarm, stuck messages (and a dead transport) stay on the status over what the link does (nodes/shared/status.ts).
  const alarms = watchAlarms(RED, node, alarmSettings);
  const trace = def.trace === false ? undefined : linkTrace(RED, node, { framing: protocol.traceFraming, redact: def.traceRedact === true });
  // The Lab sidebar shows the last units of the trace (read through a permissioned admin route).
  const withdrawTrace = trace ? registerTrace(node.id, { file: trace.file, framing: protocol.traceFraming, redact: def.traceRedact === true }) : () => undefined;
  const emit = (link: Pick<SessionLink, 'tcpSession'> | undefined, bytes: Buffer, about: object): void =>
    node.send([null, withSession({ payload: bytes, topic: protocol.messageTopic, [protocol.about]: { link: node.id, ...about } }, link), null] as never);
  // An operator's replay (nodes/shared/replay-routes.ts) enters the flow here, past the line and the journal.
  installReplayRoutes(RED);
  const stopReplays = registerReplayInjector(node.id, {
    read: protocol.readCapture,
    trace: () => trace,
    inject: (bytes, mark) => emit(undefined, bytes, { replay: mark, receivedAt: new Date().toISOString() }),
  });
  const journal = def.journal !== false ? linkJournal(RED, node, status, t, protocol.carriesResults, (m) => emit(undefined, m.bytes, m.astm)) : undefined;

  // Writes of one event-loop turn, per link, when the protocol coalesces them (coalesceWrites).
  const pending = new Map<SessionLink, Buffer[]>();
  let flushing: NodeJS.Immediate | undefined;
  const flushWrites = (): void => {
    flushing = undefined;
    for (const [link, parts] of pending) node.send([withSession({ payload: parts.length === 1 ? parts[0] : Buffer.concat(parts) }, link), null, null] as never);
    pending.clear();
  };

  const links = new LinkSessions<Msg>(
    {
      mode: def.transport === 'serial' || def.transport === 'tcp' ? def.transport : 'auto',
      machine: protocol.machine,
      identify: protocol.identify,
      idPrefix: node.id,
    },
    {
      write(link, bytes) {
        // Refused while another link keeps the port: the analyzer hears that one only (a transfer under way when the clash began).
        if (share.clash) return;
        if (protocol.isNak(bytes)) health.nak(node.id, sessionOf(link), 'sent', Date.now());
        trace?.record('out', bytes, link.traceName);
        if (protocol.coalesceWrites !== true) return node.send([withSession({ payload: bytes }, link), null, null] as never);
        const parts = pending.get(link);
        if (parts) parts.push(bytes);
        else pending.set(link, [bytes]);
        flushing ??= setImmediate(flushWrites);
      },
      message(link, m, sender) {
        const now = Date.now();
        if (sender) health.identified(node.id, sessionOf(link), sender, now);
        health.received(node.id, sessionOf(link), now);
        if (journal && protocol.storedBeforeAck(m.bytes)) journal.store.store(link.traceName ?? 'line', link.driver, m, (p) => emit(link, p.bytes, p.astm));
        else emit(link, m.bytes, { messageId: m.id, end: m.end, receivedAt: new Date().toISOString() });
      },
      sent(link, msg, id) {
        sentCount++;
        health.sent(node.id, sessionOf(link), Date.now());
        if (!msg) return;
        msg[protocol.about] = { ...(msg[protocol.about] as object), sent: true, messageId: id };
        node.send([null, null, msg] as never);
      },
      failed(link, msg, err) {
        health.error(node.id, sessionOf(link), Date.now());
        const m = msg ?? ({ payload: undefined } as Msg);
        m.error = err.toMsgError();
        status.failed(err);
        node.error(err, m);
      },
      discarded(link, bytes, reason) {
        health.error(node.id, sessionOf(link), Date.now());
        node.warn(r('discarded', { bytes: bytes.length, reason }));
        status.show({ fill: 'yellow', shape: 'ring', text: t('discarded') });
      },
      warning: (text) => node.warn(text),
      state(_link, state, detail) {
        status.show(state === 'idle' ? idleStatus() : { fill: 'blue', shape: 'ring', text: detail });
      },
    },
  );

  // The line first: "idle" must never flash green over a line known to be down.
  started = true;
  showLine();
  status.show(idleStatus());
  if (line.mismatched) raiseWhenStarted(RED, node, links.sawTcp());

  node.on('input', (rawMsg, _send, rawDone) => {
    const msg = rawMsg as Msg;
    const done = rawDone as Done;
    try {
      if (msg.status !== undefined && msg.payload === undefined) {
        const mismatch = links.report(msg.status, Date.now());
        return mismatch ? refuse(msg, mismatch, done) : done();
      }
      const bytes = lineBytes(msg.payload);
      const shared = share.error();
      if (msg.topic === protocol.sendTopic) {
        if (shared) return refuse(msg, shared, done);
        if (!bytes) return refuse(msg, invalidInput('nothing sent', ['msg.payload of a message to send must be the message text (string) or bytes (Buffer)']), done);
        const link = links.send(msg._session, typeof msg.analyzer === 'string' ? msg.analyzer : undefined, bytes, msg, protocol.sendOptions?.(msg));
        if (link instanceof LisError) return refuse(msg, link, done);
        withSession(msg, link);
        return done();
      }
      // The bytes another link keeps: not answered, stored nor passed on (raised once, as the clash began).
      if (shared) return done();
      if (!bytes) return refuse(msg, invalidInput('not read', ['msg.payload must be the bytes read from the line (Buffer or string)']), done);
      const link = links.place(msg._session, { ...(typeof msg.ip === 'string' ? { address: msg.ip } : {}), ...(typeof msg.port === 'number' ? { port: msg.port } : {}) }, Date.now());
      if (link instanceof LisError) return refuse(msg, link, done);
      if (protocol.isNak(bytes)) health.nak(node.id, sessionOf(link), 'received', Date.now());
      trace?.record('in', bytes, link.traceName);
      link.driver.receive(bytes);
      done();
    } catch (err) {
      refuse(msg, err, done);
    }
  });

  node.on('close', (removed: boolean, done: () => void) => {
    if (flushing) clearImmediate(flushing);
    flushWrites();
    stopWatching();
    share.close();
    stopReplays();
    alarms.close();
    withdrawTrace();
    health.remove(node.id, removed);
    for (const msg of links.close()) {
      const err = new LisError(r('cancelledSend'), { code: 'CANCELLED' });
      msg.error = err.toMsgError();
      node.error(err, msg);
    }
    status.clear();
    void Promise.allSettled([journal?.close(), trace?.close()]).then(() => done());
  });
}

function withSession(msg: Msg, link: Pick<SessionLink, 'tcpSession'> | undefined): Msg {
  if (link?.tcpSession !== undefined) msg._session = link.tcpSession;
  return msg;
}
