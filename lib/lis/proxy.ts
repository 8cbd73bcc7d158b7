/**
 * The proxy a lis-config names for LIS requests. Set on the config, never
 * taken from HTTP_PROXY/HTTPS_PROXY: those are the whole process's, and a
 * site's internet proxy would then see patient data bound for the LIS.
 */
import { LisError } from '../errors';
import { expandEnv, UnsetVariableError, type EnvLookup } from '../util/env-template';
import type { ProxySettings } from './http-exchange';

/** As lis-config holds it: the address typed (may hold ${VAR}; empty means direct) and its credentials. */
export interface ProxyConfig {
  url?: string | undefined;
  username?: string | undefined;
  password?: string | undefined;
}

const LABEL = 'Proxy URL';

/** The proxy to use, or undefined for direct requests; throws NOT_CONFIGURED naming what to change. */
export function resolveProxy(config: ProxyConfig | undefined, env: EnvLookup): ProxySettings | undefined {
  const raw = (config?.url ?? '').trim();
  if (raw === '') return undefined;
  let text: string;
  try {
    text = expandEnv(raw, env).trim();
  } catch (err) {
    if (err instanceof UnsetVariableError) {
      throw new LisError(`${LABEL} uses \${${err.variable}}, but that environment variable is not set`, { code: 'NOT_CONFIGURED' });
    }
    throw err;
  }
  if (text === '') return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new LisError(`${LABEL} is not a valid URL: ${JSON.stringify(text.replace(/\/\/[^/@]*@/, '//***@'))}; write it as http://host:port`, { code: 'NOT_CONFIGURED' });
  }
  if (url.protocol !== 'http:') {
    throw new LisError(`${LABEL} must start with http:// (the proxy is reached in plain HTTP; an https:// LIS is still encrypted end to end through it), not ${url.protocol}`, { code: 'NOT_CONFIGURED' });
  }
  if (url.username !== '' || url.password !== '') {
    // The address is in the flow file, which is exported and shared; credentials are not.
    throw new LisError(`${LABEL} holds a user name or password: remove them from the address and type them in "Proxy user" and "Proxy password"`, { code: 'NOT_CONFIGURED' });
  }
  if ((url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== '') {
    throw new LisError(`${LABEL} must be the proxy's address only (http://host:port), without a path`, { code: 'NOT_CONFIGURED' });
  }
  const username = config?.username?.trim() || undefined;
  const password = config?.password || undefined;
  return { url: url.origin, ...(username ? { username } : {}), ...(password ? { password } : {}) };
}
