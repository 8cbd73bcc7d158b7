/**
 * What the statuses of the transport nodes beside a link say about the line,
 * read into the link health model's terms. Node-RED's transport nodes report
 * their state only through their status:
 * - `tcp in` as a server: one status per connection opened or closed
 *   (`event: 'connect' | 'disconnect'`, the peer, the `_session`), and between
 *   them a count of connections with no session;
 * - `tcp in` as a client: `common.status.connecting` while it tries, then
 *   `common.status.connected` / `disconnected` with the `_session`;
 * - `serial in` / `serial out` (node-red-node-serialport): `common.status.connected`
 *   when the port opened, `common.status.not-connected` when it closed or could
 *   not open, `serial.status.stopped` when stopped.
 * Texts arrive as catalog keys, with the catalog's namespace or without.
 */
import { tcpConnectionEvent } from '../link/tcp-status';
import type { TransportState } from './transport-state';

export interface TransportReport {
  /** The TCP connection it is about; undefined: the link's transport itself. */
  session: string | undefined;
  state: TransportState;
  peer?: string;
  /** A serial port that is not connected: whether its device exists decides disconnected or port-missing. */
  serialClosed?: boolean;
}

/** The report in a transport node's status, or undefined when the status says nothing about the line. */
export function transportReport(nodeType: string, status: unknown): TransportReport | undefined {
  if (typeof status !== 'object' || status === null) return undefined;
  const s = status as { text?: unknown; event?: unknown };
  const text = typeof s.text === 'string' ? s.text : '';
  if (nodeType === 'tcp in') {
    const event = tcpConnectionEvent(status);
    if (event) {
      const peer = event.peer.address === undefined ? undefined : event.peer.port === undefined ? event.peer.address : `${event.peer.address}:${event.peer.port}`;
      return { session: event.key, state: event.kind === 'opened' ? 'connected' : 'disconnected', ...(peer === undefined ? {} : { peer }) };
    }
    if (isKey(text, 'common.status.connecting')) return { session: undefined, state: 'disconnected' };
    // A server's count of connections (translated text, no session): it listens.
    if (text !== '' && s.event === undefined) return { session: undefined, state: 'listening' };
    return undefined;
  }
  if (nodeType.startsWith('serial ')) {
    if (isKey(text, 'common.status.connected')) return { session: undefined, state: 'connected' };
    if (isKey(text, 'common.status.not-connected') || isKey(text, 'serial.status.stopped')) return { session: undefined, state: 'disconnected', serialClosed: true };
  }
  return undefined;
}

function isKey(text: string, key: string): boolean {
  return text === key || text.endsWith(`:${key}`);
}
