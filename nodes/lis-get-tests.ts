/** lis-get-tests: the LIS test catalog (spec 4.1), for mapping. */
import type { NodeAPI } from 'node-red';
import { testsFilterFrom } from '../lib/lis';
import { lisInfo, setupLisRequestNode, type LisNodeDef } from './shared/lis-request-node';

interface Def extends LisNodeDef {
  filterName?: string;
  filterCode?: string;
}

export = function register(RED: NodeAPI): void {
  function LisGetTests(this: import('node-red').Node, def: Def) {
    RED.nodes.createNode(this, def);
    const defaults = { Name: def.filterName ?? '', Code: def.filterCode ?? '' };
    setupLisRequestNode(RED, this, def, async (msg, { client, hooks }) => {
      const filter = testsFilterFrom(msg.payload, defaults);
      const { tests, info } = await client.getTests(filter, hooks);
      msg.payload = tests;
      msg.lis = lisInfo(info);
      return { send: msg, elapsedMs: info.elapsedMs };
    }, { endpoint: 'LabTestsAPI' });
  }
  RED.nodes.registerType('lis-get-tests', LisGetTests);
};
