/**
 * The demo LIS's addresses: default host and endpoint paths, and the checks
 * that refuse a setting which would make a route unreachable or ambiguous.
 */
import { ENDPOINT_KINDS, type EndpointKind } from './journal';

export type EndpointPaths = Record<EndpointKind, string>;

export const DEFAULT_PATHS: Readonly<EndpointPaths> = {
  tests: '/api/tests',
  orders: '/api/orders',
  results: '/api/results',
  processed: '/api/processed',
};

/** Loopback: the demo is for this machine unless someone asks otherwise. */
export const DEFAULT_HOST = '127.0.0.1';

/** The demo's own routes; endpoint paths may not take them. */
export const OWN_ROUTES: readonly string[] = ['/', '/panels', '/app.js', '/app.css', '/favicon.ico', '/events', '/api/state', '/push'];

const PATH_CHARS = /^\/[A-Za-z0-9._~\-/]*$/;

export function normalisePrefix(prefix: string): string {
  const trimmed = prefix.trim().replace(/\/+$/, '');
  if (trimmed !== '' && !PATH_CHARS.test(trimmed)) {
    throw new Error(`pathPrefix must start with / and hold only URL path characters, not ${JSON.stringify(prefix)}`);
  }
  return trimmed;
}

export function checkPaths(paths: EndpointPaths): void {
  const seen = new Set<string>();
  for (const kind of ENDPOINT_KINDS) {
    const path = paths[kind];
    if (!PATH_CHARS.test(path)) throw new Error(`paths.${kind} must start with / and hold only URL path characters, not ${JSON.stringify(path)}`);
    if (OWN_ROUTES.includes(path)) throw new Error(`paths.${kind} ${path} is taken by the demo LIS's own page or API`);
    if (seen.has(path)) throw new Error(`paths.${kind} ${path} is used by another endpoint`);
    seen.add(path);
  }
}

export function checkHttpUrl(value: string, name: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${name} is not a URL: ${value}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${name} must be an http(s) URL, not ${value}`);
}

/** Host as written in a URL; a wildcard address is reached through loopback. */
export function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}
