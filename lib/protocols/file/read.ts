/**
 * One instrument export read into lab events: patient results (one batch per
 * sample, in the order the file names them), QC results kept apart, and what
 * is not sent with its reason (unassigned: no result, no sample number, a
 * sample number that does not decode cleanly). A pure function of the bytes,
 * the dialect, the file's name and the site's zone; linear in the file.
 *
 * A file the dialect cannot read at all (no table, a column the dialect names
 * that the file does not have) throws FileReadError, which names the line,
 * the column and the setting to change.
 */
import { SAMPLE_NUMBER, SAMPLE_NUMBER_SAID } from './dialects/sample-number';
import type { InstrumentResult, LabEvent, UnassignedResult } from '../../lab/types';
import { parseAstmTimestamp } from '../../lab/timestamp';
import { readDateTime } from './date';
import { clip, excerpt, excerptList } from './excerpt';
import { checkpoints, runAtOnce, runInSlices, type Steps } from '../../util/slices';
import { cellJoiner, decodeSteps, DEFAULT_MAX_ROWS, RowLimitError, rowsOf, rowSteps, type FileRow } from './table';
import { WorkbookError, workbookRows } from './workbook';
import { ArchiveError, archiveMember, archiveMemberOffLoop } from './archive';
import { startsAsZip } from './zip';
import { workbookRowsOffLoop } from './workbook-thread';
import { bioplexRowSteps, BioplexError } from './bioplex';
import { XmlError } from './xml';
import type { ColumnRef, FileDialectProfile, NamedTest } from './types';

export class FileReadError extends Error {
  /** The 1-based line of the file, and the setting of the dialect to change. */
  readonly line?: number;
  readonly setting?: string;

  constructor(message: string, at: { line?: number; setting?: string } = {}) {
    super(message);
    this.name = 'FileReadError';
    this.line = at.line;
    this.setting = at.setting;
  }
}

export interface FileReadOptions {
  /** The site's IANA zone, used unless the dialect names the instrument's own. */
  timeZone: string;
  /** The file's name (a run date may be read from it). */
  fileName?: string;
}

/** A well of a plate up to 1536 wells (A1, H12, P24, AF48): never a sample number by itself, whatever the dialect's pattern. */
const WELL_POSITION = /^(?:[A-P]|A[A-F])0?(?:[1-9]|[1-4][0-9])$/;

/** A cell longer than this is no sample number, test code or date: patterns are not run over it. */
const MAX_CELL = 256;
/** A number with a decimal comma, an operator before it or not (`<0,5`), as the ASTM reading takes it; `1.234,5` is no such number and stays as written. */
const DECIMAL_COMMA = /^([<>]=?\s*|=\s*)?[+-]?\d+,\d+$/;
/** A row's text kept in an unassigned item, for the operator. */
const MAX_ROW_TEXT = 500;

/** Where a result came from: its row, its cells, and the row's place in the file. */
interface Cellular {
  sample: string;
  test: string;
  value: string;
  units?: string;
  flags?: string;
  time?: string;
  row: FileRow;
  /** The 0-based column the value was in (for the preview's capture). */
  valueColumn: number;
  qc: boolean;
  /** A column per test (or a plate well): an empty cell is a result left empty, not for the LIS (kept with why). */
  optional?: boolean;
  /** Why the row is not valid by the dialect's validWhen, when it is not. */
  invalid?: string;
  /** A plate's well (`C4`): its results carry it, and a well without a sample is held by its name. */
  well?: string;
  /** Why its test code is empty, where the layout knows better than "no test code" (an assay cell left empty). */
  noTest?: string;
}

export function fileLabEvents(bytes: Buffer, profile: FileDialectProfile, options: FileReadOptions): LabEvent[] {
  return readFile(bytes, profile, options).events;
}

/** The same without holding the event loop: a text export read in slices, a workbook in a worker thread. */
/** How a reading in slices may be stopped, and the most heap a workbook's worker thread gets (lisBridge.workbookHeapMB). */
export interface SlicedReadOptions {
  signal?: AbortSignal;
  workbookHeapMB?: number;
}

export async function fileLabEventsInSlices(bytes: Buffer, profile: FileDialectProfile, options: FileReadOptions & SlicedReadOptions): Promise<LabEvent[]> {
  return (await readFileInSlices(bytes, profile, options)).events;
}

/** The file's text (decoded) read into events; its rows come back for the editor's capture. */
export function readFile(bytes: Buffer, profile: FileDialectProfile, options: FileReadOptions): { events: LabEvent[]; rows: FileRow[] } {
  return runAtOnce(readSteps(fileRows(bytes, profile), profile, options));
}

/** readFile in slices (./slices.ts) and, for a workbook, off the event loop; the same answer. */
export async function readFileInSlices(bytes: Buffer, profile: FileDialectProfile, options: FileReadOptions & SlicedReadOptions): Promise<{ events: LabEvent[]; rows: FileRow[] }> {
  return readRowsInSlices(await fileRowsInSlices(bytes, profile, options), profile, options);
}

/** Rows already cut (a workbook's, from its worker) read into events in slices. */
export function readRowsInSlices(rows: FileRow[], profile: FileDialectProfile, options: FileReadOptions & { signal?: AbortSignal }): Promise<{ events: LabEvent[]; rows: FileRow[] }> {
  return runInSlices(readSteps(rows, profile, options), { signal: options.signal });
}

/** The file's rows of text cells: a workbook's sheet, or a text export decoded and cut. */
export function fileRows(packed: Buffer, profile: FileDialectProfile): FileRow[] {
  let bytes: Buffer;
  try {
    bytes = profile.archive === undefined ? packed : archiveMember(packed, profile);
  } catch (err) {
    throw asReadError(err);
  }
  if (profile.format === 'xlsx') {
    try {
      return workbookRows(bytes, profile);
    } catch (err) {
      throw asReadError(err);
    }
  }
  return runAtOnce(textRowSteps(bytes, profile));
}

/** fileRows without holding the event loop: a workbook read in a worker thread, a text export cut in slices. */
export async function fileRowsInSlices(packed: Buffer, profile: FileDialectProfile, options: SlicedReadOptions = {}): Promise<FileRow[]> {
  const { signal } = options;
  let bytes: Buffer;
  try {
    bytes = profile.archive === undefined ? packed : await archiveMemberOffLoop(packed, profile);
  } catch (err) {
    throw asReadError(err);
  }
  if (profile.format === 'xlsx') {
    try {
      return await workbookRowsOffLoop(bytes, profile, { signal, maxHeapMB: options.workbookHeapMB });
    } catch (err) {
      throw asReadError(err);
    }
  }
  return runInSlices(textRowSteps(bytes, profile), { signal });
}

