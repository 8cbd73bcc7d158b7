/**
 * Reads the numeric settings of a lis-config as typed in its dialog (strings,
 * possibly empty) into LisTuning. An empty field takes the spec's default; a
 * value that is not a whole number in range is an error naming the setting,
 * never silently replaced.
 */
import { DEFAULT_TUNING, type LisTuning } from './client';
import type { TlsSettings } from './transport';

interface Rule {
  key: keyof LisTuning;
  setting: string;
  min: number;
}

/** Each tuning value with the name of its lis-config property and its lower bound. */
const RULES: Rule[] = [
  { key: 'timeoutMs', setting: 'timeout', min: 1 },
  { key: 'orderAttempts', setting: 'orderAttempts', min: 1 },
  { key: 'orderBackoffMs', setting: 'orderBackoffMs', min: 0 },
  { key: 'transientRetries', setting: 'transientRetries', min: 0 },
  { key: 'transientBackoffMs', setting: 'transientBackoffMs', min: 0 },
  { key: 'maxResponseBytes', setting: 'maxResponseBytes', min: 1024 },
];

export function parseTuning(raw: Record<string, unknown>): { tuning: LisTuning; errors: string[] } {
  const tuning: LisTuning = { ...DEFAULT_TUNING };
  const errors: string[] = [];
  for (const { key, setting, min } of RULES) {
    const value = raw[setting];
    if (value === undefined || value === null || String(value).trim() === '') continue;
    const n = Number(String(value).trim());
    if (!Number.isInteger(n) || n < min) {
      errors.push(`${setting} must be a whole number of at least ${min}, not ${JSON.stringify(value)}`);
      continue;
    }
    tuning[key] = n;
  }
  return { tuning, errors };
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
