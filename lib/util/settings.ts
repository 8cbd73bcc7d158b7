/**
 * Numeric node settings as typed in an editor dialog (strings, possibly empty).
 * An empty field takes its default; anything else must be a whole number (or,
 * where the rule allows fractions, a decimal number) in range, or it is an error naming the setting: a bad value is never silently
 * replaced by the default.
 */
export interface WholeNumberRule {
  /** The property name, as the dialog and the errors call it. */
  setting: string;
  min: number;
  max?: number;
  fallback: number;
  /** Decimals allowed (a limit in minutes that a test sets to a second or two). */
  fraction?: boolean;
}

export function readWholeNumbers<K extends string>(raw: Record<string, unknown>, rules: Record<K, WholeNumberRule>): { values: Record<K, number>; errors: string[] } {
  const values = {} as Record<K, number>;
  const errors: string[] = [];
  for (const key of Object.keys(rules) as K[]) {
    const { setting, min, max, fallback, fraction } = rules[key];
    values[key] = fallback;
    const value = raw[setting];
    if (value === undefined || value === null || String(value).trim() === '') continue;
    const n = Number(String(value).trim());
    if (!(fraction ? Number.isFinite(n) : Number.isInteger(n)) || n < min || (max !== undefined && n > max)) {
      const range = max === undefined ? `of at least ${min}` : `from ${min} to ${max}`;
      errors.push(`${setting} must be a ${fraction ? 'number' : 'whole number'} ${range}, not ${JSON.stringify(value)}`);
      continue;
    }
    values[key] = n;
  }
  return { values, errors };
}
