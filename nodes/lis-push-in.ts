/**
 * lis-push-in: the local server the LIS pushes orders to (spec 4.6).
 * One message per accepted order; the server's life follows the node's.
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { PushServer } from '../lib/lis/push-server';
import { SHARED_NS } from './shared/types';

interface Def extends NodeDef {
  localApiAddress?: string;
  localApiPort?: string | number;
  bodyLimit?: string | number;
  headersTimeoutMs?: string | number;
  requestTimeoutMs?: string | number;
}

interface Credentials {
  authToken?: string;
}

const DEFAULT_PUSH_PORT = 8181;
const DEFAULT_BODY_LIMIT = 1024 * 1024;
const DEFAULT_HEADERS_TIMEOUT_MS = 10000;
const DEFAULT_REQUEST_TIMEOUT_MS = 30000;

export = function register(RED: NodeAPI): void {
  function LisPushIn(this: Node & { credentials?: Credentials }, def: Def) {
    RED.nodes.createNode(this, def);
    const node = this;
    const t = (key: string, vars?: Record<string, string | number>) => RED._(`${SHARED_NS}:common.status.${key}`, vars);
    const host = (def.localApiAddress ?? '').trim() || '127.0.0.1';
    const port = numberOr(def.localApiPort, DEFAULT_PUSH_PORT);
    const bodyLimit = numberOr(def.bodyLimit, DEFAULT_BODY_LIMIT);
    const headersTimeoutMs = numberOr(def.headersTimeoutMs, DEFAULT_HEADERS_TIMEOUT_MS);
    const requestTimeoutMs = numberOr(def.requestTimeoutMs, DEFAULT_REQUEST_TIMEOUT_MS);

    const problem =
      port === undefined || port < 0 || port > 65535
        ? `LocalAPIPort must be a port number (0-65535), not ${JSON.stringify(def.localApiPort)}`
        : bodyLimit === undefined || bodyLimit < 1
          ? `bodyLimit must be a positive number of bytes, not ${JSON.stringify(def.bodyLimit)}`
          : headersTimeoutMs === undefined || headersTimeoutMs < 1
            ? `headersTimeoutMs must be a positive number of milliseconds, not ${JSON.stringify(def.headersTimeoutMs)}`
            : requestTimeoutMs === undefined || requestTimeoutMs < 1
              ? `requestTimeoutMs must be a positive number of milliseconds, not ${JSON.stringify(def.requestTimeoutMs)}`
              : undefined;
    if (problem !== undefined) {
      node.status({ fill: 'red', shape: 'ring', text: t('failed', { reason: 'config' }) });
      node.error(Object.assign(new Error(problem), { code: 'NOT_CONFIGURED' }), { payload: undefined, error: { message: problem, code: 'NOT_CONFIGURED' } });
      return;
    }

    const server = new PushServer({
      host,
      port: port!,
      bodyLimit: bodyLimit!,
      headersTimeoutMs: headersTimeoutMs!,
      requestTimeoutMs: requestTimeoutMs!,
      authToken: node.credentials?.authToken,
      onOrders: (orders, meta) => {
        const receivedAt = new Date().toISOString();
        for (const order of orders) {
          node.send({ payload: order, topic: order.SampleNumber, lis: { pushed: true, requestId: meta.requestId, receivedAt } } as never);
        }
        node.status({ fill: 'green', shape: 'dot', text: t('received', { n: orders.length, port: boundPort }) });
      },
      onRejected: (status, message) => {
        node.status({ fill: 'yellow', shape: 'ring', text: t('rejected', { status }) });
        node.warn(`lis-push-in answered ${status}: ${message}`);
      },
    });

    let boundPort: number | string = port!;
    const listening = server.listen().then(
      (p) => {
        boundPort = p;
        node.status({ fill: 'green', shape: 'dot', text: t('listening', { port: p }) });
      },
      (err: Error) => {
        node.status({ fill: 'red', shape: 'ring', text: t('failed', { reason: 'port' }) });
        // A synthetic message so Catch nodes hear of it (a one-argument error would not reach them).
        node.error(Object.assign(err, { code: 'LISTEN_FAILED' }), { payload: undefined, error: { message: err.message, code: 'LISTEN_FAILED' } });
      },
    );

    node.on('close', (_removed: boolean, done: () => void) => {
      listening
        .then(() => server.close())
        .then(() => {
          node.status({});
          done();
        });
    });
  }

  RED.nodes.registerType('lis-push-in', LisPushIn as never, {
    credentials: { authToken: { type: 'password' } },
  });
};

function numberOr(value: string | number | undefined, fallback: number): number | undefined {
  if (value === undefined || value === null || String(value).trim() === '') return fallback;
  const n = Number(String(value).trim());
  return Number.isInteger(n) ? n : undefined;
}
