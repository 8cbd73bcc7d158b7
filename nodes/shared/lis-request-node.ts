/**
 * The life of every node that calls the LIS: find its lis-config, run one
 * request per input message with status updates, report failures so Catch
 * nodes see them, and cancel what is in flight when the node stops.
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { LisError } from '../../lib/lis/errors';
import type { CallInfo, LisClient } from '../../lib/lis/client';
import type { AttemptHooks } from '../../lib/lis/retry';
import { StatusReporter } from './status';
import type { Done, LisConfigNode, Msg, Send } from './types';

export interface LisNodeDef extends NodeDef {
  /** id of the lis-config node. */
  lis?: string;
}

export interface RequestContext {
  client: LisClient;
  hooks: AttemptHooks;
  status: StatusReporter;
}

export type RequestOutcome =
  /** Send these outputs and show success with this latency. */
  | { send: Msg | Array<Msg | null>; elapsedMs: number; warning?: string | undefined }
  /** Send the message on untouched and show the node as disabled. */
  | { passThrough: Msg };

export type RequestHandler = (msg: Msg, ctx: RequestContext) => Promise<RequestOutcome>;

export function setupLisRequestNode(
  RED: NodeAPI,
  node: Node,
  def: LisNodeDef,
  handler: RequestHandler,
  onReady?: (client: LisClient, status: StatusReporter) => void,
): void {
  const status = new StatusReporter(RED, node);
  const config = (def.lis ? RED.nodes.getNode(def.lis) : null) as LisConfigNode | null;
  const inFlight = new Set<AbortController>();

  if (!config) status.noConfig();
  else if (!config.client) status.failed(configError(config));
  else onReady?.(config.client, status);

  node.on('input', (rawMsg, rawSend, rawDone) => {
    const msg = rawMsg as Msg;
    const send = rawSend as Send;
    const done = rawDone as Done;
    if (!config) return fail(node, status, msg, new LisError('no lis-config selected: open the node and choose one', { code: 'NOT_CONFIGURED' }), done);
    if (!config.client) return fail(node, status, msg, configError(config), done);

    const abort = new AbortController();
    inFlight.add(abort);
    const hooks: AttemptHooks = {
      signal: abort.signal,
      onRetry: ({ attempt, maxAttempts }) => status.retrying(attempt, maxAttempts),
    };
    status.waiting();
    handler(msg, { client: config.client, hooks, status })
      .then((outcome) => {
        if ('passThrough' in outcome) {
          status.disabled();
          send(outcome.passThrough);
        } else {
          status.ok(outcome.elapsedMs);
          if (outcome.warning) node.warn(outcome.warning);
          send(outcome.send);
        }
        done();
      })
      .catch((err: unknown) => fail(node, status, msg, err, done))
      .finally(() => inFlight.delete(abort));
  });

  node.on('close', (_removed: boolean, done: () => void) => {
    for (const abort of inFlight) abort.abort();
    inFlight.clear();
    status.clear();
    done();
  });
}

/** What every LIS node puts in msg.lis about the exchange. */
export function lisInfo(info: CallInfo): { httpStatus: number; attempts: number; requestIds: string[] } {
  return { httpStatus: info.status, attempts: info.attempts, requestIds: info.requestIds };
}

function configError(config: LisConfigNode): LisError {
  return new LisError(`lis-config "${config.name || config.id}" is invalid: ${config.configErrors.join('; ')}`, {
    code: 'NOT_CONFIGURED',
    errors: config.configErrors,
  });
}

/**
 * Reports a failure the way Catch nodes can see it: msg.error set, node.error(err, msg),
 * then done() (not done(err) as well, which would report it twice).
 */
export function fail(node: Node, status: StatusReporter, msg: Msg, err: unknown, done: Done): void {
  if (err instanceof LisError) {
    msg.error = err.toMsgError();
    status.failed(err);
    node.error(err, msg);
  } else {
    const message = err instanceof Error ? err.message : String(err);
    msg.error = { message, code: 'INTERNAL' };
    status.failed(err);
    node.error(err instanceof Error ? err : new Error(message), msg);
  }
  done();
}
