/**
 * What a file dialect makes of a pasted (or recently received) export, for
 * the dialect editor, through the preview every protocol shares
 * (lib/dialect/preview.ts): results, QC, unassigned with the reason, other,
 * problems; and the capture: the file's rows from its table on, as clickable
 * cells (`place: { row, column }`, the 1-based line and column), so pointing
 * at a column can set a role's column (./point.ts). It reads exactly as
 * file-message does (./read.ts); the whole paste is one file (message 1).
 * The capture is text pasted, or a file's own bytes loaded in the dialog: a
 * workbook (which a paste cannot carry), or a text export decoded in the
 * dialect's encoding as the runtime decodes it.
 */
import { pasteBytes, readingAs } from './encoding';
import { CAPTURE_LIMITS, type Capture, type CaptureLine } from '../../dialect/capture';
import { emptyPreview, previewEvents, previewSiteOf, type Preview, type PreviewProtocol, type SitePreview } from '../../dialect/preview';
import { FILE_POINT_ROLES } from '../../dialect/capture';
import type { LabEvent } from '../../lab/types';
import { checkpoints, runAtOnce, runInSlices, type Steps } from '../../util/slices';
import { findFileProfile } from './dialects';
import { FILE_OVERRIDE_RULES, siteFileDraft, siteFileProfile } from './overrides';
import { overridesOf } from '../../dialect/overrides';
import { FileReadError, fileRows, fileRowsInSlices, readFile, readRowsInSlices, tableStartSteps } from './read';
import { cellJoiner, type FileRow } from './table';
import type { FileDialectProfile } from './types';

/** A file cell's place in the capture: its 1-based line and column. */
export interface FilePlace {
  row: number;
  column: number;
}

/** How the paste was taken: one file, cut at its delimiter. */
export interface FilePaste {
  form: 'file';
  framing: string;
  notes: string[];
  problems: Array<{ line?: number; message: string }>;
}

export type FileSitePreview = SitePreview<FilePaste>;

/** A file's lab events in the shared preview; a file the dialect cannot read is its one problem, at its line. */
export function previewFile(profile: FileDialectProfile, bytes: Buffer, timeZone: string, fileName?: string): Preview {
  const preview = emptyPreview();
  preview.messages = 1;
  try {
    previewEvents(preview, 1, readFile(bytes, profile, { timeZone, fileName }).events, () => undefined);
  } catch (err) {
    if (!(err instanceof FileReadError)) throw err;
    preview.problems.push({ message: 1, ...(err.line === undefined ? {} : { record: err.line }), text: err.message });
  }
  return preview;
}

/**
 * previewFile without holding the event loop: the file cut in slices (a
 * workbook read in a worker thread), its events read and shown in slices.
 * `cut`, rows already cut with this profile (or why they could not be).
 */
export async function previewFileInSlices(profile: FileDialectProfile, bytes: Buffer, timeZone: string, fileName?: string, cut?: CutRows): Promise<Preview> {
  const preview = emptyPreview();
  preview.messages = 1;
  try {
    const rows = await (cut ?? cutInSlices(bytes, profile));
    if (rows instanceof FileReadError) throw rows;
    const { events } = await readRowsInSlices(rows, profile, { timeZone, fileName });
    await runInSlices(showSteps(preview, events));
  } catch (err) {
    if (!(err instanceof FileReadError)) throw err;
    preview.problems.push({ message: 1, ...(err.line === undefined ? {} : { record: err.line }), text: err.message });
  }
  return preview;
}

/** A file's rows, or why the dialect cannot cut it. */
export type CutRows = Promise<FileRow[] | FileReadError>;

/** The rows a profile cuts the bytes into (a workbook: in its worker thread), the error kept rather than thrown. */
export function cutInSlices(bytes: Buffer, profile: FileDialectProfile): CutRows {
  return fileRowsInSlices(bytes, profile).catch((err: unknown) => {
    if (err instanceof FileReadError) return err;
    throw err;
  });
}

