/**
 * A file's bytes as rows of cells: decoded in the dialect's encoding, then
 * cut at a delimiter with RFC 4180 quoting (a quoted cell may hold the
 * delimiter, a line end, and `""` for a quote) or at fixed widths. Lines end
 * in CR LF, LF or CR alone (Multiskan writes CR). One pass over the text, so
 * a quote-heavy file or one 10 MB line costs in proportion to its size.
 * Cells are kept as written (not trimmed): what a cell means is the reader's.
 */
import { codePageDecoder, isCodePage } from './encoding';
import { StringDecoder } from 'node:string_decoder';
import { checkpoints, runAtOnce, type Steps } from '../../util/slices';
import type { FileDialectProfile } from './types';

export interface FileRow {
  /** The 1-based line of the file the row starts on. */
  readonly line: number;
  readonly cells: readonly string[];
}

const SEPARATOR = { comma: ',', semicolon: ';', tab: '\t' } as const;

/** The most rows a file may have when its dialect does not say (maxRows): far more than any run's export, far fewer than memory would bear. */
export const DEFAULT_MAX_ROWS = 500_000;

/** A file with more rows than its dialect's maxRows: cutting stops there, so the rest costs no memory. */
export class RowLimitError extends Error {
  constructor(
    readonly limit: number,
    readonly line: number,
  ) {
    super(`the file has more than maxRows ${limit.toLocaleString('en-US')} rows (row ${(limit + 1).toLocaleString('en-US')} starts on line ${line}): refused whole, none of its results sent; a run's export is far smaller (one run per file), or raise maxRows in the dialect for a file this large you trust`);
    this.name = 'RowLimitError';
  }
}

/** The file's text: a byte-order mark is dropped (UTF-8 EF BB BF, UTF-16LE FF FE); invalid UTF-8 reads as U+FFFD. */
export function decodeFile(bytes: Buffer, encoding: FileDialectProfile['encoding']): string {
  return runAtOnce(decodeSteps(bytes, encoding));
}

/** Bytes decoded per step: a few milliseconds of UTF-8 with accents. */
const DECODE_CHUNK = 1 << 20;

/** The same, a megabyte at a time (a character cut between two is put together by the decoder). */
export function* decodeSteps(bytes: Buffer, encoding: FileDialectProfile['encoding']): Steps<string> {
  const skip = encoding === 'utf16le' ? (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe ? 2 : 0) : encoding === 'utf8' ? (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0) : 0;
  if (!isCodePage(encoding) && bytes.length - skip <= DECODE_CHUNK) return bytes.toString(encoding, skip);
  const decoder = isCodePage(encoding) ? codePageDecoder(encoding) : new StringDecoder(encoding);
  const parts: string[] = [];
  for (let at = skip; at < bytes.length; at += DECODE_CHUNK) {
    parts.push(decoder.write(bytes.subarray(at, Math.min(bytes.length, at + DECODE_CHUNK))));
    yield;
  }
  parts.push(decoder.end());
  return parts.join('');
}

/** The character that separates cells, or the fixed widths. */
export function separatorOf(delimiter: FileDialectProfile['delimiter']): string | readonly number[] {
  return typeof delimiter === 'string' ? SEPARATOR[delimiter] : delimiter.widths;
}

/** What a row's cells are joined with to show the row as text: the delimiter, nothing for fixed widths, a tab between a workbook's cells. */
export function cellJoiner(profile: Pick<FileDialectProfile, 'format' | 'delimiter'>): string {
  if (profile.format === 'xlsx' || profile.format === 'bioplex-xml') return '\t';
  const sep = separatorOf(profile.delimiter);
  return typeof sep === 'string' ? sep : '';
}

export function rowsOf(text: string, delimiter: FileDialectProfile['delimiter'], maxRows = DEFAULT_MAX_ROWS): FileRow[] {
  return runAtOnce(rowSteps(text, delimiter, maxRows));
}

