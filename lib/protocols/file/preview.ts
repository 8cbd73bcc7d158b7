/**
 * What a file dialect makes of a pasted (or recently received) export, laid
 * out for the dialect editor in the shape the ASTM and HL7 previews have
 * (results, QC, unassigned with the reason, other, problems), plus the
 * capture: the file's rows as clickable cells (`place: { row, column }`, the
 * 1-based line and column), so pointing at a column can set a role's column
 * (./point.ts). It reads exactly as file-message does (./read.ts).
 */
import type { InstrumentResult } from '../../lab/types';
import type { ProfileIssue, ProfileOverrides } from '../../dialect/overrides';
import { findFileProfile } from './dialects';
import { siteFileDialectOf, siteFileProfile } from './overrides';
import { readText, tableStart } from './read';
import { rowsOf, separatorOf, type FileRow } from './table';
import type { FileDialectProfile } from './types';

/** The roles a column can be pointed at for (their labels are the editor's). */
export const FILE_POINT_ROLES = ['sampleNumber', 'testCode', 'value', 'units'] as const;
export type FilePointRole = (typeof FILE_POINT_ROLES)[number];

/** A file cell's place in the capture: its 1-based line and column. */
export interface FilePlace {
  row: number;
  column: number;
}

/** The capture the editor draws (the same shape for every protocol; a file's line is a row, a token a cell). */
export interface FileCapture {
  messages: Array<{ lines: Array<{ label: string; tokens: Array<{ text: string; place?: FilePlace }> }> }>;
  truncated?: true;
}

/** A pasted file can be megabytes; the dialog draws the start of its table. */
export const FILE_CAPTURE_LIMITS = { lines: 200, tokens: 2000 } as const;

export interface FilePreviewResult {
  message: 1;
  record: number;
  sampleNumber: string;
  testCode: string;
  value: string;
  rawValue?: string;
  units?: string;
  flags?: string[];
  completedAt?: string;
  completedAtRaw?: string;
}

export interface FilePreview {
  messages: 1;
  results: FilePreviewResult[];
  qc: FilePreviewResult[];
  queries: [];
  unassigned: Array<{ message: 1; record: number; reason: string; text: string; testCode?: string; value?: string }>;
  other: Array<{ message: 1; reason: string }>;
  problems: Array<{ message: 1; record?: number; text: string }>;
}

export interface FileSitePreview {
  issues: ProfileIssue[];
  overrides?: ProfileOverrides;
  paste?: { form: string; framing: string; notes: string[]; problems: Array<{ line?: number; message: string }> };
  preview?: FilePreview;
  capture?: FileCapture;
}

function resultOf(r: InstrumentResult): FilePreviewResult {
  const out: FilePreviewResult = { message: 1, record: r.record, sampleNumber: r.SampleNumber, testCode: r.instrumentCode, value: r.Result };
  if (r.rawResult !== undefined) out.rawValue = r.rawResult;
  if (r.units !== undefined) out.units = r.units;
  if (r.flags !== undefined) out.flags = r.flags;
  if (r.completedAt !== undefined) out.completedAt = r.completedAt;
  if (r.completedAtRaw !== undefined) out.completedAtRaw = r.completedAtRaw;
  return out;
}

/** The preview of `text` in `profile`; a file the dialect cannot read gives its reason as a paste problem. */
export function previewFile(profile: FileDialectProfile, text: string, timeZone: string, fileName?: string): Pick<FileSitePreview, 'paste' | 'preview' | 'capture'> {
  const paste = { form: 'file', framing: typeof profile.delimiter === 'string' ? profile.delimiter : 'fixed widths', notes: [] as string[], problems: [] as Array<{ line?: number; message: string }> };
  let read;
  try {
    read = readText(text, profile, { timeZone, fileName });
  } catch (err) {
    const line = (err as { line?: number }).line;
    paste.problems.push({ ...(line === undefined ? {} : { line }), message: (err as Error).message });
    return { paste, capture: captureOf(profile, rowsOf(text, profile.delimiter), false) };
  }
  const preview: FilePreview = { messages: 1, results: [], qc: [], queries: [], unassigned: [], other: [], problems: [] };
  for (const e of read.events) {
    if (e.type === 'results' || e.type === 'qc') {
      (e.type === 'qc' ? preview.qc : preview.results).push(...e.results.map(resultOf));
      preview.problems.push(...e.problems.map((p) => ({ message: 1 as const, text: p })));
    } else if (e.type === 'unassigned') {
      for (const u of e.items) preview.unassigned.push({ message: 1, record: u.record, reason: u.reason, text: u.text, ...(u.instrumentCode === undefined ? {} : { testCode: u.instrumentCode }), ...(u.Result === undefined ? {} : { value: u.Result }) });
    } else if (e.type === 'other') preview.other.push({ message: 1, reason: e.reason });
  }
  return { paste, preview, capture: captureOf(profile, read.rows, true) };
}

/** The rows from the table's start (or the file's, when the table is not found) as clickable cells. */
export function captureOf(profile: FileDialectProfile, rows: readonly FileRow[], tableFound: boolean): FileCapture {
  let from = 0;
  if (tableFound) {
    try {
      from = tableStart(profile, rows as FileRow[]).index;
    } catch {
      from = 0;
    }
  }
  const sep = separatorOf(profile.delimiter);
  const lines: FileCapture['messages'][number]['lines'] = [];
  let tokens = 0;
  let truncated = false;
  for (let i = from; i < rows.length; i++) {
    const row = rows[i]!;
    if (lines.length >= FILE_CAPTURE_LIMITS.lines || tokens >= FILE_CAPTURE_LIMITS.tokens) {
      truncated = true;
      break;
    }
    if (row.cells.every((c) => c.trim() === '')) continue;
    const line: FileCapture['messages'][number]['lines'][number] = { label: `line ${row.line}`, tokens: [] };
    for (const [c, text] of row.cells.entries()) {
      if (tokens >= FILE_CAPTURE_LIMITS.tokens) {
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

/**
 * The dialect editor's question for a file dialect: a base and overrides, and
 * a pasted export (or none yet). The paste is read even when the dialect has
 * problems, in the base, so the integrator sees both at once.
 */
export function previewFileSite(site: { base: string; overrides?: unknown }, text: string | undefined, timeZone: string, fileName?: string): FileSitePreview {
  const built = siteFileProfile(site);
  const base = findFileProfile(site.base);
  const out: FileSitePreview = { issues: built.issues };
  if (built.profile !== undefined && base !== undefined) out.overrides = siteFileDialectOf(base, built.profile).overrides;
  if (text === undefined || text.trim() === '') return out;
  const profile = built.profile ?? base;
  if (profile === undefined) return out;
  return { ...out, ...previewFile(profile, text, timeZone, fileName) };
}
