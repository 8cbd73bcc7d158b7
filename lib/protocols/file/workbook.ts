/**
 * An Excel workbook (.xlsx) read into the same rows of text cells a text
 * export gives (./table.ts), so tables, layouts, pointing and the preview
 * work on it unchanged: one sheet, each spreadsheet row a FileRow whose
 * `line` is the row's number in Excel, each cell in its column (A = 1).
 *
 * A legacy Excel 97-2003 workbook (.xls, BIFF8 in an OLE2 compound file),
 * which many plate readers and cyclers still write, is read the same way:
 * it is not compressed, so it holds no more than its own size, which
 * `maxUnpackedMB` bounds.
 *
 * An .xlsx is a ZIP archive, and a few kilobytes of ZIP can inflate to
 * gigabytes. Before any byte reaches the spreadsheet library its central
 * directory is read here, and every entry is inflated with a bound on its
 * output: the declared sizes (which a crafted file may understate) and the
 * bytes actually inflated must both stay under the dialect's
 * `maxUnpackedMB`, or the file is refused naming that setting. The library
 * inflates the same streams afterwards, so what it holds is what was counted.
 *
 * Cells are read as raw values, not as Excel would display them: a number
 * is its stored value in the shortest decimal that reads back the same
 * (`28.53378323812079`, never rounded by a display format; a decimal point
 * whatever the locale), a date or time cell is `YYYY-MM-DD HH:mm:ss` (the
 * wall time written in the workbook), a boolean `TRUE`/`FALSE`, an error its
 * code (`#N/A`), text as written.
 */
import { inflateRawSync } from 'node:zlib';
import type * as Xlsx from '@e965/xlsx';
import { excerpt, excerptList } from './excerpt';
import { startsAsZip, zipEntries, zipEntryData } from './zip';
import { DEFAULT_MAX_ROWS, RowLimitError, type FileRow } from './table';
import type { FileDialectProfile } from './types';

let loaded: typeof Xlsx | undefined;
/** SheetJS is a megabyte of script (about 0.2 s to load): loaded with the first workbook, not with every Node-RED start. */
function sheetjs(): typeof Xlsx {
  // The package builds to CommonJS: require is the lazy load.
  return (loaded ??= require('@e965/xlsx') as typeof Xlsx);
}

/** The unpacked size a dialect allows when it does not say: the largest Design & Analysis workbook seen (21 MB, with its amplification and raw data sheets) and room to spare; SheetJS holds several times that in memory while reading. */
export const DEFAULT_MAX_UNPACKED_MB = 50;

/** Why a workbook cannot be read, and the setting to change (the reader wraps it in its own error). */
export class WorkbookError extends Error {
  constructor(
    message: string,
    readonly setting: string,
  ) {
    super(message);
    this.name = 'WorkbookError';
  }
}

/** Why a workbook's ZIP may not hold together: besides a damaged file, one decoded as text on its way (its bytes are lost). */
const DAMAGED = 'the file is damaged: cut short, or read as text on its way (a workbook must arrive as bytes: Node-RED\'s file-in node set to "a single Buffer object")';
const asWorkbook = { noun: 'workbook', damaged: DAMAGED, fail: (message: string, setting: string) => new WorkbookError(message, setting) };

/** What the ZIP's directory says its entries unpack to, in bytes; undefined when it has no directory that holds together. */
export function declaredUnpackedBytes(bytes: Buffer): number | undefined {
  if (isLegacyWorkbook(bytes)) return bytes.length;
  try {
    return zipEntries(bytes, asWorkbook).reduce((sum, e) => sum + e.unpacked, 0);
  } catch {
    return undefined;
  }
}

/**
 * Refuses a ZIP whose entries would unpack to more than `limit` bytes: first
 * by the sizes the directory declares (a bomb is refused before anything is
 * inflated), then by inflating each entry with its output capped at what is
 * left of the allowance (a directory that understates is caught too).
 */
export function checkUnpackedSize(bytes: Buffer, limitMB: number): void {
  const limit = limitMB * 1024 * 1024;
  const entries = zipEntries(bytes, asWorkbook);
  const refuse = (total: string) => new WorkbookError(`the workbook unpacks to ${total}, more than maxUnpackedMB ${limitMB} MB allows: not read (a damaged or hostile file; raise maxUnpackedMB only for a workbook you trust)`, 'maxUnpackedMB');
  let declared = 0;
  for (const e of entries) declared += e.unpacked;
  if (declared > limit) throw refuse(`${Math.ceil(declared / (1024 * 1024))} MB by its directory`);
  if (!entries.some((e) => e.name === 'xl/workbook.xml')) throw new WorkbookError('the file is a ZIP archive but holds no Excel workbook (no xl/workbook.xml): not an .xlsx file', 'format');
  let used = 0;
  for (const e of entries) {
    const data = zipEntryData(bytes, e, asWorkbook);
    if (e.method === 0) {
      used += e.compressed;
    } else if (e.method === 8) {
      try {
        used += inflateRawSync(bytes.subarray(data), { maxOutputLength: Math.max(1, limit - used) }).length;
      } catch (err) {
        if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw refuse(`more than its directory says (the allowance ran out inflating ${excerpt(e.name, 60)})`);
        throw new WorkbookError(`the workbook's ZIP entry ${excerpt(e.name, 60)} does not inflate (${(err as Error).message}): ${DAMAGED}`, 'format');
      }
    } else {
      throw new WorkbookError(`the workbook's ZIP entry ${excerpt(e.name, 60)} uses compression method ${e.method}, which Excel never writes: not read`, 'format');
    }
    if (used > limit) throw refuse(`more than its directory says`);
  }
}

