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

after(async () => {
  await closeScope();
  // node:test prints its counts when the event loop empties. A handle a file left open would hold the job until the
  // runner kills it (seen once: a core tcp in client's socket left connecting, and a timer, after the node tests that
  // give it a port that is no number): the counts are closed here instead, naming what was left open.
  setTimeout(() => {
    const open = process.getActiveResourcesInfo().filter((r) => r !== 'PipeWrap' && r !== 'TTYWrap');
    console.log(`${LEFT_OPEN} ${JSON.stringify(open)}`);
    process.emit('beforeExit', Number(process.exitCode ?? 0));
    setTimeout(() => process.exit(), 500).unref();
  }, DRAIN_MS).unref();
});
