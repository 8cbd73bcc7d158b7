/**
 * Every numeric setting of every node, once: its property name as the flow
 * stores it, its range and its default. The runtime reads a node's properties
 * with these rules, and the build (scripts/build.mjs) writes the same defaults,
 * ranges and placeholders into the editor dialogs, so a default is never
 * written twice and the dialog never accepts what the node then refuses.
 */
import { DEFAULT_OPTIONS } from '../astm/link/options';
import { DEFAULT_HL7_LINK } from '../hl7/link-machine';
import { DEFAULT_TUNING } from '../lis/client';
import { readWholeNumbers } from '../util/settings';
import type { SettingFault } from './unresolved';

export interface NumericSetting {
  min: number;
  max?: number;
  default: number;
  /** Decimals allowed (minutes, where a fraction is a few seconds). */
  fraction?: boolean;
}

/** The alarm settings of every analyzer-link node (lib/health/alarms.ts; read by nodes/shared/link-alarms.ts): 0 = no rule. */
export const ALARM_SETTINGS = {
  quietMinutes: { min: 0, default: 0, fraction: true },
  downMinutes: { min: 0, default: 0, fraction: true },
  alarmCheckSeconds: { min: 1, default: 30 },
} as const satisfies Record<string, NumericSetting>;

export const NODE_SETTINGS = {
  'lis-config': {
    timeout: { min: 1, default: DEFAULT_TUNING.timeoutMs },
    orderAttempts: { min: 1, default: DEFAULT_TUNING.orderAttempts },
    orderBackoffMs: { min: 0, default: DEFAULT_TUNING.orderBackoffMs },
    transientRetries: { min: 0, default: DEFAULT_TUNING.transientRetries },
    transientBackoffMs: { min: 0, default: DEFAULT_TUNING.transientBackoffMs },
    maxResponseBytes: { min: 1024, default: DEFAULT_TUNING.maxResponseBytes },
  },
  'lis-push-in': {
    // Spec 4.6 names the setting LocalAPIPort; 8181 on loopback exposes nothing until an integrator chooses to.
    localApiPort: { min: 0, max: 65535, default: 8181 },
    bodyLimit: { min: 1, default: 1024 * 1024 },
    headersTimeoutMs: { min: 1, default: 10_000 },
    requestTimeoutMs: { min: 1, default: 30_000 },
  },
  'lis-send-results': {
    autoResendSeconds: { min: 1, default: 30 },
    heldWarnMinutes: { min: 1, default: 60 },
  },
  'astm-link': {
    // LIS1-A's values (lib/astm/link/options.ts).
    frameTextMax: { min: 1, default: DEFAULT_OPTIONS.frameTextMax },
    replyTimeoutMs: { min: 1, default: DEFAULT_OPTIONS.replyTimeoutMs },
    receiveTimeoutMs: { min: 1, default: DEFAULT_OPTIONS.receiveTimeoutMs },
    busyWaitMs: { min: 0, default: DEFAULT_OPTIONS.busyWaitMs },
    contentionWaitMs: { min: 1, default: DEFAULT_OPTIONS.contentionWaitMs },
    retryDelayMs: { min: 0, default: DEFAULT_OPTIONS.retryDelayMs },
    ...ALARM_SETTINGS,
  },
  'hl7-link': {
    // No standard gives these (lib/hl7/link-machine.ts); a frame limit of 8 MiB holds the largest capture.
    ackTimeoutMs: { min: 1, default: DEFAULT_HL7_LINK.ackTimeoutMs },
    sendAttempts: { min: 1, max: 100, default: DEFAULT_HL7_LINK.sendAttempts },
    maxFrameBytes: { min: 1024, default: DEFAULT_HL7_LINK.maxFrameBytes },
    maxSegments: { min: 10, default: DEFAULT_HL7_LINK.maxSegments },
    ...ALARM_SETTINGS,
  },
} as const satisfies Record<string, Record<string, NumericSetting>>;

export type SettingsNode = keyof typeof NODE_SETTINGS;

/**
 * A node's numeric settings as stored in the flow (strings from the dialog,
 * possibly empty): an empty field takes its default; anything else out of
 * range is an error naming the setting, never silently replaced.
 */
export function readNodeSettings<T extends SettingsNode>(type: T, raw: Record<string, unknown>): { values: Record<keyof (typeof NODE_SETTINGS)[T], number>; errors: string[]; faults: SettingFault[] } {
  const table = NODE_SETTINGS[type] as Record<string, NumericSetting>;
  const rules = Object.fromEntries(Object.entries(table).map(([setting, s]) => [setting, { setting, min: s.min, ...(s.max === undefined ? {} : { max: s.max }), fallback: s.default, ...(s.fraction ? { fraction: true } : {}) }]));
  return readWholeNumbers(raw, rules) as { values: Record<keyof (typeof NODE_SETTINGS)[T], number>; errors: string[]; faults: SettingFault[] };
}
