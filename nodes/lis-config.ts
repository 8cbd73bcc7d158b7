/** lis-config: where the LIS is and how to talk to it. Shared by every LIS node. */
import type { NodeAPI, NodeDef } from 'node-red';
import { LisClient, parseTls, parseTuning } from '../lib/lis';
import { LisError } from '../lib/errors';
import { metricsFor } from './shared/metrics';
import { resolveBearerToken } from './shared/lis-token';
import { unresolvedSetting } from '../lib/settings';
import type { LisConfigNode } from './shared/types';

interface LisConfigDef extends NodeDef {
  labTestsApiUrl?: string;
  transactionInfoApiUrl?: string;
  resultApiUrl?: string;
  orderCompletedApiUrl?: string;
  timeout?: string | number;
  orderAttempts?: string | number;
  orderBackoffMs?: string | number;
  transientRetries?: string | number;
  transientBackoffMs?: string | number;
  maxResponseBytes?: string | number;
  /** Name of an environment variable holding the token, for flows shared between sites (never the token itself). */
  bearerTokenEnv?: string;
  /** PEM file of the certificate authority of the LIS's HTTPS certificate, added to Node's default ones. */
  caFile?: string;
  /** Explicit opt-out of certificate verification; warned about at start. */
  allowUntrustedCertificates?: boolean | string;
  /** http://host:port of the proxy LIS requests go through; empty: straight to the LIS (the environment's proxies are never used). */
  proxyUrl?: string;
}

interface LisConfigCredentials {
  bearerToken?: string;
  proxyUsername?: string;
  proxyPassword?: string;
}

export = function register(RED: NodeAPI): void {
  function LisConfig(this: LisConfigNode & { credentials?: LisConfigCredentials }, def: LisConfigDef) {
    RED.nodes.createNode(this, def);
    const raw = def as unknown as Record<string, unknown>;
    const { tuning, errors } = parseTuning(raw);
    const tlsSettings = parseTls(raw);
    const self = this as { client: LisClient | undefined; configErrors: string[]; bearerTokenEnv: string | undefined };
    const caFault = unresolvedSetting('caFile', def.caFile, "the path of the LIS's certificate authority (PEM)");
    if (caFault) errors.push(caFault.message);
    self.configErrors = errors;
    self.bearerTokenEnv = def.bearerTokenEnv?.trim() || undefined;
    self.client = undefined;
    const { token, fromEnv } = resolveBearerToken(RED, this, { stored: this.credentials?.bearerToken, envName: self.bearerTokenEnv });
    // A LIS may take requests without a token: a warning naming the variable, and the LIS's 401 says the rest.
    if (fromEnv && token === undefined) this.warn(`"Bearer Token from env var" names ${fromEnv}, which is not set: requests go without a token. Set ${fromEnv}.`);
    if (errors.length === 0) {
      try {
        // Reads the CA file, once, now, and resolves the proxy's address.
        self.client = new LisClient({
          ...tuning,
          ...tlsSettings,
          urls: {
            LabTestsAPI: def.labTestsApiUrl,
            TransactionInfoAPI: def.transactionInfoApiUrl,
            ResultAPI: def.resultApiUrl,
            OrderCompletedAPI: def.orderCompletedApiUrl,
          },
          // Flow, group and global env as well as the process environment.
          env: (name) => RED.util.getSetting(this, name) ?? undefined,
          bearerToken: token,
          proxy: { url: def.proxyUrl, username: this.credentials?.proxyUsername, password: this.credentials?.proxyPassword },
          observer: metricsFor(RED).lis,
        });
      } catch (err) {
        if (!(err instanceof LisError)) throw err;
        errors.push(err.message);
      }
    }
    const label = `lis-config "${def.name || def.id}"`;
    if (errors.length > 0) this.error(`${label} is invalid: ${errors.join('; ')}`);
    const withCredentials = literalUrlsWithCredentials(def);
    if (withCredentials.length > 0) {
      this.warn(
        `${label}: ${withCredentials.join(', ')} carries a user name or password, which is stored in the flow and exported with it; the LIS is sent the Bearer Token, never these. Remove the user:password@ part.`,
      );
    }
    if (tlsSettings.allowUntrustedCertificates) {
      this.warn(
        `${label}: HTTPS certificate verification is OFF (allowUntrustedCertificates): anyone between Node-RED and the LIS can read and change ` +
          `patient data and the Bearer Token. Set "CA file" to the LIS's certificate authority and clear this option.${usersOf(RED, def.id)}`,
      );
    }
    this.on('close', () => self.client?.close());
  }

  metricsFor(RED);
  RED.nodes.registerType('lis-config', LisConfig as never, {
    credentials: { bearerToken: { type: 'password' }, proxyUsername: { type: 'text' }, proxyPassword: { type: 'password' } },
  });
};

/** " Used by: lis-get-order "x", ..." for the warning, when the flows can be listed. */
function usersOf(RED: NodeAPI, id: string): string {
  const users: string[] = [];
  try {
    RED.nodes.eachNode((n) => {
      const node = n as unknown as { lis?: string; type: string; name?: string; id: string };
      if (node.lis === id) users.push(`${node.type} "${node.name || node.id}"`);
    });
  } catch {
    return '';
  }
  return users.length > 0 ? ` Used by: ${users.join(', ')}.` : '';
}

/** The LIS addresses written into the flow itself (not read from ${VAR}) with user:password@ in them. */
function literalUrlsWithCredentials(def: LisConfigDef): string[] {
  const fields = ['labTestsApiUrl', 'transactionInfoApiUrl', 'resultApiUrl', 'orderCompletedApiUrl'] as const;
  return fields.filter((f) => /^\s*[a-z][a-z0-9+.-]*:\/\/[^/?#\s]*@/i.test(def[f] ?? ''));
}
