/**
 * astm-link: the ASTM E1381 link layer between a serial (or TCP) node and the
 * rest of the flow.
 *
 * Input: line bytes (msg.payload Buffer or string, from serial in / tcp in),
 * or, with msg.topic "astm:send", a message to transmit (its records, CR-ended).
 * Output 1: bytes to write to the line (wire to serial out / tcp out).
 * Output 2: each complete message received (msg.payload = its bytes).
 * Output 3: each message we sent, once the analyzer acknowledged it.
 * Over TCP, one link per connection (msg._session), so one node serves a TCP
 * server; a Status node watching the tcp in node tells it when connections
 * open and close (lib/sessions).
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { AstmLink, DEFAULT_OPTIONS } from '../lib/astm/link';
import { readWholeNumbers } from '../lib/util/settings';
import type { LinkAction } from '../lib/astm/link/actions';
import { LinkDriver, type LinkMachine } from '../lib/astm/link-driver';
import { UnframedLink } from '../lib/astm/unframed-link';
import { LisError, invalidInput } from '../lib/lis/errors';
import type { Request, Response } from 'express';
import { fail } from './shared/lis-request-node';
import { adminUser, installRoutesOnce } from './shared/admin';
import { bridgeSettings, journalFor } from './shared/journal';
import { FrameTrace } from '../lib/trace';
import { join } from 'node:path';
import type { ResultJournal } from '../lib/journal/journal';
import { LinkStore } from '../lib/journal/link-store';
import { StatusReporter, sharedTexts } from './shared/status';
import { ASTM_MESSAGE_TOPIC, ASTM_SEND_TOPIC, type Done, type Msg } from './shared/types';
import { LINE, SessionBook, type TransportMode } from '../lib/sessions/session-book';
import { tcpConnectionEvent, tcpSessionKey } from '../lib/sessions/tcp-status';
import { carriesResults, messageSender } from '../lib/astm/records/peek';
import type { MessageRecord } from '../lib/journal/journal';

interface Def extends NodeDef {
  framing?: 'framed' | 'unframed';
  checksums?: boolean;
  framePerRecord?: boolean;
  frameTextMax?: string | number;
  replyTimeoutMs?: string | number;
  receiveTimeoutMs?: string | number;
  busyWaitMs?: string | number;
  contentionWaitMs?: string | number;
  retryDelayMs?: string | number;
  /** Store each received message in the result journal before its final ACK (default on). */
  journal?: boolean;
  /** Write every unit in and out to a rotated trace file (default on). */
  trace?: boolean;
  /** Blank patient names and birth dates in the trace. */
  traceRedact?: boolean;
  /** serial: one line; tcp: one link per connection; auto (flows from before the setting): serial until a TCP session is seen. */
  transport?: TransportMode;
}

/** Deployed astm-link nodes by id, for the admin endpoint that replays a stuck message. */
const replayers = new Map<string, (id: string) => Promise<void>>();

/** Links kept at once (one per TCP connection); far more than one Node-RED should serve. */
const MAX_SESSIONS = 1024;

/** A replayed message not settled this long after its replay is given up on (stuck) and reported. */
const STUCK_AFTER_MS = 60_000;

interface Session {
  key: string;
  driver: LinkDriver;
  /** The messages asked to be sent, by link message id, until sent or failed. */
  outgoing: Map<string, { msg: Msg }>;
  /** Node-RED's TCP session of this link, echoed on the bytes we write. */
  session: unknown;
  /** The session's name in the trace (undefined for the one serial line). */
  traceName: string | undefined;
  /** Set when the transport reported the connection closed: what fails now fails for that reason. */
  closedReason?: string;
}

