/**
 * astm-message: E1394 / LIS2-A2 messages <-> lab events, in an analyzer's dialect
 * (lib/protocols/astm/host.ts, with the host conversation of lib/conversation; the
 * Node-RED side is nodes/shared/message-node.ts).
 *
 * Inputs (told apart by shape, see the help):
 * - msg.topic "astm:message" with the bytes of a message (from astm-link);
 * - a LIS order after test-mapper (msg.payload with instrumentTests): download it;
 * - a sample number string (lis-get-order's "no order" output): answer "no information".
 * Outputs: 1 queries (one per sample), 2 patient results, 3 messages for the
 * analyzer (wire to astm-link), 4 QC, unassigned results and other messages.
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { AstmHost, hostProfile } from '../lib/protocols/astm';
import { installDialectRoutes } from './shared/dialect-routes';
import { messageNodeProfile, qcNodeOf, runMessageNode } from './shared/message-node';
import { StatusReporter } from './shared/status';
import { ASTM_MESSAGE_TOPIC, ASTM_SEND_TOPIC, type Msg } from './shared/types';

interface Def extends NodeDef {
  dialect?: string;
  /** JSON of what this site changes of the dialect (lib/protocols/astm/dialects/overrides.ts); stored with the flow. */
  dialectOverrides?: string;
  timeZone?: string;
  /** The analyzer's lis-qc node, when its QC is kept in the bridge. */
  qc?: string;
}

export = function register(RED: NodeAPI): void {
  installDialectRoutes(RED);

  function AstmMessageNode(this: Node, def: Def) {
    RED.nodes.createNode(this, def);
    const node = this;
    const status = new StatusReporter(RED, node);
    const site = messageNodeProfile(RED, node, status, def, 'generic-lis2a2', hostProfile);
    if (site === undefined) return;
    runMessageNode(RED, node, status, new AstmHost<Msg>(site.profile, site.timeZone), { message: ASTM_MESSAGE_TOPIC, send: ASTM_SEND_TOPIC, about: 'astm', qc: qcNodeOf(RED, def.qc) });
  }

  RED.nodes.registerType('astm-message', AstmMessageNode as never);
};
