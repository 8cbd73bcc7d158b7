/** lis-config: where the LIS is and how to talk to it. Shared by every LIS node. */
import type { NodeAPI, NodeDef } from 'node-red';
import { LisClient } from '../lib/lis/client';
import { parseTuning } from '../lib/lis/tuning';
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
}

interface LisConfigCredentials {
  bearerToken?: string;
}

export = function register(RED: NodeAPI): void {
  function LisConfig(this: LisConfigNode & { credentials?: LisConfigCredentials }, def: LisConfigDef) {
    RED.nodes.createNode(this, def);
    const { tuning, errors } = parseTuning(def as unknown as Record<string, unknown>);
    const self = this as { client: LisClient | undefined; configErrors: string[] };
    self.configErrors = errors;
    self.client =
      errors.length > 0
        ? undefined
        : new LisClient({
            ...tuning,
            urls: {
              LabTestsAPI: def.labTestsApiUrl,
              TransactionInfoAPI: def.transactionInfoApiUrl,
              ResultAPI: def.resultApiUrl,
              OrderCompletedAPI: def.orderCompletedApiUrl,
            },
            // Flow, group and global env as well as the process environment.
            env: (name) => RED.util.getSetting(this, name) ?? undefined,
            bearerToken: this.credentials?.bearerToken || (def.bearerTokenEnv ? RED.util.getSetting(this, def.bearerTokenEnv.trim()) : undefined),
          });
    if (errors.length > 0) this.error(`lis-config "${def.name || def.id}" is invalid: ${errors.join('; ')}`);
  }

  RED.nodes.registerType('lis-config', LisConfig as never, {
    credentials: { bearerToken: { type: 'password' } },
  });
};