function asReadError(err: unknown): unknown {
  if (err instanceof XmlError) return new FileReadError(`the file is no well-formed XML: ${err.message}`, { line: err.line, setting: 'format' });
  if (err instanceof BioplexError) return new FileReadError(err.message, { ...(err.line === undefined ? {} : { line: err.line }), setting: 'format' });
  if (err instanceof WorkbookError || err instanceof ArchiveError) return new FileReadError(err.message, { setting: err.setting });
  if (err instanceof RowLimitError) return new FileReadError(err.message, { line: err.line, setting: 'maxRows' });
  return err;
}

function* textRowSteps(bytes: Buffer, profile: FileDialectProfile): Steps<FileRow[]> {
  const binary = notText(bytes, profile.encoding);
  if (binary !== undefined) throw new FileReadError(binary, { setting: binary.startsWith('the file is a ZIP') ? 'format' : 'encoding' });
  const text = yield* decodeSteps(bytes, profile.encoding);
  try {
    if (profile.format === 'bioplex-xml') return yield* bioplexRowSteps(text, profile.maxRows ?? DEFAULT_MAX_ROWS);
    return yield* unquotedSteps(yield* rowSteps(text, profile.delimiter, profile.maxRows ?? DEFAULT_MAX_ROWS), profile);
  } catch (err) {
    throw asReadError(err);
  }
}

/**
 * Why bytes are no text export the dialect can read, before any cell is cut:
 * a workbook read as text would only fail later, naming a column instead of
 * the file's kind.
 */
function notText(bytes: Buffer, encoding: FileDialectProfile['encoding']): string | undefined {
  const starts = (...b: number[]) => b.every((x, i) => bytes[i] === x);
  if (startsAsZip(bytes)) return 'the file is a ZIP archive (an Excel .xlsx workbook?) and the dialect reads text (format text): set format to xlsx (and sheet), or archive.member to read one text file inside the archive, or export CSV or text from the instrument software';
  if (starts(0xd0, 0xcf, 0x11, 0xe0)) return 'the file is an Excel 97-2003 workbook (.xls), and the dialect reads text (format text): set format to xlsx (it reads .xls and .xlsx workbooks, and sheet), or export CSV or text from the instrument software';
  if (encoding !== 'utf16le' && (starts(0xff, 0xfe) || starts(0xfe, 0xff))) return `the file starts with a UTF-16 byte-order mark but the dialect reads ${encoding}: set encoding to utf16le`;
  // UTF-16 writes a zero byte beside every Latin letter, digit, tab and line end: a file of lines without one is 8-bit
  // text, and read as UTF-16 it would show as CJK characters.
  if (encoding === 'utf16le' && bytes.length >= 2 && !starts(0xff, 0xfe) && bytes.subarray(0, 4096).indexOf(0) < 0) return 'the file is not UTF-16 text (no zero byte in its first 4 KB, where UTF-16 writes one beside every Latin letter, digit and line end) but the dialect reads utf16le: set encoding to utf8 or latin1 (an 8-bit export)';
  return undefined;
}

/** The same from text already decoded (a file pasted into the dialect editor). */
export function readText(text: string, profile: FileDialectProfile, options: FileReadOptions): { events: LabEvent[]; rows: FileRow[] } {
  return runAtOnce(readSteps(pastedRows(text, profile), profile, options));
}

/** Text already decoded (a paste) cut into rows; FileReadError past maxRows. */
export function pastedRows(text: string, profile: FileDialectProfile): FileRow[] {
  return runAtOnce(pastedRowSteps(text, profile));
}

/** The same in slices. */
export function pastedRowsInSlices(text: string, profile: FileDialectProfile): Promise<FileRow[]> {
  return runInSlices(pastedRowSteps(text, profile));
}

function* pastedRowSteps(text: string, profile: FileDialectProfile): Steps<FileRow[]> {
  try {
    if (profile.format === 'bioplex-xml') return yield* bioplexRowSteps(text, profile.maxRows ?? DEFAULT_MAX_ROWS);
    return yield* unquotedSteps(yield* rowSteps(text, profile.delimiter, profile.maxRows ?? DEFAULT_MAX_ROWS), profile);
  } catch (err) {
    throw asReadError(err);
  }
}

/**
 * With table.quotedLines, a line that is one quoted field holding a whole
 * row is cut again inside, at the same delimiter, on the same line; a line
 * already of several cells stays as it is.
 */
function* unquotedSteps(rows: FileRow[], profile: FileDialectProfile): Steps<FileRow[]> {
  if (!profile.table.quotedLines || typeof profile.delimiter !== 'string') return rows;
  const tick = checkpoints();
  const out: FileRow[] = [];
  for (const row of rows) {
    if (row.cells.length === 1 && row.cells[0] !== '') out.push({ ...row, cells: rowsOf(row.cells[0]!, profile.delimiter).flatMap((r) => r.cells) });
    else out.push(row);
    if (tick()) yield;
  }
  return out;
}

