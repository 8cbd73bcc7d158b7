/**
 * Section 8: big files and the event loop. Each case runs in a fresh Node
 * process (so its memory figures are its own): the longest the event loop
 * was held at once (a 1 ms heartbeat and monitorEventLoopDelay, the larger
 * of the two) and, on Linux, the longest the main thread held it while on a
 * core (a loaded machine makes a process wait for a core; that wait is the
 * machine's, not the reading's), the peak heap growth above the start of the reading and the
 * process's peak RSS (sampled by that heartbeat; a worker thread's heap
 * counts in the RSS, not in the heap), and the time
 * the whole reading took. Each case is measured twice in the same run: the
 * way the package reads now (in slices, a workbook in its worker thread) and
 * the reading in one go that it replaced (the sync API, still there), so the
 * two are compared side by side.
 *
 * Cases: the 2-million-row CSV (16 MB, refused past maxRows), a CSV at the
 * row limit (delivered), the 400,000 shared-strings workbook (1.2 MB, 41 MB
 * unpacked), and a preview and a pointing request on a 2.5 MB CSV.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { GENERIC_CSV, fileLabEvents, fileLabEventsInSlices, pointFileAt, pointFileAtInSlices, previewFileSite, previewFileSiteInSlices, type FileDialectProfile } from '../lib/protocols/file';
import { jsonPieces, sliceEnd } from '../lib/util';
import { bigCsv, csvOfSize, sharedStringsWorkbook } from './file-inputs';
import type { Report } from './report';

const SECTION = '8 big files';

export interface StallSizes {
  csvRows: number;
  limitRows: number;
  sharedStrings: number;
  previewBytes: number;
}

type Way = 'slices' | 'once';
const CASES = ['csv', 'limit', 'workbook', 'preview', 'point'] as const;
type Case = (typeof CASES)[number];

interface Measured {
  stallMs: number;
  /**
   * The longest the main thread held the loop while on a core: of each gap between heartbeats, the part it ran
   * (Linux's per-thread schedstat); a gap spent waiting for a core, as other work on a loaded machine makes it
   * wait, is not counted. Undefined where there is no /proc.
   */
  onCoreMs?: number;
  /** The longest gap's parts: on a core, and waiting in the run queue for one. */
  longestGap?: { runMs: number; waitMs: number };
  /** The process's peak RSS (the generated input, and its garbage, included: compare with startRssMB). */
  peakRssMB: number;
  startRssMB: number;
  /** The heap's peak above its size when the reading began (after a full GC). */
  peakHeapMB: number;
  ms: number;
  outcome: string;
  inputMB: number;
}

const XLSX_CSV: FileDialectProfile = { ...GENERIC_CSV, format: 'xlsx' };

/** The case's input and the reading to time, either way. */
function work(which: Case, way: Way, sizes: StallSizes): { input: Buffer; run: () => Promise<string> } {
  const events = (bytes: Buffer, profile: FileDialectProfile) => async () => {
    const options = { timeZone: 'UTC' };
    try {
      const out = way === 'slices' ? await fileLabEventsInSlices(bytes, profile, options) : fileLabEvents(bytes, profile, options);
      return `delivered: ${out.reduce((n, e) => n + (e.type === 'results' ? e.results.length : 0), 0)} results in ${out.length} events`;
    } catch (err) {
      return `refused: ${(err as Error).message.slice(0, 60)}...`;
    }
  };
  switch (which) {
    case 'csv': {
      const input = bigCsv(sizes.csvRows);
      return { input, run: events(input, GENERIC_CSV) };
    }
    case 'limit': {
      const input = bigCsv(sizes.limitRows);
      return { input, run: events(input, GENERIC_CSV) };
    }
    case 'workbook': {
      const input = sharedStringsWorkbook(sizes.sharedStrings);
      return { input, run: events(input, XLSX_CSV) };
    }
    case 'preview': {
      const input = csvOfSize(sizes.previewBytes);
      return {
        input,
        run: async () => {
          const answer = way === 'slices' ? await previewFileSiteInSlices({ base: GENERIC_CSV.id }, input, 'UTC', 'run.csv') : previewFileSite({ base: GENERIC_CSV.id }, input, 'UTC', 'run.csv');
          // The route's answer, as it sends it: in slices, or res.json's one stringify.
          let n = 0;
          if (way === 'slices') {
            let until = sliceEnd();
            let k = 0;
            for (const piece of jsonPieces(answer)) {
              n += piece.length;
              if (++k % 64 === 0 && performance.now() >= until) {
                await new Promise((r) => setImmediate(r));
                until = sliceEnd();
              }
            }
          } else n = JSON.stringify(answer).length;
          return `${answer.preview?.results.length ?? 0} results previewed, ${(n / 1e6).toFixed(1)} MB of JSON`;
        },
      };
    }
    case 'point': {
      const input = csvOfSize(sizes.previewBytes);
      const request = { base: GENERIC_CSV.id, text: '', bytes: input, timeZone: 'UTC', role: 'value' as const, place: { row: 2, column: 3 } };
      return {
        input,
        run: async () => {
          const answer = way === 'slices' ? await pointFileAtInSlices(request) : pointFileAt(request);
          return 'setting' in answer ? `pointed: ${answer.setting}, ${answer.changed} changed` : JSON.stringify(answer).slice(0, 80);
        },
      };
    }
  }
}

