/**
 * lis-push-in: the local server the LIS pushes orders to (spec 4.6).
 * One message per accepted order; the server's life follows the node's.
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { PushServer } from '../lib/lis';
import { StatusReporter, sharedTexts } from './shared/status';
import { refuseMisconfigured } from './shared/lis-request-node';
import { readNodeSettings } from './shared/node-settings';
import { unresolvedSetting } from '../lib/settings';
import { templateVariable } from './shared/env-template';

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

/** The setting that fixes a failed listen (by the system's code), and what the status says. */
function listenFix(code: string | undefined): { prop: string; label: string; status: string; what: string } {
  if (code === 'EADDRNOTAVAIL') return { prop: 'localApiAddress', label: 'LocalAPIAddress', status: 'addressForeign', what: "one of this machine's addresses (127.0.0.1, 0.0.0.0)" };
  const status = code === 'EADDRINUSE' ? 'portInUse' : code === 'EACCES' ? 'portDenied' : 'listenFailed';
  return { prop: 'localApiPort', label: 'LocalAPIPort', status, what: 'a free port above 1024' };
}

export = function register(RED: NodeAPI): void {
  const r = sharedTexts(RED, 'runtime');
  function LisPushIn(this: Node & { credentials?: Credentials }, def: Def) {
    RED.nodes.createNode(this, def);
    const node = this;
    const t = sharedTexts(RED, 'status');
    const host = (def.localApiAddress ?? '').trim() || '127.0.0.1';
    const { values, faults: errors } = readNodeSettings('lis-push-in', def as unknown as Record<string, unknown>);
    const hostFault = unresolvedSetting('localApiAddress', host, 'the address to listen on (127.0.0.1 for this host only)');
    if (hostFault) errors.unshift(hostFault);
    const { localApiPort: port, bodyLimit, headersTimeoutMs, requestTimeoutMs } = values;
    if (errors.length > 0) return refuseMisconfigured(RED, node, new StatusReporter(RED, node), errors);

    const server = new PushServer({
      host,
      port,
      bodyLimit,
      headersTimeoutMs,
      requestTimeoutMs,
      authToken: node.credentials?.authToken,
      onOrders: (orders, meta) => {
        const receivedAt = new Date().toISOString();
        for (const order of orders) {
          node.send({ payload: order, topic: order.SampleNumber, lis: { pushed: true, requestId: meta.requestId, receivedAt } } as never);
        }
        node.status({ fill: 'green', shape: 'dot', text: t('received', { count: orders.length, port: boundPort }) });
      },
      onRejected: (status, message) => {
        node.status({ fill: 'yellow', shape: 'ring', text: t('rejected', { status }) });
        node.warn(r('pushRefused', { status, message }));
      },
    });

    let boundPort: number | string = port;
    const listening = server.listen().then(
      (p) => {
        boundPort = p;
        node.status({ fill: 'green', shape: 'dot', text: t('listening', { port: p }) });
      },
      (err: Error & { code?: string }) => {
        const fix = listenFix(err.code);
        const setting = templateVariable(node, fix.prop) ?? fix.label;
        node.status({ fill: 'red', shape: 'ring', text: t(fix.status, { port, address: host, setting }) });
        const message = r('listenFailed', { reason: err.message, setting, what: fix.what });
        // A synthetic message so Catch nodes hear of it (a one-argument error would not reach them).
        node.error(Object.assign(err, { message, code: 'LISTEN_FAILED' }), { payload: undefined, error: { message, code: 'LISTEN_FAILED' } });
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
