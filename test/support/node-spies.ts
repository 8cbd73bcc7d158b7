/**
 * What one node of a helper runtime said. The test helper spies on Node's
 * prototype, so its spies hold the calls of every node: these read the calls
 * made by one node only. And the helper's RED._ returns message keys, so
 * status texts carry no numbers: withCatalogs() gives the nodes the package's
 * en-US catalogs instead, so "1 held: resend or discard" reads as it does in
 * the editor.
 */
import { helper } from './red';

interface SpyCall {
  thisValue: unknown;
  args: unknown[];
}

function callsOf(id: string, method: 'status' | 'warn' | 'error' | 'send'): unknown[][] {
  const node = helper.getNode(id) as unknown as Record<string, { getCalls(): SpyCall[] }>;
  return node[method]!.getCalls()
    .filter((c) => c.thisValue === node)
    .map((c) => c.args);
}

export type Status = { fill?: string; shape?: string; text?: string };

/** Every status node `id` showed, oldest first. */
export function statusesOf(id: string): Status[] {
  return callsOf(id, 'status').map((a) => a[0] as Status);
}

export function statusOf(id: string): Status | undefined {
  return statusesOf(id).at(-1);
}

/** The texts of node.warn calls made by node `id`. */
export function warningsOf(id: string): string[] {
  return callsOf(id, 'warn').map((a) => String(a[0]));
}

export { translate, withCatalogs } from './catalogs';
