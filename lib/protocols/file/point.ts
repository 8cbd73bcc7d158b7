/**
 * Shaping a file dialect by pointing: the integrator clicks a cell of the
 * pasted export (a capture place `{ row, column }`) or a value in the decoded
 * table, and says what it is; this sets the layout's column for that role,
 * by the column's name when the table has a header row, else by position:
 *
 * - sampleNumber: layout.sample (every layout but a plate);
 * - testCode: layout.test (one row per result);
 * - value: layout.value (one row per result), or one more of layout.tests
 *   (one row per sample);
 * - units: layout.units (one row per result);
 * - flags: layout.flags (one row per result);
 * - headerRow, firstRow: the clicked line is where the table starts, as its
 *   header row (table.header true) or as its first result of a file with no
 *   header row (table.header false; table.skipRows counts the lines above).
 *   The columns the layout named are then still to be pointed at, each by
 *   position: until they are, the dialect is a draft (siteFileDraft) that
 *   pointing goes on from and nothing runs with. No column is guessed.
 *
 * A plate's grids are found by their titles (layout.samples, layout.values):
 * pointing there is refused with the setting to change, never approximated.
 */
import { pasteBytes, readingAs } from './encoding';
import type { ProfileIssue, ProfileOverrides } from '../../dialect/overrides';
import { findFileProfile } from './dialects';
import { siteFileDialectOf, siteFileDraft, siteFileProfile } from './overrides';
import { changedResults, changedResultSteps, type FilePointRole, type PointRequest } from '../../dialect/capture';
import { checkpoints, runAtOnce, runInSlices, type Steps } from '../../util/slices';
import { cutInSlices, cutKey, previewFile, previewFileInSlices, previewFileSite, previewFileSiteInSlices, type CutRows, type FilePlace, type FileSitePreview } from './preview';
import { FileReadError, fileRows, pastedRows, pastedRowsInSlices, tableSteps } from './read';
import type { FileRow } from './table';
import type { ColumnRef, FileDialectProfile } from './types';
import { pendingColumns } from './validate';

export interface FilePointRequest extends Omit<PointRequest, 'role'> {
  role: FilePointRole;
  /** A file loaded in the dialog (a workbook, or a text export as its bytes), read as file-message reads it instead of `text`. */
  bytes?: Buffer;
  /** Its name, for a run date read from it. */
  fileName?: string;
}

export type FilePointAnswer =
  /**
   * `dropped`: test columns the dialect named that this file does not have, left out of layout.tests by the click;
   * `pending`: the layout's columns still to be pointed at (a table without a header row), the dialect a draft till then;
   * `cleared`: settings the click removed since they cannot hold for the table it set (a header row's first cell, named optional columns);
   * `headerLine`: the click was on the line read as the header row, so that line's values are column names, not results.
   */
  | { overrides: ProfileOverrides; changed: number; setting: string; already: boolean; place: FilePlace; preview: FileSitePreview; issues: ProfileIssue[]; dropped?: string[]; pending?: string[]; cleared?: string[]; headerLine?: number }
  | { choices: Array<{ place: FilePlace; label: string }> }
  | { refused: string; issues?: ProfileIssue[] };

type Writable = { -readonly [K in keyof FileDialectProfile]: FileDialectProfile[K] };

function placeOf(value: unknown): FilePlace | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { row, column } = value as { row?: unknown; column?: unknown };
  return Number.isInteger(row) && Number.isInteger(column) && (row as number) > 0 && (column as number) > 0 ? { row: row as number, column: column as number } : undefined;
}

export function pointFileAt(request: FilePointRequest): FilePointAnswer {
  const start = pointStart(request);
  if ('refused' in start) return start;
  let rows: FileRow[];
  try {
    rows = request.bytes === undefined ? pastedRows(request.text, start.current) : fileRows(request.bytes, start.current);
  } catch (err) {
    if (!(err instanceof FileReadError)) throw err;
    return { refused: `the file cannot be read: ${err.message}` };
  }
  const plan = runAtOnce(pointPlan(request, start, rows));
  if (!('next' in plan)) return plan;
  const after = previewFileSite({ base: request.base, overrides: plan.overrides }, request.bytes ?? request.text, request.timeZone, request.fileName);
  if (!onlyPending(plan, after)) return notThere(plan, after);
  const pasted = request.bytes === undefined;
  const before = previewFile(readingAs(start.current, pasted), request.bytes ?? pasteBytes(request.text, start.current), request.timeZone, request.fileName);
  return answerOf(plan, changedResults(before.results, after.preview?.results ?? []), after);
}

/**
 * pointFileAt without holding the event loop: the file cut once, in slices
 * (a workbook in its worker thread), and both previews read from those rows.
 */