/** What the bytes are when they are no .xlsx workbook; undefined when they start as one. */
export function notWorkbook(bytes: Buffer): string | undefined {
  if (startsAsZip(bytes) || isLegacyWorkbook(bytes)) return undefined;
  if (bytes.length === 0) return 'the file is empty, and the dialect reads Excel workbooks (format xlsx)';
  return 'the file is not an Excel workbook (it starts neither as a ZIP archive, .xlsx, nor as an OLE2 file, .xls), and the dialect reads workbooks (format xlsx): a text export needs a dialect with format text; a workbook cannot be pasted as text';
}

/** An OLE2 compound file (its 8-byte signature): an Excel 97-2003 workbook, .xls. */
export function isLegacyWorkbook(bytes: Buffer): boolean {
  return bytes.length >= 8 && bytes.readUInt32BE(0) === 0xd0cf11e0 && bytes.readUInt32BE(4) === 0xa1b11ae1;
}

function cellText(XLSX: typeof Xlsx, cell: Xlsx.CellObject | undefined, date1904: boolean): string {
  if (cell === undefined || cell.v === undefined || cell.v === null) return '';
  switch (cell.t) {
    case 'n':
      if (cell.z !== undefined && XLSX.SSF.is_date(cell.z)) return XLSX.SSF.format('yyyy-mm-dd hh:mm:ss', cell.v, { date1904 }) as string;
      return String(cell.v);
    case 'b':
      return cell.v ? 'TRUE' : 'FALSE';
    case 'e':
      return cell.w ?? String(cell.v);
    default:
      return String(cell.v);
  }
}

/** The sheet the dialect names (its name, or its 1-based position) as rows of text cells. */
export function workbookRows(bytes: Buffer, profile: FileDialectProfile): FileRow[] {
  const problem = notWorkbook(bytes);
  if (problem !== undefined) throw new WorkbookError(problem, 'format');
  const limitMB = profile.maxUnpackedMB ?? DEFAULT_MAX_UNPACKED_MB;
  if (!isLegacyWorkbook(bytes)) checkUnpackedSize(bytes, limitMB);
  else if (bytes.length > limitMB * 1024 * 1024) throw new WorkbookError(`the .xls workbook is ${Math.ceil(bytes.length / (1024 * 1024))} MB, more than maxUnpackedMB ${limitMB} MB allows: not read (raise maxUnpackedMB only for a workbook you trust)`, 'maxUnpackedMB');
  const sheet = profile.sheet ?? 1;
  const XLSX = sheetjs();
  let book: Xlsx.WorkBook;
  // The library writes to console.error when a ZIP's data descriptor disagrees with its directory (Apache POI,
  // which the Design & Analysis software uses, writes such files): harmless here, since the sizes were checked
  // above, and noise in a Node-RED log per file. The read is synchronous, so nothing else writes meanwhile.
  const log = console.error;
  console.error = () => undefined;
  try {
    book = XLSX.read(bytes, { type: 'buffer', dense: true, cellNF: true, cellDates: false, cellFormula: false, cellHTML: false, cellStyles: false, bookVBA: false, sheets: typeof sheet === 'number' ? sheet - 1 : typeof sheet === 'string' ? sheet : [...sheet] });
  } catch (err) {
    throw new WorkbookError(`the workbook cannot be read (${(err as Error).message.slice(0, 200)}): the file is damaged or not an Excel workbook`, 'format');
  } finally {
    console.error = log;
  }
  const names = book.SheetNames;
  // A list names the sheet in the dialect's order of preference, not the workbook's.
  const name = typeof sheet === 'number' ? names[sheet - 1] : typeof sheet === 'string' ? (names.includes(sheet) ? sheet : undefined) : sheet.find((n) => names.includes(n));
  const ws = name === undefined ? undefined : book.Sheets[name];
  if (ws === undefined) {
    const wanted = Array.isArray(sheet) ? sheet.map((n) => JSON.stringify(n)).join(' or ') : JSON.stringify(sheet);
    throw new WorkbookError(`the workbook has no sheet ${wanted} (sheet); its sheets are ${excerptList(names, undefined, true)}; set sheet to one of their names or positions`, 'sheet');
  }
  const date1904 = book.Workbook?.WBProps?.date1904 === true;
  const data = (ws['!data'] ?? []) as Array<Array<Xlsx.CellObject | undefined> | undefined>;
  const rows: FileRow[] = [];
  const maxRows = profile.maxRows ?? DEFAULT_MAX_ROWS;
  let emptyBefore = false;
  const push = (row: FileRow) => {
    if (rows.length >= maxRows) throw new RowLimitError(maxRows, row.line);
    rows.push(row);
  };
  for (let r = 0; r < data.length; r++) {
    const row = data[r];
    const cells: string[] = [];
    if (row !== undefined) for (let c = 0; c < row.length; c++) cells.push(cellText(XLSX, row[c], date1904));
    while (cells.length > 0 && cells[cells.length - 1] === '') cells.pop();
    // A run of empty rows is kept as one (it ends a table all the same), so a sheet with one far-off cell costs nothing.
    if (cells.length === 0) {
      if (!emptyBefore) push({ line: r + 1, cells: [] });
      emptyBefore = true;
      continue;
    }
    emptyBefore = false;
    push({ line: r + 1, cells });
  }
  return rows;
}
