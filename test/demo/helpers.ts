/** Shared by the demo LIS tests: a started DemoLis and a JSON POST. */
import type { TestContext } from 'node:test';
import { DemoLis, type DemoLisOptions } from '../../demo/demo-lis';

/** A fixed clock, so generated orders (TransactionDate, Age) compare equal. */
export const FIXED_NOW = new Date(2026, 10, 21, 9, 30, 15);

/** Starts a demo LIS on a free loopback port; it is stopped when test `t` ends. */
export async function startDemo(t: TestContext, options: DemoLisOptions = {}, pathPrefix?: string): Promise<DemoLis & { lines: string[] }> {
  const lines: string[] = [];
  const lis = Object.assign(new DemoLis({ now: () => FIXED_NOW, log: (l) => lines.push(l), ...options }), { lines });
  await lis.start({ host: '127.0.0.1', port: 0, ...(pathPrefix === undefined ? {} : { pathPrefix }) });
  t.after(() => lis.stop());
  return lis;
}

export interface JsonAnswer {
  status: number;
  headers: Headers;
  json: Record<string, unknown>;
}

/** POSTs `body` as JSON (a string is sent as it is) and reads the JSON answer. */
export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<JsonAnswer> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

/** Narrows a JSON value to an object for property access in assertions. */
export function obj(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`not an object: ${JSON.stringify(value)}`);
  return value as Record<string, unknown>;
}
