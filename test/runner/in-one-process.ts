/**
 * Runs several test files in this one process, each inside a suite named by
 * its path, so that a file's top-level hooks (before, after) stay its own and
 * the files run one after another. What they share is what their support
 * modules lease for the process (test/support/process-scope.ts): the browser
 * tests' Chromium and Node-RED, closed after the last file.
 *
 *   node --test-reporter=tap dist/test/runner/in-one-process.js <file.test.js>...
 */
import { after, describe } from 'node:test';
import { relative, resolve } from 'node:path';
import { closeScope, shareAcrossFiles } from '../support/process-scope';
import { LEFT_OPEN } from './tap';

const ROOT = resolve(__dirname, '..', '..', '..');
/** As `node --test --test-timeout` gives a file run alone: it fails after 15 minutes. */
const FILE_TIMEOUT_MS = 900_000;

shareAcrossFiles();
for (const file of process.argv.slice(2)) {
  const path = resolve(file);
  // The file's top-level test(), describe() and hooks register into this suite while it is being required.
  describe(relative(ROOT, path), { timeout: FILE_TIMEOUT_MS }, () => {
    require(path);
  });
}
/** How long the process may stay up after its last file before what keeps it up is named and its counts are closed. */
const DRAIN_MS = 3000;
/** The last line node:test's TAP reporter writes, after its counts. */
const LAST_COUNT = /^# duration_ms /m;

/** What keeps the event loop alive besides this process's own stdout and stderr (unref'd timers are not listed). */
const leftOpen = () => process.getActiveResourcesInfo().filter((r) => r !== 'PipeWrap' && r !== 'TTYWrap');

/** Ends the process once the reporter has written its counts. */
function exitAfterCounts(): void {
  const write = process.stdout.write.bind(process.stdout) as (chunk: unknown, ...rest: unknown[]) => boolean;
  process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => {
    const written = write(chunk, ...rest);
    if (LAST_COUNT.test(String(chunk))) process.exit();
    return written;
  }) as typeof process.stdout.write;
}

after(async () => {
  await closeScope();
  // node:test prints its counts when the event loop empties. A handle a file left open would hold the job until the
  // runner kills it (seen once: a core tcp in client's socket left connecting, and a timer, after the node tests that
  // give it a port that is no number): the counts are closed here instead, naming what was left open.
  const deadline = Date.now() + DRAIN_MS;
  const watch = setInterval(() => {
    if (leftOpen().length === 0) return clearInterval(watch);
    if (Date.now() < deadline) return;
    clearInterval(watch);
    console.log(`${LEFT_OPEN} ${JSON.stringify(leftOpen())}`);
    exitAfterCounts();
    process.emit('beforeExit', Number(process.exitCode ?? 0));
  }, 50).unref();
});
