/**
 * The QC store of this Node-RED process (beside the journal, in lisBridge.dir/qc) and each analyzer's QC monitor,
 * kept across redeploys as the journal is: a deploy changes an analyzer's control table and rules, never what its
 * QC has seen. An analyzer's monitor is named by its lis-qc node's analyzer name; two deployed lis-qc nodes of one
 * name are refused (their series would be one).
 */
import { join } from 'node:path';
import type { NodeAPI } from 'node-red';
import { openQcStore, type QcStore } from '../../lib/qc';
import { QcMonitor } from '../../lib/qc';
import { ReviewBook } from '../../lib/qc';
import type { QcSetup } from '../../lib/qc';
import { bridgeSettings } from './journal';

export interface QcRuntime {
  store: QcStore;
  review: ReviewBook;
  monitors: Map<string, { monitor: QcMonitor; owner: string }>;
}

const opened = new Map<string, Promise<QcRuntime>>();

export function qcDir(RED: NodeAPI): string {
  return join(bridgeSettings(RED).dir, 'qc');
}

/** The process's QC store for the configured directory, opened on first use. */
export function qcRuntimeFor(RED: NodeAPI): Promise<QcRuntime> {
  const dir = qcDir(RED);
  let p = opened.get(dir);
  if (!p) {
    p = (async () => {
      const store = await openQcStore(dir);
      const review = new ReviewBook(dir);
      await review.open();
      return { store, review, monitors: new Map() };
    })();
    opened.set(dir, p);
    // One that could not open is forgotten, so the next deploy tries again.
    p.catch(() => opened.delete(dir));
  }
  return p;
}

/** The runtime when a node opened it already: a look from the editor must not create the directory. */
export function openedQcRuntime(RED: NodeAPI): Promise<QcRuntime> | undefined {
  return opened.get(qcDir(RED));
}

/**
 * The analyzer's monitor for lis-qc node `owner`, with `setup` in force; refused when another deployed node owns
 * the name. Resolves once what a crash left unwritten is written.
 */
export async function monitorFor(RED: NodeAPI, owner: string, setup: QcSetup): Promise<QcMonitor> {
  const rt = await qcRuntimeFor(RED);
  const known = rt.monitors.get(setup.analyzer);
  if (known) {
    if (known.owner !== owner) {
      const alive = RED.nodes.getNode(known.owner);
      if (alive) throw new Error(`the lis-qc node ${alive.name || known.owner} files its QC under the analyzer name ${JSON.stringify(setup.analyzer)} already: give each analyzer a name of its own`);
      known.owner = owner;
    }
    known.monitor.configure(setup);
    return known.monitor;
  }
  const { monitor, written } = QcMonitor.open(rt.store, rt.review, setup);
  rt.monitors.set(setup.analyzer, { monitor, owner });
  await written;
  return monitor;
}

const listeners = new Set<() => void>();

/** Calls `listener` when some analyzer's QC changed (a run judged, an event accepted, a target set); returns the unsubscribe. */
export function onQcChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Some analyzer's QC changed: the Lab sidebar reads it again. */
export function qcChanged(): void {
  for (const l of listeners) l();
}

/** Closes every QC store (tests that start several runtimes in one process). */
export async function closeAllQcStores(): Promise<void> {
  const all = [...opened.values()];
  opened.clear();
  for (const p of all) {
    await p.then(async (rt) => {
      await rt.store.close();
      await rt.review.close();
    }).catch(() => undefined);
  }
}
