/**
 * astm-link: the ASTM E1381 link layer between a serial (or TCP) node and the
 * rest of the flow.
 *
 * Input: line bytes (msg.payload Buffer or string, from serial in / tcp in),
 * a message to transmit (msg.topic "astm:send", its records CR-ended), or a
 * tcp in node's status (through a Status node: connections opening and closing).
 * Output 1: bytes to write to the line (wire to serial out / tcp out).
 * Output 2: each complete message received (msg.payload = its bytes).
 * Output 3: each message we sent, once the analyzer acknowledged it.
 * Over TCP, one link per connection (lib/link/LinkSessions).
 */
import type { Node, NodeAPI } from 'node-red';
import { astmTraceFraming, carriesResults, isLoneNak, linkMachine, messageSender, onlyQueries, readPaste } from '../lib/protocols/astm';
import { readNodeSettings } from './shared/node-settings';
import type { SettingFault } from '../lib/settings';
import { refuseMisconfigured } from './shared/lis-request-node';
import { runLinkNode, type LinkNodeDef } from './shared/link-node';
import { readAlarmSettings } from './shared/link-alarms';
import { installLabRoutes } from './shared/lab-routes';
import { metricsFor } from './shared/metrics';
import { StatusReporter } from './shared/status';
import { installTraceRoutes } from './shared/trace-routes';
import { ASTM_MESSAGE_TOPIC, ASTM_SEND_TOPIC } from './shared/types';

interface Def extends LinkNodeDef {
  framing?: 'framed' | 'unframed';
  checksums?: boolean;
  framePerRecord?: boolean;
  frameTextMax?: string | number;
  replyTimeoutMs?: string | number;
  receiveTimeoutMs?: string | number;
  busyWaitMs?: string | number;
  contentionWaitMs?: string | number;
  retryDelayMs?: string | number;
  maxMessageBytes?: string | number;
}

export = function register(RED: NodeAPI): void {
  installTraceRoutes(RED);

  function AstmLinkNode(this: Node, def: Def) {
    RED.nodes.createNode(this, def);
    const node = this;
    const status = new StatusReporter(RED, node);
    // LIS1-A's values as defaults; a bad value is refused, not replaced.
    const { values, faults } = readNodeSettings('astm-link', def as unknown as Record<string, unknown>);
    const { quietMinutes, downMinutes, alarmCheckSeconds, ...numbers } = values;
    const alarms = readAlarmSettings(RED, def, { quietMinutes, downMinutes, alarmCheckSeconds });
    const errors: Array<string | SettingFault> = [...faults, ...alarms.errors];
    if (errors.length > 0) return refuseMisconfigured(RED, node, status, errors);
    const framed = def.framing !== 'unframed';
    // A message of queries only carries no result to lose: it is neither stored nor held for the disk.
    const storedBeforeAck = (bytes: Uint8Array) => !onlyQueries(bytes);
    const options = { checksums: def.checksums !== false, framePerRecord: def.framePerRecord === true, holdFinalAck: def.journal !== false, storedBeforeAck, ...numbers };
    runLinkNode(RED, node, def, status, {
      machine: (key) => linkMachine(framed, { ...options, messageIdPrefix: `${node.id}-${key}` }),
      identify: messageSender,
      carriesResults,
      storedBeforeAck,
      traceFraming: astmTraceFraming(framed),
      messageTopic: ASTM_MESSAGE_TOPIC,
      sendTopic: ASTM_SEND_TOPIC,
      about: 'astm',
      // An unframed line has no acknowledgements.
      isNak: framed ? isLoneNak : () => false,
      readCapture(text) {
        const read = readPaste(text);
        return { messages: read.messages.map((m) => m.bytes), notes: read.notes, problems: read.problems.map((p) => p.message) };
      },
    }, alarms.settings);
  }

  metricsFor(RED);
  installLabRoutes(RED);
  RED.nodes.registerType('astm-link', AstmLinkNode as never);
};
