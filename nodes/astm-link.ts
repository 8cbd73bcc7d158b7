/**
 * astm-link: the ASTM E1381 link layer between a serial (or TCP) node and the
 * rest of the flow.
 *
 * Input: line bytes (msg.payload Buffer or string, from serial in / tcp in),
 * a message to transmit (msg.topic "astm:send", its records CR-ended), or a
 * tcp in node's status (through a Status node: connections opening and closing).
 * Output 1: bytes to write to the line (wire to serial out / tcp out).
 * Output 2: each complete message received (msg.payload = its bytes).
 * Output 3: each message we sent, once the analyzer acknowledged it.
 * Over TCP, one link per connection (lib/sessions/LinkSessions).
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { linkMachine } from '../lib/astm/link-machine';
import { carriesResults, messageSender } from '../lib/astm/records/peek';
import { LinkSessions, type SessionLink } from '../lib/sessions/link-sessions';
import type { TransportMode } from '../lib/sessions/session-book';
import { LisError, invalidInput } from '../lib/errors';
import { readNodeSettings } from '../lib/settings/node-settings';
import { fail, refuseMisconfigured } from './shared/lis-request-node';
import { lineBytes, linkTrace } from './shared/link-trace';
import { linkJournal } from './shared/link-journal';
import { StatusReporter, sharedTexts } from './shared/status';
import { ASTM_MESSAGE_TOPIC, ASTM_SEND_TOPIC, type Done, type Msg } from './shared/types';

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

export = function register(RED: NodeAPI): void {
  const r = sharedTexts(RED, 'runtime');
  function AstmLinkNode(this: Node, def: Def) {
    RED.nodes.createNode(this, def);
    const node = this;
    const status = new StatusReporter(RED, node);
    const t = sharedTexts(RED, 'link');
    let sentCount = 0;

    // LIS1-A's values as defaults; a bad value is refused, not replaced.
    const { values: numbers, errors } = readNodeSettings('astm-link', def as unknown as Record<string, unknown>);
    if (errors.length > 0) return refuseMisconfigured(RED, node, status, errors);
    const journaled = def.journal !== false;
    const options = { checksums: def.checksums !== false, framePerRecord: def.framePerRecord === true, holdFinalAck: journaled, ...numbers };
    const trace = def.trace === false ? undefined : linkTrace(RED, node, { framed: def.framing !== 'unframed', redact: def.traceRedact === true });
    const emit = (link: Pick<SessionLink, 'tcpSession'> | undefined, bytes: Buffer, astm: object): void =>
      node.send([null, withSession({ payload: bytes, topic: ASTM_MESSAGE_TOPIC, astm: { link: node.id, ...astm } }, link), null] as never);
    const journal = journaled ? linkJournal(RED, node, status, t, carriesResults, (m) => emit(undefined, m.bytes, m.astm)) : undefined;

    const links = new LinkSessions<Msg>(
      {
        mode: def.transport === 'serial' || def.transport === 'tcp' ? def.transport : 'auto',
        machine: (key) => linkMachine(def.framing !== 'unframed', { ...options, messageIdPrefix: `${node.id}-${key}` }),
        identify: messageSender,
        idPrefix: node.id,
      },
      {
        write(link, bytes) {
          trace?.record('out', bytes, link.traceName);
          node.send([withSession({ payload: bytes }, link), null, null] as never);
        },
        message(link, m) {
          if (journal) journal.store.store(link.traceName ?? 'line', link.driver, m, (p) => emit(link, p.bytes, p.astm));
          else emit(link, m.bytes, { messageId: m.id, end: m.end, receivedAt: new Date().toISOString() });
        },
        sent(_link, msg, id) {
          sentCount++;
          if (!msg) return;
          msg.astm = { ...(msg.astm as object), sent: true, messageId: id };
          node.send([null, null, msg] as never);
        },
        failed(_link, msg, err) {
          const m = msg ?? ({ payload: undefined } as Msg);
          m.error = err.toMsgError();
          status.failed(err);
          node.error(err, m);
        },
        discarded(_link, bytes, reason) {
          node.warn(r('discarded', { bytes: bytes.length, reason }));
          node.status({ fill: 'yellow', shape: 'ring', text: t('discarded') });
        },
        warning: (text) => node.warn(text),
        state(_link, state, detail) {
          const idle = state === 'idle';
          node.status({ fill: idle ? 'green' : 'blue', shape: idle ? 'dot' : 'ring', text: idle ? t('idle', { n: sentCount }) : detail });
        },
      },
    );

    node.status({ fill: 'green', shape: 'dot', text: t('idle', { n: 0 }) });

    node.on('input', (rawMsg, _send, rawDone) => {
      const msg = rawMsg as Msg;
      const done = rawDone as Done;
      try {
        if (msg.status !== undefined && msg.payload === undefined) {
          links.report(msg.status, Date.now());
          return done();
        }
        const bytes = lineBytes(msg.payload);
        if (msg.topic === ASTM_SEND_TOPIC) {
          if (!bytes) return fail(status, msg, invalidInput('nothing sent', ['msg.payload of an astm:send message must be the message text (string) or bytes (Buffer)']), done);
          const link = links.send(msg._session, typeof msg.analyzer === 'string' ? msg.analyzer : undefined, bytes, msg);
          if (link instanceof LisError) return fail(status, msg, link, done);
          withSession(msg, link);
          return done();
        }
        if (!bytes) return fail(status, msg, invalidInput('not read', ['msg.payload must be the bytes read from the line (Buffer or string)']), done);
        const link = links.place(msg._session, { ...(typeof msg.ip === 'string' ? { address: msg.ip } : {}), ...(typeof msg.port === 'number' ? { port: msg.port } : {}) }, Date.now());
        if (link instanceof LisError) return fail(status, msg, link, done);
        trace?.record('in', bytes, link.traceName);
        link.driver.receive(bytes);
        done();
      } catch (err) {
        fail(status, msg, err, done);
      }
    });

    node.on('close', (_removed: boolean, done: () => void) => {
      for (const msg of links.close()) {
        const err = new LisError(r('cancelledSend'), { code: 'CANCELLED' });
        msg.error = err.toMsgError();
        node.error(err, msg);
      }
      node.status({});
      void Promise.allSettled([journal?.close(), trace?.close()]).then(() => done());
    });
  }

  RED.nodes.registerType('astm-link', AstmLinkNode as never);
};

function withSession(msg: Msg, link: Pick<SessionLink, 'tcpSession'> | undefined): Msg {
  if (link?.tcpSession !== undefined) msg._session = link.tcpSession;
  return msg;
}
