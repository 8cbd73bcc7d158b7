/**
 * lis-mark-processed: tell the LIS an order was processed (spec 4.4). Optional:
 * with no OrderCompletedAPI URL the node passes messages on untouched.
 */
import type { NodeAPI } from 'node-red';
import { lisInfo, setupLisRequestNode, type LisNodeDef } from './shared/lis-request-node';

export = function register(RED: NodeAPI): void {
  function LisMarkProcessed(this: import('node-red').Node, def: LisNodeDef) {
    RED.nodes.createNode(this, def);
    setupLisRequestNode(
      RED,
      this,
      def,
      async (msg, { client, hooks }) => {
        const answer = await client.markProcessed(msg.payload, hooks);
        msg.payload = answer.body;
        msg.lis = lisInfo(answer.info);
        return { send: msg, elapsedMs: answer.info.elapsedMs, warning: answer.warning };
      },
      { disabledWhen: (client) => !client.isConfigured('OrderCompletedAPI'), endpoint: 'OrderCompletedAPI' },
    );
  }
  RED.nodes.registerType('lis-mark-processed', LisMarkProcessed);
};
