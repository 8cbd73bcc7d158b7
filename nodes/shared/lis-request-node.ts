/**
 * The life of every node that calls the LIS: find its lis-config, run one
 * request per input message with status updates, report failures so Catch
 * nodes see them, and cancel what is in flight when the node stops.
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { LisError, messageOf } from '../../lib/errors';
import { type AttemptHooks, type CallInfo, Cutoff, type EndpointName, ENDPOINTS, type LisClient } from '../../lib/lis';
import { StatusReporter, sharedTexts } from './status';
import { replayFailed } from './replays';
import { asFault, SettingError, type SettingFault } from '../../lib/settings';
import { raiseWhenStarted } from './setting-status';
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

export interface RequestOutcome {
  /** The outputs to send (null: nothing). */
  send: Msg | Array<Msg | Msg[] | null> | null;
  /** Shown on the status as the latency of the exchange. */
  elapsedMs: number;
  /** Logged as a warning: the request succeeded but something looked odd. */
  warning?: string | undefined;
}

export interface RequestNodeOptions {
  /** When true for the configured client, messages pass on untouched and the node shows "disabled". */
  disabledWhen?: (client: LisClient) => boolean;
  /** After each message's status is shown (success or failure): lets a node add to it. */
  afterEach?: () => void;
  /** The endpoint the node calls: checked at deploy, so an unset ${VAR} in its address is named before the first message. */
  endpoint?: EndpointName;
  /**
   * On close (redeploy, stop), let requests in flight finish for up to this
   * long before cancelling them: a cancelled result request leaves an
   * uncertain batch for an operator, even when it never left.
   */
  drainOnCloseMs?: number;
}

export type RequestHandler = (msg: Msg, ctx: RequestContext) => Promise<RequestOutcome>;

export function setupLisRequestNode(
  RED: NodeAPI,
  node: Node,
  def: LisNodeDef,
  handler: RequestHandler,
  options: RequestNodeOptions = {},
): void {
  const status = new StatusReporter(RED, node);
  const config = (def.lis ? RED.nodes.getNode(def.lis) : null) as LisConfigNode | null;
  // A Cutoff, not an AbortController, per message: one is made for every host query (lib/lis/http-exchange.ts).
  const inFlight = new Set<Cutoff>();
  const working = new Set<Promise<void>>();

  startingStatus(RED, node, status, config, options);

  node.on('input', (rawMsg, rawSend, rawDone) => {
    const msg = rawMsg as Msg;
    const send = rawSend as Send;
    const done = rawDone as Done;
    if (!config) return fail(status, msg, new LisError(sharedTexts(RED, 'runtime')('noConfigSelected'), { code: 'NOT_CONFIGURED' }), done);
    if (!config.client) return fail(status, msg, configError(RED, config), done);

    if (options.disabledWhen?.(config.client)) {
      showOff(RED, node, status, config.client, options.endpoint);
      send(msg);
      return done();
    }
    const abort = new Cutoff();
    inFlight.add(abort);
    const hooks: AttemptHooks = {
      signal: abort,
      onRetry: ({ attempt, maxAttempts }) => status.retrying(attempt, maxAttempts),
    };
    let settled = false;
    const work: Promise<void> = handler(msg, { client: config.client, hooks, status })
      .then((outcome) => {
        settled = true;
        status.ok(outcome.elapsedMs);
        if (outcome.warning) node.warn(outcome.warning);
        if (outcome.send) send(outcome.send as never);
        done();
      })
      .catch((err: unknown) => {
        settled = true;
        fail(status, msg, err, done);
      })
      .finally(() => {
        inFlight.delete(abort);
        working.delete(work);
        options.afterEach?.();
      });
    working.add(work);
    // The blue ring once the request is on its way: Node's HTTP client writes it in a process.nextTick after this
    // handler returns, and microtasks run after those, so the status no longer stands between a query and the LIS.
    queueMicrotask(() => {
      if (!settled) status.waiting();
    });
  });

  node.on('close', (_removed: boolean, done: () => void) => {
    if (options.drainOnCloseMs !== undefined && working.size > 0) {
      const timer = setTimeout(() => inFlight.forEach((a) => a.abort()), options.drainOnCloseMs);
      void Promise.allSettled([...working]).then(() => {
        clearTimeout(timer);
        status.clear();
        done();
      });
      return;
    }
    for (const abort of inFlight) abort.abort();
    inFlight.clear();
    status.clear();
    done();
  });
}

