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
after(closeScope);
