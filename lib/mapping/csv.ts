/**
 * The mapping as CSV, so a lab can keep it in a spreadsheet. RFC 4180 quoting;
 * on import the delimiter (comma or semicolon, as spreadsheets in many locales
 * write) is taken from the header line, and columns are found by name in any order.
 */
import { MappingRowSchema, cleanRow, type MappingRow } from './model';
import { invalidInput } from '../errors';

/**
 * The columns named by the issue, then the optional ones this package adds: `use` (orders, results, or empty for
 * both) and `values`, a coded test's value map as `text=LIS value` pairs joined by `|` (`\` escapes `|`, `=`, `\`).
 */
export const CSV_COLUMNS = ['lisTestId', 'lisCode', 'lisName', 'instrumentCode', 'instrumentSubCode', 'lisSubCode', 'note', 'use', 'values'] as const;
const REQUIRED = ['lisTestId', 'lisCode', 'instrumentCode'] as const;

export function formatCsv(rows: readonly MappingRow[]): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const row of rows) lines.push(CSV_COLUMNS.map((c) => quote(c === 'values' ? formatValues(row.values) : (row[c] ?? ''))).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

const escapeValue = (v: string) => v.replace(/[\\|=]/g, (c) => `\\${c}`);

function formatValues(values: MappingRow['values']): string {
  return values ? values.map((v) => `${escapeValue(v.text)}=${escapeValue(v.lis)}`).join('|') : '';
}

/** The value map a `values` cell holds; an empty cell: a numeric test. One pass over the cell. */
function parseValues(cell: string): Array<{ text: string; lis: string }> | undefined {
  if (cell.trim() === '') return undefined;
  const pairs: Array<{ text: string; lis: string }> = [];
  let parts: string[] = [];
  let part = '';
  for (let i = 0; i < cell.length; i++) {
    const ch = cell[i]!;
    if (ch === '\\' && i + 1 < cell.length) part += cell[++i];
    else if (ch === '=') {
      parts.push(part);
      part = '';
    } else if (ch === '|') {
      parts.push(part);
      pairs.push(pairOf(parts));
      parts = [];
      part = '';
    } else part += ch;
  }
  parts.push(part);
  pairs.push(pairOf(parts));
  return pairs;
}

function pairOf(parts: string[]): { text: string; lis: string } {
  // A pair with no `=`, or more than one, leaves a side empty, which the row's schema refuses by name.
  return parts.length === 2 ? { text: parts[0]!, lis: parts[1]! } : { text: parts.join('='), lis: '' };
}

function quote(value: string): string {
  // A leading =, +, - or @ would be run as a formula by spreadsheets: keep it text.
  const safe = /^[=+\-@]/.test(value) ? `'${value}` : value;
  return /[",;\r\n']/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export interface CsvImport {
  rows: MappingRow[];
  /** Lines that could not be used, with why (line numbers count from 1, the header being line 1). */
  problems: string[];
}

export function parseCsv(text: string): CsvImport {
  const body = text.replace(/^\uFEFF/, '');
  const headerEnd = body.search(/\r?\n/);
  const headerLine = headerEnd === -1 ? body : body.slice(0, headerEnd);
  const delimiter = headerLine.includes(';') && !headerLine.includes(',') ? ';' : ',';
  const records = splitRecords(body, delimiter);
  const header = (records.shift()?.fields ?? []).map((h) => h.trim());
  const missing = REQUIRED.filter((c) => !header.includes(c));
  if (missing.length > 0) return { rows: [], problems: [`line 1: the header lacks column(s) ${missing.join(', ')}`] };

  const rows: MappingRow[] = [];
  const problems: string[] = [];
  for (const { fields, line } of records) {
    if (fields.every((f) => f.trim() === '')) continue;
    const raw: Record<string, unknown> = {};
    header.forEach((name, i) => {
      if ((CSV_COLUMNS as readonly string[]).includes(name)) raw[name] = unquoteFormula(fields[i] ?? '');
    });
    raw.values = typeof raw.values === 'string' ? parseValues(raw.values) : undefined;
    if (raw.use === '') delete raw.use;
    const parsed = MappingRowSchema.safeParse(raw);
    if (!parsed.success) {
      problems.push(`line ${line}: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
      continue;
    }
    rows.push(cleanRow(parsed.data));
  }
  return { rows, problems };
}

function unquoteFormula(value: string): string {
  return /^'[=+\-@]/.test(value) ? value.slice(1) : value;
}

/** Records with their first line number; quoted fields may hold delimiters, quotes and line breaks. */
function splitRecords(text: string, delimiter: string): Array<{ fields: string[]; line: number }> {
  const out: Array<{ fields: string[]; line: number }> = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let startLine = 1;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else {
        if (ch === '\n') line++;
        field += ch;
      }
    } else if (ch === '"' && field === '') quoted = true;
    else if (ch === delimiter) {
      fields.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      fields.push(field);
      out.push({ fields, line: startLine });
      fields = [];
      field = '';
      line++;
      startLine = line;
    } else field += ch;
  }
  if (field !== '' || fields.length > 0) {
    fields.push(field);
    out.push({ fields, line: startLine });
  }
  return out;
}

/** The rows of a mapping CSV sent in a message; any unusable line refuses the whole file. */
export function csvMappingRows(text: string): MappingRow[] {
  const { rows, problems } = parseCsv(text);
  if (problems.length > 0) throw invalidInput('the message mapping CSV has unusable lines', problems);
  return rows;
}
