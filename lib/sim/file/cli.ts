/**
 * lis-analyzer-sim --folder: the simulator as a file-exporting instrument,
 * from the command line. Parsed apart from the line simulators' options (no
 * dialect, no line): what it writes comes from a real export file.
 */
import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { parseArgs } from 'node:util';
import { FileExporter, fromTemplate, type WriteOptions } from './exporter';

export const FOLDER_USAGE = `File-exporting instrument (writes result files into a folder; no line, no dialect):
  lis-analyzer-sim --folder <dir> --template <export file> [--count <n>] [--vary <text>] [options]
  --folder <dir>             the folder the instrument exports into (the folder link's Folder)
  --template <file>          a real export file: every file written is made from its bytes
  --count <n>                files to write, default 1, named <stem>-<n><ext> after the template
  --vary <text>              text of the template (a sample number) replaced in each file by one as long
                             ending in the file's number, so each file holds its own samples
  --interval <ms>            time between two files, default 2000
  --half-written             each file in 3 parts with --pause-ms between them
  --pause-ms <ms>            default 1000
  --via-temp                 each file written as <name>.tmp and renamed once complete
  --marker <suffix>          an empty <name><suffix> after each file (.done, .ok)
  --duplicate                then the first file again under "<stem>-1 copy<ext>" (same bytes)
  --malformed                then a malformed file, <stem>-bad<ext>
`;

export interface FolderCliConfig {
  folder: string;
  template: string;
  count: number;
  vary: string | undefined;
  intervalMs: number;
  write: WriteOptions;
  duplicate: boolean;
  malformed: boolean;
}

/** Whether a command line asks for the file-exporting instrument. */
export function isFolderRun(argv: readonly string[]): boolean {
  return argv.some((a) => a === '--folder' || a.startsWith('--folder='));
}

/** Throws an Error with the usage problem. */
export function parseFolderOptions(argv: string[]): FolderCliConfig {
  const { values: v } = parseArgs({
    args: argv,
    strict: true,
    options: {
      folder: { type: 'string' },
      template: { type: 'string' },
      count: { type: 'string' },
      vary: { type: 'string' },
      interval: { type: 'string' },
      'half-written': { type: 'boolean' },
      'pause-ms': { type: 'string' },
      'via-temp': { type: 'boolean' },
      marker: { type: 'string' },
      duplicate: { type: 'boolean' },
      malformed: { type: 'boolean' },
    },
  });
  if (!v.folder) throw new Error('--folder needs the folder to write into');
  if (!v.template) throw new Error('--template needs a real export file to make the files from');
  const whole = (text: string | undefined, name: string, fallback: number, min = 0): number => {
    if (text === undefined) return fallback;
    const n = Number(text);
    if (!/^\d+$/.test(text) || n < min) throw new Error(`${name} must be a whole number of at least ${min}, not ${JSON.stringify(text)}`);
    return n;
  };
  const pauseMs = whole(v['pause-ms'], '--pause-ms', 1000);
  return {
    folder: v.folder,
    template: v.template,
    count: whole(v.count, '--count', 1, 1),
    vary: v.vary,
    intervalMs: whole(v.interval, '--interval', 2000),
    write: { ...(v['half-written'] ? { parts: 3, pauseMs } : {}), ...(v['via-temp'] ? { viaTemp: true } : {}), ...(v.marker ? { marker: v.marker } : {}) },
    duplicate: v.duplicate === true,
    malformed: v.malformed === true,
  };
}

/** `text` as long as it was, ending in `n`: another sample number of the same shape. */
export function varied(text: string, n: number): string {
  const digits = String(n);
  return digits.length >= text.length ? digits.slice(-text.length) : text.slice(0, text.length - digits.length) + digits;
}

/** Writes the files; returns the exit status. */
export async function runFolderExport(config: FolderCliConfig, print: (line: string) => void): Promise<number> {
  const template = await readFile(config.template);
  const ext = extname(config.template);
  const stem = basename(config.template, ext);
  const sim = new FileExporter(config.folder);
  let first;
  for (let n = 1; n <= config.count; n++) {
    if (n > 1) await new Promise((r) => setTimeout(r, config.intervalMs));
    const bytes = config.vary === undefined ? template : fromTemplate(template, { [config.vary]: varied(config.vary, n) });
    const w = await sim.write(`${stem}-${n}${ext}`, bytes, config.write);
    first ??= w;
    print(`${new Date().toISOString()} wrote ${w.name} (${w.bytes.length} bytes)`);
  }
  if (config.duplicate && first) print(`${new Date().toISOString()} wrote ${(await sim.duplicate(first, `${stem}-1 copy${ext}`, config.write)).name} (the same bytes as ${first.name})`);
  if (config.malformed) print(`${new Date().toISOString()} wrote ${(await sim.malformed(`${stem}-bad${ext}`, undefined, config.write)).name} (malformed)`);
  print(`files written into ${config.folder}: ${sim.written.length}`);
  return 0;
}