export async function pointFileAtInSlices(request: FilePointRequest): Promise<FilePointAnswer> {
  const start = pointStart(request);
  if ('refused' in start) return start;
  const bytes = request.bytes ?? pasteBytes(request.text, start.current);
  const cuts = new Map<string, CutRows>();
  // A paste is cut from its text, as pointFileAt cuts it; the previews read its bytes in the dialect's encoding.
  const cut: CutRows = request.bytes === undefined ? pastedRowsInSlices(request.text, start.current).catch(keptError) : cutInSlices(bytes, start.current);
  const rows = await cut;
  if (rows instanceof FileReadError) return { refused: `the file cannot be read: ${rows.message}` };
  if (request.bytes !== undefined) cuts.set(cutKey(start.current), cut);
  const plan = await runInSlices(pointPlan(request, start, rows));
  if (!('next' in plan)) return plan;
  const after = await previewFileSiteInSlices({ base: request.base, overrides: plan.overrides }, request.bytes ?? request.text, request.timeZone, request.fileName, cuts);
  if (!onlyPending(plan, after)) return notThere(plan, after);
  const before = await previewFileInSlices(readingAs(start.current, request.bytes === undefined), bytes, request.timeZone, request.fileName, request.bytes === undefined ? undefined : cut);
  return answerOf(plan, await runInSlices(changedResultSteps(before.results, after.preview?.results ?? [])), after);
}

function keptError(err: unknown): FileReadError {
  if (err instanceof FileReadError) return err;
  throw err;
}

interface PointStart {
  current: FileDialectProfile;
  base: FileDialectProfile;
}

/** The site's dialect pointed in (a draft with columns still to point at, or whole), or why pointing cannot start. */
function pointStart(request: FilePointRequest): PointStart | { refused: string; issues?: ProfileIssue[] } {
  const site = { base: request.base, overrides: request.overrides };
  const built = siteFileProfile(site);
  const base = findFileProfile(request.base);
  const current = built.profile ?? siteFileDraft(site)?.draft;
  if (current === undefined || base === undefined) return { refused: 'the dialect has problems: fix them before pointing', issues: built.issues };
  if (current.layout.form === 'plate') return { refused: 'a plate is read from two grids found by their titles: set layout.samples and layout.values to the first cell of the row above each grid' };
  return { current, base };
}

interface PointPlan {
  next: FileDialectProfile;
  overrides: ProfileOverrides;
  setting: string;
  place: FilePlace;
  current: FileDialectProfile;
  dropped: string[];
  cleared: string[];
  /** The line read as the header row, when the click was on it for a column's role. */
  headerLine?: number;
}

/** What the click sets, from the file's rows (passes over them, with checkpoints); an answer already when it sets nothing. */
function* pointPlan(request: FilePointRequest, start: PointStart, rows: FileRow[]): Steps<PointPlan | FilePointAnswer> {
  const { current, base } = start;
  const line = request.role === 'headerRow' || request.role === 'firstRow';
  let table: { header?: { names: string[]; line: number }; data: FileRow[] };
  try {
    table = yield* tableSteps(current, rows);
  } catch (err) {
    // Saying where the table starts is how a table the dialect cannot find is mended.
    if (!line) return { refused: `the table cannot be found: ${(err as Error).message}` };
    table = { data: [] };
  }
  const tick = checkpoints();

  let place: FilePlace | undefined;
  let rowIndex = -1;
  if (request.place !== undefined) {
    place = placeOf(request.place);
    if (place === undefined) return { refused: 'the place is not a cell of the capture ({ row, column }, both from 1)' };
    let row: FileRow | undefined;
    for (const [i, r] of rows.entries()) {
      if (r.line === place.row) {
        row = r;
        rowIndex = i;
        break;
      }
      if (tick()) yield;
    }
    if (row === undefined || place.column > row.cells.length) return { refused: `line ${place.row}, column ${place.column} is not in the file: preview it again` };
  } else if (typeof request.value === 'string' && request.value.trim() !== '') {
    const wanted = request.value.trim();
    const columns = new Map<number, FilePlace>();
    for (const row of table.data) {
      row.cells.forEach((c, i) => c.trim() === wanted && !columns.has(i) && columns.set(i, { row: row.line, column: i + 1 }));
      if (tick()) yield;
    }
    if (columns.size === 0) return { refused: `${JSON.stringify(wanted)} is in no column of the table` };
    if (columns.size > 1) return { choices: [...columns.values()].map((p) => ({ place: p, label: `${columnLabel(table.header?.names, p.column)}, line ${p.row}` })) };
    place = [...columns.values()][0]!;
  } else return { refused: 'point at a cell of the capture (place) or a value of the table (value)' };
  if (request.role === 'headerRow' || request.role === 'firstRow') {
    if (rowIndex < 0) return { refused: 'a line is pointed at by a cell of the capture (place): the results table holds no header row or line above it' };
    return tableAt(request.role, rowIndex, place, start);
  }

  const ref: ColumnRef = table.header?.names[place.column - 1] ? table.header.names[place.column - 1]! : place.column;
  if (table.header !== undefined && typeof ref === 'string' && table.header.names.indexOf(ref) !== place.column - 1) {
    return { refused: `two columns are named ${JSON.stringify(ref)}: the first is read by name; name this one by position in the overrides (${place.column})` };
  }
  const next = structuredClone(current) as Writable;
  const layout = { ...next.layout } as Record<string, unknown>;
  let setting: string;
  let dropped: string[] = [];
  const role = request.role;
  if (next.layout.form === 'row-per-result') {
    const key = ({ sampleNumber: 'sample', testCode: 'test', value: 'value', units: 'units', flags: 'flags' } as const)[role];
    layout[key] = ref;
    setting = `layout.${key}`;
  } else {
    if (role === 'sampleNumber') {
      layout.sample = ref;
      setting = 'layout.sample';
    } else if (role === 'value') {
      const named = next.layout.form === 'row-per-sample' ? next.layout.tests : 'rest';
      // Without a header row, a named test column (or "rest") is what is still to point at: this click starts the list.
      const tests = named === 'rest' && table.header === undefined ? [] : named;
      if (tests === 'rest') return { refused: 'layout.tests is "rest": every column after the sample column is read already' };
      // A test column the dialect names and this file's header does not (another protocol's export) could never be
      // read: the click that names this file's column leaves it out rather than keep a dialect that refuses the file.
      const names = table.header?.names;
      const absent = (t: ColumnRef) => typeof t === 'string' && (names === undefined || !names.includes(t));
      dropped = tests.filter((t) => t !== ref && absent(t)).map(String);
      layout.tests = [...tests.filter((t) => t !== ref && !absent(t)), ref];
      setting = 'layout.tests';
    } else return { refused: `with one row per sample, a column's name is its test code, units come from layout.units and flags are not read: ${role} is not read from a column` };
  }
  next.layout = layout as unknown as FileDialectProfile['layout'];
  const overrides = siteFileDialectOf(base, next as FileDialectProfile).overrides;
  // The header row's values are column names: a column's role clicked there reads the lines below it, never that
  // line. Said, since in a file without a header row that line is a result the dialect would pass over.
  const headerLine = table.header !== undefined && table.header.line === place.row ? place.row : undefined;
  return { next, overrides, setting, place, current, dropped, cleared: [], ...(headerLine === undefined ? {} : { headerLine }) };
}

