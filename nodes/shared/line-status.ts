/**
 * What a link node's status says of its line, so it is never green "idle"
 * while the line cannot carry anything: the transport nodes wired to it (read
 * through their statuses, transport-watch.ts) report the port or the
 * connections, their settings are checked at deploy for a `${NAME}` Node-RED
 * left unresolved, and a link set to serial refuses to be fed by tcp in
 * (TRANSPORT_MISMATCH: its writes carry no session, and tcp out would write
 * them to every connection). The link shows `status()` instead of "idle";
 * undefined when the line is up, or when no transport node is wired to it.
 */
import type { Node, NodeAPI, NodeStatus } from 'node-red';
import type { TransportState } from '../../lib/health';
import { LisError } from '../../lib/errors';
import { SettingError, type SettingFault, unresolvedSetting } from '../../lib/settings';
import { raiseWhenStarted } from './setting-status';
import { sharedTexts } from './status';
import { lineSettings, wiredTransports, type FlowNodeDef } from './transport-watch';

export interface LineStatus {
  /** The status to show instead of "idle", or undefined when the line is up (or not watched). */
  status(): NodeStatus | undefined;
  /** A report of the transport watch (transport-watch.ts): the link's port or one TCP connection. */
  report(session: string | undefined, state: TransportState): void;
  /** TCP reached a link set to serial (lib/link/link-sessions.ts refused it): red until redeployed; shows it now. */
  mismatch(): void;
  /** Set to serial and wired behind tcp in: known wrong at deploy. */
  readonly mismatched: boolean;
}

/** `refresh`: called when what status() returns changed. */
export function watchLine(RED: NodeAPI, node: Node, transport: string | undefined, outputs: string[] | undefined, refresh: () => void): LineStatus {
  const t = sharedTexts(RED, 'link');
  const s = sharedTexts(RED, 'status');
  const r = sharedTexts(RED, 'runtime');
  const wired = wiredTransports(RED, node, outputs);
  const serial = [...wired.values()].some((d) => d.type.startsWith('serial '));
  let base: TransportState = 'unknown';
  const open = new Set<string>();
  let mismatched = false;

  const faults = [...wired.values()].flatMap((def) => transportFaults(RED, node, def));
  if (faults.length > 0) {
    const err = new SettingError(r('transportUnset', { link: node.name || node.id, problems: faults.map((f) => f.message).join('; ') }), faults);
    raiseWhenStarted(RED, node, err);
  }
  // tcp in tags everything it reads with a session: behind it, a link set to serial is wrong from the start.
  if (transport === 'serial' && [...wired.values()].some((d) => d.type === 'tcp in')) mismatched = true;
  const portOf = (): string => {
    for (const def of wired.values()) {
      const path = def.serial === undefined ? undefined : (RED.nodes.getNode(def.serial) as unknown as { serialport?: unknown } | null)?.serialport;
      if (typeof path === 'string') return path;
    }
    return '?';
  };

  const status = (): NodeStatus | undefined => {
    if (wired.size === 0 && !mismatched) return undefined;
    const fault = faults.find((f) => f.variable !== undefined) ?? faults[0];
    if (fault) return { fill: 'red', shape: 'ring', text: fault.variable === undefined ? s('setSetting', { setting: fault.setting ?? '?' }) : s('setVariable', { variable: fault.variable, setting: fault.setting ?? '?' }) };
    if (mismatched) return { fill: 'red', shape: 'ring', text: t('transportMismatch') };
    if (open.size > 0 || base === 'connected') return undefined;
    // Where the line goes, and the tab's variables that set it: what to change when it is down (an example's placeholder, say).
    const line = base === 'port-missing' || base === 'disconnected' ? lineSettings(RED, node, outputs) : undefined;
    const set = line && line.variables.length > 0 ? t('setOnTab', { variables: line.variables.join(', ') }) : '';
    switch (base) {
      case 'port-missing':
        return { fill: 'red', shape: 'ring', text: set ? t('portMissingSet', { port: portOf(), set }) : t('portMissing', { port: portOf() }) };
      case 'disconnected':
        if (line?.kind === 'tcp-client') return { fill: 'red', shape: 'ring', text: t(set ? 'noAnswerSet' : 'noAnswer', { address: `${line.host ?? '?'}:${line.port ?? '?'}`, set }) };
        return { fill: 'red', shape: 'ring', text: t(serial ? 'portClosed' : 'notConnected') };
      case 'listening':
        return { fill: 'yellow', shape: 'ring', text: t('listening') };
      default:
        return { fill: 'yellow', shape: 'ring', text: t('connecting') };
    }
  };

  return {
    status,
    report(session, state) {
      const before = JSON.stringify(status());
      const wasMissing = base === 'port-missing';
      if (session === undefined) base = state;
      else if (state === 'connected') open.add(session);
      else open.delete(session);
      if (base === 'port-missing' && !wasMissing) {
        const err = new LisError(r('portMissing', { link: node.name || node.id, port: portOf() }), { code: 'PORT_MISSING' });
        node.error(err, { payload: undefined, error: err.toMsgError() });
      }
      if (JSON.stringify(status()) !== before) refresh();
    },
    mismatch() {
      // Also after each refused input, whose failure status would otherwise stay up.
      mismatched = true;
      refresh();
    },
    get mismatched() {
      return mismatched;
    },
  };
}

/**
 * The settings of a transport node that still hold an unset `${NAME}`: the
 * serial port configuration's device and speed (as its config node holds
 * them, replaced where Node-RED could), tcp in's and tcp out's host and port
 * (as written, replaced here as Node-RED does: a whole value, if set).
 */
function transportFaults(RED: NodeAPI, node: Node, def: FlowNodeDef): SettingFault[] {
  const lookup = (name: string): string | undefined => (RED.util.getSetting(node, name) as string | undefined) ?? undefined;
  const label = `${def.type} "${(def as { name?: string }).name || def.id}"`;
  const asNodeRed = (value: string | undefined) => {
    const whole = /^\$\{(\S+)\}$/.exec(value ?? '');
    const set = whole ? lookup(whole[1]!) : undefined;
    return set === undefined ? value : set;
  };
  if (def.serial !== undefined) {
    // As written: the config node reads an unresolved speed as 57600 without a word (parseInt(...) || 57600).
    let config: { serialport?: string; serialbaud?: string } | undefined;
    RED.nodes.eachNode((n) => {
      if ((n as { id?: string }).id === def.serial) config = n as typeof config;
    });
    if (!config) return [];
    const port = `the serial port configuration used by ${label}`;
    return [
      unresolvedSetting(`serial port of ${port}`, asNodeRed(config.serialport), 'the device path (e.g. /dev/ttyUSB0 or COM3)', lookup),
      unresolvedSetting(`baud rate of ${port}`, asNodeRed(String(config.serialbaud ?? '')), 'the analyzer line speed (e.g. 9600)', lookup),
    ]
      .filter((f) => f !== undefined)
      .map(short);
  }
  if (def.type !== 'tcp in') return [];
  return [
    def.server === 'server' ? undefined : unresolvedSetting(`host of ${label}`, asNodeRed(def.host), "the analyzer's address", lookup),
    unresolvedSetting(`port of ${label}`, asNodeRed(def.port), 'a TCP port number', lookup),
  ]
    .filter((f) => f !== undefined)
    .map(short);
}

/** The status names the setting in a word (the message names the node). */
function short(f: SettingFault): SettingFault {
  return { ...f, setting: f.setting?.split(' of ')[0] };
}
