/**
 * lis-get-order: the order of a scanned sample (spec 4.2).
 * Output 1: the validated order. Output 2: the LIS has no order for the sample.
 */
import type { NodeAPI } from 'node-red';
import { orderRequestFrom } from '../lib/lis';
import { lisInfo, setupLisRequestNode, type LisNodeDef } from './shared/lis-request-node';

interface Def extends LisNodeDef {
  allTests?: boolean;
}

export = function register(RED: NodeAPI): void {
  function LisGetOrder(this: import('node-red').Node, def: Def) {
    RED.nodes.createNode(this, def);
    setupLisRequestNode(RED, this, def, async (msg, { client, hooks }) => {
      const { sampleNumber, allTests } = orderRequestFrom(msg.payload, def.allTests === true);
      const outcome = await client.getOrder(sampleNumber, { allTests }, hooks);
      const { info } = outcome;
      msg.lis = { status: outcome.lisStatus, sampleNumber, ...lisInfo(info) };
      if (outcome.kind === 'order') {
        msg.payload = outcome.order;
        return { send: [msg, null], elapsedMs: info.elapsedMs };
      }
      msg.payload = sampleNumber;
      return { send: [null, msg], elapsedMs: info.elapsedMs };
    }, { endpoint: 'TransactionInfoAPI' });
  }
  RED.nodes.registerType('lis-get-order', LisGetOrder);
};
