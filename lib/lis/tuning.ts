/**
 * Reads the numeric settings of a lis-config as typed in its dialog (strings,
 * possibly empty) into LisTuning. An empty field takes the spec's default; a
 * value that is not a whole number in range is an error naming the setting,
 * never silently replaced.
 */
import { DEFAULT_TUNING, type LisTuning } from './client';
import type { TlsSettings } from './transport';
import { readWholeNumbers, type WholeNumberRule } from '../util/settings';

/** Each tuning value with the name of its lis-config property, its lower bound and the spec's default. */
const RULES = {
  timeoutMs: { setting: 'timeout', min: 1, fallback: DEFAULT_TUNING.timeoutMs },
  orderAttempts: { setting: 'orderAttempts', min: 1, fallback: DEFAULT_TUNING.orderAttempts },
  orderBackoffMs: { setting: 'orderBackoffMs', min: 0, fallback: DEFAULT_TUNING.orderBackoffMs },
  transientRetries: { setting: 'transientRetries', min: 0, fallback: DEFAULT_TUNING.transientRetries },
  transientBackoffMs: { setting: 'transientBackoffMs', min: 0, fallback: DEFAULT_TUNING.transientBackoffMs },
  maxResponseBytes: { setting: 'maxResponseBytes', min: 1024, fallback: DEFAULT_TUNING.maxResponseBytes },
} satisfies Record<keyof LisTuning, WholeNumberRule>;

export function parseTuning(raw: Record<string, unknown>): { tuning: LisTuning; errors: string[] } {
  const { values, errors } = readWholeNumbers(raw, RULES);
  return { tuning: values, errors };
}

/**
 * The HTTPS settings of a lis-config as stored in the flow: caFile a path (empty
 * means none), allowUntrustedCertificates a checkbox. Only an explicit true (or
 * "true") turns verification off.
 */
export function parseTls(raw: Record<string, unknown>): TlsSettings {
  const caFile = typeof raw.caFile === 'string' ? raw.caFile.trim() : '';
  const allow = raw.allowUntrustedCertificates;
  return {
    ...(caFile ? { caFile } : {}),
    allowUntrustedCertificates: allow === true || allow === 'true',
  };
}
