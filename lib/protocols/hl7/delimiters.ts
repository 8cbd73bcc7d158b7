/**
 * The delimiters of an HL7 v2 message, read from MSH-1 (the character right
 * after `MSH`) and MSH-2 (component, repetition, escape, subcomponent, in that
 * order: HL7 v2.5.1 chapter 2.5.4). Almost every analyzer sends `|^~\&`, but
 * any characters are allowed, so they are always read from the message.
 *
 * MSH-2 is ST of length 4, required (v2.5.1 2.15.9.2; v2.7 adds the
 * truncation character as a fifth): each character's role is its position.
 * A shorter MSH-2 is refused, because a missing character cannot be told from
 * a moved one: `^~&` reads as `&` for the escape character and no
 * subcomponent separator, and `RC-BAD2&BARCODE` would be filed as one sample
 * number (issue 23). The fifth character, when there is one, is checked like
 * the others (distinct, not a letter, digit, space or control character) and
 * otherwise ignored. The interfaces in Hl7Delimiters stay optional for the
 * messages this package writes in ways that leave roles out.
 */
import { Hl7Error } from './errors';

export interface Hl7Delimiters {
  field: string;
  component: string;
  repetition?: string;
  escape?: string;
  subcomponent?: string;
}

/** `|^~\&`: what a new message is written with unless told otherwise. */
export const DEFAULT_DELIMITERS: Readonly<Required<Hl7Delimiters>> = Object.freeze({ field: '|', component: '^', repetition: '~', escape: '\\', subcomponent: '&' });

const ROLES = ['component', 'repetition', 'escape', 'subcomponent'] as const;

/** Letters, digits, space, CR, LF and other control characters occur in data or end segments. */
function unusable(c: string): boolean {
  const code = c.charCodeAt(0);
  return /[A-Za-z0-9 ]/.test(c) || code < 0x20 || code === 0x7f;
}

/**
 * The delimiters a message declares, from its first characters (`MSH|^~\&|…`).
 * `encodingEnd` is where MSH-2 ends (the index of the field separator after it,
 * or of the segment's end).
 */
export function readDelimiters(text: string): { delimiters: Hl7Delimiters; encodingEnd: number } {
  const at = { segment: 1, name: 'MSH' };
  const field = text.charAt(3);
  if (field === '' || unusable(field)) throw new Hl7Error(`MSH-1 (the field separator) is ${JSON.stringify(field)}: it must be a character that is not a letter, digit, space or control character`, { ...at, field: 1 });
  let end = 4;
  while (end < text.length && text[end] !== field && text[end] !== '\r' && text[end] !== '\n') end++;
  const chars = text.slice(4, end);
  if (chars.length < 4 || chars.length > 5) {
    throw new Hl7Error(
      `MSH-2 (encoding characters) is ${JSON.stringify(chars)}: HL7 needs all four, in order component, repetition, escape, subcomponent (^~\\& is usual; v2.7 adds the truncation character as a fifth), and a missing one cannot be told from a moved one`,
      { ...at, field: 2 },
    );
  }
  const d: Hl7Delimiters = { field, component: '' };
  ROLES.forEach((role, i) => {
    const c = chars.charAt(i);
    if (c === '') return;
    if (unusable(c)) throw new Hl7Error(`MSH-2 declares ${JSON.stringify(c)} as the ${role} character: a letter, digit, space or control character cannot be one`, { ...at, field: 2 });
    d[role] = c;
  });
  const truncation = chars.charAt(4);
  if (truncation !== '' && unusable(truncation)) throw new Hl7Error(`MSH-2 declares ${JSON.stringify(truncation)} as the truncation character: a letter, digit, space or control character cannot be one`, { ...at, field: 2 });
  const used = [field, ...ROLES.map((r) => d[r]).filter((c): c is string => c !== undefined), ...(truncation === '' ? [] : [truncation])];
  if (new Set(used).size !== used.length) throw new Hl7Error(`MSH-1 and MSH-2 declare ${JSON.stringify(field + chars)}: each delimiter must be a different character`, { ...at, field: 2 });
  return { delimiters: d, encodingEnd: end };
}

/** MSH-2 as written for these delimiters (the roles left out at the end are left out). */
export function encodingCharacters(d: Hl7Delimiters): string {
  let out = d.component;
  for (const role of ['repetition', 'escape', 'subcomponent'] as const) {
    const c = d[role];
    if (c === undefined) break;
    out += c;
  }
  return out;
}

/** Validates delimiters we write with: all five, distinct, usable. */
export function checkWriteDelimiters(d: Hl7Delimiters): Required<Hl7Delimiters> {
  const { field, component, repetition, escape, subcomponent } = d;
  if (repetition === undefined || escape === undefined || subcomponent === undefined) throw new Hl7Error('a message is written with all five delimiters (field, component, repetition, escape, subcomponent)');
  return readDelimiters(`MSH${field}${component}${repetition}${escape}${subcomponent}${field}`).delimiters as Required<Hl7Delimiters>;
}
