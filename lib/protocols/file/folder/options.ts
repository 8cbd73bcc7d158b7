/** A folder link's settings, with the defaults the node and its dialog show. */

export type AfterDelivery = 'move' | 'keep';

export interface FolderOptions {
  /** The watched folder: a local path or a mounted network share. */
  folder: string;
  /** File names taken (globs, `;` between several); empty: every name. */
  pattern: string;
  /** How often the folder is listed. Change events are not used: network shares (SMB, NFS) do not deliver them reliably. */
  pollMs: number;
  /** A file is complete once its size and modification time stayed the same this long (without a marker). */
  settleMs: number;
  /** The marker's suffix (`.done`, `.ok`): a file is complete once `<name><marker>` or `<stem><marker>` exists. Empty: no marker, the settle time decides. */
  marker: string;
  /** After its results are delivered: moved to done/, or kept where it is and remembered (by content) so it is not read again. */
  after: AfterDelivery;
  /** Files larger than this are not read: moved to error/ with the reason. */
  maxBytes: number;
  /**
   * How long the journal remembers a file (its retention). With `keep`, a file
   * older than this is no longer recognised by content, so it is not taken at all.
   */
  rememberMs: number;
}

export const FOLDER_DEFAULTS = {
  pattern: '*',
  pollMs: 2000,
  settleMs: 5000,
  marker: '',
  after: 'move' as AfterDelivery,
  maxBytes: 50 * 1024 * 1024,
} as const;

export const AFTER_CHOICES: readonly AfterDelivery[] = ['move', 'keep'];

/** What a message carries of the file it came from (msg.file), and the journal keeps of it (its `source`). */
export interface FileFacts {
  name: string;
  /** Where it was read (the watched folder and its name); it has been moved by the time the results are delivered. */
  path: string;
  size: number;
  /** Its modification time, ISO 8601. */
  mtime: string;
  /** SHA-256 of its bytes, hex: what recognises the same file under another name or after a restart. */
  hash: string;
}
