/**
 * The worker thread a workbook is read in (./workbook-thread.ts starts it):
 * the same reading as on the main thread (./workbook.ts), its rows sent back
 * a chunk at a time, each once the main thread asks for it, so taking them
 * in never holds the main thread's event loop either.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { RowLimitError, type FileRow } from './table';
import { WorkbookError, workbookRows } from './workbook';
import type { FileDialectProfile } from './types';

/** What the main thread hands over: the file's bytes and the dialect. */
export interface WorkbookJob {
  bytes: Uint8Array;
  profile: FileDialectProfile;
}

/** What the worker answers: rows, one chunk per `next`; the end; or why the workbook cannot be read. */
export type WorkbookAnswer =
  | { kind: 'rows'; rows: FileRow[]; last: boolean }
  | { kind: 'refused'; error: 'workbook'; message: string; setting: string }
  | { kind: 'refused'; error: 'rows'; limit: number; line: number }
  | { kind: 'failed'; message: string };

/** Rows per message: a few milliseconds to take in on the main thread. */
const CHUNK = 2000;

function answerOf(err: unknown): WorkbookAnswer {
  if (err instanceof WorkbookError) return { kind: 'refused', error: 'workbook', message: err.message, setting: err.setting };
  if (err instanceof RowLimitError) return { kind: 'refused', error: 'rows', limit: err.limit, line: err.line };
  return { kind: 'failed', message: err instanceof Error ? err.message : String(err) };
}

function run(port: NonNullable<typeof parentPort>, job: WorkbookJob): void {
  let rows: FileRow[];
  try {
    rows = workbookRows(Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength), job.profile);
  } catch (err) {
    port.postMessage(answerOf(err));
    return;
  }
  let at = 0;
  const send = () => {
    const chunk = rows.slice(at, at + CHUNK);
    at += CHUNK;
    port.postMessage({ kind: 'rows', rows: chunk, last: at >= rows.length } satisfies WorkbookAnswer);
  };
  port.on('message', (m: unknown) => {
    if (m === 'next') send();
  });
  send();
}

if (parentPort !== null) run(parentPort, workerData as WorkbookJob);
