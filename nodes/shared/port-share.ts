/**
 * The serial devices a link node reads, claimed in the runtime's registry
 * (lib/link/port-claims: which link keeps a device two links read). Read once
 * the flows have started: the serial in nodes wired into the link may be built
 * after it, and their port configuration holds the device path only once
 * Node-RED has replaced its ${ANALYZER_PORT} (per tab, as the config node's own
 * property `serialport`, node-red-node-serialport 25-serial.js). Read again at
 * every start: a deploy of modified nodes may rewire a serial in or change its
 * port without restarting the link. Whether the link is refused is decided one
 * turn after the start, once every link of the runtime has claimed what it
 * reads (a link that moved away must not refuse another for an instant).
 */
import type { Node, NodeAPI, NodeStatus } from 'node-red';
import { LisError } from '../../lib/errors';
import { PortClaims, type PortClash } from '../../lib/link';
import { sharedTexts } from './status';
import type { FlowNodeDef } from './transport-watch';

const registries = new WeakMap<object, PortClaims>();

/** One per runtime (editor app, as the health board): two runtimes in one process (tests) share no serial pool. */
function claimsFor(RED: NodeAPI): PortClaims {
  const app = RED.httpAdmin as unknown as object;
  let claims = registries.get(app);
  if (!claims) {
    const made = new PortClaims();
    claims = made;
    registries.set(app, made);
    // Registered before any link's own listener (made by the first link): each start's claims are one generation.
    RED.events.on('flows:started', () => made.nextGeneration());
  }
  return claims;
}

export interface PortShare {
  /** The device this link reads and another link keeps, while it does. */
  readonly clash: PortClash | undefined;
  /** The red status naming the device and the link that keeps it, while refused. */
  status(): NodeStatus | undefined;
  /** PORT_SHARED, for a message to send refused while the line is. */
  error(): LisError | undefined;
  close(): void;
}

/**
 * `changed`: the clash began, ended or changed (never called for the same clash
 * twice); each clash that begins is raised once to Catch nodes as PORT_SHARED.
 */
export function watchPortShare(RED: NodeAPI, node: Node, changed: (clash: PortClash | undefined) => void): PortShare {
  const claims = claimsFor(RED);
  const t = sharedTexts(RED, 'link');
  const r = sharedTexts(RED, 'runtime');
  let clash: PortClash | undefined;
  // An Import copy keeps the link's name: then its id tells the two apart.
  const keeperOf = (c: PortClash): string =>
    `${(RED.nodes.getNode(c.keeper.link) as Node | null)?.type ?? 'link'} "${c.keeper.name}"${c.keeper.name === (node.name || node.id) ? ` (node ${c.keeper.link})` : ''}`;
  const error = (): LisError | undefined =>
    clash && new LisError(r('portShared', { link: node.name || node.id, port: clash.device, keeper: keeperOf(clash) }), { code: 'PORT_SHARED' });
  let pending: NodeJS.Immediate | undefined;
  const decide = (): void => {
    pending = undefined;
    const now = claims.clash(node.id);
    if (JSON.stringify(now) === JSON.stringify(clash)) return;
    clash = now;
    changed(now);
    const err = error();
    if (err) node.error(err, { payload: undefined, error: err.toMsgError() });
  };
  const later = (): void => {
    pending ??= setImmediate(decide);
  };
  const started = (): void => {
    const { order, devices } = readDevices(RED, node);
    claims.claim(node.id, node.name || node.id, order, devices);
    later();
  };
  RED.events.on('flows:started', started);
  const stop = claims.onChange(later);
  return {
    get clash() {
      return clash;
    },
    status: () => clash && { fill: 'red', shape: 'ring', text: t('portShared', { port: clash.device, keeper: keeperOf(clash) }) },
    error,
    close() {
      RED.events.removeListener('flows:started', started);
      stop();
      if (pending) clearImmediate(pending);
      claims.release(node.id);
    },
  };
}

/** Both share node-red-node-serialport's pool, which hands each byte read to every node on the device's path. */
const READERS = new Set(['serial in', 'serial request']);

/** The link's place in the flows, and the device paths of the running serial nodes wired into it. */
function readDevices(RED: NodeAPI, node: Node): { order: number; devices: Set<string> } {
  const devices = new Set<string>();
  let order = -1;
  let i = 0;
  RED.nodes.eachNode((n) => {
    const def = n as unknown as FlowNodeDef;
    if (def.id === node.id) order = i;
    i++;
    if (!READERS.has(def.type) || !def.wires?.some((w) => w.includes(node.id))) return;
    // The running node (undefined when disabled or without its port configuration): its config holds the resolved path.
    const running = RED.nodes.getNode(def.id) as unknown as { serialConfig?: { serialport?: unknown } } | null;
    const path = running?.serialConfig?.serialport;
    if (typeof path === 'string' && path !== '') devices.add(path);
  });
  return { order, devices };
}
