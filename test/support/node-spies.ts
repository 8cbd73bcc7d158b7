/**
 * What one node of a helper runtime said. The test helper spies on Node's
 * prototype, so its spies hold the calls of every node: these read the calls
 * made by one node only. And the helper's RED._ returns message keys, so
 * status texts carry no numbers: withCatalogs() gives the nodes the package's
 * en-US catalogs instead, so "1 held: resend or discard" reads as it does in
 * the editor.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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

const NODES_DIR = join(__dirname, '..', '..', 'nodes');
const PACKAGE = 'node-red-contrib-lis-bridge/';
const catalogs = new Map<string, Record<string, unknown>>();

/** RED._ over the package's en-US catalogs (namespace "node-red-contrib-lis-bridge/<node>"), with __var__ substitution. */
export function translate(key: string, vars?: Record<string, unknown>): string {
  const [ns, path] = key.includes(':') ? (key.split(':', 2) as [string, string]) : ['', key];
  if (!ns.startsWith(PACKAGE)) return key;
  const file = ns.slice(PACKAGE.length);
  let catalog = catalogs.get(file);
  if (!catalog) {
    catalog = JSON.parse(readFileSync(join(NODES_DIR, 'locales', 'en-US', `${file}.json`), 'utf8')) as Record<string, unknown>;
    catalogs.set(file, catalog);
  }
  let v: unknown = catalog;
  for (const part of path.split('.')) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[part] : undefined;
  if (typeof v !== 'string') return key;
  return vars ? v.replace(/__(\w+)__/g, (whole, name: string) => (name in vars ? String(vars[name]) : whole)) : v;
}

/** Node modules (as helper.load takes them) that see translated message catalogs through RED._. */
export function withCatalogs(modules: unknown[]): unknown[] {
  return modules.map((mod) => (RED: Record<string, unknown>) => {
    RED._ = translate;
    return (mod as (r: unknown) => unknown)(RED);
  });
}
