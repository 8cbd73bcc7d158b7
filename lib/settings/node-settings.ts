/**
 * The numeric settings of the LIS nodes and the alarm settings every
 * analyzer-link node shares, once: property name as the flow stores it, range
 * and default, and how a node's properties are read with them. The
 * analyzer-link nodes' own tables join these in nodes/shared/node-settings.ts,
 * where every protocol is known; the build (scripts/build.mjs) writes that
 * whole table into the editor dialogs, so a default is never written twice
 * and the dialog never accepts what the node then refuses.
 */
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

export const LIS_NODE_SETTINGS = {
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
} as const satisfies Record<string, Record<string, NumericSetting>>;

/**
 * Settings as stored in the flow (strings from the dialog, possibly empty):
 * an empty field takes its default; anything else out of range is an error
 * naming the setting, never silently replaced.
 */
export function readSettings<T extends Record<string, NumericSetting>>(table: T, raw: Record<string, unknown>): { values: Record<keyof T, number>; errors: string[]; faults: SettingFault[] } {
  const rules = Object.fromEntries(Object.entries(table).map(([setting, s]) => [setting, { setting, min: s.min, ...(s.max === undefined ? {} : { max: s.max }), fallback: s.default, ...(s.fraction ? { fraction: true } : {}) }]));
  return readWholeNumbers(raw, rules) as { values: Record<keyof T, number>; errors: string[]; faults: SettingFault[] };
}
