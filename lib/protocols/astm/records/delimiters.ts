/**
 * The four delimiters of an E1394 message. The H record declares them: the
 * character right after `H` is the field delimiter and the next three are the
 * repeat, component and escape delimiters (`H|\^&`). Vendors do use other sets
 * (GeneXpert `H|@^\`, ERBA `` H|`^& ``), so they are always read from the H
 * record and the defaults are only used when a caller passes them explicitly.
 *
 * Some analyzers declare fewer: the DPC/Siemens IMMULITE example in
 * test/fixtures/SOURCES-added.md opens with `H|\^|`, a repeat and a component
 * delimiter and no escape character. Such a message is read with what it
 * declares, down to the field delimiter alone (`H||...`); a role it leaves
 * out is the empty string, which means "this message has none": nothing is
 * split on it and nothing is unescaped, so a backslash or `&` in such a
 * message is plain text. Reading less than was meant is harmless here: a
 * profile that needs a component the message cannot have finds nothing and
 * reports the result unassigned, it never files it elsewhere.
 */
import { AstmDelimiterError, type AstmPosition } from './errors';

export interface Delimiters {
  field: string;
  /** '' when the H record declares none (see above); never '' in delimiters we write with. */
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
  // `H|\\^&` (4 characters) and `H|\\^` (3, the same log dropping the
  // escape) come from logs that escaped backslashes; say so, because guessing
  // which character was meant could misread every field.
  const doubled = definition.length >= 2 && definition[0] === definition[1] ? ' (the first character is doubled, as when a log escapes backslashes)' : '';
  if (definition.length > 3 || doubled !== '') {
    throw new AstmDelimiterError(
      `H record declares the delimiters ${JSON.stringify(field + definition)}: after the field delimiter at most 3 characters (repeat, component, escape) may follow${doubled}`,
      { ...at, field: 2 },
    );
  }
  const [repeat = '', component = '', escape = ''] = [...definition];
  return checkDeclaredDelimiters({ field, repeat, component, escape }, { ...at, field: 2 });
}

/**
 * Validates a delimiter set we write with (a profile's, a caller's) and
 * returns a plain copy: all four must be there.
 */
export function checkDelimiters(value: unknown, at: AstmPosition = {}): Delimiters {
  return check(value, at, false);
}

/**
 * Validates a delimiter set as an H record may declare it: the field
 * delimiter always, then repeat, component and escape in that order, the last
 * ones possibly left out ('').
 */
export function checkDeclaredDelimiters(value: unknown, at: AstmPosition = {}): Delimiters {
  return check(value, at, true);
}

function check(value: unknown, at: AstmPosition, declared: boolean): Delimiters {
  if (typeof value !== 'object' || value === null) throw new AstmDelimiterError('delimiters must be an object { field, repeat, component, escape }', at);
  const v = value as Record<string, unknown>;
  const out: Partial<Delimiters> = {};
  let missing: string | undefined;
  for (const role of ROLES) {
    const c = v[role];
    if (declared && role !== 'field' && c === '') {
      missing ??= role;
      out[role] = '';
      continue;
    }
    if (typeof c !== 'string' || c.length !== 1) throw new AstmDelimiterError(`the ${role} delimiter must be one character, got ${JSON.stringify(c)}`, at);
    // A definition is read left to right: a component delimiter cannot be
    // declared without a repeat delimiter before it.
    if (missing !== undefined) throw new AstmDelimiterError(`the ${role} delimiter is given but the ${missing} delimiter before it is not`, at);
    // Letters, digits, space and control characters occur in data (or are the
    // record separator), so a delimiter made of one would split values apart.
    if (/[A-Za-z0-9 ]/.test(c) || c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f) {
      throw new AstmDelimiterError(`the ${role} delimiter ${JSON.stringify(c)} cannot be a letter, digit, space or control character`, at);
    }
    out[role] = c;
  }
  const d = out as Delimiters;
  const chars = ROLES.map((r) => d[r]).filter((c) => c !== '');
  if (new Set(chars).size !== chars.length) throw new AstmDelimiterError(`the delimiters ${JSON.stringify(chars.join(''))} must be ${declared ? 'different characters' : 'four different characters'}`, at);
  return d;
}

/** The text of the H record's second field: repeat, component and escape delimiters. */
export function delimiterDefinition(d: Delimiters): string {
  return d.repeat + d.component + d.escape;
}

export function sameDelimiters(a: Delimiters, b: Delimiters): boolean {
  return a.field === b.field && a.repeat === b.repeat && a.component === b.component && a.escape === b.escape;
}
