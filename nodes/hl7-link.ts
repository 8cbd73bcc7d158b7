/**
 * hl7-link: HL7 v2 over MLLP between Node-RED's tcp in / tcp out and the rest
 * of the flow, on the shared analyzer-link node (nodes/shared/link-node.ts)
 * with the HL7 link machine (lib/protocols/hl7/link-machine.ts).
 *
 * Input: bytes read (msg.payload from tcp in), a message to send (msg.topic
 * "hl7:send"; msg.hl7.expectAck false for one the analyzer answers with no
 * ACK), or tcp in's status through a Status node.
 * Output 1: bytes to write (to tcp out, reply to tcp).
 * Output 2: each message received, stored in the journal before its ACK.
 * Output 3: each message sent, once the analyzer acknowledged it.
 */
import type { Node, NodeAPI } from 'node-red';
import { hl7CarriesResults, hl7IsQuery, Hl7Link, hl7Sender, isNegativeAck, LINK_CHARSETS, type LinkCharset, MLLP_TRACE, readHl7Capture, RecentControlIds } from '../lib/protocols/hl7';
import { readNodeSettings } from './shared/node-settings';
import { invalidSetting, type SettingFault, unresolvedSetting } from '../lib/settings';
import { refuseMisconfigured } from './shared/lis-request-node';
import { runLinkNode, type LinkNodeDef } from './shared/link-node';
import { readAlarmSettings } from './shared/link-alarms';
import { installLabRoutes } from './shared/lab-routes';
import { StatusReporter } from './shared/status';
import { HL7_MESSAGE_TOPIC, HL7_SEND_TOPIC, type Msg } from './shared/types';

interface Def extends LinkNodeDef {
  charset?: LinkCharset;
  ackTimeoutMs?: string | number;
  sendAttempts?: string | number;
  maxFrameBytes?: string | number;
  maxSegments?: string | number;
}

/** Per node id, kept across redeploys: an analyzer's resend after a lost ACK may come after one. */
const recentByNode = new Map<string, RecentControlIds>();

export = function register(RED: NodeAPI): void {
  function Hl7LinkNode(this: Node, def: Def) {
    RED.nodes.createNode(this, def);
    const node = this;
    const status = new StatusReporter(RED, node);
    const { values, faults } = readNodeSettings('hl7-link', def as unknown as Record<string, unknown>);
    const { quietMinutes, downMinutes, alarmCheckSeconds, ...numbers } = values;
    const alarms = readAlarmSettings(RED, def, { quietMinutes, downMinutes, alarmCheckSeconds });
    const errors: Array<string | SettingFault> = [...faults, ...alarms.errors];
    const charset = def.charset ?? 'msh18';
    if (!LINK_CHARSETS.includes(charset)) errors.push(unresolvedSetting('charset', charset, `one of ${LINK_CHARSETS.join(', ')}`) ?? invalidSetting('charset', `charset must be one of ${LINK_CHARSETS.join(', ')}, not ${JSON.stringify(charset)}`));
    if (errors.length > 0) return refuseMisconfigured(RED, node, status, errors);
    let recent = recentByNode.get(node.id);
    if (!recent) recentByNode.set(node.id, (recent = new RecentControlIds()));
    const options = { ...numbers, charset, holdAck: def.journal !== false, recent };
    runLinkNode(RED, node, { ...def, transport: def.transport ?? 'tcp' }, status, {
      machine: (key) => new Hl7Link({ ...options, messageIdPrefix: `${node.id}-${key}` }),
      identify: hl7Sender,
      carriesResults: hl7CarriesResults,
      isNak: isNegativeAck,
      // As the machine holds them: everything but queries (lib/protocols/hl7/link-machine.ts).
      storedBeforeAck: (bytes) => !hl7IsQuery(bytes),
      readCapture: readHl7Capture,
      traceFraming: MLLP_TRACE,
      coalesceWrites: true,
      messageTopic: HL7_MESSAGE_TOPIC,
      sendTopic: HL7_SEND_TOPIC,
      about: 'hl7',
      sendOptions: (msg: Msg) => ((msg.hl7 as { expectAck?: unknown } | undefined)?.expectAck === false ? { expectAck: false } : undefined),
    }, alarms.settings);
  }

  // As astm-link: the Lab sidebar's routes are there even when the plugin is not (the test helper loads none).
  installLabRoutes(RED);
  RED.nodes.registerType('hl7-link', Hl7LinkNode as never);
};
