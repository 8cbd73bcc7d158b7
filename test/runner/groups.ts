/**
 * How the suite's files are run: which share a process, which must not run
 * beside each other, which need the packed package, and roughly how long each
 * takes (the longest start first, so the run ends when its longest lane does).
 *
 * Paths are relative to dist/test, without .test.js.
 */

export interface Job {
  /** What the run's lines call it: the file, or the group's name. */
  name: string;
  /** dist/test-relative paths of its files, in the order they run. */
  files: string[];
  /** Its files run in one process (test/runner/in-one-process.ts); otherwise its one file runs under `node --test`. */
  oneProcess: boolean;
  /** The job waits for the packed and installed package (test/support/installed-package.ts). */
  needsPackage: boolean;
  /** Never beside another serial job: it kills processes at aimed moments or measures real timers. */
  serial: boolean;
  /** A rough weight for ordering, in seconds on an idle 2-core machine. */
  weight: number;
}

/**
 * Files run in one process so that they share one Chromium and, where their
 * runtime settings match, one Node-RED (test/support/browser.ts). Each test
 * still gets a fresh browser context and its own flows and journal.
 */
export const SHARED_PROCESS: Record<string, string[]> = {
  // Node-RED with the package loaded from the repository (startEditorSession).
  'browser: editor dialogs': [
    'browser/pointing-keyboard',
    'browser/pointing',
    'browser/lab-sidebar',
    'browser/test-mapper',
    'browser/dialect-editor',
    'browser/hl7-dialect',
    'browser/help',
    'browser/file-pointing',
    'browser/link-dialog',
    'browser/file-message-workbook',
    'browser/file-message-dialog',
    'browser/bidi',
    'browser/folder-link',
  ],
  // Each starts a Node-RED of its own (the installed package, the examples, the demo); they share Chromium.
  'browser: own runtimes': ['browser/settings-dialog', 'browser/journey', 'browser/examples', 'browser/demo'],
};

/** Files that kill Node-RED or the analyzer at aimed moments, or whose checks are about real elapsed time. */
export const SERIAL = new Set(['e2e/crash', 'e2e/file-crash', 'e2e/misbehaviour', 'e2e/line-drop']);

/** Folders whose files install the packed package. */
const PACKAGE_FOLDERS = ['e2e/', 'install/'];

/** Seconds a file of each folder takes, roughly, when nothing says otherwise. */
const FOLDER_WEIGHT: Record<string, number> = { browser: 10, e2e: 30, demo: 10, install: 10, serial: 10, tls: 5, hostile: 5, sim: 3, nodes: 3, unit: 1, bench: 1 };

/** Files known to take much longer than their folder's others. */
const FILE_WEIGHT: Record<string, number> = {
  'e2e/crash': 60,
  'e2e/examples': 60,
  'e2e/hl7-examples': 40,
  'e2e/side-by-side': 40,
  'e2e/misbehaviour': 30,
  'demo/start': 35,
  'nodes/journal': 15,
};

/** The jobs for `files` (dist/test-relative, without .test.js): the shared-process groups first, then one job per file. */
export function jobsFor(files: string[]): Job[] {
  const left = new Set(files);
  const jobs: Job[] = [];
  for (const [name, members] of Object.entries(SHARED_PROCESS)) {
    const present = members.filter((f) => left.has(f));
    if (present.length === 0) continue;
    present.forEach((f) => left.delete(f));
    jobs.push({ name, files: present, oneProcess: true, needsPackage: present.some(needsPackage), serial: false, weight: present.reduce((sum, f) => sum + weightOf(f), 0) });
  }
  for (const f of left) jobs.push({ name: f, files: [f], oneProcess: false, needsPackage: needsPackage(f), serial: SERIAL.has(f), weight: weightOf(f) });
  return jobs.sort((a, b) => b.weight - a.weight || a.name.localeCompare(b.name));
}

function needsPackage(file: string): boolean {
  return PACKAGE_FOLDERS.some((p) => file.startsWith(p)) || file === 'browser/settings-dialog' || file === 'browser/journey';
}

function weightOf(file: string): number {
  return FILE_WEIGHT[file] ?? FOLDER_WEIGHT[file.split('/')[0]!] ?? 1;
}
