/**
 * A file-exporting instrument (a PCR cycler, a plate reader, an ICP) as far
 * as its host sees it: result files appearing in a folder. It writes them from
 * template bytes (a real export file), the way instruments and copy tools do:
 * at once, in parts with pauses (a half-written file a host must not take yet),
 * under a temporary name renamed at the end, with a marker file after, the
 * same bytes twice under two names, or a malformed file.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';

export interface WriteOptions {
  /** Written in this many parts (default 1: at once). */
  parts?: number;
  /** Pause between two parts. */
  pauseMs?: number;
  /** Parts end at a line end (an instrument that flushes whole records), not at any byte. */
  atLines?: boolean;
  /**
   * Awaited before each part after the first, besides `pauseMs`: an instrument paused for as long as something takes
   * (a plate still being read), longer than any settle time.
   */
  resume?: (part: number) => Promise<void>;
  /** Written under `<name>.tmp`, renamed to `<name>` once complete (what many instruments and robocopy do). */
  viaTemp?: boolean;
  /** After the file is complete, an empty `<name><marker>` (`.done`, `.ok`). */
  marker?: string;
}

export interface Written {
  name: string;
  bytes: Buffer;
  kind: 'file' | 'duplicate' | 'malformed';
}

/** The template with each `from` text replaced by its `to` (a sample number, a run id): a distinct export from a real one. */
export function fromTemplate(template: Uint8Array | string, replace: Record<string, string> = {}): Buffer {
  // latin1 keeps every byte as it is (an export in Windows-1252 or UTF-16 survives untouched outside the replaced text).
  let text = Buffer.from(template).toString('latin1');
  for (const [from, to] of Object.entries(replace)) text = text.split(from).join(to);
  return Buffer.from(text, 'latin1');
}

/** Bytes no file dialect reads: a header cut short and binary noise. */
export const MALFORMED = Buffer.from('Run Information\r\n\x00\x01\x02\xff\xfe garbage, not an export\r\n', 'latin1');

/** Where each part ends: `parts` slices of about equal size; with `atLines` each ends after a line feed (fewer parts when lines are few). */
function partEnds(bytes: Uint8Array, parts: number, atLines: boolean): number[] {
  const size = Math.ceil(bytes.length / parts);
  const ends: number[] = [];
  for (let i = 1; i < parts; i++) {
    let end = Math.min(bytes.length, i * size);
    if (atLines) {
      const lf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).indexOf(0x0a, Math.max(0, end - 1));
      end = lf < 0 ? bytes.length : lf + 1;
    }
    if (!atLines || (end > (ends.at(-1) ?? 0) && end < bytes.length)) ends.push(end);
  }
  ends.push(bytes.length);
  return ends;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class FileExporter {
  readonly written: Written[] = [];

  constructor(readonly folder: string) {}

  /** Writes one export file; resolves once it is complete (and its marker written). */
  async write(name: string, bytes: Uint8Array, options: WriteOptions = {}, kind: Written['kind'] = 'file'): Promise<Written> {
    await fs.mkdir(this.folder, { recursive: true });
    const target = join(this.folder, name);
    const path = options.viaTemp === true ? `${target}.tmp` : target;
    const ends = partEnds(bytes, Math.max(1, options.parts ?? 1), options.atLines === true);
    const handle = await fs.open(path, 'w');
    try {
      for (let i = 0; i < ends.length; i++) {
        if (i > 0 && options.pauseMs) await sleep(options.pauseMs);
        if (i > 0 && options.resume) await options.resume(i);
        await handle.write(bytes.subarray(i === 0 ? 0 : ends[i - 1], ends[i]));
        // Each part on the disk before the pause, as an instrument's own flush: what a host polling the folder sees.
        await handle.sync();
      }
    } finally {
      await handle.close();
    }
    if (path !== target) await fs.rename(path, target);
    if (options.marker) await fs.writeFile(target + options.marker, '');
    const w = { name, bytes: Buffer.from(bytes), kind };
    this.written.push(w);
    return w;
  }

  /** A file written in `parts` with `pauseMs` between them: a host that takes it before the end takes a torn copy. */
  halfWritten(name: string, bytes: Uint8Array, parts = 3, pauseMs = 500): Promise<Written> {
    return this.write(name, bytes, { parts, pauseMs });
  }

  /** The same bytes as an earlier file, under another name (an export made twice, a copy). */
  duplicate(of: Written, name: string, options: WriteOptions = {}): Promise<Written> {
    return this.write(name, of.bytes, options, 'duplicate');
  }

  malformed(name: string, bytes: Uint8Array = MALFORMED, options: WriteOptions = {}): Promise<Written> {
    return this.write(name, bytes, options, 'malformed');
  }
}
