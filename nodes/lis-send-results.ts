/** lis-send-results: result items to the LIS (spec 4.3), exactly once. */
import type { NodeAPI } from 'node-red';
import { resultsFrom } from '../lib/lis/inputs';
import { lisInfo, setupLisRequestNode, type LisNodeDef } from './shared/lis-request-node';

export = function register(RED: NodeAPI): void {
  function LisSendResults(this: import('node-red').Node, def: LisNodeDef) {
    RED.nodes.createNode(this, def);
    setupLisRequestNode(RED, this, def, async (msg, { client, hooks }) => {
      const answer = await client.sendResults(resultsFrom(msg.payload), hooks);
      msg.payload = answer.body;
      msg.lis = lisInfo(answer.info);
      return { send: msg, elapsedMs: answer.info.elapsedMs, warning: answer.warning };
    });
  }
  RED.nodes.registerType('lis-send-results', LisSendResults);
};
