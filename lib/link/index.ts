/** The analyzer link, whatever its protocol: sessions over TCP or serial and where a message for the analyzer goes. What nodes/ uses of it. */
export { type LinkMachine, type SendOptions } from './driver';
export { LinkSessions, type SessionLink } from './link-sessions';
export { type TransportMode } from './session-book';
export { tcpSessionKey } from './tcp-status';
export { PortClaims, type PortClash, type PortKeeper } from './port-claims';