/** The rows read into events, with a checkpoint every few hundred cells. */
function* readSteps(rows: FileRow[], profile: FileDialectProfile, options: FileReadOptions): Steps<{ events: LabEvent[]; rows: FileRow[] }> {
  const zone = profile.timeZone ?? options.timeZone;
  const problems: string[] = [];
  const runDate = yield* readRunDate(profile, rows, options.fileName, zone, problems);
  const items = cellsOf(profile, rows, yield* readNamedTest(profile, rows, options.fileName));
  const sep = cellJoiner(profile);
  // A row with a cell per test may leave every cell unassigned: its text is made once, and only its start.
  const texts = new Map<FileRow, string>();
  const rowText = (row: FileRow) => {
    let t = texts.get(row);
    if (t === undefined) {
      t = '';
      for (const [i, cell] of row.cells.entries()) {
        t += (i > 0 ? sep : '') + (cell.length > MAX_ROW_TEXT ? cell.slice(0, MAX_ROW_TEXT) : cell);
        if (t.length > MAX_ROW_TEXT) break;
      }
      t = t.length > MAX_ROW_TEXT ? `${t.slice(0, MAX_ROW_TEXT)}…` : t;
      texts.set(row, t);
    }
    return t;
  };
  const take = profile.sampleNumber.take === undefined ? undefined : new RegExp(profile.sampleNumber.take, 'u');
  const pattern = new RegExp(`^(?:${profile.sampleNumber.pattern})$`, 'u');
  // The built-in rule in words (a person reads this reason); a dialect's own pattern as it is written.
  const patternSaid = profile.sampleNumber.pattern.endsWith(SAMPLE_NUMBER) ? `(${SAMPLE_NUMBER_SAID})` : JSON.stringify(profile.sampleNumber.pattern);
  const noResult = new Set(profile.noResult.map((v) => v.trim().toUpperCase()));
  const timeFormat = profile.layout.form === 'plate' ? undefined : profile.layout.time?.format;

  const bySample = new Map<string, { results: InstrumentResult[]; problems: string[]; seen: Map<string, number> }>();
  const qc: InstrumentResult[] = [];
  const unassigned: UnassignedResult[] = [];
  // Made once, not per cell: a closure over the loop's constants would be one more allocation per row.
  // A plate's line holds a whole row of wells: its text says which well, and the sample its label names, is meant.
  // A wide row's text is cut before its sample cell (a column per analyte first): it then says the sample first.
  const textOf = (item: Cellular) => {
    const text = rowText(item.row);
    const label = item.sample.trim();
    if (item.well !== undefined) return `well ${item.well}${label === '' ? '' : ` ${excerpt(label)}`}: ${text}`;
    return label !== '' && text.endsWith('…') && !text.includes(label) ? `sample ${excerpt(label)}: ${text}` : text;
  };
  const keep = (item: Cellular, test: string, value: string, reason: string, notForLis = false) =>
    unassigned.push({ record: item.row.line, reason: `line ${item.row.line}: ${reason}`, ...(notForLis ? { notForLis: true as const } : {}), text: textOf(item), ...(test !== '' ? { instrumentCode: test } : {}), ...(value !== '' ? { Result: value } : {}), ...(item.units?.trim() ? { units: item.units.trim() } : {}) });
  const tick = checkpoints();
  let n = 0;
  let read = 0;
  for (const item of items) {
    // The table is looked for before the first cell comes: its scans pause here.
    if (item === undefined) {
      yield;
      continue;
    }
    read++;
    if (tick()) yield;
    const value = item.value.trim();
    const test = item.test.trim();
    const label = item.sample.trim();
    if (value === '' && label === '' && test === '') continue; // an empty well or row
    if (test === '') {
      // A row the dialect's own rule says is not for the LIS (validWhen) is counted so, test code or none: Absolute Q's
      // multichannel export writes the partitions positive in no channel as a row with an empty channel.
      if (item.invalid !== undefined) keep(item, test, value, item.invalid, true);
      else keep(item, test, value, `${item.noTest ?? 'no test code'}: not sent`);
      continue;
    }
    if (value === '') {
      // A test column (or a well) with nobody's sample in it holds no result at all. One that names a sample is a
      // result the instrument left empty (a test not done, no amplification): not for the LIS, but said and counted.
      if (item.optional && label === '') continue;
      if (item.optional) keep(item, test, value, `no value for ${clip(test)} (an empty cell, read as no result): not sent`, true);
      else keep(item, test, value, `no value for ${clip(test)}: not sent`);
      continue;
    }
    const result: InstrumentResult = { SampleNumber: label, instrumentCode: test, Result: value, sequence: { patient: 0, order: 0, result: ++n }, record: item.row.line };
    if (item.well !== undefined) result.well = item.well;
    if (profile.decimalComma && DECIMAL_COMMA.test(value)) result.Result = value.replace(',', '.');
    if (result.Result !== item.value) result.rawResult = item.value;
    const units = item.units?.trim();
    if (units) result.units = units;
    const flags = item.flags?.trim();
    if (flags) result.flags = [flags];
    if (item.time !== undefined && item.time.trim() !== '' && timeFormat !== undefined) {
      const raw = item.time.trim();
      result.completedAtRaw = raw;
      const wall = raw.length <= MAX_CELL ? readDateTime(raw, timeFormat) : undefined;
      const instant = wall === undefined ? undefined : placed(wall, zone);
      if (instant !== undefined) result.completedAt = instant;
      else problems.push(`line ${item.row.line}: time ${excerpt(raw)} is not written as layout.time.format ${JSON.stringify(timeFormat)}`);
    } else if (runDate !== undefined) {
      result.completedAt = runDate.instant;
      result.completedAtRaw = runDate.raw;
    }
    if (item.qc) {
      qc.push(result);
      continue;
    }
    if (item.invalid !== undefined) {
      keep(item, test, value, item.invalid, true);
      continue;
    }
    if (noResult.has(value.toUpperCase())) {
      keep(item, test, value, `${clip(test)} is ${excerpt(value)}, a value the dialect reads as no result (noResult): not sent`, true);
      continue;
    }
    const sample = sampleNumberOf(label, take);
    if (sample === undefined) {
      const none = item.well === undefined ? 'no sample number: not sent' : `well ${item.well} names no sample (no label in the file, and layout.wells does not name it): not sent`;
      keep(item, test, value, label === '' ? none : `sample ${excerpt(label)} holds no sample number as sampleNumber.take reads it: not sent`);
      continue;
    }
    if (!pattern.test(sample)) {
      keep(item, test, value, `sample number ${excerpt(sample)} does not match sampleNumber.pattern ${patternSaid}: not sent`);
      continue;
    }
    if (WELL_POSITION.test(sample)) {
      keep(item, test, value, `sample number ${excerpt(sample)} is a plate well's position, which every plate has: not sent (name the sample, or map the well in layout.wells)`);
      continue;
    }
    result.SampleNumber = sample;
    let batch = bySample.get(sample);
    if (batch === undefined) bySample.set(sample, (batch = { results: [], problems: [], seen: new Map() }));
    // Both are sent, as the ASTM reading does, and the batch says so: replicate wells, or a sample run twice.
    const earlier = batch.seen.get(test);
    if (earlier !== undefined) batch.problems.push(`lines ${earlier} and ${item.row.line} both report test ${clip(test)} for sample ${clip(sample)}`);
    else batch.seen.set(test, item.row.line);
    batch.results.push(result);
  }

  const events: LabEvent[] = [];
  let first = true;
  for (const batch of bySample.values()) {
    events.push({ type: 'results', qc: false, results: batch.results, problems: first ? [...problems, ...batch.problems] : batch.problems });
    first = false;
  }
  if (qc.length > 0) events.push({ type: 'qc', results: qc, problems: first ? problems : [] });
  if (unassigned.length > 0) events.push({ type: 'unassigned', items: unassigned });
  if (events.length === 0) events.push({ type: 'other', kind: 'empty-message', reason: `no result rows in the file (${read} rows read from its table)${problems.length ? `; ${problems.join('; ')}` : ''}` });
  return { events, rows };
}

