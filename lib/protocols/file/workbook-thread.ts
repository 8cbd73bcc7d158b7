/**
 * A workbook read off the event loop: SheetJS parses a whole workbook in one
 * synchronous call (seconds for a large shared-strings table), so it runs in
 * a worker thread (./workbook-worker.ts) with a hard heap cap and a time
 * limit; either hit, the worker is stopped and the file refused whole with
 * the reason. One worker per workbook: a worker that ran out of memory is
 * gone, and workbooks come a few an hour.
 *
 * The cap follows the workbook's size as its ZIP directory declares it
 * (SheetJS holds several times the XML it reads), within HARD_CAP_MB: a
 * directory that understates gets a small heap and fails on it, whatever the
 * inflated size would have been.
 */
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { RowLimitError, type FileRow } from './table';
import { declaredUnpackedBytes, notWorkbook, WorkbookError } from './workbook';
import type { FileDialectProfile } from './types';
import type { WorkbookAnswer, WorkbookJob } from './workbook-worker';

/** The heap any workbook starts with: SheetJS's own script and a small sheet. */
export const HEAP_FLOOR_MB = 96;
/** Heap allowed per MB the workbook unpacks to (400,000 shared strings in 41 MB of XML took 310 MB). */
export const HEAP_PER_UNPACKED_MB = 12;
/** The most heap a workbook is ever given, whatever it declares and the dialect allows. */
export const HARD_CAP_MB = 2048;
/** Longer than any workbook within the limits takes (the 41 MB one: under 2 s). */
export const WORKBOOK_TIMEOUT_MS = 60_000;

export interface WorkbookThreadOptions {
  signal?: AbortSignal;
  /** The worker's heap cap (MB); absent: from the declared size, as above. */
  heapMB?: number;
  /** The most heap any workbook gets here (the runtime's lisBridge.workbookHeapMB); absent: HARD_CAP_MB. */
  maxHeapMB?: number;
  timeoutMs?: number;
}

/** The heap a workbook's worker gets: its declared unpacked size times HEAP_PER_UNPACKED_MB, above the floor, under the hard cap. */
export function workbookHeapMB(bytes: Buffer, maxHeapMB = HARD_CAP_MB): number {
  const declared = (declaredUnpackedBytes(bytes) ?? 0) / (1024 * 1024);
  return Math.min(maxHeapMB, HARD_CAP_MB, Math.ceil(HEAP_FLOOR_MB + HEAP_PER_UNPACKED_MB * declared));
}

const NOT_READ = 'not read, none of its results sent';

/** The sheet's rows as ./workbook.ts reads them, from a worker thread; WorkbookError or RowLimitError as there. */
export async function workbookRowsOffLoop(bytes: Buffer, profile: FileDialectProfile, options: WorkbookThreadOptions = {}): Promise<FileRow[]> {
  const problem = notWorkbook(bytes);
  if (problem !== undefined) throw new WorkbookError(problem, 'format');
  options.signal?.throwIfAborted();
  const heapMB = options.heapMB ?? workbookHeapMB(bytes, options.maxHeapMB);
  const declaredMB = Math.ceil((declaredUnpackedBytes(bytes) ?? 0) / (1024 * 1024));
  const timeoutMs = options.timeoutMs ?? WORKBOOK_TIMEOUT_MS;
  const job: WorkbookJob = { bytes: new Uint8Array(bytes), profile };
  const worker = new Worker(join(__dirname, 'workbook-worker.js'), {
    workerData: job,
    transferList: [job.bytes.buffer as ArrayBuffer],
    resourceLimits: { maxOldGenerationSizeMb: heapMB, maxYoungGenerationSizeMb: Math.min(64, Math.max(8, heapMB >> 4)) },
    // The worker's console goes to the main thread's; SheetJS's notes on a ZIP's data descriptors are muted in it already.
    stdout: false,
    stderr: false,
  });
  const rows: FileRow[] = [];
  try {
    return await new Promise<FileRow[]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new WorkbookError(`reading the workbook took longer than ${timeoutMs / 1000} s: stopped, ${NOT_READ} (a damaged or hostile file?); a results export reads in a second or two`, 'maxUnpackedMB')), timeoutMs);
      const stop = () => reject(options.signal?.reason ?? new Error('aborted'));
      options.signal?.addEventListener('abort', stop, { once: true });
      const settle = <A extends unknown[]>(f: (...a: A) => void) => (...a: A) => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', stop);
        f(...a);
      };
      const done = settle(resolve);
      const fail = settle(reject);
      worker.on('message', (answer: WorkbookAnswer) => {
        switch (answer.kind) {
          case 'rows':
            for (const row of answer.rows) rows.push(row);
            if (answer.last) return done(rows);
            // The next chunk once the event loop has had its turn: chunks never queue up on the main thread.
            void nextTurn().then(() => worker.postMessage('next'));
            return;
          case 'refused':
            return fail(answer.error === 'workbook' ? new WorkbookError(answer.message, answer.setting) : new RowLimitError(answer.limit, answer.line));
          case 'failed':
            return fail(new WorkbookError(`the workbook cannot be read (${answer.message.slice(0, 200)}): ${NOT_READ}`, 'format'));
        }
      });
      worker.on('error', (err: Error & { code?: string }) => {
        if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') {
          fail(new WorkbookError(`reading the workbook needed more than the ${heapMB} MB of memory it was given (${HEAP_FLOOR_MB} MB and ${HEAP_PER_UNPACKED_MB} times the ${declaredMB} MB its ZIP directory declares, at most lisBridge.workbookHeapMB, ${Math.min(options.maxHeapMB ?? HARD_CAP_MB, HARD_CAP_MB)} MB): stopped, ${NOT_READ}; a damaged or hostile file, or a workbook far heavier than a results export: export the results sheet alone, or raise lisBridge.workbookHeapMB in Node-RED's settings for a workbook you trust`, 'maxUnpackedMB'));
        } else fail(new WorkbookError(`the workbook cannot be read (${err.message.slice(0, 200)}): ${NOT_READ}`, 'format'));
      });
      worker.on('exit', (code) => fail(new WorkbookError(`the workbook's reader stopped (exit code ${code}) before it finished: ${NOT_READ}`, 'format')));
    });
  } finally {
    void worker.terminate();
  }
}