/** Names kept in a table without a header row would each be a problem: those a result can go without are cleared, said so. */
const OPTIONAL_COLUMNS = ['units', 'flags', 'time'] as const;

/**
 * The table starts at the clicked line (rows[index]): as its header row, or
 * as its first result with no header row. Absolute, from the file's top: a
 * section title or header-row first cell that found it before is cleared.
 */
function tableAt(role: 'headerRow' | 'firstRow', index: number, place: FilePlace, start: PointStart): PointPlan {
  const { current, base } = start;
  const next = structuredClone(current) as Writable;
  const header = role === 'headerRow';
  const cleared: string[] = [];
  const table: Record<string, unknown> = { ...next.table, skipRows: index, header };
  for (const key of ['startsAfter', 'headerFirstCell'] as const) {
    if (table[key] !== undefined) {
      delete table[key];
      cleared.push(`table.${key}`);
    }
  }
  next.table = table as unknown as FileDialectProfile['table'];
  const layout = { ...next.layout } as Record<string, unknown>;
  if (!header) {
    for (const key of OPTIONAL_COLUMNS) {
      const v = layout[key];
      const named = key === 'time' ? (v as { columns: ColumnRef[] } | undefined)?.columns.some((c) => typeof c === 'string') : typeof v === 'string';
      if (named) {
        delete layout[key];
        cleared.push(`layout.${key}`);
      }
    }
  }
  next.layout = layout as unknown as FileDialectProfile['layout'];
  const overrides = siteFileDialectOf(base, next as FileDialectProfile).overrides;
  return { next, overrides, setting: 'table.header, table.skipRows', place, current, dropped: [], cleared };
}

/** The dialect after the click is whole, or a draft whose only problems are columns still to point at. */
function onlyPending(plan: PointPlan, after: FileSitePreview): boolean {
  const pending = pendingColumns(plan.next);
  return after.issues.every((i) => pending.includes(i.path));
}

function notThere(plan: PointPlan, after: FileSitePreview): FilePointAnswer {
  return { refused: `${plan.setting} cannot be read from there`, issues: after.issues };
}

/** The answer once both previews are read: how many results the click changed. */
function answerOf(plan: PointPlan, changed: number, after: FileSitePreview): FilePointAnswer {
  // The click chose what the dialect read already (its default, or an earlier click): said so, not "0 results changed" alone.
  const already = JSON.stringify(plan.current) === JSON.stringify(plan.next);
  const pending = pendingColumns(plan.next);
  return {
    overrides: plan.overrides,
    changed,
    setting: plan.setting,
    already,
    place: plan.place,
    preview: after,
    issues: [],
    ...(plan.dropped.length > 0 ? { dropped: plan.dropped } : {}),
    ...(pending.length > 0 ? { pending } : {}),
    ...(plan.cleared.length > 0 ? { cleared: plan.cleared } : {}),
    ...(plan.headerLine === undefined ? {} : { headerLine: plan.headerLine }),
  };
}

function columnLabel(names: string[] | undefined, column: number): string {
  const name = names?.[column - 1];
  return name ? `column ${column} (${JSON.stringify(name)})` : `column ${column}`;
}
