/**
 * A file's bytes as rows of cells: decoded in the dialect's encoding, then
 * cut at a delimiter with RFC 4180 quoting (a quoted cell may hold the
 * delimiter, a line end, and `""` for a quote) or at fixed widths. Lines end
 * in CR LF, LF or CR alone (Multiskan writes CR). One pass over the text, so
 * a quote-heavy file or one 10 MB line costs in proportion to its size.
 * Cells are kept as written (not trimmed): what a cell means is the reader's.
 */
import type { FileDialectProfile } from './types';

export interface FileRow {
  /** The 1-based line of the file the row starts on. */
  readonly line: number;
  readonly cells: readonly string[];
}

const SEPARATOR = { comma: ',', semicolon: ';', tab: '\t' } as const;

/** The file's text: a byte-order mark is dropped (UTF-8 EF BB BF, UTF-16LE FF FE); invalid UTF-8 reads as U+FFFD. */
export function decodeFile(bytes: Buffer, encoding: FileDialectProfile['encoding']): string {
  if (encoding === 'utf16le') return bytes.toString('utf16le', bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe ? 2 : 0);
  if (encoding === 'utf8') return bytes.toString('utf8', bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0);
  return bytes.toString('latin1');
}

/** The character that separates cells, or the fixed widths. */
export function separatorOf(delimiter: FileDialectProfile['delimiter']): string | readonly number[] {
  return typeof delimiter === 'string' ? SEPARATOR[delimiter] : delimiter.widths;
}

export function rowsOf(text: string, delimiter: FileDialectProfile['delimiter']): FileRow[] {
  const sep = separatorOf(delimiter);
  return typeof sep === 'string' ? delimitedRows(text, sep.charCodeAt(0)) : fixedRows(text, sep);
}

const CR = 13;
const LF = 10;
const QUOTE = 34;

function delimitedRows(text: string, sep: number): FileRow[] {
  const rows: FileRow[] = [];
  let cells: string[] = [];
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
        rows.push({ line: rowLine, cells });
        break;
      }
      continue;
    }
    // A line end (CR LF, LF or CR) or the end of the text closes the row.
    rows.push({ line: rowLine, cells });
    cells = [];
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

function fixedRows(text: string, widths: readonly number[]): FileRow[] {
  const rows: FileRow[] = [];
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
    rows.push({ line, cells });
    i = end;
    if (i < n && text.charCodeAt(i) === CR && i + 1 < n && text.charCodeAt(i + 1) === LF) i++;
    if (i < n) i++;
    line++;
  }
  return rows;
}
