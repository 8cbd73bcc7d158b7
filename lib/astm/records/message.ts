/**
 * A message: records separated by CR, normally H ... L. The link layer hands
 * over the text of the frames joined; this turns it into records and back.
 *
 * Each H record sets the delimiters for the records after it, so a text holding
 * several messages back to back (ARCHITECT sends five H...L in a row) decodes
 * in one go; splitMessages() cuts it into one text per H when that is wanted.
 */
import { checkDeclaredDelimiters, checkDelimiters, isHeaderText, sameDelimiters, type Delimiters } from './delimiters';
import { AstmDecodeError, AstmDelimiterError, AstmEncodeError } from './errors';
import { decodeRecord, delimitersAfter, encodeRecord } from './record';
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
  let current = options.delimiters === undefined ? undefined : checkDelimiters(options.delimiters);
  const { separator, body, trailingLf } = linesOf(text);
  const pieces = body === '' ? [] : body.split(separator);
  // A separator after the last record (the normal case) leaves one empty piece.
  const unterminated = pieces.length === 0 || pieces[pieces.length - 1] !== '';
  if (!unterminated) pieces.pop();

  const records: AstmRecord[] = [];
  pieces.forEach((piece, i) => {
    const record = decodeRecord(piece, current, { record: i + 1 });
    current = delimitersAfter(record, current);
    records.push(record);
  });

  const first = records[0];
  const delimiters = first?.type === 'H' ? first.delimiters : current;
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
  let current: Delimiters | undefined;
  if (message.delimiters !== undefined) {
    // A decoded message carries what its H declared, which may be fewer than four.
    current = checkDeclaredDelimiters(message.delimiters);
    if (first?.type === 'H' && typeof first.delimiters === 'object' && first.delimiters !== null && !sameDelimiters(current, checkDeclaredDelimiters(first.delimiters, { record: 1, field: 2 }))) {
      throw new AstmDelimiterError('the message delimiters differ from those its H record declares', { record: 1, field: 2 });
    }
  }
  const separator = message.separator ?? '\r';
  if (separator !== '\r' && separator !== '\r\n') throw new AstmEncodeError('separator must be "\\r" or "\\r\\n"');
  if (message.trailingLf === true && (separator !== '\r' || message.unterminated === true)) throw new AstmEncodeError('trailingLf goes with CR separators and a terminated last record');
  const texts = message.records.map((record, i) => {
    const text = encodeRecord(record, current, { record: i + 1 });
    current = delimitersAfter(record, current);
    return text;
  });
  return texts.join(separator) + (message.unterminated === true ? '' : separator) + (message.trailingLf === true ? '\n' : '');
}

/**
 * Cuts a text into messages, each starting at an H record (text before the
 * first H, if any, is a piece of its own). Joining the pieces gives the text.
 */
export function splitMessages(text: string): string[] {
  const { separator, body, trailingLf } = linesOf(text);
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
 * whoever captured the text.
 */
function linesOf(text: string): { separator: '\r' | '\r\n'; body: string; trailingLf: boolean } {
  if (!text.includes('\n')) return { separator: '\r', body: text, trailingLf: false };
  const loneLf = /(^|[^\r])\n/.exec(text);
  const loneCr = /\r(?!\n)/.exec(text);
  if (loneLf === null && loneCr === null) return { separator: '\r\n', body: text, trailingLf: false };
  if (loneLf === null && text.endsWith('\r\n') && text.indexOf('\n') === text.length - 1) return { separator: '\r', body: text.slice(0, -1), trailingLf: true };
  const at = loneLf !== null ? loneLf.index + (loneLf[1] ?? '').length : (loneCr?.index ?? 0);
  const record = text.slice(0, at).split('\r').length;
  throw new AstmDecodeError(loneLf !== null ? 'LF is not allowed in record text; records are separated by CR' : 'records are separated partly by CR and partly by CR LF', { record });
}
