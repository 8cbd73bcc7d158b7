/**
 * Reads the numeric settings of a lis-config as typed in its dialog (strings,
 * possibly empty) into LisTuning. An empty field takes the spec's default; a
 * value that is not a whole number in range is an error naming the setting,
 * never silently replaced.
 */
import type { LisTuning } from './client';
import type { TlsSettings } from './transport';
import { LIS_NODE_SETTINGS, readSettings } from '../settings/node-settings';

export function parseTuning(raw: Record<string, unknown>): { tuning: LisTuning; errors: string[] } {
  const { values, errors } = readSettings(LIS_NODE_SETTINGS['lis-config'], raw);
  // The dialog calls the time-out `timeout`; the client, like every other tuning value, says its unit.
  const { timeout, ...rest } = values;
  return { tuning: { timeoutMs: timeout, ...rest }, errors };
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