/** One case in this process (the child's side): measured, printed as JSON. */
async function measureHere(which: Case, way: Way, sizes: StallSizes): Promise<Measured> {
  const { input, run } = work(which, way, sizes);
  (globalThis as { gc?: () => void }).gc?.();
  const start = process.memoryUsage();
  let peakRss = start.rss;
  let peakHeap = start.heapUsed;
  let last = performance.now();
  let gap = 0;
  let onCore: number | undefined;
  let longestGap: Measured['longestGap'];
  let core = schedStat();
  const split = (now: number) => {
    const c = schedStat();
    if (c !== undefined && core !== undefined) {
      const runMs = (c[0] - core[0]) / 1e6;
      onCore = Math.max(onCore ?? 0, Math.min(now - last, runMs));
      if (now - last >= gap) longestGap = { runMs, waitMs: (c[1] - core[1]) / 1e6 };
    }
    core = c;
  };
  const beat = setInterval(() => {
    const now = performance.now();
    split(now);
    gap = Math.max(gap, now - last);
    last = now;
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  }, 1);
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const began = performance.now();
  const outcome = await run();
  const ms = performance.now() - began;
  const end0 = performance.now();
  split(end0);
  gap = Math.max(gap, end0 - last);
  delay.disable();
  clearInterval(beat);
  const end = process.memoryUsage();
  peakRss = Math.max(peakRss, end.rss);
  peakHeap = Math.max(peakHeap, end.heapUsed);
  return { stallMs: Math.max(gap, delay.max / 1e6), ...(onCore === undefined ? {} : { onCoreMs: onCore, longestGap }), peakRssMB: peakRss / 2 ** 20, startRssMB: start.rss / 2 ** 20, peakHeapMB: (peakHeap - start.heapUsed) / 2 ** 20, ms, outcome, inputMB: input.length / 2 ** 20 };
}

/** The main thread's time on a core and waiting for one, in ns (/proc/self/task/<pid>/schedstat), where Linux gives it. */
function schedStat(): [number, number] | undefined {
  try {
    const [run, wait] = readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ').map(Number);
    return run === undefined || wait === undefined ? undefined : [run, wait];
  } catch {
    return undefined;
  }
}

/** Runs one case in a fresh process. */
function measureApart(which: Case, way: Way, sizes: StallSizes): Measured {
  const child = spawnSync(process.execPath, ['--expose-gc', __filename, which, way, JSON.stringify(sizes)], { encoding: 'utf8', maxBuffer: 1 << 20 });
  const line = child.stdout.trim().split('\n').pop() ?? '';
  if (child.status !== 0 || !line.startsWith('{')) throw new Error(`bench case ${which} (${way}) failed: ${child.stderr.slice(-500)}`);
  return JSON.parse(line) as Measured;
}

const LABELS: Record<Case, (s: StallSizes) => string> = {
  csv: (s) => `CSV of ${(s.csvRows / 1e6).toFixed(1)} million rows`,
  limit: (s) => `CSV at the row limit (${s.limitRows.toLocaleString('en-US')} rows)`,
  workbook: (s) => `workbook, ${s.sharedStrings.toLocaleString('en-US')} shared strings`,
  preview: (s) => `preview of a ${(s.previewBytes / 2 ** 20).toFixed(1)} MB CSV`,
  point: (s) => `pointing request on a ${(s.previewBytes / 2 ** 20).toFixed(1)} MB CSV`,
};

export function benchFileStall(report: Report, sizes: StallSizes, log: (line: string) => void): void {
  for (const which of CASES) {
    const label = LABELS[which](sizes);
    const now = measureApart(which, 'slices', sizes);
    const before = measureApart(which, 'once', sizes);
    const parts = now.longestGap === undefined ? '' : ` (${now.longestGap.runMs.toFixed(0)} ms of it on a core, ${now.longestGap.waitMs.toFixed(0)} ms waiting for one)`;
    log(`8: ${label} (${now.inputMB.toFixed(1)} MB): ${now.outcome}; longest stall ${now.stallMs.toFixed(0)} ms${parts} (in one go ${before.stallMs.toFixed(0)} ms)`);
    const key = `fileStall.${which}`;
    report.add({ key: `${key}.stallMs`, section: SECTION, label: `${label} (${now.inputMB.toFixed(1)} MB), longest event-loop stall`, value: now.stallMs, unit: 'ms', goal: { text: '< 50', met: now.stallMs < 50 }, note: `in one go: ${before.stallMs.toFixed(0)} ms; ${now.outcome}` });
    if (now.onCoreMs !== undefined) {
      report.add({ key: `${key}.onCoreMs`, section: SECTION, label: `${label}, longest stall on a core (waits for one not counted)`, value: now.onCoreMs, unit: 'ms', goal: { text: '< 50', met: now.onCoreMs < 50 }, note: `in one go: ${before.onCoreMs?.toFixed(0) ?? '?'} ms` });
    }
    report.add({ key: `${key}.peakHeapMB`, section: SECTION, label: `${label}, peak heap growth`, value: now.peakHeapMB, unit: 'MiB', note: `in one go: ${before.peakHeapMB.toFixed(0)} MiB` });
    report.add({ key: `${key}.peakRssMB`, section: SECTION, label: `${label}, peak RSS of the process`, value: now.peakRssMB, unit: 'MiB', note: `${now.startRssMB.toFixed(0)} MiB when the reading began (the input made); in one go: ${before.peakRssMB.toFixed(0)} MiB` });
    report.add({ key: `${key}.ms`, section: SECTION, label: `${label}, whole reading`, value: now.ms, unit: 'ms', note: `in one go: ${before.ms.toFixed(0)} ms` });
    report.detail(key, { now, before });
  }
}

if (require.main === module) {
  const [which, way, sizes] = process.argv.slice(2) as [Case, Way, string];
  measureHere(which, way, JSON.parse(sizes) as StallSizes).then(
    (m) => {
      process.stdout.write(`${JSON.stringify(m)}\n`);
      process.exit(0);
    },
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}
