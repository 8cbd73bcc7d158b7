/**
 * HL7 v2 escape sequences (v2.5.1 chapter 2.7), written with the message's own
 * escape character:
 *
 *   \F\ field separator   \S\ component   \T\ subcomponent   \R\ repetition   \E\ escape character
 *   \Xhh…\ the bytes hh… (read in the message's character set)
 *
 * The other sequences (`\H\` `\N\` highlighting, `\.br\` and the other
 * formatting commands, `\Cxxyy\` `\Mxxyyzz\` character-set switches, `\Z…\`
 * local ones such as BioSystems' `\Z03BC\` for µ) are kept verbatim: their
 * meaning is the sender's, turning them into characters here would lose them,
 * and a reader still sees what was sent. An escape character that starts no
 * sequence is kept as a plain character rather than rejected.
 *
 * Escapes are resolved per subcomponent, after the text was split: resolving
 * first would turn `\S\` into a component separator and split a value.
 */
import type { Hl7Delimiters } from './delimiters';

/** Turns the bytes of a `\X…\` sequence into text (the message's character set). */
export type HexDecoder = (bytes: Buffer) => string;

export const latin1Hex: HexDecoder = (bytes) => bytes.toString('latin1');

/** Resolves the escapes of one subcomponent's text (it must hold no delimiter). */
export function unescapeHl7(text: string, d: Hl7Delimiters, hex: HexDecoder = latin1Hex): string {
  const esc = d.escape;
  if (esc === undefined || !text.includes(esc)) return text;
  let out = '';
  let i = 0;
  while (i < text.length) {
    const at = text.indexOf(esc, i);
    if (at < 0) {
      out += text.slice(i);
      break;
    }
    out += text.slice(i, at);
    const close = text.indexOf(esc, at + 1);
    if (close < 0) {
      out += text.slice(at);
      break;
    }
    const body = text.slice(at + 1, close);
    const meant = resolve(body, d, hex);
    if (meant !== undefined) {
      out += meant;
      i = close + 1;
    } else if (body !== '' && /^(?:[HN]|\.[a-z]{2}[+-]?\d*|[CMX][0-9A-Fa-f]+|Z[^]*)$/.test(body)) {
      out += text.slice(at, close + 1);
      i = close + 1;
    } else {
      // A lone escape character: keep it and read on from the next character,
      // so its would-be closing character can still open a real sequence.
      out += esc;
      i = at + 1;
    }
  }
  return out;
}

/**
 * True when `text` (one subcomponent as it arrived) holds the escape character
 * where it starts no sequence that stands for a character (a delimiter, the
 * escape character, `\Xhh\` bytes): a lone one, or a sequence kept verbatim
 * (`\H\`). Such a character arrived raw; `\T\`, `\F\` and the like are the
 * sender's escapes, which are data. Linear: each escape character is looked at once.
 */
export function holdsRawHl7Escape(text: string, d: Hl7Delimiters): boolean {
  const esc = d.escape;
  if (esc === undefined) return false;
  let at = text.indexOf(esc);
  while (at >= 0) {
    const close = text.indexOf(esc, at + 1);
    if (close < 0 || resolve(text.slice(at + 1, close), d, latin1Hex) === undefined) return true;
    at = text.indexOf(esc, close + 1);
  }
  return false;
}

function resolve(body: string, d: Hl7Delimiters, hex: HexDecoder): string | undefined {
  switch (body) {
    case 'F':
      return d.field;
    case 'S':
      return d.component;
    case 'T':
      return d.subcomponent;
    case 'R':
      return d.repetition;
    case 'E':
      return d.escape;
  }
  if (body.length >= 3 && body[0] === 'X' && body.length % 2 === 1 && /^X[0-9A-Fa-f]+$/.test(body)) return hex(Buffer.from(body.slice(1), 'hex'));
  return undefined;
}

/**
 * Writes text so that unescapeHl7 gives it back: delimiters and the escape
 * character escaped, CR and LF as `\X0D\` `\X0A\` (a raw one would end the
 * segment). Text holding an escape sequence we keep verbatim (`\Z03BC\`) is
 * escaped like any other text: a builder writes what it is given.
 */
export function escapeHl7(text: string, d: Required<Hl7Delimiters>): string {
  if (!/[\r\n]/.test(text) && !text.includes(d.field) && !text.includes(d.component) && !text.includes(d.repetition) && !text.includes(d.escape) && !text.includes(d.subcomponent)) return text;
  const e = d.escape;
  const map: Record<string, string> = {
    [d.escape]: `${e}E${e}`,
    [d.field]: `${e}F${e}`,
    [d.component]: `${e}S${e}`,
    [d.repetition]: `${e}R${e}`,
    [d.subcomponent]: `${e}T${e}`,
    '\r': `${e}X0D${e}`,
    '\n': `${e}X0A${e}`,
  };
  let out = '';
  for (const c of text) out += map[c] ?? c;
  return out;
}
