/**
 * A node whose setting cannot work says which, where an integrator looks: a
 * red status naming the variable or setting to set, and an error Catch nodes
 * receive. Node-RED builds a flow's list of Catch nodes only after every node
 * of the flow is constructed (@node-red/runtime flows/Flow.js start), and
 * hands an error to them only with a message: an error raised while a node
 * starts waits for `flows:started` and carries a message of its own.
 */
import type { Node, NodeAPI, NodeStatus } from 'node-red';
import type { LisError } from '../../lib/errors';
import { SettingError } from '../../lib/settings';
import type { Texts } from './status';

/** The status naming what to set, for a SettingError that names it; undefined otherwise. */
export function settingStatus(t: Texts, err: unknown): NodeStatus | undefined {
  const fault = err instanceof SettingError ? err.named : undefined;
  if (fault?.setting === undefined) return undefined;
  const text = fault.variable === undefined ? t('setSetting', { setting: fault.setting }) : t('setVariable', { variable: fault.variable, setting: fault.setting });
  return { fill: 'red', shape: 'ring', text };
}

/**
 * Raises `err` to Catch nodes once the flows have started (a node being
 * constructed has no Catch node to reach yet), with msg.error = { message, code }.
 */
export function raiseWhenStarted(RED: NodeAPI, node: Node, err: LisError, msg: Record<string, unknown> = {}): void {
  const raise = (): void => node.error(err, { payload: undefined, ...msg, error: err.toMsgError() });
  RED.events.once('flows:started', raise);
  node.on('close', () => RED.events.removeListener('flows:started', raise));
}
