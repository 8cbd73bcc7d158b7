/**
 * Names a folder link never takes: what an instrument, an editor or a copy
 * tool writes while a file is not finished yet, and what the link itself
 * writes. Such names are left alone; the finished file arrives under its own
 * name (a rename at the end), or with its marker.
 */

/** Subfolders of the watched folder the link moves files into. */
export const DONE_DIR = 'done';
export const ERROR_DIR = 'error';
/** The text beside a file in error/ saying why it is there. */
export const REASON_SUFFIX = '.reason.txt';

const PARTIAL_SUFFIXES = ['.tmp', '.temp', '.part', '.partial', '.crdownload', '.download', '.swp', '.lock', '~'];

/** Hidden (`.name`), an Office lock (`~$name`), or a name copy tools and editors use for an unfinished file. */
export function isPartialOrHidden(name: string): boolean {
  if (name.startsWith('.') || name.startsWith('~$')) return true;
  const lower = name.toLowerCase();
  return PARTIAL_SUFFIXES.some((s) => lower.endsWith(s));
}

/**
 * The marker names that say `name` is complete, when the instrument writes one
 * (`marker` is its suffix, such as `.done` or `.ok`): `run1.csv.done`, or the
 * suffix in place of the extension, `run1.done`.
 */
export function markerNames(name: string, marker: string): string[] {
  if (marker === '') return [];
  const dot = name.lastIndexOf('.');
  const out = [name + marker];
  if (dot > 0) out.push(name.slice(0, dot) + marker);
  return out;
}

/** Whether `name` is itself a marker (ends with the marker suffix): never a file to take. */
export function isMarker(name: string, marker: string): boolean {
  return marker !== '' && name.toLowerCase().endsWith(marker.toLowerCase());
}