function sampleNumberOf(label: string, take: RegExp | undefined): string | undefined {
  if (label === '' || label.length > MAX_CELL) return undefined;
  if (take === undefined) return label;
  const m = take.exec(label);
  if (m === null) return undefined;
  const s = (m[1] ?? m[0]).trim();
  return s === '' ? undefined : s;
}

function placed(wall: string, zone: string): string | undefined {
  try {
    return parseAstmTimestamp(wall, zone);
  } catch {
    return undefined;
  }
}

/**
 * The test a file names once (layout.test as NamedTest), or undefined when
 * each row names its own. Not found, the file is refused: its values would
 * reach the LIS as nobody's test.
 */
function* readNamedTest(profile: FileDialectProfile, rows: FileRow[], fileName: string | undefined): Steps<string | undefined> {
  const l = profile.layout;
  const named = l.form === 'row-per-sample' || typeof l.test !== 'object' || Array.isArray(l.test) ? undefined : (l.test as NamedTest);
  if (named === undefined) return undefined;
  if ('constant' in named) return named.constant.trim();
  if (named.from === 'block' || named.from === 'line') return undefined; // each block's own, from its title; each plate line's, its name
  const test = firstMatch(yield* textsFrom(named.from, profile, rows, fileName), new RegExp(named.pattern, 'u'));
  if (test !== undefined && test !== '') return test;
  const where = named.from === 'name' ? `the file name ${JSON.stringify(fileName ?? '')} does not match` : 'no line before the table matches';
  throw new FileReadError(`${where} layout.test.pattern ${JSON.stringify(named.pattern)}: the file does not name its test where the dialect looks; set layout.test`, { setting: 'layout.test' });
}

/**
 * A header cell's test code and the unit written inside it: the text in the
 * brackets that close the cell, nested ones kept (`HCT(10^(-1)%)`: HCT,
 * `10^(-1)%`), or the cell's second line (`Concentration` over `(ng/ul)`).
 * A cell that is only brackets, or has none, is all test code.
 */
export function headerUnit(name: string): { test: string; unit?: string } {
  const cell = name.trim();
  const lineBreak = cell.search(/\r?\n/);
  if (lineBreak > 0) {
    const unit = cell.slice(lineBreak).trim().replace(/^[([](.*)[)\]]$/su, '$1').trim();
    return unit === '' ? { test: cell.slice(0, lineBreak).trim() } : { test: cell.slice(0, lineBreak).trim(), unit };
  }
  const close = cell.at(-1);
  const open = close === ')' ? '(' : close === ']' ? '[' : undefined;
  if (open === undefined) return { test: cell };
  let depth = 0;
  for (let i = cell.length - 1; i >= 0; i--) {
    if (cell[i] === close) depth++;
    else if (cell[i] === open && --depth === 0) {
      const test = cell.slice(0, i).trim();
      const unit = cell.slice(i + 1, -1).trim();
      return test === '' || unit === '' ? { test: cell } : { test, unit };
    }
  }
  return { test: cell };
}

function* readRunDate(profile: FileDialectProfile, rows: FileRow[], fileName: string | undefined, zone: string, problems: string[]): Steps<{ instant: string; raw: string } | undefined> {
  const rd = profile.runDate;
  if (rd === undefined) return undefined;
  const raw = firstMatch(yield* textsFrom(rd.from, profile, rows, fileName), new RegExp(rd.pattern, 'u'));
  if (raw !== undefined) {
    const wall = readDateTime(raw, rd.format);
    const instant = wall === undefined ? undefined : placed(wall, zone);
    if (instant !== undefined) return { instant, raw };
    problems.push(`run date ${excerpt(raw)} is not written as runDate.format ${JSON.stringify(rd.format)}`);
    return undefined;
  }
  problems.push(rd.from === 'name' ? `the file name ${JSON.stringify(fileName ?? '')} does not match runDate.pattern: results carry no run date` : 'no line before the table matches runDate.pattern: results carry no run date');
  return undefined;
}

/** Where a run date or a test named once is looked for: the file's name, or the text of each row above the table. */
function* textsFrom(from: 'header' | 'name', profile: FileDialectProfile, rows: FileRow[], fileName: string | undefined): Steps<string[]> {
  return from === 'name' ? [fileName ?? ''] : yield* headerTexts(profile, rows);
}

/** The first group (else the whole match) of the first text the pattern finds, trimmed; texts too long to be a header line are passed over. */
function firstMatch(texts: readonly string[], pattern: RegExp): string | undefined {
  for (const text of texts) {
    if (text.length > 4 * MAX_CELL) continue;
    const m = pattern.exec(text);
    if (m !== null) return (m[1] ?? m[0]).trim();
  }
  return undefined;
}

/**
 * The text of each row above the table (where instruments write the run's date or name the test): before its
 * header row when table.headerFirstCell finds it; in a file of blocks, above the first block's title; on a plate,
 * above its first grid's title.
 */
function* headerTexts(profile: FileDialectProfile, rows: FileRow[]): Steps<string[]> {
  const l = profile.layout;
  const blocks = profile.table.blocks === undefined ? undefined : new RegExp(profile.table.blocks, 'u');
  const titles = l.form === 'plate' ? new Set([l.values, ...(l.samples === undefined ? [] : [l.samples])].map((t) => t.trim())) : undefined;
  const above = (test: (first: string) => boolean) => Math.max(0, rows.findIndex((r) => test((r.cells[0] ?? '').trim().slice(0, MAX_CELL))));
  let end = titles !== undefined ? above((c) => titles.has(c)) : blocks !== undefined ? above((c) => blocks.test(c)) : (yield* tableStartSteps(profile, rows)).index;
  const first = profile.table.header ? profile.table.headerFirstCell?.trim() : undefined;
  const tick = checkpoints();
  if (first !== undefined) {
    let i = end;
    while (i < rows.length && (rows[i]!.cells[0] ?? '').trim() !== first) {
      i++;
      if (tick()) yield;
    }
    if (i < rows.length) end = i;
  }
  const sep = cellJoiner(profile);
  const texts: string[] = [];
  for (let i = 0; i < end; i++) {
    texts.push(rows[i]!.cells.join(sep));
    if (tick()) yield;
  }
  return texts;
}

const isEmpty = (row: FileRow) => row.cells.every((c) => c.trim() === '');

/** Where the table starts (its header row, or first data row), per table.skipRows and table.startsAfter. */
export function tableStart(profile: FileDialectProfile, rows: FileRow[]): { index: number } {
  return runAtOnce(tableStartSteps(profile, rows));
}

