/** A link's transport as the health board and the alarms see it (a leaf both import, so neither imports the other). */
export type TransportState = 'unknown' | 'connected' | 'disconnected' | 'listening' | 'port-missing' | 'port-shared';
export const TRANSPORT_STATES: readonly TransportState[] = ['unknown', 'connected', 'disconnected', 'listening', 'port-missing', 'port-shared'];
