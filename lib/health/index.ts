/** Link health: counts, transport state, alarms and the queues report. What nodes/ uses of it. */
export { type Alarm, type AlarmChange, type AlarmRules, type ClearReason, LinkAlarms, localTime, parseActivityRule } from './alarms';
export { type Counts, type FileCounts, type HealthSnapshot, type LineSettings, type LinkHealth, LinkHealthBoard, type ResultEnding, TRANSPORT_STATES, type TransportState } from './link-health';
export { queuesByLink } from './queues';
export { transportReport } from './transport-status';
export { type OrderGap, OrderGaps } from './order-gaps';
