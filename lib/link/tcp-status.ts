/**
 * What Node-RED's `tcp in` node says about its connections. It reports them
 * only through its status (a Status node passes them on as msg.status):
 * as a server, `event: 'connect' | 'disconnect'` with the peer's ip and port;
 * as a client, the texts `common.status.connected` / `common.status.disconnected`.
 * Both carry the connection's `_session`, the same one its reads carry.
 */
import type { Peer } from './session-book';

export type TcpConnectionEvent = { kind: 'opened' | 'closed'; key: string; peer: Peer };

/** The session of a message or status, when it is a TCP one (a session made by hand may omit its type). */
export function tcpSessionKey(session: unknown): string | undefined {
  if (typeof session !== 'object' || session === null) return undefined;
  const s = session as { type?: unknown; id?: unknown };
  if ((s.type !== 'tcp' && s.type !== undefined) || (typeof s.id !== 'string' && typeof s.id !== 'number')) return undefined;
  return String(s.id);
}

/** The connection event in a tcp node's status, or undefined for any other status. */
export function tcpConnectionEvent(status: unknown): TcpConnectionEvent | undefined {
  if (typeof status !== 'object' || status === null) return undefined;
  const s = status as Record<string, unknown>;
  const key = tcpSessionKey(s._session);
  if (key === undefined) return undefined;
  const peer: Peer = {};
  if (typeof s.ip === 'string') peer.address = s.ip;
  if (typeof s.port === 'number') peer.port = s.port;
  if (s.event === 'connect' || s.text === 'common.status.connected') return { kind: 'opened', key, peer };
  if (s.event === 'disconnect' || s.text === 'common.status.disconnected') return { kind: 'closed', key, peer };
  return undefined;
}
