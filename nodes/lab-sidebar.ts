/**
 * The runtime side of the "Lab" sidebar, a Node-RED plugin (package.json
 * "node-red.plugins"): the admin routes it reads and acts through, and a
 * change signal over the editor's comms so it updates live without polling.
 *
 * Only a signal travels over comms ({ parts, at }: which parts changed), never
 * link or patient data: comms publishes to every connected editor session,
 * whatever that user's permissions, so the sidebar fetches what changed
 * through the admin routes, which require lis.read (and lis.write to act).
 * Signals are coalesced: at most one every 500 ms (an operator's screen does
 * not need one per message), and sent only while an editor is connected.
 */
import type { NodeAPI } from 'node-red';
import { boardFor, orderGapsFor } from './shared/health';
import { installHeldRoutes } from './shared/held-routes';
import { whenJournalOpens } from './shared/journal';
import { installLabRoutes } from './shared/lab-routes';
import { installStuckRoutesOnce } from './shared/link-journal';
import { installRoutesOnce } from './shared/admin';
import { onQcChange } from './shared/qc-runtime';

/** The comms topic the sidebar subscribes to (nodes/lab-sidebar.html). */
const LAB_TOPIC = 'lis-bridge/lab';
const COALESCE_MS = 500;

type Part = 'links' | 'queues' | 'qc';

export = function register(RED: NodeAPI): void {
  RED.plugins.registerPlugin('lis-bridge-lab', { type: 'lis-bridge-lab' });
  installLabRoutes(RED);
  installHeldRoutes(RED);
  installStuckRoutesOnce(RED);
  installRoutesOnce(RED, 'lab-comms', () => publishChanges(RED));
};

function publishChanges(RED: NodeAPI): void {
  const pending = new Set<Part>();
  let timer: NodeJS.Timeout | undefined;
  let last = 0;
  const changed = (part: Part) => {
    pending.add(part);
    if (timer) return;
    timer = setTimeout(
      () => {
        timer = undefined;
        last = Date.now();
        const parts = [...pending];
        pending.clear();
        RED.comms.publish(LAB_TOPIC, { parts, at: new Date(last).toISOString() }, false);
      },
      Math.max(0, last + COALESCE_MS - Date.now()),
    );
    timer.unref();
  };
  // Only while an editor is connected: watching the board keeps its held and stuck counts current, which walks the
  // journal's memory (at most once a second), a cost not worth paying with nobody looking.
  const editors = new Set<string>();
  let unwatch: (() => void) | undefined;
  RED.events.on('comms:connection-added', (e: { session?: string }) => {
    editors.add(String(e.session));
    unwatch ??= boardFor(RED).onChange(() => changed('links'));
  });
  RED.events.on('comms:connection-removed', (e: { session?: string }) => {
    editors.delete(String(e.session));
    if (editors.size > 0 || !unwatch) return;
    unwatch();
    unwatch = undefined;
  });
  whenJournalOpens(RED, (journal) => journal.onChange(() => editors.size > 0 && changed('queues')));
  orderGapsFor(RED).onChange(() => editors.size > 0 && changed('queues'));
  onQcChange(() => editors.size > 0 && changed('qc'));
  // A deploy changes which held results can be acted on (their node, or the map that now names their code, deployed):
  // nothing in the journal changes, so without this the sidebar would keep showing Send disabled until something else did.
  RED.events.on('flows:started', () => editors.size > 0 && changed('queues'));
}