/** The same with a checkpoint every few hundred rows: a section title is looked for through the whole file. */
export function* tableStartSteps(profile: FileDialectProfile, rows: readonly FileRow[]): Steps<{ index: number }> {
  const t = profile.table;
  let index = Math.min(t.skipRows, rows.length);
  if (t.startsAfter !== undefined) {
    const cells = (typeof t.startsAfter === 'string' ? [t.startsAfter] : t.startsAfter).map((c) => c.trim());
    const title = cells.length === 1 ? cells[0]! : cells;
    const isTitle = (row: FileRow) => cells.every((c, k) => (row.cells[k] ?? '').trim() === c);
    const tick = checkpoints();
    let found = -1;
    for (let i = index; i < rows.length; i++) {
      if (isTitle(rows[i]!)) {
        found = i;
        break;
      }
      if (tick()) yield;
    }
    if (found < 0) throw new FileReadError(`no row starts with ${JSON.stringify(title)} (table.startsAfter): this file has no such section; check the dialect or set table.startsAfter`, { setting: 'table.startsAfter' });
    index = (yield* onlyOne(rows, found, isTitle, JSON.stringify(title), 'table.startsAfter', 'section', 'one per plate?')) + 1;
  }
  return { index };
}

/**
 * The row at `at`, when no later row starts with the same title: a file with
 * two grids or sections of one name (a second plate, a second wavelength) is
 * refused, since reading the first alone would leave the other's results
 * unsent without a word.
 */
function* onlyOne(rows: readonly FileRow[], at: number, isTitle: (row: FileRow) => boolean, title: string, setting: string, what: string, why: string): Steps<number> {
  const tick = checkpoints();
  for (let i = at + 1; i < rows.length; i++) {
    if (isTitle(rows[i]!)) {
      throw new FileReadError(`line ${rows[i]!.line}: a second ${what} starts with ${title} (${setting}), after the one on line ${rows[at]!.line} (${why}); the dialect reads one, and the other's results would not be sent: export each on its own file`, { line: rows[i]!.line, setting });
    }
    if (tick()) yield;
  }
  return at;
}

/** The table's rows after its header, up to an empty row when the table ends there. */
function* tableRows(profile: FileDialectProfile, rows: FileRow[], from: number): Steps<FileRow[]> {
  const out: FileRow[] = [];
  const tick = checkpoints();
  for (let i = from; i < rows.length; i++) {
    if (tick()) yield;
    const row = rows[i]!;
    if (isEmpty(row)) {
      if (profile.table.endsAtEmptyRow) break;
      continue;
    }
    out.push(row);
  }
  return out;
}

interface Header {
  names: string[];
  line: number;
}

function columnIndex(ref: ColumnRef, header: Header | undefined, setting: string): number {
  if (typeof ref === 'number') return ref - 1;
  const at = header === undefined ? -1 : header.names.indexOf(ref.trim());
  if (at < 0) {
    const names = header === undefined ? 'the table has no header row (table.header is false): name columns by position' : `the column names on line ${header.line} are ${excerptList(header.names)}`;
    throw new FileReadError(`line ${header?.line ?? '?'}: no column ${JSON.stringify(ref)} (${setting}); ${names}; set ${setting} to one of them`, { line: header?.line, setting });
  }
  return at;
}

/**
 * The blocks of a file of several tables (table.blocks): each row whose first
 * cell matches the pattern starts one, named by the pattern's first group
 * (else its match), and the rows up to the next such row are a table read as
 * any is (table.header, headerFirstCell, endsAtEmptyRow), from its own header.
 */
function* blockSteps(profile: FileDialectProfile, rows: FileRow[]): Steps<Array<{ header?: Header; data: FileRow[]; name: string; line: number }>> {
  const t = profile.table;
  const pattern = new RegExp(t.blocks!, 'u');
  const tick = checkpoints();
  const starts: Array<{ index: number; name: string }> = [];
  for (let i = Math.min(t.skipRows, rows.length); i < rows.length; i++) {
    const first = (rows[i]!.cells[0] ?? '').trim();
    const m = first.length <= MAX_CELL ? pattern.exec(first) : null;
    if (m !== null) starts.push({ index: i, name: (m[1] ?? m[0]).trim() });
    if (tick()) yield;
  }
  if (starts.length === 0) throw new FileReadError(`no row starts with a cell matching table.blocks ${JSON.stringify(t.blocks)}: the file has no such tables; check the dialect or set table.blocks`, { setting: 'table.blocks' });
  // Each block cut as a table of its own: what came before its title, and the other blocks, are not its rows.
  const one: FileDialectProfile = { ...profile, table: { skipRows: 0, header: t.header, endsAtEmptyRow: t.endsAtEmptyRow, ...(t.headerFirstCell === undefined ? {} : { headerFirstCell: t.headerFirstCell }) } };
  const out: Array<{ header?: Header; data: FileRow[]; name: string; line: number }> = [];
  for (const [k, start] of starts.entries()) {
    const end = starts[k + 1]?.index ?? rows.length;
    const line = rows[start.index]!.line;
    try {
      out.push({ ...(yield* tableSteps(one, rows.slice(start.index + 1, end))), name: start.name, line });
    } catch (err) {
      throw inBlock(err, { name: start.name, line });
    }
  }
  return out;
}

/** A read error in a block, prefixed with the block's title line and name (other errors as they are). */
function inBlock(err: unknown, block: { name: string; line: number }): unknown {
  if (!(err instanceof FileReadError)) return err;
  return new FileReadError(`the block on line ${block.line} (${excerpt(block.name)}): ${err.message}`, { line: block.line, ...(err.setting === undefined ? {} : { setting: err.setting }) });
}

/** The table's header row and data rows (skipping empty rows before the header). */
export function tableOf(profile: FileDialectProfile, rows: FileRow[]): { header?: Header; data: FileRow[] } {
  return runAtOnce(tableSteps(profile, rows));
}

