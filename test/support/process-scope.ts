/**
 * What a test process keeps for all its files when the runner runs several
 * files in it (test/runner/in-one-process.ts): a browser, a Node-RED. A file
 * leases such a thing and releases it in its after hook; in a shared process
 * it stays up for the next file and is closed once, after the last file; in a
 * process of one file it is closed at its release, as before.
 */

type Closer = () => Promise<void>;

const closers: Closer[] = [];
let sharing = false;

/** Called once by the runner's in-one-process entry, before any test file is loaded. */
export function shareAcrossFiles(): void {
  sharing = true;
}

/** Files run one after another in this process, and what they lease may outlive each one. */
export function sharedAcrossFiles(): boolean {
  return sharing;
}

/** Closes `close` with the process scope (in a shared process), after every file. */
export function atScopeEnd(close: Closer): void {
  closers.push(close);
}

/** Runs every closer, newest first; failures are collected, not thrown one by one. */
export async function closeScope(): Promise<void> {
  const errors: unknown[] = [];
  for (const close of closers.splice(0).reverse()) await close().catch((err: unknown) => errors.push(err));
  if (errors.length > 0) throw new AggregateError(errors, `${errors.length} shared test resource(s) did not close`);
}