/**
 * The status at deploy, and what cannot work raised to Catch nodes then
 * rather than at the first message: no lis-config, an invalid one, or an
 * endpoint address naming a variable that is not set.
 */
function startingStatus(RED: NodeAPI, node: Node, status: StatusReporter, config: LisConfigNode | null, options: RequestNodeOptions): void {
  const refuse = (err: LisError) => {
    status.failed(err);
    raiseWhenStarted(RED, node, err);
  };
  if (!config) {
    status.noConfig();
    return raiseWhenStarted(RED, node, new LisError(sharedTexts(RED, 'runtime')('noConfigSelected'), { code: 'NOT_CONFIGURED' }));
  }
  if (!config.client) return refuse(configError(RED, config));
  const { endpoint } = options;
  if (options.disabledWhen?.(config.client)) {
    const variable = showOff(RED, node, status, config.client, endpoint);
    if (variable !== undefined) node.warn(sharedTexts(RED, 'runtime')('endpointOff', { endpoint: ENDPOINTS[endpoint!].label, variable }));
    return;
  }
  if (endpoint === undefined) return;
  try {
    config.client.resolveUrl(endpoint);
  } catch (err) {
    if (err instanceof LisError) refuse(err);
  }
}

/**
 * The grey status of a node whose optional endpoint is off: `disabled` for an
 * empty address; `off: set NAME` for an address left as an unset variable,
 * named rather than silently off, at deploy and after each message passed on
 * alike. Returns that variable.
 */
function showOff(RED: NodeAPI, node: Node, status: StatusReporter, client: LisClient, endpoint: EndpointName | undefined): string | undefined {
  const variable = endpoint === undefined ? undefined : client.unsetVariable(endpoint);
  if (variable === undefined) status.disabled();
  else node.status({ fill: 'grey', shape: 'ring', text: sharedTexts(RED, 'status')('disabledUnset', { variable }) });
  return variable;
}

/** What every LIS node puts in msg.lis about the exchange. */
export function lisInfo(info: CallInfo): { httpStatus: number; attempts: number; requestIds: string[] } {
  return { httpStatus: info.status, attempts: info.attempts, requestIds: info.requestIds };
}

function configError(RED: NodeAPI, config: LisConfigNode): LisError {
  return new LisError(sharedTexts(RED, 'runtime')('configInvalid', { name: config.name || config.id, problems: config.configErrors.join('; ') }), {
    code: 'NOT_CONFIGURED',
    errors: config.configErrors,
  });
}

/**
 * A node whose settings cannot work: a red status naming what to set, one
 * NOT_CONFIGURED error naming every bad setting for Catch nodes (once the flows started), and every message it gets
 * fails with the same error instead of being half-handled.
 */
export function refuseMisconfigured(RED: NodeAPI, node: Node, status: StatusReporter, problems: ReadonlyArray<string | SettingFault>): void {
  const faults = problems.map(asFault);
  const err = new SettingError(sharedTexts(RED, 'runtime')('misconfigured', { type: node.type, problems: faults.map((f) => f.message).join('; ') }), faults);
  status.failed(err);
  raiseWhenStarted(RED, node, err);
  node.on('input', (msg, _send, done) => fail(status, msg as Msg, err, done as Done));
}

/**
 * Reports a failure the way Catch nodes can see it: msg.error set, then
 * done(err), which Node-RED turns into node.error(err, msg) and which keeps
 * the message away from Complete nodes (it did not complete). A replayed
 * message's failure also goes in its replay's report.
 */
export function fail(status: StatusReporter, msg: Msg, err: unknown, done: Done): void {
  status.failed(err);
  replayFailed(msg, status.node, err);
  if (err instanceof LisError) {
    msg.error = err.toMsgError();
    done(err);
  } else {
    const message = messageOf(err);
    msg.error = { message, code: 'INTERNAL' };
    done(Object.assign(err instanceof Error ? err : new Error(message), { code: 'INTERNAL' }));
  }
}
