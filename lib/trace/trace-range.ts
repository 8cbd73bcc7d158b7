/**
 * The lines of a link's trace (frame-trace.ts) recorded within a time range,
 * from the current file and the rotated ones (rotating-file.ts names each by
 * the time it was rotated, so a file named before `from` holds nothing later).
 * For a replay of what an analyzer sent in that range; the text is read back
 * by lib/protocols/astm/paste like any pasted trace.
 */
import { readFile, readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { traceLineAt } from './trace-reader';

/** More than this is not read in one replay: a narrower range is asked for instead. */
export const MAX_RANGE_BYTES = 32 * 1024 * 1024;

export async function traceRange(file: string, from: number, to: number, maxBytes = MAX_RANGE_BYTES): Promise<string> {
  const dir = dirname(file);
  const name = basename(file, '.log');
  const rotated = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.(\\d{8}T\\d{6}Z)(?:-(\\d+))?\\.log$`);
  const files: Array<{ path: string; order: string }> = [];
  let names: string[] = [];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  for (const f of names) {
    const m = rotated.exec(f);
    if (m === null) continue;
    const stamp = m[1] ?? '';
    const rotatedAt = Date.parse(`${stamp.slice(0, 4)}-${stamp.slice(4, 6)}-${stamp.slice(6, 8)}T${stamp.slice(9, 11)}:${stamp.slice(11, 13)}:${stamp.slice(13, 15)}Z`);
    // Rotated within the second before `from` may still hold lines of that second.
    if (rotatedAt + 1000 >= from) files.push({ path: join(dir, f), order: `${stamp}-${(m[2] ?? '0').padStart(6, '0')}` });
  }
  files.sort((a, b) => (a.order < b.order ? -1 : 1));
  files.push({ path: file, order: '~' });
  const kept: string[] = [];
  let bytes = 0;
  for (const f of files) {
    let text: string;
    try {
      text = await readFile(f.path, 'latin1');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // pruned meanwhile
      throw err;
    }
    for (const line of text.split('\n')) {
      const time = traceLineAt(line);
      if (time === undefined) continue;
      const at = Date.parse(time);
      if (at < from || at > to) continue;
      bytes += line.length + 1;
      if (bytes > maxBytes) throw new Error(`the trace holds more than ${Math.round(maxBytes / 1024 / 1024)} MiB between these times: replay a shorter range`);
      kept.push(line);
    }
  }
  return kept.join('\n');
}
