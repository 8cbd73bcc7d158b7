/**
 * A message: records separated by CR, normally H ... L. The link layer hands
 * over the text of the frames joined; this turns it into records and back.
 *
 * Each H record sets the delimiters for the records after it, so a text holding
 * several messages back to back (ARCHITECT sends five H...L in a row) decodes
 * in one go; splitMessages() cuts it into one text per H when that is wanted.
 */
import { isHeaderText, sameDelimiters, type Delimiters } from './delimiters';
import { AstmDecodeError, AstmDelimiterError, AstmEncodeError } from './errors';
import { decodeRecordWith, encodeGeneral, writeInOrder, type DecodeState } from './record';
import { firstRestrictedInside, syntaxOf, type Syntax } from './syntax';
import { giveBackWriter, takeWriter } from './writer';
import type { AstmRecord } from './types';

export interface AstmMessage {
  /** The delimiters in force for the first record: the first H's, or the ones given to decodeMessage. */
  delimiters: Delimiters;
  records: AstmRecord[];
  /** Present when the records were separated by CR LF instead of CR. */
  separator?: '\r\n';
  /** Present when the last record had no separator after it. */
  unterminated?: true;
  /**
   * Present when records are separated by CR but the text ends with CR LF: a
   * frame trailer or a log's line end left on the text.
   */
  trailingLf?: true;
}

export interface DecodeOptions {
  /**
   * Delimiters for records that come before any H record (a fragment such as
   * `R|1|^^^GLU|5.2`). Never used once an H record was seen: the H decides.
   */
  delimiters?: Delimiters;
}

export function decodeMessage(text: string, options: DecodeOptions = {}): AstmMessage {
  if (typeof text !== 'string') throw new AstmDecodeError('a message must be given as a string');
  // Given delimiters stand for an H record's: all four, as checkDelimiters wants them.
  const state: DecodeState = { syntax: options.delimiters === undefined ? undefined : syntaxOf(options.delimiters, {}, undefined, true) };
  const { separator, bodyEnd, trailingLf } = linesOf(text);
  const records: AstmRecord[] = [];
  // One search of the whole text for restricted characters (memchr passes)
  // instead of one per record: the records before the first one found are
  // clean, and the record holding it is decoded with the check, which refuses
  // it with its record and field, after anything else wrong in it, as before.
  // (CR and LF are not searched for: linesOf allows them only as separators.)
  const restricted = firstRestrictedInside(text);
  // A separator after the last record (the normal case) ends the text; any
  // other text after the last separator is a record without one.
  let unterminated = true;
  if (bodyEnd > 0) {
    let start = 0;
    for (;;) {
      const found = text.indexOf(separator, start);
      const end = found < 0 || found >= bodyEnd ? bodyEnd : found;
      if (end === bodyEnd && start === bodyEnd) {
        unterminated = false;
        break;
      }
      records.push(decodeRecordWith(text, start, end, state, { record: records.length + 1 }, restricted < 0 || restricted >= end));
      if (end === bodyEnd) break;
      start = end + separator.length;
    }
  }

  const first = records[0];
  const delimiters = first?.type === 'H' ? first.delimiters : state.syntax?.d;
  if (delimiters === undefined) throw new AstmDecodeError('the text has no H record and no delimiters were given');
  const message: AstmMessage = { delimiters: { ...delimiters }, records };
  if (separator === '\r\n') message.separator = '\r\n';
  if (unterminated) message.unterminated = true;
  if (trailingLf) message.trailingLf = true;
  return message;
}

/**
 * Writes the message back as text. `delimiters` may be left out when the first
 * record is an H; when both are there they must agree, since it would be a
 * guess which one the caller meant.
 */
