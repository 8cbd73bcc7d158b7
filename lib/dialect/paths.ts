/**
 * How a setting of a profile is named in problems and in an editor: keys
 * joined by '.', array positions as `[n]`, and a key that is not a plain word
 * (a sample type such as `Whole blood`) as `["Whole blood"]`. The same text
 * names the setting in a profile and in a site's overrides of it.
 */
export function formatPath(segments: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const key of segments) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key)) out += out === '' ? key : `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}