export = function register(RED: NodeAPI): void {
  installRoutesOnce(RED, 'stuck', () => installStuckRoutes(RED));

  function AstmLinkNode(this: Node, def: Def) {
    RED.nodes.createNode(this, def);
    const node = this;
    const status = new StatusReporter(RED, node);
    const t = sharedTexts(RED, 'link');
    const sessions = new Map<string, Session>();
    const book = new SessionBook(def.transport === 'serial' || def.transport === 'tcp' ? def.transport : 'auto');
    let sentCount = 0;
    let nextId = 0;

    // LIS1-A's values as defaults (lib/astm/link/options.ts); a bad value is refused, not replaced.
    const { values: numbers, errors } = readWholeNumbers(def as unknown as Record<string, unknown>, {
      frameTextMax: { setting: 'frameTextMax', min: 1, fallback: DEFAULT_OPTIONS.frameTextMax },
      replyTimeoutMs: { setting: 'replyTimeoutMs', min: 1, fallback: DEFAULT_OPTIONS.replyTimeoutMs },
      receiveTimeoutMs: { setting: 'receiveTimeoutMs', min: 1, fallback: DEFAULT_OPTIONS.receiveTimeoutMs },
      busyWaitMs: { setting: 'busyWaitMs', min: 0, fallback: DEFAULT_OPTIONS.busyWaitMs },
      contentionWaitMs: { setting: 'contentionWaitMs', min: 1, fallback: DEFAULT_OPTIONS.contentionWaitMs },
      retryDelayMs: { setting: 'retryDelayMs', min: 0, fallback: DEFAULT_OPTIONS.retryDelayMs },
    });
    if (errors.length > 0) {
      const err = new LisError(`astm-link is misconfigured: ${errors.join('; ')}`, { code: 'NOT_CONFIGURED', errors });
      status.failed(err);
      node.error(err, { payload: undefined, error: err.toMsgError() });
      node.on('input', (msg, _send, done) => fail(status, msg as Msg, err, done as Done));
      return;
    }
    const journaled = def.journal !== false;
    const options = { checksums: def.checksums !== false, framePerRecord: def.framePerRecord === true, holdFinalAck: journaled, ...numbers };
    const journal: Promise<ResultJournal> | undefined = journaled ? journalFor(RED) : undefined;
    const store = journal
      ? new LinkStore(journal, node.id, {
          warn: (text) => node.warn(text),
          failed: (err, bytes) => {
            status.failed(err);
            node.error(err, { payload: bytes, error: err.toMsgError() });
          },
        }, { carriesResults })
      : undefined;
    let closed = false;
    const trace = def.trace === false ? undefined : openTrace();
    journal?.catch((err: unknown) => {
      const e = new LisError(`the result journal could not be opened (${err instanceof Error ? err.message : String(err)}): every message is refused with NAK, so the analyzer keeps it, until the journal opens (fix the cause, then redeploy or restart)`, { code: 'JOURNAL' });
      status.failed(e);
      node.error(e, { payload: undefined, error: e.toMsgError() });
    });

    const sessionFor = (key: string): Session => {
      const known = sessions.get(key);
      if (known) {
        // Most recently used last, so the oldest idle session is the first to go.
        sessions.delete(key);
        sessions.set(key, known);
        return known;
      }
      const machine: LinkMachine =
        def.framing === 'unframed'
          ? new UnframedLink({ receiveTimeoutMs: options.receiveTimeoutMs })
          : new AstmLink({ ...options, messageIdPrefix: `${node.id}-${key}` });
      const created = { key, outgoing: new Map<string, { msg: Msg }>(), session: key === LINE ? undefined : { type: 'tcp', id: key }, traceName: key === LINE ? undefined : key } as Session;
      created.driver = new LinkDriver(machine, (action) => onAction(created, action));
      sessions.set(key, created);
      forgetIdleSessions();
      return created;
    };

    /** TCP analyzers reconnect with new session ids: keep at most MAX_SESSIONS links, dropping idle ones first. */
    function forgetIdleSessions(): void {
      for (const [key, s] of sessions) {
        if (sessions.size <= MAX_SESSIONS) break;
        if (s.driver.state === 'idle' && s.outgoing.size === 0) {
          s.driver.close();
          sessions.delete(key);
          book.forget(key);
        }
      }
    }

    function onAction(s: Session, action: LinkAction): void {
      switch (action.type) {
        case 'write':
          trace?.record('out', action.bytes, s.traceName);
          node.send([withSession({ payload: action.bytes }, s), null, null] as never);
          break;
        case 'message': {
          const who = messageSender(action.bytes);
          if (who) book.identified(s.key, who.text, who.name);
          if (store) store.store(s.traceName ?? 'line', s.driver, action, (m) => emitMessage(s, m.bytes, m.astm));
          else emitMessage(s, action.bytes, { messageId: action.id, end: action.end, receivedAt: new Date().toISOString() });
          break;
        }
        case 'sent': {
          const pending = s.outgoing.get(action.id);
          s.outgoing.delete(action.id);
          sentCount++;
          if (pending) {
            pending.msg.astm = { ...(pending.msg.astm as object), sent: true, messageId: action.id };
            node.send([null, null, pending.msg] as never);
          }
          break;
        }
        case 'sendFailed': {
          const pending = s.outgoing.get(action.id);
          s.outgoing.delete(action.id);
          const err = s.closedReason
            ? new LisError(`message ${action.id} was not sent: ${s.closedReason}`, { code: 'CONNECTION_CLOSED' })
            : new LisError(`the analyzer did not accept message ${action.id}: ${action.reason}`, { code: 'SEND_FAILED' });
          const msg = pending?.msg ?? ({ payload: undefined } as Msg);
          msg.error = err.toMsgError();
          status.failed(err);
          node.error(err, msg);
          break;
        }
        case 'discarded': {
          const text = `partial message discarded (${action.bytes.length} bytes): ${action.reason}`;
          node.warn(text);
          node.status({ fill: 'yellow', shape: 'ring', text: t('discarded') });
          break;
        }
        case 'warning':
          node.warn(action.text);
          break;
        case 'state':
          node.status({ fill: action.state === 'idle' ? 'green' : 'blue', shape: action.state === 'idle' ? 'dot' : 'ring', text: action.state === 'idle' ? t('idle', { n: sentCount }) : action.detail });
          break;
      }
    }

    function emitMessage(s: Pick<Session, 'session'>, bytes: Buffer, astm: Record<string, unknown>): void {
      node.send([null, withSession({ payload: bytes, topic: ASTM_MESSAGE_TOPIC, astm: { link: node.id, ...astm } }, s), null] as never);
    }

    /** Messages stored and ACKed before a restart (or redeploy) but never handed to the LIS: processed again. */
    async function replay(): Promise<void> {
      if (!store || closed) return;
      // What earlier runs gave up on is said first: it waits for an operator, not for this start.
      reportStuck((await journal!).stuck().filter((m) => m.link === node.id && m.stuck !== undefined));
      const n = await store.replay((m) => emitMessage({ session: undefined }, m.bytes, m.astm));
      if (n > 0) {
        node.warn(`${n} message(s) stored before the last stop but never handed to the LIS were processed again`);
        node.status({ fill: 'yellow', shape: 'dot', text: t('replayed', { n }) });
      }
    }

    /** Each stuck message: a warning with its samples, a STUCK error for Catch nodes, a red status. */
    function reportStuck(stuck: MessageRecord[]): void {
      if (stuck.length === 0) return;
      for (const m of stuck) {
        const samples = m.samples?.length ? `sample(s) ${m.samples.join(', ')}` : 'sample numbers unknown (the message was never translated)';
        const why = m.stuck ?? 'it was replayed after a restart';
        const err = new LisError(
          `message ${m.id} received ${new Date(m.at).toISOString()}, ${samples}, never reached the LIS: ${why}. Fix the cause, then replay it (POST /lis-bridge/stuck/${m.id}/replay) or dismiss it`,
          { code: 'STUCK' },
        );
        node.error(err, { payload: { id: m.id, samples: m.samples ?? [], receivedAt: new Date(m.at).toISOString() }, error: err.toMsgError() });
      }
      node.status({ fill: 'red', shape: 'ring', text: t('stuck', { n: stuck.length }) });
    }
    const stuckTimer = store
      ? setInterval(() => {
          store.giveUp(Date.now(), STUCK_AFTER_MS, `its replay after a restart had still not reached the LIS ${STUCK_AFTER_MS / 1000} s later`).then(reportStuck, (err: unknown) => node.warn(String(err)));
        }, 10_000)
      : undefined;
    stuckTimer?.unref();
    if (store) replayers.set(node.id, (id) => store.replayStuck(id, (m) => emitMessage({ session: undefined }, m.bytes, m.astm)));
    const onFlowsStarted = () => void replay().catch((err: unknown) => node.error(err));
    if (journal) RED.events.once('flows:started', onFlowsStarted);

    /** The raw trace of this link: the bytes behind any disputed result. */
    function openTrace(): FrameTrace {
      const settings = bridgeSettings(RED);
      return new FrameTrace({
        dir: join(settings.dir, 'trace'),
        name: node.id,
        framed: def.framing !== 'unframed',
        maxBytes: settings.trace.maxBytes,
        maxFiles: settings.trace.maxFiles,
        maxAgeDays: settings.retentionDays,
        redact: def.traceRedact === true,
        // The link keeps working without its trace; the trace reports at most once a minute.
        onError: (err) => node.warn(`frame trace not written: ${err.message}`),
      });
    }

    node.status({ fill: 'green', shape: 'dot', text: t('idle', { n: 0 }) });

    node.on('input', (rawMsg, _send, rawDone) => {
      const msg = rawMsg as Msg;
      const done = rawDone as Done;
      try {
        if (msg.status !== undefined && msg.payload === undefined) return connectionReport(msg.status, done);
        if (msg.topic === ASTM_SEND_TOPIC) {
          const bytes = toBytes(msg.payload);
          if (!bytes) return fail(status, msg, invalidInput('nothing sent', ['msg.payload of an astm:send message must be the message text (string) or bytes (Buffer)']), done);
          const route = book.route({ session: book.tcp ? tcpSessionKey(msg._session) : undefined, analyzer: typeof msg.analyzer === 'string' ? msg.analyzer : undefined });
          if ('code' in route) return fail(status, msg, new LisError(route.message, { code: route.code }), done);
          const s = sessionFor(route.key);
          if (s.session !== undefined) msg._session = s.session;
          const id = `${node.id}-tx-${++nextId}`;
          s.outgoing.set(id, { msg });
          s.driver.send(bytes, id);
          return done();
        }
        const bytes = toBytes(msg.payload);
        if (!bytes) return fail(status, msg, invalidInput('not read', ['msg.payload must be the bytes read from the line (Buffer or string)']), done);
        const key = book.mode === 'serial' ? LINE : (tcpSessionKey(msg._session) ?? LINE);
        if (key === LINE && book.mode === 'tcp') {
          return fail(status, msg, new LisError('astm-link is set to TCP, but these bytes carry no TCP session (msg._session): wire the tcp in node straight to astm-link, so answers go back on the connection they came from', { code: 'NO_SESSION' }), done);
        }
        book.received(key, { ...(typeof msg.ip === 'string' ? { address: msg.ip } : {}), ...(typeof msg.port === 'number' ? { port: msg.port } : {}) }, Date.now());
        const s = sessionFor(key);
        trace?.record('in', bytes, s.traceName);
        s.driver.receive(bytes);
        done();
      } catch (err) {
        fail(status, msg, err, done);
      }
    });

    /** A tcp in node's status, through a Status node: connections opened and closed. */
    function connectionReport(report: unknown, done: Done): void {
      const event = tcpConnectionEvent(report);
      if (event?.kind === 'opened') book.opened(event.key, event.peer, Date.now());
      if (event?.kind === 'closed') {
        book.closed(event.key);
        const s = sessions.get(event.key);
        if (s) {
          sessions.delete(event.key);
          s.closedReason = 'the TCP connection to the analyzer closed';
          s.driver.disconnect(s.closedReason);
        }
      }
      done();
    }

    node.on('close', (_removed: boolean, done: () => void) => {
      closed = true;
      RED.events.removeListener('flows:started', onFlowsStarted);
      replayers.delete(node.id);
      for (const s of sessions.values()) {
        s.driver.close();
        for (const { msg } of s.outgoing.values()) {
          const err = new LisError('not sent: the flow was stopped before the analyzer accepted it', { code: 'CANCELLED' });
          msg.error = err.toMsgError();
          node.error(err, msg);
        }
      }
      sessions.clear();
      node.status({});
      if (stuckTimer) clearInterval(stuckTimer);
      // A message being stored finishes first, so the next start finds it in the journal.
      const stopping = store?.close().then((stuck) => {
        for (const m of stuck) node.warn(`message ${m.id} (${m.samples?.join(', ') || 'samples unknown'}) was replayed after a restart and had not reached the LIS when the flow stopped: listed as stuck`);
      });
      void Promise.allSettled([stopping, trace?.close()]).then(() => done());
    });
  }

  RED.nodes.registerType('astm-link', AstmLinkNode as never);
};

