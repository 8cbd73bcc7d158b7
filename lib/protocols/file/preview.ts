/**
 * What a file dialect makes of a pasted (or recently received) export, for
 * the dialect editor, through the preview every protocol shares
 * (lib/dialect/preview.ts): results, QC, unassigned with the reason, other,
 * problems; and the capture: the file's rows from its table on, as clickable
 * cells (`place: { row, column }`, the 1-based line and column), so pointing
 * at a column can set a role's column (./point.ts). It reads exactly as
 * file-message does (./read.ts); the whole paste is one file (message 1).
 */
import { CAPTURE_LIMITS, type Capture, type CaptureLine } from '../../dialect/capture';
import { emptyPreview, previewEvents, previewSiteOf, type Preview, type PreviewProtocol, type SitePreview } from '../../dialect/preview';
import { findFileProfile } from './dialects';
import { FILE_OVERRIDE_RULES, siteFileProfile } from './overrides';
import { overridesOf } from '../../dialect/overrides';
import { FileReadError, readFile, tableStart } from './read';
import { decodeFile, rowsOf, separatorOf, type FileRow } from './table';
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

/** The rows from the table's start (or the file's, when the table is not found) as clickable cells, capped. */
export function captureOf(profile: FileDialectProfile, rows: readonly FileRow[]): Capture {
  let from: number;
  try {
    from = tableStart(profile, rows as FileRow[]).index;
  } catch {
    from = 0; // no table where the dialect looks: the file from its start
  }
  const sep = separatorOf(profile.delimiter);
  const lines: CaptureLine[] = [];
  let tokens = 0;
  let truncated = false;
  for (let i = from; i < rows.length && !truncated; i++) {
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
      if (c > 0 && typeof sep === 'string') line.tokens.push({ text: sep });
      line.tokens.push({ text, place: { row: row.line, column: c + 1 } });
      tokens++;
    }
    lines.push(line);
  }
  return { messages: [{ lines }], ...(truncated ? { truncated: true as const } : {}) };
}

/** The paste as the file's bytes in the dialect's encoding (a paste is text already). */
function bytesOf(text: string, profile: FileDialectProfile | undefined): Buffer {
  return Buffer.from(text, profile?.encoding ?? 'utf8');
}

function fileProtocol(fileName: string | undefined): PreviewProtocol<FileDialectProfile, FilePaste> {
  return {
    find: findFileProfile,
    site: siteFileProfile,
    diff: (base, profile) => overridesOf(base, profile, FILE_OVERRIDE_RULES),
    read: (text, profile) => ({
      messages: [bytesOf(text, profile)],
      paste: { form: 'file', framing: profile === undefined ? '' : typeof profile.delimiter === 'string' ? profile.delimiter : 'fixed widths', notes: [], problems: [] },
    }),
    preview: (profile, messages, timeZone) => previewFile(profile, messages[0]!, timeZone, fileName),
    capture: (messages, profile) => (profile === undefined ? { messages: [] } : captureOf(profile, rowsOf(decodeFile(messages[0]!, profile.encoding), profile.delimiter))),
  };
}

/**
 * The dialect editor's question for a file dialect: a base and overrides, and
 * a pasted export (or none yet); the file's name, when known, for a run date
 * read from it.
 */
export function previewFileSite(site: { base: string; overrides?: unknown }, text: string | undefined, timeZone: string, fileName?: string): FileSitePreview {
  return previewSiteOf(fileProtocol(fileName), site, text, timeZone);
}
