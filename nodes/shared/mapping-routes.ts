/**
 * Admin endpoints behind the test-mapper dialog (relative URLs under the
 * editor's root, guarded by Node-RED's permissions):
 *
 * POST lis-bridge/catalog      { config, bearerToken?, rows? } -> { tests, rows }   (lis.write)
 * POST lis-bridge/mapping/csv  { csv } -> { rows, problems }                      (lis.read)
 * POST lis-bridge/mapping/csv-export { rows } -> { csv }
 * GET  lis-bridge/editor/test-mapper-editor.js   the dialog's mapping table (nodes/editor)  (lis.read)
 *
 * The catalog call uses the lis-config as the dialog has it, deployed or not.
 * The one thing the editor cannot send is a stored Bearer Token (Node-RED never
 * gives passwords back to the browser): a token typed since the last deploy
 * comes with the request; otherwise the deployed config's token is used (the
 * stored one, else the one from the environment variable it names, as the
 * deployed node reads it), but only towards the LabTestsAPI URL it was
 * deployed with, so an edited URL can never carry the site's token elsewhere.
 * The same goes for the proxy: a config without proxyUrl (the test-mapper
 * dialog does not send it) goes through the deployed config's proxy with its
 * stored credentials; a proxy typed in the request gets those credentials only
 * when it is the deployed one, and the deployed token only then.
 */
import { join } from 'node:path';
import type { NodeAPI } from 'node-red';
import type { Request, Response } from 'express';
import { describeIssues, LisClient, parseTls, parseTuning, type ProxyConfig, resolveProxy } from '../../lib/lis';
import { LisError } from '../../lib/errors';
import { cleanRow, formatCsv, MappingSchema, mergeCatalog, parseCsv } from '../../lib/mapping';
import type { LisConfigNode } from './types';
import { answerError, installRoutesOnce } from './admin';
import { resolveBearerToken } from './lis-token';
import type { EnvLookup } from '../../lib/util';

/** Catalog look-ups from the dialog should not keep the operator waiting for the runtime's full time-out. */
const CATALOG_TIMEOUT_CAP_MS = 15000;

interface CatalogRequest {
  config?: Record<string, unknown> & { id?: string };
  bearerToken?: string;
  rows?: unknown;
}

export function registerMappingRoutes(RED: NodeAPI): void {
  installRoutesOnce(RED, 'mapping', () => installMappingRoutes(RED));
}

function installMappingRoutes(RED: NodeAPI): void {
  const admin = RED.httpAdmin as unknown as { post: (path: string, ...handlers: unknown[]) => void; get: (path: string, ...handlers: unknown[]) => void };
  const read = RED.auth.needsPermission('lis.read');
  // The catalog call reaches the LIS with the stored token: not for read-only editor users.
  const write = RED.auth.needsPermission('lis.write');
  // Built beside the compiled nodes (scripts/build.mjs copies nodes/editor).
  admin.get('/lis-bridge/editor/test-mapper-editor.js', read, (_req: Request, res: Response) => {
    res.type('application/javascript').sendFile(join(__dirname, '..', 'editor', 'test-mapper-editor.js'));
  });

  admin.post('/lis-bridge/catalog', write, (req: Request, res: Response) => {
    catalog(RED, req.body as CatalogRequest).then(
      (body) => res.json(body),
      (err: unknown) => sendError(res, err),
    );
  });

  admin.post('/lis-bridge/mapping/csv', read, (req: Request, res: Response) => {
    const csv = (req.body as { csv?: unknown }).csv;
    if (typeof csv !== 'string') return sendError(res, new LisError('csv must be the text of a CSV file', { code: 'INVALID_INPUT' }));
    res.json(parseCsv(csv));
  });

  admin.post('/lis-bridge/mapping/csv-export', read, (req: Request, res: Response) => {
    const parsed = MappingSchema.safeParse((req.body as { rows?: unknown }).rows ?? []);
    if (!parsed.success) {
      return sendError(res, new LisError('rows are not a valid mapping', { code: 'INVALID_INPUT', errors: describeIssues(parsed.error, 'rows') }));
    }
    res.json({ csv: formatCsv(parsed.data.map(cleanRow)) });
  });
}

async function catalog(RED: NodeAPI, body: CatalogRequest): Promise<{ tests: unknown[]; rows: unknown[] }> {
  const config = body.config ?? {};
  const { tuning, errors } = parseTuning(config);
  if (errors.length > 0) throw new LisError(`the LIS config is invalid: ${errors.join('; ')}`, { code: 'NOT_CONFIGURED', errors });
  const deployed = config.id ? (RED.nodes.getNode(config.id) as LisConfigNode | null) : null;
  // The deployed config node sees the global env of Node-RED's settings as well as the process's.
  const env = (name: string) => RED.util.getSetting(deployed as never, name) ?? undefined;
  const proxy = catalogProxy(RED, config, deployed, env);
  const requested = new LisClient({ ...tuning, urls: { LabTestsAPI: String(config.labTestsApiUrl ?? '') }, env, proxy });
  const url = requested.resolveUrl('LabTestsAPI');

  // A token typed (or cleared: "") in the dialog since the last deploy wins; otherwise the deployed config's.
  const bearerToken = typeof body.bearerToken === 'string' ? body.bearerToken.trim() || undefined : deployedToken(RED, config, deployed, url, requested.proxyUrl);
  const rows = MappingSchema.safeParse(body.rows ?? []);
  if (!rows.success) throw new LisError('rows are not a valid mapping', { code: 'INVALID_INPUT', errors: describeIssues(rows.error, 'rows') });
  // The dialog's HTTPS settings, as the deployed node would use them (the CA file is read for this call).
  const client = new LisClient({
    ...tuning,
    ...parseTls(config),
    timeoutMs: Math.min(tuning.timeoutMs, CATALOG_TIMEOUT_CAP_MS),
    urls: { LabTestsAPI: url },
    env,
    bearerToken,
    proxy,
  });
  let tests;
  try {
    ({ tests } = await client.getTests({}));
  } finally {
    client.close();
  }
  return { tests, rows: mergeCatalog(rows.data.map(cleanRow), tests) };
}