/**
 * A stuck message (stored, replayed once after a restart, and still never
 * handed to the LIS, e.g. its tests were not mapped) waits for an operator:
 * replay it once more after fixing the cause, or dismiss it.
 */
function installStuckRoutes(RED: NodeAPI): void {
  const admin = RED.httpAdmin as unknown as { post: (path: string, ...h: unknown[]) => void };
  const withStuck = (act: (journal: ResultJournal, link: string, id: string, req: Request) => Promise<void>) => (req: Request, res: Response) => {
    const id = String(req.params.id);
    journalFor(RED)
      .then(async (journal) => {
        const m = journal.stuck().find((x) => x.id === id);
        if (!m) return void res.status(404).json({ error: `no stuck message ${id}` });
        try {
          await act(journal, m.link, id, req);
          res.json({ id, link: m.link });
        } catch (err) {
          res.status(409).json({ error: err instanceof Error ? err.message : String(err) });
        }
      })
      .catch((err: unknown) => res.status(500).json({ error: err instanceof Error ? err.message : String(err) }));
  };
  admin.post(
    '/lis-bridge/stuck/:id/replay',
    RED.auth.needsPermission('lis.write'),
    withStuck(async (_journal, link, id) => {
      const replay = replayers.get(link);
      if (!replay) throw new Error(`the astm-link node ${link} that received message ${id} is not deployed (or its journal is off)`);
      await replay(id);
    }),
  );
  admin.post('/lis-bridge/stuck/:id/dismiss', RED.auth.needsPermission('lis.write'), withStuck((journal, _link, id, req) => journal.dismiss(id, adminUser(req))));
}

/** Serial and TCP nodes give Buffers in binary mode; strings are taken as latin1 so every byte survives. */
function toBytes(payload: unknown): Buffer | undefined {
  if (Buffer.isBuffer(payload)) return payload;
  if (payload instanceof Uint8Array) return Buffer.from(payload);
  if (typeof payload === 'string') return Buffer.from(payload, 'latin1');
  return undefined;
}

function withSession(msg: Msg, s: Pick<Session, 'session'>): Msg {
  if (s.session !== undefined) msg._session = s.session;
  return msg;
}