/** What decides how bytes are cut into rows: two profiles alike in these cut alike. */
export function cutKey(profile: FileDialectProfile): string {
  const { format, sheet, maxUnpackedMB, maxRows, encoding, delimiter } = profile;
  return JSON.stringify([format ?? 'text', sheet, maxUnpackedMB, maxRows, encoding, delimiter]);
}

/** Results or items shown per step: a file's QC, or its unassigned rows, can all be one event of hundreds of thousands. */
const SHOWN_PER_STEP = 256;

function* showSteps(preview: Preview, events: readonly LabEvent[]): Steps<void> {
  for (const event of events) {
    if (event.type === 'results' || event.type === 'qc') {
      // In pieces, the event's problems with its last: the preview's lists come out in the same order as at once.
      for (let at = 0; at < event.results.length || at === 0; at += SHOWN_PER_STEP) {
        const last = at + SHOWN_PER_STEP >= event.results.length;
        previewEvents(preview, 1, [{ ...event, results: event.results.slice(at, at + SHOWN_PER_STEP), problems: last ? event.problems : [] }], () => undefined);
        yield;
      }
    } else if (event.type === 'unassigned') {
      for (let at = 0; at < event.items.length; at += SHOWN_PER_STEP) {
        previewEvents(preview, 1, [{ ...event, items: event.items.slice(at, at + SHOWN_PER_STEP) }], () => undefined);
        yield;
      }
    } else {
      previewEvents(preview, 1, [event], () => undefined);
      yield;
    }
  }
}

/** The rows from the table's start (or the file's, when the table is not found) as clickable cells, capped. */
export function captureOf(profile: FileDialectProfile, rows: readonly FileRow[]): Capture {
  return runAtOnce(captureSteps(profile, rows));
}

/** The same with a checkpoint every few hundred rows: empty rows are skipped without counting against the cap. */
function* captureSteps(profile: FileDialectProfile, rows: readonly FileRow[]): Steps<Capture> {
  let from: number;
  try {
    from = (yield* tableStartSteps(profile, rows)).index;
  } catch {
    from = 0; // no table where the dialect looks: the file from its start
  }
  const tick = checkpoints();
  const sep = cellJoiner(profile);
  const lines: CaptureLine[] = [];
  let tokens = 0;
  let truncated = false;
  for (let i = from; i < rows.length && !truncated; i++) {
    if (tick()) yield;
    const row = rows[i]!;
    if (row.cells.every((c) => c.trim() === '')) continue;
    if (lines.length >= CAPTURE_LIMITS.linesPerMessage) {
      truncated = true;
      break;
    }
    const line: CaptureLine = { label: `line ${row.line}`, tokens: [] };
    for (const [c, text] of row.cells.entries()) {
      if (tokens >= CAPTURE_LIMITS.tokens) {
        truncated = true;
        break;
      }
      if (c > 0 && sep !== '') line.tokens.push({ text: sep });
      line.tokens.push({ text, place: { row: row.line, column: c + 1 } });
      tokens++;
    }
    lines.push(line);
  }
  return { messages: [{ lines }], ...(truncated ? { truncated: true as const } : {}) };
}


/** The dialog's paste is text: a workbook's bytes cannot arrive through it, only through the dialog's file loader. */
const WORKBOOK_PASTE = 'the dialect reads .xlsx workbooks (format xlsx), and a paste is text: the preview cannot show a workbook pasted here; load the workbook itself with "Load a file…" (or drop it on the capture)';

function framingOf(profile: FileDialectProfile | undefined): string {
  if (profile === undefined) return '';
  if (profile.format === 'xlsx' || profile.format === 'bioplex-xml') return profile.format;
  return typeof profile.delimiter === 'string' ? profile.delimiter : 'fixed widths';
}

/** The file's rows for the capture; none when the file cannot be cut at all (the preview says why). */
function rowsOrNone(bytes: Buffer, profile: FileDialectProfile): FileRow[] {
  try {
    return fileRows(bytes, profile);
  } catch (err) {
    if (err instanceof FileReadError) return [];
    throw err;
  }
}

