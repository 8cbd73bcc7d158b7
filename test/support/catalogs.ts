/**
 * RED._ over the package's own en-US message catalogs. The test helper's RED._
 * returns message keys, so texts the nodes take from their catalogs (statuses,
 * runtime warnings and errors) would read as keys in tests; with these they read
 * as they do in a real Node-RED.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const NODES_DIR = join(__dirname, '..', '..', 'nodes');
const PACKAGE = '@lis-bridge/node-red-lis-bridge/';
const catalogs = new Map<string, Record<string, unknown>>();
const ENGLISH = new Intl.PluralRules('en-US');

/**
 * RED._ over the package's en-US catalogs (namespace "@lis-bridge/node-red-lis-bridge/<node>"), with __var__
 * substitution and, as i18next does, the `key_one` / `key_other` form picked by a numeric `count`.
 */
export function translate(key: string, vars?: Record<string, unknown>): string {
  const [ns, path] = key.includes(':') ? (key.split(':', 2) as [string, string]) : ['', key];
  if (!ns.startsWith(PACKAGE)) return key;
  const file = ns.slice(PACKAGE.length);
  let catalog = catalogs.get(file);
  if (!catalog) {
    catalog = JSON.parse(readFileSync(join(NODES_DIR, 'locales', 'en-US', `${file}.json`), 'utf8')) as Record<string, unknown>;
    catalogs.set(file, catalog);
  }
  const lookUp = (dotted: string): unknown => {
    let v: unknown = catalog;
    for (const part of dotted.split('.')) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[part] : undefined;
    return v;
  };
  const count = vars?.count;
  let v = typeof count === 'number' ? lookUp(`${path}_${ENGLISH.select(count)}`) : undefined;
  if (typeof v !== 'string') v = lookUp(path);
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