/**
 * The token the deployed config sends (shared/lis-token.ts: its stored
 * credential, else the environment variable its bearerTokenEnv names), and
 * only where the deployed config would send it: to the LabTestsAPI URL it was
 * deployed with, over a connection it would not have refused. The token from
 * the environment is guarded like the stored one: it is as much the site's
 * secret, and whoever may press the button could otherwise send it to an
 * address typed in the dialog. A variable named only in the dialog is never
 * read: any secret of the process could be named there.
 */
function deployedToken(RED: NodeAPI, config: CatalogRequest['config'] & object, deployed: LisConfigNode | null, url: string, proxyUrl: string | undefined): string | undefined {
  if (!config.id) return undefined;
  const stored = storedCredentials(RED, config.id)?.bearerToken;
  const envName = deployed?.bearerTokenEnv;
  if (!stored && !envName) {
    const named = typeof config.bearerTokenEnv === 'string' ? config.bearerTokenEnv.trim() : '';
    if (named) {
      throw new LisError(`the LIS config takes its Bearer Token from the environment variable ${named}, which is read for the deployed config only: deploy first, or type the token in the LIS config`, { code: 'NOT_CONFIGURED' });
    }
    return undefined;
  }
  const again = stored ? 'type the Bearer Token again in the LIS config' : 'type the Bearer Token in the LIS config';
  if (!deployed?.client) throw new LisError(`the deployed LIS config is invalid: fix and deploy it, or ${again}`, { code: 'NOT_CONFIGURED' });
  let deployedUrl: string | undefined;
  try {
    deployedUrl = deployed.client.resolveUrl('LabTestsAPI');
  } catch {
    deployedUrl = undefined;
  }
  if (deployedUrl !== url) throw new LisError(`the LabTestsAPI URL differs from the deployed one: ${again}, or deploy first`, { code: 'NOT_CONFIGURED' });
  // An http:// LIS's token is read by the proxy it passes: only the deployed config's may see it.
  if (proxyUrl !== deployed.client.proxyUrl) throw new LisError(`the Proxy URL differs from the deployed one: ${again}, or deploy first`, { code: 'NOT_CONFIGURED' });
  // Nor may the token travel over a connection the deployed config would have refused.
  if (parseTls(config).allowUntrustedCertificates && deployed.client.verifiesCertificates) {
    throw new LisError(`certificate verification is off in the dialog but on in the deployed LIS config: ${again}, or deploy first`, { code: 'NOT_CONFIGURED' });
  }
  const { token, fromEnv } = resolveBearerToken(RED, deployed, { stored, envName });
  if (token === undefined && fromEnv) {
    throw new LisError(`the LIS config takes its Bearer Token from the environment variable ${fromEnv}, which is not set where Node-RED runs: set it (for Node-RED's process, or in the global or tab environment) and restart, or type the token in the LIS config`, { code: 'NOT_CONFIGURED' });
  }
  return token;
}

interface StoredCredentials {
  bearerToken?: string;
  proxyUsername?: string;
  proxyPassword?: string;
}

function storedCredentials(RED: NodeAPI, id: string): StoredCredentials | undefined {
  return (RED.nodes as unknown as { getCredentials(id: string): StoredCredentials | undefined }).getCredentials(id);
}

/**
 * The proxy of a catalog call: the request's proxyUrl when it has one, else
 * the deployed config's; the stored proxy credentials only towards the
 * deployed config's proxy.
 */
function catalogProxy(RED: NodeAPI, config: CatalogRequest['config'] & object, deployed: LisConfigNode | null, env: EnvLookup): ProxyConfig | undefined {
  const deployedProxy = deployed?.client?.proxyUrl;
  const typed = typeof config.proxyUrl === 'string' ? config.proxyUrl : undefined;
  const url = typed ?? deployedProxy;
  if (!url) return undefined;
  let same = typed === undefined;
  if (!same && deployedProxy) {
    try {
      same = resolveProxy({ url }, env)?.url === deployedProxy;
    } catch {
      same = false; // refused again, with its reason, when the call's client is made
    }
  }
  const stored = same && config.id ? storedCredentials(RED, config.id) : undefined;
  return { url, username: stored?.proxyUsername, password: stored?.proxyPassword };
}

function sendError(res: Response, err: unknown): void {
  // 502: the LIS (not this server) failed; 400: the request or config is unusable.
  const lisSide = err instanceof LisError && ['HTTP_STATUS', 'REDIRECT', 'TIMEOUT', 'NETWORK', 'INVALID_RESPONSE'].includes(err.code);
  answerError(res, err instanceof LisError ? (lisSide ? 502 : 400) : 500, err);
}
