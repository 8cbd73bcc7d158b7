/**
 * Where the QC store keeps its points: one segment file per analyzer and
 * month of result time, `points/<analyzer dir>/<YYYY-MM>.jsonl`. A month's
 * file holds exactly that month's points (a late point goes to its own
 * month), so a date range names the files it needs and no others.
 */
import { createReadStream, promises as fs } from 'node:fs';
import { createInterface } from 'node:readline';

/**
 * The analyzer's name as a directory name: [a-z0-9-] kept, every other byte as `_xx`. Reversible, and distinct on a
 * file system that folds case (Windows, macOS), where `A1` and `a1` would otherwise meet.
 */
export function analyzerDir(analyzer: string): string {
  let out = '';
  for (const byte of Buffer.from(analyzer, 'utf8')) {
    const keep = (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x30 && byte <= 0x39) || byte === 0x2d;
    out += keep ? String.fromCharCode(byte) : `_${byte.toString(16).padStart(2, '0')}`;
  }
  return out;
}

/** The analyzer a directory name stands for; undefined for a name analyzerDir never makes. */
export function analyzerOfDir(dir: string): string | undefined {
  if (!/^(?:[a-z0-9-]|_[0-9a-f]{2})+$/.test(dir)) return undefined;
  const bytes: number[] = [];
  for (let i = 0; i < dir.length; i++) {
    if (dir[i] === '_') {
      bytes.push(parseInt(dir.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(dir.charCodeAt(i));
  }
  return Buffer.from(bytes).toString('utf8');
}

/** The month (UTC) of a result time, `YYYY-MM`: the segment the point belongs to. */
export function monthOf(at: number): string {
  const d = new Date(at);
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

export const SEGMENT_FILE = /^(\d{4}-\d{2})\.jsonl$/;

/** The first ms after the month. */
export function monthEnd(month: string): number {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return Date.UTC(y, m, 1);
}

/** The months [from, to) touches, oldest first. */
export function monthsBetween(from: number, to: number): string[] {
  const out: string[] = [];
  if (!(to > from)) return out;
  const d = new Date(from);
  let y = d.getUTCFullYear();
  let m = d.getUTCMonth();
  while (Date.UTC(y, m, 1) < to) {
    out.push(`${y}-${String(m + 1).padStart(2, '0')}`);
    if (++m === 12) {
      m = 0;
      y++;
    }
  }
  return out;
}

/** The directories under `dir` (none when it does not exist). */
export async function listDirs(dir: string): Promise<string[]> {
  try {
    return (await fs.readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/** The segment months in an analyzer's directory. */
export async function listMonths(dir: string): Promise<string[]> {
  try {
    return (await fs.readdir(dir)).map((f) => SEGMENT_FILE.exec(f)?.[1]).filter((m): m is string => m !== undefined).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/**
 * Calls `line` for each line of the file, read as a stream (memory stays at one chunk). Resolves false when the file
 * does not exist. A torn last line is handed on like the others: the caller's parse refuses it.
 */
export async function eachLine(file: string, line: (text: string) => void): Promise<boolean> {
  const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: 256 * 1024 });
  const opened = new Promise<boolean>((resolve, reject) => {
    stream.once('open', () => resolve(true));
    stream.once('error', (err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? resolve(false) : reject(err)));
  });
  if (!(await opened)) return false;
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  for await (const text of lines) if (text.length > 0) line(text);
  return true;
}
