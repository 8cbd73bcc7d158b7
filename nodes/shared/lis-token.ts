/**
 * The Bearer Token a deployed lis-config sends, in one place: the node uses it
 * for its client, and the test-mapper's catalog route (mapping-routes.ts) for
 * the "Load LIS catalog" button, so the button reaches the LIS exactly as the
 * flow does.
 */
import type { Node, NodeAPI } from 'node-red';

export interface TokenSource {
  /** The token stored as the node's credential (typed in the lis-config dialog). */
  stored?: string | undefined;
  /** lis-config's bearerTokenEnv: the NAME of an environment variable holding the token. */
  envName?: string | undefined;
}

export interface ResolvedToken {
  token: string | undefined;
  /** The environment variable read, when the token came (or should have come) from one. */
  fromEnv: string | undefined;
}

/**
 * The stored credential wins; else the variable bearerTokenEnv names, looked
 * up as the node sees its `${...}` settings (its tab's, group's and the global
 * env, then the process environment).
 */
export function resolveBearerToken(RED: NodeAPI, node: Node, source: TokenSource): ResolvedToken {
  if (source.stored) return { token: source.stored, fromEnv: undefined };
  const name = source.envName?.trim();
  if (!name) return { token: undefined, fromEnv: undefined };
  const value: unknown = RED.util.getSetting(node, name);
  const token = typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  return { token, fromEnv: name };
}
