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
  // Node-RED with the package installed from its packed tarball (startEditorSession): two processes, so each takes about as long.
  'browser: editor dialogs 1': ['browser/pointing-keyboard', 'browser/pointing', 'browser/lab-sidebar', 'browser/help', 'browser/link-dialog', 'browser/bidi', 'browser/folder-link', 'browser/qc'],
  'browser: editor dialogs 2': ['browser/test-mapper', 'browser/held-results', 'browser/held-correction', 'browser/dialect-editor', 'browser/hl7-dialect', 'browser/file-pointing', 'browser/file-message-workbook', 'browser/file-message-dialog'],
  // Each starts a Node-RED of its own (the installed package, the examples, the demo); they share Chromium.
  'browser: own runtimes 1': ['browser/settings-dialog', 'browser/demo', 'browser/lab-permission'],
  'browser: own runtimes 2': ['browser/journey', 'browser/examples'],
};

/** Files that kill Node-RED or the analyzer at aimed moments, or whose checks are about real elapsed time. */
export const SERIAL = new Set(['e2e/crash', 'e2e/file-crash', 'e2e/misbehaviour', 'e2e/line-drop']);

/** Folders whose files install the packed package. */
const PACKAGE_FOLDERS = ['e2e/', 'install/'];

/** Seconds a file of each folder takes, roughly, when FILE_SECONDS does not say. */
const FOLDER_SECONDS: Record<string, number> = { browser: 8, e2e: 10, demo: 3, install: 5, serial: 4, tls: 3, hostile: 3, sim: 2, nodes: 0.8, unit: 0.2, bench: 1 };

/** The files that take longest, in seconds alone on an idle 2-core machine (rounded; refresh when the order changes much). */
const FILE_SECONDS: Record<string, number> = {
  'browser/settings-dialog': 52,
  'browser/journey': 40,
  'browser/pointing-keyboard': 16,
  'browser/examples': 15,
  'browser/pointing': 15,
  'browser/lab-sidebar': 12,
  'browser/qc': 12,
  'browser/test-mapper': 10,
  'browser/dialect-editor': 10,
  'e2e/crash': 60,
  'e2e/misbehaviour': 40,
  'demo/start': 38,
  'e2e/hl7-examples': 30,
  'e2e/file-crash': 30,
  'e2e/examples': 27,
  'e2e/line-drop': 24,
  'nodes/journal': 15,
  'nodes/link-alarms': 14,
  'e2e/qc': 14,
  'e2e/file-analyzer': 11,
  'e2e/metrics': 9,
  'unit/file-slices': 20,
  'unit/folder-sim': 9,
  'unit/layers': 8,
  'nodes/folder-link': 7,
  'e2e/regressions': 7,
  'hostile/lis-faults': 7,
  'demo/demo-lis-cli': 6,
  'unit/linear-work': 6,
};

/**
 * Folders whose files share processes by weight: a process costs a Node start
 * and the loading of what the files import (a Node-RED runtime for node
 * tests), which for a file of a few hundred milliseconds is most of its cost
 * (unit/ as one process a file: 41 CPU seconds; as one process: 14).
 */
export const POOLS: Array<{ name: string; folders: string[]; processes: number; except?: string[] }> = [
  { name: 'unit', folders: ['unit'], processes: 2 },
  { name: 'nodes', folders: ['nodes'], processes: 2 },
  { name: 'sim, hostile, tls, bench', folders: ['sim', 'hostile', 'tls', 'bench'], processes: 1 },
  { name: 'serial lines', folders: ['serial'], processes: 1 },
  // npm start five times over is a job of its own.
  { name: 'demo', folders: ['demo'], processes: 1, except: ['demo/start'] },
];

/** The jobs for `files` (dist/test-relative, without .test.js): the shared-process groups, the pools, then one job per file. */
export function jobsFor(files: string[]): Job[] {
  const left = new Set(files);
  const jobs: Job[] = [];
  const together = (name: string, members: string[]) =>
    jobs.push({ name, files: members, oneProcess: true, needsPackage: members.some(needsPackage), serial: members.some((f) => SERIAL.has(f)), weight: members.reduce((sum, f) => sum + weightOf(f), 0) });
  for (const [name, members] of Object.entries(SHARED_PROCESS)) {
    const present = members.filter((f) => left.has(f));
    present.forEach((f) => left.delete(f));
    if (present.length > 0) together(name, present);
  }
  for (const pool of POOLS) {
    const present = [...left].filter((f) => pool.folders.includes(f.split('/')[0]!) && !pool.except?.includes(f));
    present.forEach((f) => left.delete(f));
    const bins = balanced(present, pool.processes);
    bins.forEach((members, i) => together(bins.length > 1 ? `${pool.name} ${i + 1}` : pool.name, members));
  }
  for (const f of left) jobs.push({ name: f, files: [f], oneProcess: false, needsPackage: needsPackage(f), serial: SERIAL.has(f), weight: weightOf(f) });
  return jobs.sort((a, b) => b.weight - a.weight || a.name.localeCompare(b.name));
}

/** `files` in at most `n` groups of about equal weight (the heaviest first into the lightest group), each in name order. */
function balanced(files: string[], n: number): string[][] {
  const bins = Array.from({ length: Math.min(n, files.length) }, () => ({ weight: 0, files: [] as string[] }));
  for (const f of [...files].sort((a, b) => weightOf(b) - weightOf(a) || a.localeCompare(b))) {
    const lightest = bins.reduce((min, b) => (b.weight < min.weight ? b : min));
    lightest.files.push(f);
    lightest.weight += weightOf(f);
  }
  return bins.map((b) => b.files.sort());
}

/** Files that run the package installed from its tarball: every browser file (the editor as an integrator has it) and the folders that install it. */
function needsPackage(file: string): boolean {
  return PACKAGE_FOLDERS.some((p) => file.startsWith(p)) || file.startsWith('browser/');
}

function weightOf(file: string): number {
  return FILE_SECONDS[file] ?? FOLDER_SECONDS[file.split('/')[0]!] ?? 1;
}