/** The same with a checkpoint every few hundred rows: finding the table and its rows is a pass over the file. */
export function* tableSteps(profile: FileDialectProfile, rows: FileRow[]): Steps<{ header?: Header; data: FileRow[] }> {
  // A file of blocks is pointed at in its first: its header names the columns every block has.
  if (profile.table.blocks !== undefined) return (yield* blockSteps(profile, rows))[0]!;
  let index = (yield* tableStartSteps(profile, rows)).index;
  const tick = checkpoints();
  while (index < rows.length && isEmpty(rows[index]!)) {
    index++;
    if (tick()) yield;
  }
  const first = profile.table.headerFirstCell?.trim();
  if (first !== undefined && profile.table.header) {
    const from = index;
    while (index < rows.length && (rows[index]!.cells[0] ?? '').trim() !== first) {
      index++;
      if (tick()) yield;
    }
    if (index >= rows.length) throw new FileReadError(`no row${from > 0 ? ` after line ${rows[from - 1]!.line}` : ''} starts with ${JSON.stringify(first)} (table.headerFirstCell): the file has no such header row; set table.headerFirstCell to the first column name of its results table`, { setting: 'table.headerFirstCell' });
  }
  if (!profile.table.header) return { data: yield* tableRows(profile, rows, index) };
  const row = rows[index];
  if (row === undefined) throw new FileReadError(`the file ends before its table's header row (table.skipRows ${profile.table.skipRows}${profile.table.startsAfter ? `, table.startsAfter ${JSON.stringify(profile.table.startsAfter)}` : ''}): check the dialect's table settings`, { setting: 'table.skipRows' });
  return { header: { names: row.cells.map((c) => c.trim()), line: row.line }, data: yield* tableRows(profile, rows, index + 1) };
}

/**
 * The cells each result is read from, one at a time (a list of them would be
 * one more copy of the file); `undefined` is a pause while the table is
 * looked for, before any cell.
 */
function* cellsOf(profile: FileDialectProfile, rows: FileRow[], namedTest: string | undefined): Generator<Cellular | void, void, void> {
  const l = profile.layout;
  if (l.form === 'plate') return yield* plateCells(profile, rows, namedTest);
  if (profile.table.blocks === undefined) return yield* tableCells(profile, yield* tableSteps(profile, rows), namedTest);
  // Each block a table of its own (its own header, its own columns), read one after the other as one file.
  const byBlock = l.form === 'row-per-result' && typeof l.test === 'object' && !Array.isArray(l.test) && 'from' in l.test && l.test.from === 'block';
  for (const block of yield* blockSteps(profile, rows)) {
    try {
      yield* tableCells(profile, block, byBlock ? block.name : namedTest, block.name);
    } catch (err) {
      throw inBlock(err, block);
    }
  }
}

/** A table's header and data rows read into cells, by the layout's columns as that header names them. */
function* tableCells(profile: FileDialectProfile, table: { header?: Header; data: FileRow[] }, namedTest: string | undefined, block?: string): Generator<Cellular | void, void, void> {
  const l = profile.layout;
  if (l.form === 'plate') return;
  const { header, data } = table;
  const at = (ref: ColumnRef | undefined, setting: string) => (ref === undefined ? undefined : columnIndex(ref, header, setting));
  const cell = (row: FileRow, i: number | undefined) => (i === undefined ? undefined : (row.cells[i] ?? ''));
  const sample = at(l.sample, 'layout.sample')!;
  const other = l.notWith?.find((c) => header?.names.includes(c.trim()) === true);
  if (other !== undefined) throw new FileReadError(`line ${header!.line}: the table has the column ${excerpt(other.trim())} (layout.notWith), which says the table is another dialect's to read: choose the dialect that reads it`, { line: header!.line, setting: 'layout.notWith' });
  const timeCols = l.time?.columns.map((c, i) => at(c, `layout.time.columns[${i}]`)!) ?? [];
  const bySample = profile.qc.flatMap((rule) => (rule.by === 'sample' ? [new RegExp(rule.pattern, 'u')] : []));
  const byColumn = profile.qc.flatMap((rule, i) => (rule.by === 'column' ? [{ column: at(rule.column, `qc[${i}].column`)!, anyOf: new Set(rule.anyOf.map((v) => v.trim())) }] : []));
  // A block's title names it a control's table (`Group: Ctrl`): each of its rows is QC.
  const blockIsQc = block !== undefined && profile.qc.some((rule) => rule.by === 'block' && new RegExp(rule.pattern, 'u').test(block));
  const isQc = (row: FileRow, label = row.cells[sample] ?? '') => {
    if (blockIsQc) return true;
    return (label.length <= MAX_CELL && bySample.some((r) => r.test(label.trim()))) || byColumn.some((r) => r.anyOf.has((row.cells[r.column] ?? '').trim()));
  };
  const timeOf = (row: FileRow) => (timeCols.length === 0 ? undefined : timeCols.map((c) => (row.cells[c] ?? '').trim()).join(' '));
  const valid = (profile.validWhen ?? []).map((rule, i) => {
    const none = 'noneOf' in rule;
    return { at: `validWhen[${i}].${none ? 'noneOf' : 'anyOf'}`, none, column: at(rule.column, `validWhen[${i}].column`)!, name: String(rule.column), values: new Set((none ? rule.noneOf : rule.anyOf).map((v) => v.trim())) };
  });
  const invalidOf = (row: FileRow): string | undefined => {
    for (const v of valid) {
      const cell = (row.cells[v.column] ?? '').trim();
      if (v.values.has(cell) === v.none) return `${v.name} is ${excerpt(cell)}, ${v.none ? 'one' : 'not one'} of ${v.at} ${JSON.stringify([...v.values])}: not sent`;
    }
    return undefined;
  };
  if (l.form === 'row-per-result') {
    // A test code of several columns is their cells joined by a space; one of them empty leaves no test code at all.
    const testAt = Array.isArray(l.test) ? (l.test as readonly ColumnRef[]).map((c, i) => at(c, `layout.test[${i}]`)!) : typeof l.test === 'object' ? [] : [at(l.test, 'layout.test')!];
    const testOf = (row: FileRow) => {
      if (testAt.length === 1) return cell(row, testAt[0])!;
      const parts = testAt.map((i) => cell(row, i)!.trim());
      return parts.some((t) => t === '') ? '' : parts.join(' ');
    };
    const value = at(l.value, 'layout.value')!;
    const units = at(l.units, 'layout.units');
    const flags = at(l.flags, 'layout.flags');
    // The value column's header names every value's unit, when no column does.
    const unit = l.headerUnits && units === undefined ? headerUnit(header?.names[value] ?? '').unit : undefined;
    const groups = l.repeats ? repeatedGroups(header, testAt[0]!, value) : [{ test: testAt[0], value }];
    for (const row of data) {
      for (const g of groups) {
        const test = namedTest ?? (l.repeats ? cell(row, g.test)! : testOf(row));
        yield { sample: cell(row, sample)!, test, value: cell(row, g.value)!, units: cell(row, units) ?? unit, flags: cell(row, flags), time: timeOf(row), row, valueColumn: g.value, qc: isQc(row), invalid: invalidOf(row) };
      }
    }
    return;
  }
  const notTests = l.tests === 'rest' ? (l.notTests ?? []).map((c, i) => at(c, `layout.notTests[${i}]`)!) : [];
  const assay = at(l.assay, 'layout.assay');
  const used = new Set<number>([sample, ...timeCols, ...byColumn.map((r) => r.column), ...valid.map((v) => v.column), ...notTests, ...(assay === undefined ? [] : [assay])]);
  const width = header?.names.length ?? 0;
  const picked = l.tests === 'rest' && l.testPattern !== undefined ? new RegExp(l.testPattern, 'u') : undefined;
  const tests =
    l.tests === 'rest'
      ? Array.from({ length: Math.max(0, width - sample - 1) }, (_, k) => sample + 1 + k).filter((i) => !used.has(i) && (header?.names[i] ?? '') !== '' && (picked === undefined || picked.test(header!.names[i]!)))
      : l.someTests
        ? presentTests(l.tests, header)
        : l.tests.map((c, i) => at(c, `layout.tests[${i}]`)!);
  // An empty cell is a result left empty only where its row and its column hold a value elsewhere: a column empty in
  // every row (a test not run in this file, a closing `end` column) and a row empty in every column (a closing row)
  // are no results. A column's empty cells wait until it shows a value (row numbers only), so the file is read once.
  const isBlank = (row: FileRow, i: number) => (row.cells[i] ?? '').trim() === '';
  const valued = new Set<number>();
  const waiting = new Map<number, number[]>();
  // Each column's test code (its unit split off, its statistic matched away) is worked out once, not per row.
  const codes = new Map<number, { test: string; unit?: string }>();
  const codeOf = (i: number) => {
    let got = codes.get(i);
    if (got === undefined) {
      const full = header?.names[i] || `C${i + 1}`;
      const m = picked?.exec(full);
      const name = m ? (m[1] ?? m[0]).trim() : full;
      codes.set(i, (got = l.headerUnits ? headerUnit(name) : { test: name }));
    }
    return got;
  };
  // layout.replicatesBelow: each row's sample, the one named above it where its own cell is empty (worked out as the
  // rows are read, in order: an earlier row's is known when its cells come).
  const named: string[] = [];
  const sampleOf = (r: number) => (l.replicatesBelow ? named[r]! : cell(data[r]!, sample)!);
  const item = (r: number, i: number): Cellular => {
    const row = data[r]!;
    const { test: code, unit } = codeOf(i);
    // The row's assay (layout.assay) is part of its test codes; without it, none.
    const assayName = cell(row, assay)?.trim();
    const test = assayName === undefined ? code : assayName === '' ? '' : `${assayName} ${code}`;
    const noTest = assayName === '' ? `no assay in ${excerpt(String(l.assay))} (layout.assay) for ${excerpt(code)}` : undefined;
    return { sample: sampleOf(r), test, value: cell(row, i)!, units: unit ?? l.units?.[code], time: timeOf(row), row, valueColumn: i, qc: isQc(row, sampleOf(r)), optional: true, invalid: invalidOf(row), ...(noTest === undefined ? {} : { noTest }) };
  };
  for (let r = 0; r < data.length; r++) {
    const row = data[r]!;
    if (l.replicatesBelow) {
      const own = cell(row, sample)!;
      named.push(own.trim() === '' && r > 0 ? named[r - 1]! : own);
    }
    if (tests.every((i) => isBlank(row, i))) continue;
    for (const i of tests) {
      if (!isBlank(row, i)) {
        if (!valued.has(i)) {
          valued.add(i);
          for (const earlier of waiting.get(i) ?? []) yield item(earlier, i);
          waiting.delete(i);
        }
        yield item(r, i);
      } else if (valued.has(i) || l.tests !== 'rest') yield item(r, i);
      else (waiting.get(i) ?? waiting.set(i, []).get(i)!).push(r);
    }
  }
}

