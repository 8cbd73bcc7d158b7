/**
 * hl7-message: HL7 v2 messages <-> lab events, in an analyzer's dialect
 * (lib/protocols/hl7/host.ts, with the host conversation of lib/conversation; the
 * Node-RED side is nodes/shared/message-node.ts, shared with astm-message).
 *
 * Inputs: msg.topic "hl7:message" with the bytes of a message (from
 * hl7-link); a LIS order after test-mapper; a sample number with no order.
 * Outputs: 1 queries, 2 patient results, 3 messages for the analyzer
 * ("hl7:send", to hl7-link), 4 QC, unassigned, encapsulated data and other messages.
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { Hl7Host, hl7HostProfile } from '../lib/protocols/hl7';
import { installDialectRoutes } from './shared/dialect-routes';
import { messageNodeProfile, qcNodeOf, runMessageNode } from './shared/message-node';
import { StatusReporter } from './shared/status';
import { HL7_MESSAGE_TOPIC, HL7_SEND_TOPIC, type Msg } from './shared/types';

interface Def extends NodeDef {
  dialect?: string;
  /** JSON of what this site changes of the dialect (lib/protocols/hl7/dialects/overrides.ts); stored with the flow. */
  dialectOverrides?: string;
  timeZone?: string;
  /** The analyzer's lis-qc node, when its QC is kept in the bridge. */
  qc?: string;
}

export = function register(RED: NodeAPI): void {
  installDialectRoutes(RED);

  function Hl7MessageNode(this: Node, def: Def) {
    RED.nodes.createNode(this, def);
    const node = this;
    const status = new StatusReporter(RED, node);
    const site = messageNodeProfile(RED, node, status, def, 'generic-oru', hl7HostProfile);
    if (site === undefined) return;
    runMessageNode(RED, node, status, new Hl7Host<Msg>(site.profile, site.timeZone), { message: HL7_MESSAGE_TOPIC, send: HL7_SEND_TOPIC, about: 'hl7', qc: qcNodeOf(RED, def.qc) });
  }

  RED.nodes.registerType('hl7-message', Hl7MessageNode as never);
};
