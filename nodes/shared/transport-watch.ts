/**
 * The transport nodes wired to a link node (tcp in, serial in and out), watched
 * through the statuses they show in the editor: the runtime announces each on
 * its `node-status` event, so the link's health knows the line's state without
 * a Status node in the flow (lib/health/transport-status reads them). A serial
 * port that is not connected is looked up on disk: a device that is not there
 * (an unplugged USB adapter, a wrong path) is reported as port-missing.
 */
import { promises as fs } from 'node:fs';
import type { Node, NodeAPI } from 'node-red';
import { type LineSettings, transportReport, type TransportState } from '../../lib/health';

type Report = (session: string | undefined, state: TransportState, peer?: string) => void;

export interface FlowNodeDef {
  id: string;
  type: string;
  wires?: string[][];
  serial?: string;
  /** tcp in: 'server' (listens) or 'client'. */
  server?: string;
  /** tcp in / tcp out: where to connect or listen, as written in the flow (a ${NAME} not yet replaced). */
  host?: string;
  port?: string;
}

const TRANSPORTS = new Set(['tcp in', 'serial in', 'serial out', 'serial request']);


/** The transport nodes wired to the link (feeding it, or fed by its first output), as the flow defines them, by id. */
export function wiredTransports(RED: NodeAPI, node: Node, outputs: string[] | undefined): Map<string, FlowNodeDef> {
  const types = new Map<string, FlowNodeDef>();
  const out = new Set(outputs ?? []);
  RED.nodes.eachNode((n) => {
    const def = n as unknown as FlowNodeDef;
    if (!TRANSPORTS.has(def.type)) return;
    if (out.has(def.id) || def.wires?.some((w) => w.includes(node.id))) types.set(def.id, def);
  });
  return types;
}

/** Starts watching; returns the stop. */
export function watchTransport(RED: NodeAPI, node: Node, outputs: string[] | undefined, report: Report): () => void {
  const types = wiredTransports(RED, node, outputs);
  if (types.size === 0) return () => undefined;

  let checks = 0;
  /** Not connected: missing, unless the device is there. Only the latest look counts. */
  const serialClosed = (def: FlowNodeDef, state: TransportState) => {
    const path = portOf(RED, def);
    const mine = ++checks;
    if (path === undefined) return report(undefined, state);
    fs.stat(path).then(
      () => mine === checks && report(undefined, state),
      (err: NodeJS.ErrnoException) => mine === checks && report(undefined, err.code === 'ENOENT' ? 'port-missing' : state),
    );
  };
  const onStatus = (event: { id?: string; status?: unknown }) => {
    const def = event.id === undefined ? undefined : types.get(event.id);
    if (!def) return;
    const r = transportReport(def.type, event.status);
    if (!r) return;
    if (r.serialClosed) return serialClosed(def, r.state);
    checks++;
    report(r.session, r.state, r.peer);
  };
  RED.events.on('node-status', onStatus);
  // tcp in said what it does at the start before this node listened (a client "connecting"), or says nothing until
  // the first analyzer connects (a server): a server listens from the start (a port it could not bind is tcp in's own
  // error), a client is disconnected until it connects (always later: connecting is asynchronous). So a link whose
  // analyzer never connects can still be seen down.
  const tcp = [...types.values()].find((def) => def.type === 'tcp in');
  if (tcp) report(undefined, tcp.server === 'server' ? 'listening' : 'disconnected');
  // A port that could not open at start reported it before this node listened (and says nothing more).
  for (const def of types.values()) {
    const path = portOf(RED, def);
    if (path !== undefined) fs.stat(path).catch((err: NodeJS.ErrnoException) => err.code === 'ENOENT' && checks === 0 && report(undefined, 'port-missing'));
  }
  return () => RED.events.removeListener('node-status', onStatus);
}

/** The device path of a serial node's port configuration; only a file path (/dev/...) can be looked up (not COM3). */
const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const variablesIn = (...raw: Array<string | undefined>): string[] => [...new Set(raw.flatMap((r) => [...(r ?? '').matchAll(VARIABLE)].map((m) => m[1]!)))];

/**
 * Where the line of a link goes, for an operator to check when it is down: the tcp in node's address (its host and
 * port, or the port it listens on) or the serial device, as the runtime resolved them, and the environment
 * variables the flow set them from (an example's ANALYZER_HOST, ANALYZER_TCP_PORT, ANALYZER_PORT on its tab).
 */
export function lineSettings(RED: NodeAPI, node: Node, outputs: string[] | undefined): LineSettings | undefined {
  const defs = [...wiredTransports(RED, node, outputs).values()];
  const tcp = defs.find((d) => d.type === 'tcp in');
  if (tcp) {
    const live = RED.nodes.getNode(tcp.id) as unknown as { host?: unknown; port?: unknown } | null;
    const port = live?.port === undefined || live.port === null ? tcp.port : String(live.port);
    if (tcp.server === 'server') return { kind: 'tcp-server', ...(port ? { port } : {}), variables: variablesIn(tcp.port) };
    const host = typeof live?.host === 'string' ? live.host : tcp.host;
    return { kind: 'tcp-client', ...(host ? { host } : {}), ...(port ? { port } : {}), variables: variablesIn(tcp.host, tcp.port) };
  }
  const serial = defs.find((d) => d.serial !== undefined);
  if (!serial) return undefined;
  let raw: string | undefined;
  RED.nodes.eachNode((n) => {
    const c = n as unknown as { id: string; serialport?: unknown };
    if (c.id === serial.serial && typeof c.serialport === 'string') raw = c.serialport;
  });
  const device = portOf(RED, serial) ?? raw;
  return { kind: 'serial', ...(device ? { device } : {}), variables: variablesIn(raw) };
}

function portOf(RED: NodeAPI, def: FlowNodeDef): string | undefined {
  if (def.serial === undefined) return undefined;
  const config = RED.nodes.getNode(def.serial) as unknown as { serialport?: unknown } | null;
  return typeof config?.serialport === 'string' && config.serialport.startsWith('/') ? config.serialport : undefined;
}