/** Each group of a row whose test and value columns repeat (layout.repeats): a column named as the test's, with the first column named as the value's after it and before the next group. */
function repeatedGroups(header: Header | undefined, test: number, value: number): Array<{ test: number; value: number }> {
  const names = header?.names ?? [];
  const [testName, valueName] = [names[test], names[value]];
  const starts = names.flatMap((n, i) => (n === testName ? [i] : []));
  return starts.map((start, k) => {
    const end = starts[k + 1] ?? names.length;
    const at = names.findIndex((n, i) => i > start && i < end && n === valueName);
    // A group without its value column would leave its results unread without a word: the file is refused.
    if (at < 0) throw new FileReadError(`line ${header?.line ?? '?'}: the group starting at column ${start + 1} (${excerpt(testName ?? '')}) has no column ${excerpt(valueName ?? '')} after it (layout.repeats); every group needs its value column`, { line: header?.line, setting: 'layout.repeats' });
    return { test: start, value: at };
  });
}

/** The columns of those of `tests` a table's header has (layout.someTests); a table with none of them is refused. */
function presentTests(tests: readonly ColumnRef[], header: Header | undefined): number[] {
  const width = header?.names.length ?? 0;
  const found = tests.map((c) => (typeof c === 'number' ? (c <= width ? c - 1 : -1) : (header?.names.indexOf(c.trim()) ?? -1))).filter((i) => i >= 0);
  if (found.length > 0) return [...new Set(found)];
  const names = header === undefined ? 'the table has no header row' : `the column names on line ${header.line} are ${excerptList(header.names)}`;
  throw new FileReadError(`line ${header?.line ?? '?'}: none of layout.tests ${excerptList(tests.map(String))} is a column of this table; ${names}; add its test column to layout.tests`, { line: header?.line, setting: 'layout.tests' });
}

/** A plate: the sample-label grid and the value grid, matched by row letter and column. */
function* plateCells(profile: FileDialectProfile, rows: FileRow[], namedTest: string | undefined): Generator<Cellular | void, void, void> {
  const l = profile.layout;
  if (l.form !== 'plate') return;
  const start = (yield* tableStartSteps(profile, rows)).index;
  const tick = checkpoints();
  const find = function* (title: string, setting: string): Steps<number> {
    for (let i = start; i < rows.length; i++) {
      if ((rows[i]!.cells[0] ?? '').trim() === title) return yield* onlyOne(rows, i, (row) => (row.cells[0] ?? '').trim() === title, JSON.stringify(title), setting, 'grid', 'two plates or two wavelengths in one file?');
      if (tick()) yield;
    }
    throw new FileReadError(`no row starts with ${JSON.stringify(title)} (${setting}): the file has no such grid; set ${setting} to the first cell of the row above the grid`, { setting });
  };
  const samplesAt = l.samples === undefined ? undefined : yield* find(l.samples.trim(), 'layout.samples');
  const valuesAt = yield* find(l.values.trim(), 'layout.values');
  const lines = l.valuesLine === undefined ? [undefined] : typeof l.valuesLine === 'string' ? [l.valuesLine.trim()] : l.valuesLine.map((line) => line.trim());
  const byLine = typeof l.test === 'object' && 'from' in l.test && l.test.from === 'line';
  const labels = samplesAt === undefined ? undefined : yield* plateGrid(rows, samplesAt, l.samplesLine?.trim(), 'layout.samplesLine');
  const map = new Map(Object.entries(l.wells ?? {}).map(([well, sample]) => [well.trim().toUpperCase(), sample]));
  const qcRules = profile.qc.flatMap((rule) => (rule.by === 'sample' ? [new RegExp(rule.pattern, 'u')] : []));
  // Each line read is a test of its own (layout.test from: 'line'); every plate row must have each of them.
  for (const line of lines) {
    const values = yield* plateGrid(rows, valuesAt, line, 'layout.valuesLine');
    const test = byLine ? line! : (namedTest ?? (typeof l.test === 'string' ? l.test : ''));
    yield* plateWells(values, labels, map, qcRules, test, l.units);
  }
}