/** The rows, cut with a checkpoint every few hundred; RowLimitError past `maxRows`. */
export function rowSteps(text: string, delimiter: FileDialectProfile['delimiter'], maxRows = DEFAULT_MAX_ROWS): Steps<FileRow[]> {
  const sep = separatorOf(delimiter);
  return typeof sep === 'string' ? delimitedRows(text, sep.charCodeAt(0), maxRows) : fixedRows(text, sep, maxRows);
}

const CR = 13;
const LF = 10;
const QUOTE = 34;

function* delimitedRows(text: string, sep: number, maxRows: number): Steps<FileRow[]> {
  const rows: FileRow[] = [];
  const tick = checkpoints();
  // A row's cells are gathered here and copied out at its end: an array grown by push keeps room for 17 cells.
  const cells: string[] = [];
  const close = () => {
    if (rows.length >= maxRows) throw new RowLimitError(maxRows, rowLine);
    rows.push({ line: rowLine, cells: cells.slice() });
    cells.length = 0;
  };
  let line = 1;
  let rowLine = 1;
  let i = 0;
  const n = text.length;
  let atRowStart = true;
  while (i < n || !atRowStart) {
    atRowStart = false;
    let cell: string;
    if (i < n && text.charCodeAt(i) === QUOTE) {
      // Quoted: up to the closing quote, `""` read as one quote; what follows it up to the delimiter is kept as written.
      const parts: string[] = [];
      let from = i + 1;
      i = from;
      for (;;) {
        if (i >= n) {
          parts.push(text.slice(from, n));
          break;
        }
        const c = text.charCodeAt(i);
        if (c === QUOTE) {
          parts.push(text.slice(from, i));
          if (i + 1 < n && text.charCodeAt(i + 1) === QUOTE) {
            parts.push('"');
            i += 2;
            from = i;
            continue;
          }
          i++;
          break;
        }
        if (c === LF || (c === CR && (i + 1 >= n || text.charCodeAt(i + 1) !== LF))) line++;
        i++;
      }
      const rest = i;
      while (i < n && text.charCodeAt(i) !== sep && text.charCodeAt(i) !== CR && text.charCodeAt(i) !== LF) i++;
      cell = parts.join('') + (i > rest ? text.slice(rest, i) : '');
    } else {
      const from = i;
      while (i < n && text.charCodeAt(i) !== sep && text.charCodeAt(i) !== CR && text.charCodeAt(i) !== LF) i++;
      cell = text.slice(from, i);
    }
    cells.push(cell);
    if (i < n && text.charCodeAt(i) === sep) {
      i++;
      if (i >= n) {
        cells.push('');
        close();
        break;
      }
      continue;
    }
    // A line end (CR LF, LF or CR) or the end of the text closes the row.
    close();
    if (tick()) yield;
    if (i < n) {
      if (text.charCodeAt(i) === CR && i + 1 < n && text.charCodeAt(i + 1) === LF) i++;
      i++;
      line++;
    }
    rowLine = line;
    atRowStart = true;
  }
  return rows;
}

function* fixedRows(text: string, widths: readonly number[], maxRows: number): Steps<FileRow[]> {
  const rows: FileRow[] = [];
  const tick = checkpoints();
  let i = 0;
  let line = 1;
  const n = text.length;
  while (i < n) {
    let end = i;
    while (end < n && text.charCodeAt(end) !== CR && text.charCodeAt(end) !== LF) end++;
    const cells: string[] = [];
    let at = i;
    for (const [k, w] of widths.entries()) {
      if (at >= end) break;
      const to = k === widths.length - 1 ? end : Math.min(end, at + w);
      cells.push(text.slice(at, to));
      at = to;
    }
    if (rows.length >= maxRows) throw new RowLimitError(maxRows, line);
    rows.push({ line, cells });
    if (tick()) yield;
    i = end;
    if (i < n && text.charCodeAt(i) === CR && i + 1 < n && text.charCodeAt(i + 1) === LF) i++;
    if (i < n) i++;
    line++;
  }
  return rows;
}
