/**
 * Numeric node settings as typed in an editor dialog (strings, possibly empty).
 * An empty field takes its default; anything else must be a whole number (or,
 * where the rule allows fractions, a decimal number) in range, or it is an error naming the setting: a bad value is never silently
 * replaced by the default.
 */
import { invalidSetting, unresolvedSetting, type SettingFault } from '../settings/unresolved';

export interface WholeNumberRule {
  /** The property name, as the dialog and the errors call it. */
  setting: string;
  min: number;
  max?: number;
  fallback: number;
  /** Decimals allowed (a limit in minutes that a test sets to a second or two). */
  fraction?: boolean;
}

export function readWholeNumbers<K extends string>(raw: Record<string, unknown>, rules: Record<K, WholeNumberRule>): { values: Record<K, number>; errors: string[]; faults: SettingFault[] } {
  const values = {} as Record<K, number>;
  const faults: SettingFault[] = [];
  for (const key of Object.keys(rules) as K[]) {
    const { setting, min, max, fallback, fraction } = rules[key];
    values[key] = fallback;
    const value = raw[setting];
    if (value === undefined || value === null || String(value).trim() === '') continue;
    const n = Number(String(value).trim());
    if (!(fraction ? Number.isFinite(n) : Number.isInteger(n)) || n < min || (max !== undefined && n > max)) {
      const expected = `a ${fraction ? 'number' : 'whole number'} ${max === undefined ? `of at least ${min}` : `from ${min} to ${max}`}`;
      faults.push(unresolvedSetting(setting, value, expected) ?? invalidSetting(setting, `${setting} must be ${expected}, not ${JSON.stringify(value)}`));
      continue;
    }
    values[key] = n;
  }
  return { values, errors: faults.map((f) => f.message), faults };
}
