/**
 * Section 9's start-up probe, run in a process of its own (with --expose-gc)
 * so its memory is the store's alone: opens the QC store in argv[2] and
 * prints the time, RSS and heap as one JSON line.
 */
import { openQcStore } from '../lib/qc';

async function main(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage();
  const started = performance.now();
  const store = await openQcStore(process.argv[2]!);
  const openMs = performance.now() - started;
  gc?.();
  const after = process.memoryUsage();
  const out = { openMs, rss: after.rss, heapUsed: after.heapUsed, heapGrowth: after.heapUsed - before.heapUsed, series: store.summaries().length, replayed: store.stats.replayed, snapshotRefused: store.stats.snapshotRefused ?? null };
  await store.close();
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

void main();
