/**
 * Running the package's nodes in a real Node-RED runtime (node-red-node-test-helper).
 * Tests run from the repository root, which the helper needs to find package.json.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type net from 'node:net';
import { afterEach, beforeEach } from 'node:test';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import helper from 'node-red-node-test-helper';
import type { Node } from 'node-red';
import { closeAllJournals } from '../../lib/journal/registry';
import { closeAllQcStores } from '../../nodes/shared/qc-runtime';
import { withCatalogs } from './catalogs';
import { waitUntil } from './wait';

helper.init(require.resolve('node-red'));

/**
 * Every helper.load() gets a journal directory of its own: a message left
 * unsettled by one test must not be replayed into the next one that happens
 * to reuse a node id. The directory in use is journalDir().
 */
let currentJournalDir = '';
const load = helper.load.bind(helper);
helper.load = ((...args: Parameters<typeof helper.load>) => {
  if (!keepJournal) {
    removeJournalDir();
    currentJournalDir = mkdtempSync(join(tmpdir(), 'lis-journal-'));
  }
  keepJournal = false;
  helper.settings({ lisBridge: { dir: currentJournalDir, ...extraBridgeSettings } } as never);
  return load(...args);
}) as typeof helper.load;
const unload = helper.unload.bind(helper);
// Closing the journals makes the next load read them from disk, as a restarted Node-RED would.
helper.unload = (() => unload().then(() => closeAllJournals()).then(() => closeAllQcStores())) as typeof helper.unload;

let keepJournal = false;
function removeJournalDir(): void {
  if (currentJournalDir) rmSync(currentJournalDir, { recursive: true, force: true });
}
process.once('exit', removeJournalDir);
let extraBridgeSettings: Record<string, unknown> = {};

export function journalDir(): string {
  return currentJournalDir;
}

/** The next helper.load() reuses the current journal directory: a restart of Node-RED, as far as the journal knows. */
export function keepJournalForNextLoad(): void {
  keepJournal = true;
}

/**
 * The following loads get a journal directory that cannot be created (it
 * would sit under a plain file): every store fails. Returns the path; the
 * caller removes the blocker with `t.after(() => rmSync(blocker, …))`.
 */
export function blockJournalForNextLoads(): { journal: string; blocker: string } {
  const blockerDir = mkdtempSync(join(tmpdir(), 'lis-journal-blocked-'));
  const file = join(blockerDir, 'a-file');
  writeFileSync(file, 'not a directory');
  bridgeSettingsForTests({ dir: join(file, 'journal') });
  return { journal: join(file, 'journal'), blocker: blockerDir };
}

/** Settings under lisBridge (besides dir) for the following loads, e.g. retentionDays. */
export function bridgeSettingsForTests(settings: Record<string, unknown>): void {
  extraBridgeSettings = settings;
}

export { helper };
export { waitUntil } from './wait';

const NODES_DIR = join(__dirname, '..', '..', 'nodes');

/** The built node modules, in the form helper.load() takes. */
/** The package's node modules, seeing the package's message catalogs through RED._ as in a real Node-RED. */
export function nodeModules(...types: string[]): unknown[] {
  return withCatalogs(types.map((t) => require(join(NODES_DIR, `${t}.js`))));
}

export const ALL_LIS_NODES = ['lis-config', 'lis-get-tests', 'lis-get-order', 'lis-send-results', 'lis-mark-processed', 'lis-push-in', 'test-mapper', 'lis-test-map', 'lis-qc', 'astm-link', 'astm-message', 'hl7-message'];

/** The next message a node sends on its output(s), via a helper node wired to it. */
export function nextMessage<T = Record<string, unknown>>(helperNodeId: string, timeoutMs = 5000): Promise<T> {
  const n = helper.getNode(helperNodeId);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no message at ${helperNodeId} within ${timeoutMs} ms`)), timeoutMs);
    n.once('input', (msg: T) => {
      clearTimeout(timer);
      resolve(msg);
    });
  });
}

/** Every message that reaches a helper node, in order. */
export function collect(helperNodeId: string): Array<Record<string, unknown>> {
  const got: Array<Record<string, unknown>> = [];
  helper.getNode(helperNodeId).on('input', (msg: Record<string, unknown>) => got.push(msg));
  return got;
}

let barriers = 0;

/**
 * Waits until every error raised so far has reached the Catch node that feeds
 * `caught` (a collect() list): raises a marker error on `nodeId` (a node the
 * Catch node listens to) and waits for it there, then takes the marker out of
 * the list. Node-RED passes errors to a Catch node in the order they were
 * raised, so a count read after this is the count, however busy the machine:
 * a "raised once" needs no fixed wait for a second error that might come.
 */
export async function allCaught(nodeId: string, caught: Array<Record<string, unknown>>): Promise<void> {
  const marker = `barrier-${++barriers}`;
  helper.getNode(nodeId).error(new Error(`test marker ${marker}`), { _testBarrier: marker } as never);
  await waitUntil(() => caught.some((m) => m._testBarrier === marker), 10_000, `the marker error ${marker} from ${nodeId} at the Catch node`);
  caught.splice(caught.findIndex((m) => m._testBarrier === marker), 1);
}

/** Every status a node has shown, oldest first (the helper spies on the prototype: calls of other nodes are left out). */
export function statuses(node: Node): Array<{ fill?: string; shape?: string; text?: string }> {
  const spy = (node as unknown as { status: { args: unknown[][]; thisValues: unknown[] } }).status;
  return spy.args.filter((_, i) => spy.thisValues[i] === node).map((a) => a[0] as { fill?: string; shape?: string; text?: string });
}

export function lastStatus(node: Node): { fill?: string; shape?: string; text?: string } | undefined {
  return statuses(node).at(-1);
}

/**
 * The hooks every file of TCP node tests needs: a Node-RED test server per
 * test, and afterwards the analyzer sockets the test opened destroyed (pushed
 * on the list returned), then `more` (servers, simulators), then the flows
 * unloaded. Call once at the top of the file.
 */
export function useTcpNodeTests(more: () => Promise<unknown> | void = () => undefined): net.Socket[] {
  const sockets: net.Socket[] = [];
  beforeEach(() => helper.startServer());
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    await more();
    await helper.unload();
    await helper.stopServer();
  });
  return sockets;
}