/**
 * The file protocol of the shared preview. `draft`: the site's dialect while
 * its columns are still being pointed at (siteFileDraft); the file is cut and
 * drawn as the draft cuts it, where the shared preview would fall back on
 * the base dialect (whose table may start elsewhere).
 */
/* A paste is text already: its bytes are read as readingAs says, whatever code page the dialect names. */
function fileProtocol(fileName: string | undefined, draft: FileDialectProfile | undefined, pasted: boolean): PreviewProtocol<FileDialectProfile, FilePaste, string | Buffer> {
  return {
    find: findFileProfile,
    site: siteFileProfile,
    diff: (base, profile) => overridesOf(base, profile, FILE_OVERRIDE_RULES),
    read: (capture, given) => {
      const profile = draft ?? given;
      return {
        messages: [typeof capture === 'string' ? pasteBytes(capture, profile) : capture],
        paste: { form: 'file', framing: framingOf(profile), notes: typeof capture === 'string' && profile?.format === 'xlsx' ? [WORKBOOK_PASTE] : [], problems: [] },
      };
    },
    preview: (profile, messages, timeZone) => previewFile(readingAs(profile, pasted), messages[0]!, timeZone, fileName),
    capture: (messages, given) => {
      const profile = draft ?? given;
      return profile === undefined ? { messages: [] } : captureOf(profile, rowsOrNone(messages[0]!, readingAs(profile, pasted)));
    },
    roles: FILE_POINT_ROLES,
  };
}

/**
 * previewFileSite without holding the event loop; the same answer. The file
 * is cut once for the capture and the preview when the site's dialect cuts
 * it as the capture's does; `cuts` keeps rows for the next question on the
 * same bytes (pointing asks three).
 */
export async function previewFileSiteInSlices(site: { base: string; overrides?: unknown }, capture: string | Buffer | undefined, timeZone: string, fileName?: string, cuts = new Map<string, CutRows>()): Promise<FileSitePreview> {
  const built = siteFileProfile(site);
  const draft = built.profile === undefined ? siteFileDraft(site)?.draft : undefined;
  const pasted = typeof capture === 'string';
  const protocol = fileProtocol(fileName, draft, pasted);
  const base = protocol.find(site.base);
  const out: FileSitePreview = { issues: built.issues };
  if (built.profile !== undefined && base !== undefined) out.overrides = protocol.diff(base, built.profile);
  if (capture === undefined || (typeof capture === 'string' && capture.trim() === '')) return out;
  const read = protocol.read(capture, built.profile ?? base);
  out.paste = read.paste;
  const bytes = read.messages[0]!;
  const cut = (given: FileDialectProfile): CutRows => {
    const profile = readingAs(given, pasted);
    const key = cutKey(profile);
    let rows = cuts.get(key);
    if (rows === undefined) cuts.set(key, (rows = cutInSlices(bytes, profile)));
    return rows;
  };
  const shown = built.profile ?? draft ?? base;
  if (shown === undefined) out.capture = { messages: [] };
  else {
    const rows = await cut(shown);
    out.capture = await runInSlices(captureSteps(shown, rows instanceof FileReadError ? [] : rows));
  }
  out.roles = FILE_POINT_ROLES;
  if (built.profile !== undefined) out.preview = await previewFileInSlices(readingAs(built.profile, pasted), bytes, timeZone, fileName, cut(built.profile));
  return out;
}

/**
 * The dialect editor's question for a file dialect: a base and overrides, and
 * a pasted export or a loaded file's bytes (or none yet); the file's name,
 * when known, for a run date read from it.
 */
export function previewFileSite(site: { base: string; overrides?: unknown }, capture: string | Buffer | undefined, timeZone: string, fileName?: string): FileSitePreview {
  const draft = siteFileProfile(site).profile === undefined ? siteFileDraft(site)?.draft : undefined;
  return previewSiteOf(fileProtocol(fileName, draft, typeof capture === 'string'), site, capture, timeZone);
}