/** One value grid's wells, each with the sample the map or the label grid names for it. */
function* plateWells(values: PlateGrid, labels: PlateGrid | undefined, map: Map<string, string>, qcRules: RegExp[], test: string, units: string | undefined): Generator<Cellular, void, void> {
  for (const [key, { row, columns }] of values.rows) {
    const labelRow = labels?.rows.get(key)?.row;
    for (let c = 1; c <= columns; c++) {
      const well = `${key.toUpperCase()}${values.numbers[c - 1] ?? c}`;
      // The integrator's map names a well over the file's label; the label grid is matched by well, not by place.
      const labelColumn = labels === undefined ? -1 : labels.numbers.length > 0 ? labels.numbers.indexOf(values.numbers[c - 1] ?? c) + 1 : c;
      const sample = map.get(well) ?? (labelRow !== undefined && labelColumn > 0 ? (labelRow.cells[labelColumn] ?? '') : '');
      const value = row.cells[c] ?? '';
      if (sample.trim() === '' && value.trim() === '') continue;
      const qc = sample.length <= MAX_CELL && qcRules.some((r) => r.test(sample.trim()));
      yield { sample, test, value, units, row, valueColumn: c, qc, optional: true, well };
    }
  }
}

/** A plate grid: per plate row (its letter) the line read, how many well columns it has, and their numbers when a row of them stands above. */
interface PlateGrid {
  rows: Map<string, { row: FileRow; columns: number }>;
  numbers: number[];
}

/** A row of column numbers, `1 2 3 … n` after an empty first cell: how a grid's columns are numbered. */
function columnNumbers(row: FileRow): number[] | undefined {
  if ((row.cells[0] ?? '').trim() !== '') return undefined;
  const numbers: number[] = [];
  for (let c = 1; c < row.cells.length; c++) {
    const cell = row.cells[c]!.trim();
    if (cell === '') break;
    if (!/^\d{1,3}$/.test(cell) || Number(cell) !== numbers.length + 1) return undefined;
    numbers.push(Number(cell));
  }
  return numbers.length > 0 ? numbers : undefined;
}

/** Where the lines from `from` on that have an empty first cell (a plate row's further lines) end. */
function* linesEnd(rows: FileRow[], from: number): Steps<number> {
  const tick = checkpoints();
  let i = from;
  while (i < rows.length && !isEmpty(rows[i]!) && (rows[i]!.cells[0] ?? '').trim() === '') {
    i++;
    if (tick()) yield;
  }
  return i;
}

const isPlateRow = (row: FileRow) => /^[A-Za-z]{1,2}$/.test((row.cells[0] ?? '').trim());

/** Where the last non-empty cell of a row is (-1: none): a grid line of several per plate row is named there. */
function lastCellAt(row: FileRow): number {
  for (let c = row.cells.length - 1; c >= 0; c--) if (row.cells[c]!.trim() !== '') return c;
  return -1;
}

const lastCell = (row: FileRow): string => row.cells[lastCellAt(row)]?.trim() ?? '';

/**
 * The grid under the title row at `title`: empty rows and a row of column
 * numbers passed over, then a row per plate row, keyed by its letter in the
 * first cell; with `line`, each plate row is its letter's line and the lines
 * below it with an empty first cell, and the one whose last cell is `line` is
 * read (a plate row without it refuses the file: a value read from another
 * line would be another measure).
 */
function* plateGrid(rows: FileRow[], title: number, line: string | undefined, setting: string): Steps<PlateGrid> {
  const tick = checkpoints();
  let i = title + 1;
  while (i < rows.length && isEmpty(rows[i]!)) i++;
  const numbered = i < rows.length ? columnNumbers(rows[i]!) : undefined;
  if (numbered !== undefined) i++;
  const out: PlateGrid = { rows: new Map(), numbers: numbered ?? [] };
  const lines = new Map<string, FileRow[]>();
  let current: FileRow[] | undefined;
  for (; i < rows.length; i++) {
    if (tick()) yield;
    const row = rows[i]!;
    const key = (row.cells[0] ?? '').trim();
    if (isPlateRow(row)) lines.set(key, (current = [row]));
    else if (key === '' && current !== undefined && !isEmpty(row)) {
      if (line !== undefined) {
        current.push(row);
        continue;
      }
      // Lines under a plate row with more plate rows after them: without a line named, the rows below would go unread.
      const end = yield* linesEnd(rows, i);
      if (end < rows.length && isPlateRow(rows[end]!)) throw new FileReadError(`line ${current[0]!.line}: plate row ${(current[0]!.cells[0] ?? '').trim()} of the grid on line ${rows[title]!.line} has several lines, named ${excerptList([current[0]!, ...rows.slice(i, end)].map(lastCell))} in their last cell; set ${setting} to the one to read`, { line: current[0]!.line, setting });
      break;
    } else break;
  }
  for (const [key, group] of lines) {
    const row = line === undefined ? group[0]! : group.find((r) => lastCell(r) === line);
    if (row === undefined) throw new FileReadError(`line ${group[0]!.line}: plate row ${key} of the grid on line ${rows[title]!.line} has no line named ${JSON.stringify(line)} in its last cell (${setting}); its lines are named ${excerptList(group.map(lastCell))}`, { line: group[0]!.line, setting });
    // A line named in its last cell holds its wells before that name; a grid's column numbers bound it.
    const cells = line === undefined ? row.cells.length - 1 : lastCellAt(row) - 1;
    out.rows.set(key, { row, columns: Math.max(numbered !== undefined ? Math.min(numbered.length, cells) : cells, 0) });
  }
  return out;
}
