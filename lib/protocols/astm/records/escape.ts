/**
 * E1394 escape sequences, written with the message's own escape character
 * (`&` in `H|\^&`, `\` in GeneXpert's `H|@^\`):
 *
 *   &F& field delimiter   &S& component delimiter   &R& repeat delimiter   &E& escape character
 *
 * Sysmex uses them for file paths (`PNG&R&20240628&R&...WDF.PNG` is the path
 * `PNG\20240628\...`, because `\` is the repeat delimiter).
 *
 * The standard's other sequences (`&H&` `&N&` highlighting, `&Xhh..&` hex data,
 * `&Z..&` local) are kept verbatim: what they mean is up to the analyzer, and
 * turning them into characters here would lose them. An escape character that
 * starts no sequence (which the standard does not allow, but instruments send)
 * is kept as a plain character rather than rejected.
 *
 * Escapes are resolved per component, after the text was split on delimiters:
 * decoding first would turn `&S&` into a component delimiter and split a value.
 */
import type { Delimiters } from './delimiters';

const KEPT_SEQUENCE = /^(?:H|N|X[0-9A-Fa-f]+|Z[^]*)$/;

/** Resolves the escapes of one component's text (it must contain no delimiter). */
export function unescapeText(text: string, d: Delimiters): string {
  const esc = d.escape;
  // A message whose H declares no escape character has no escapes to resolve.
  if (esc === '' || !text.includes(esc)) return text;
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text.charAt(i);
    if (c !== esc) {
      out += c;
      i++;
      continue;
    }
    const close = text.indexOf(esc, i + 1);
    const body = close < 0 ? undefined : text.slice(i + 1, close);
    const meant = body === undefined ? undefined : standardEscape(body, d);
    if (meant !== undefined) {
      out += meant;
      i = close + 1;
    } else if (body !== undefined && KEPT_SEQUENCE.test(body)) {
      out += text.slice(i, close + 1);
      i = close + 1;
    } else {
      // A lone escape character: keep it and look at what follows on its own,
      // so its would-be closing character can still open a real sequence.
      out += c;
      i++;
    }
  }
  return out;
}

/**
 * Writes one component's text with delimiters and escape characters escaped, so
 * that unescapeText gives the text back. Kept sequences (`&X0D&`, `&H&` ...)
 * are written as they are, which is how unescapeText left them.
 */
export function escapeText(text: string, d: Delimiters): string {
  const { field, repeat, component, escape: esc } = d;
  // Without an escape character nothing can be escaped: the text goes out as
  // it is, and the encoder refuses text holding a delimiter (value.ts).
  if (esc === '') return text;
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text.charAt(i);
    if (c === field) out += `${esc}F${esc}`;
    else if (c === component) out += `${esc}S${esc}`;
    else if (c === repeat) out += `${esc}R${esc}`;
    else if (c === esc) {
      const close = text.indexOf(esc, i + 1);
      const body = close < 0 ? undefined : text.slice(i + 1, close);
      if (body !== undefined && KEPT_SEQUENCE.test(body) && !containsDelimiter(body, d)) {
        out += text.slice(i, close + 1);
        i = close + 1;
        continue;
      }
      out += `${esc}E${esc}`;
    } else out += c;
    i++;
  }
  return out;
}

function standardEscape(body: string, d: Delimiters): string | undefined {
  switch (body) {
    case 'F':
      return d.field;
    case 'S':
      return d.component;
    case 'R':
      return d.repeat;
    case 'E':
      return d.escape;
    default:
      return undefined;
  }
}

function containsDelimiter(text: string, d: Delimiters): boolean {
  return [d.field, d.repeat, d.component].some((c) => c !== '' && text.includes(c));
}

/**
 * True when `text` (one component as it arrived, escapes unresolved) holds the
 * escape character where it starts no sequence that stands for a delimiter: a
 * lone `&`, or a sequence kept verbatim (`&H&`). Such a character arrived raw;
 * `&E&`, `&F&`, `&S&` and `&R&` are the sender's own escapes of a delimiter,
 * which are data. Linear: each escape character is looked at once.
 */
export function holdsRawEscape(text: string, d: Delimiters): boolean {
  const esc = d.escape;
  if (esc === '') return false;
  let at = text.indexOf(esc);
  while (at >= 0) {
    const close = text.indexOf(esc, at + 1);
    if (close < 0 || standardEscape(text.slice(at + 1, close), d) === undefined) return true;
    at = text.indexOf(esc, close + 1);
  }
  return false;
}