export function encodeMessage(message: AstmMessage): string {
  if (typeof message !== 'object' || message === null || !Array.isArray(message.records)) throw new AstmEncodeError('a message must be an object with a records array');
  const first = message.records[0];
  let syntax: Syntax | undefined;
  if (message.delimiters !== undefined) {
    // A decoded message carries what its H declared, which may be fewer than four (syntaxOf accepts them).
    syntax = syntaxOf(message.delimiters);
    if (first?.type === 'H' && typeof first.delimiters === 'object' && first.delimiters !== null && !sameDelimiters(syntax.d, syntaxOf(first.delimiters, { record: 1 }, 2).d)) {
      throw new AstmDelimiterError('the message delimiters differ from those its H record declares', { record: 1, field: 2 });
    }
  }
  const separator = message.separator ?? '\r';
  if (separator !== '\r' && separator !== '\r\n') throw new AstmEncodeError('separator must be "\\r" or "\\r\\n"');
  if (message.trailingLf === true && (separator !== '\r' || message.unterminated === true)) throw new AstmEncodeError('trailingLf goes with CR separators and a terminated last record');
  const ending = (message.unterminated === true ? '' : separator) + (message.trailingLf === true ? '\n' : '');
  // The text as bytes (writer.ts); a record writeInOrder does not write is
  // encoded with strings and copied in, and a character from U+0100 on sends
  // the whole message the string way.
  const w = takeWriter();
  try {
    const initial = syntax;
    for (let i = 0; i < message.records.length; i++) {
      const record = message.records[i]!;
      const at = { record: i + 1 };
      if (i > 0) {
        w.byte(0x0d);
        if (separator === '\r\n') w.byte(0x0a);
      }
      const mark = w.pos;
      if (!writeInOrder(record, syntax, at, w)) {
        w.pos = mark;
        if (!w.text(encodeGeneral(record, syntax, at))) return encodeAsStrings(message.records, initial, separator, ending);
      }
      // The H record's delimiters were checked by encoding it.
      if (record.type === 'H') syntax = syntaxOf(record.delimiters, at, 2);
    }
    w.text(ending);
    return w.result();
  } finally {
    giveBackWriter(w);
  }
}

/** encodeMessage for a text holding a character from U+0100 on: every record encoded as a string, then joined. */
function encodeAsStrings(records: AstmRecord[], initial: Syntax | undefined, separator: string, ending: string): string {
  let syntax = initial;
  const texts: string[] = [];
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!;
    const at = { record: i + 1 };
    texts.push(encodeGeneral(record, syntax, at));
    if (record.type === 'H') syntax = syntaxOf(record.delimiters, at, 2);
  }
  return texts.join(separator) + ending;
}

/**
 * Cuts a text into messages, each starting at an H record (text before the
 * first H, if any, is a piece of its own). Joining the pieces gives the text.
 */
export function splitMessages(text: string): string[] {
  const { separator, bodyEnd, trailingLf } = linesOf(text);
  const body = text.slice(0, bodyEnd);
  const out: string[] = [];
  let start = 0;
  let pos = 0;
  while (pos < body.length) {
    const end = body.indexOf(separator, pos);
    const next = end < 0 ? body.length : end + separator.length;
    if (pos > start && isHeaderText(body.slice(pos, end < 0 ? body.length : end))) {
      out.push(body.slice(start, pos));
      start = pos;
    }
    pos = next;
  }
  if (start < body.length) out.push(body.slice(start));
  if (trailingLf && out.length > 0) out[out.length - 1] += '\n';
  return out;
}

/**
 * CR, or CR LF when every CR is followed by LF, or CR with one LF after the
 * final CR. An LF anywhere else is refused: LIS1-A does not allow it in record
 * text, and guessing whether it replaced a CR (as some logs do) belongs to
 * whoever captured the text. The records are the text up to `bodyEnd` (all of
 * it but such a final LF).
 */
function linesOf(text: string): { separator: '\r' | '\r\n'; bodyEnd: number; trailingLf: boolean } {
  if (!text.includes('\n')) return { separator: '\r', bodyEnd: text.length, trailingLf: false };
  const loneLf = /(^|[^\r])\n/.exec(text);
  const loneCr = /\r(?!\n)/.exec(text);
  if (loneLf === null && loneCr === null) return { separator: '\r\n', bodyEnd: text.length, trailingLf: false };
  if (loneLf === null && text.endsWith('\r\n') && text.indexOf('\n') === text.length - 1) return { separator: '\r', bodyEnd: text.length - 1, trailingLf: true };
  const at = loneLf !== null ? loneLf.index + (loneLf[1] ?? '').length : (loneCr?.index ?? 0);
  const record = text.slice(0, at).split('\r').length;
  throw new AstmDecodeError(loneLf !== null ? 'LF is not allowed in record text; records are separated by CR' : 'records are separated partly by CR and partly by CR LF', { record });
}
