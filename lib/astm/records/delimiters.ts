/**
 * The four delimiters of an E1394 message. The H record declares them: the
 * character right after `H` is the field delimiter and the next three are the
 * repeat, component and escape delimiters (`H|\^&`). Vendors do use other sets
 * (GeneXpert `H|@^\`, ERBA `` H|`^& ``), so they are always read from the H
 * record and the defaults are only used when a caller passes them explicitly.
 */
import { AstmDelimiterError, type AstmPosition } from './errors';

export interface Delimiters {
  field: string;
  repeat: string;
  component: string;
  escape: string;
}

/** `|\^&`: what most analyzers send. Never assumed; pass it explicitly for record fragments. */
export const DEFAULT_DELIMITERS: Readonly<Delimiters> = Object.freeze({ field: '|', repeat: '\\', component: '^', escape: '&' });

const ROLES = ['field', 'repeat', 'component', 'escape'] as const;

/**
 * Whether a record's text is a header. Only `H` followed by a character that can
 * be a delimiter counts, so a manufacturer record type such as `HX|...` is not
 * mistaken for a header.
 */
export function isHeaderText(text: string): boolean {
  return text.length >= 2 && text[0] === 'H' && !/[A-Za-z0-9]/.test(text[1] ?? '');
}

/** The delimiters an H record declares. */
export function readHeaderDelimiters(text: string, at: AstmPosition = {}): Delimiters {
  if (!isHeaderText(text)) throw new AstmDelimiterError(`not an H record: ${JSON.stringify(text.slice(0, 20))}`, at);
  const field = text.charAt(1);
  const end = text.indexOf(field, 2);
  const definition = end < 0 ? text.slice(2) : text.slice(2, end);
  if (definition.length !== 3) {
    // `H|\\^&` (4 characters) comes from logs that escaped backslashes; say so,
    // because guessing which character was meant could misread every field.
    const hint = definition.length === 4 && definition[0] === definition[1] ? ' (the first character is doubled, as when a log escapes backslashes)' : '';
    throw new AstmDelimiterError(`H record declares the delimiters ${JSON.stringify(field + definition)}: after the field delimiter exactly 3 characters (repeat, component, escape) are needed${hint}`, { ...at, field: 2 });
  }
  return checkDelimiters({ field, repeat: definition.charAt(0), component: definition.charAt(1), escape: definition.charAt(2) }, { ...at, field: 2 });
}

/** Validates a delimiter set (from an H record or from a caller) and returns a plain copy. */
export function checkDelimiters(value: unknown, at: AstmPosition = {}): Delimiters {
  if (typeof value !== 'object' || value === null) throw new AstmDelimiterError('delimiters must be an object { field, repeat, component, escape }', at);
  const v = value as Record<string, unknown>;
  const out: Partial<Delimiters> = {};
  for (const role of ROLES) {
    const c = v[role];
    if (typeof c !== 'string' || c.length !== 1) throw new AstmDelimiterError(`the ${role} delimiter must be one character, got ${JSON.stringify(c)}`, at);
    // Letters, digits, space and control characters occur in data (or are the
    // record separator), so a delimiter made of one would split values apart.
    if (/[A-Za-z0-9 ]/.test(c) || c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f) {
      throw new AstmDelimiterError(`the ${role} delimiter ${JSON.stringify(c)} cannot be a letter, digit, space or control character`, at);
    }
    out[role] = c;
  }
  const d = out as Delimiters;
  const chars = ROLES.map((r) => d[r]);
  if (new Set(chars).size !== chars.length) throw new AstmDelimiterError(`the delimiters ${JSON.stringify(chars.join(''))} must be four different characters`, at);
  return d;
}

/** The text of the H record's second field: repeat, component and escape delimiters. */
export function delimiterDefinition(d: Delimiters): string {
  return d.repeat + d.component + d.escape;
}

export function sameDelimiters(a: Delimiters, b: Delimiters): boolean {
  return a.field === b.field && a.repeat === b.repeat && a.component === b.component && a.escape === b.escape;
}
