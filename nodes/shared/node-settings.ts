/**
 * Every numeric setting of every node, once (lib/settings/node-settings.ts
 * holds the LIS nodes' and the alarms'; the analyzer links' come from their
 * protocols' defaults here, where the nodes meet the protocols). The runtime
 * reads a node's properties with these rules, and the build
 * (scripts/build.mjs) writes the same defaults, ranges and placeholders into
 * the editor dialogs.
 */
import { DEFAULT_OPTIONS } from '../../lib/protocols/astm';
import { DEFAULT_HL7_LINK } from '../../lib/protocols/hl7';
import { FOLDER_DEFAULTS } from '../../lib/protocols/file';
import { ALARM_SETTINGS, LIS_NODE_SETTINGS, type NumericSetting, readSettings, type SettingFault } from '../../lib/settings';

export { ALARM_SETTINGS, type NumericSetting };

/**
 * The largest "Largest message (bytes)" a link accepts, 256 MiB: the journal
 * stores a message as base64 in one JSON line, 342 MiB of text for 256 MiB,
 * and V8 makes no string over 512 MiB (buffer.constants.MAX_STRING_LENGTH):
 * a larger limit would let a message through that could never be stored. A
 * value like 1e20 would otherwise mean no limit at all.
 */
export const MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

export const NODE_SETTINGS = {
  ...LIS_NODE_SETTINGS,
  'astm-link': {
    // LIS1-A's values (lib/protocols/astm/link/options.ts).
    frameTextMax: { min: 1, default: DEFAULT_OPTIONS.frameTextMax },
    replyTimeoutMs: { min: 1, default: DEFAULT_OPTIONS.replyTimeoutMs },
    receiveTimeoutMs: { min: 1, default: DEFAULT_OPTIONS.receiveTimeoutMs },
    busyWaitMs: { min: 0, default: DEFAULT_OPTIONS.busyWaitMs },
    contentionWaitMs: { min: 1, default: DEFAULT_OPTIONS.contentionWaitMs },
    retryDelayMs: { min: 0, default: DEFAULT_OPTIONS.retryDelayMs },
    // No standard bounds a message; 8 MiB as for HL7, far above any capture. At most MAX_MESSAGE_BYTES.
    maxMessageBytes: { min: 1024, max: MAX_MESSAGE_BYTES, default: DEFAULT_OPTIONS.maxMessageBytes },
    ...ALARM_SETTINGS,
  },
  'hl7-link': {
    // No standard gives these (lib/protocols/hl7/link-machine.ts); a frame limit of 8 MiB holds the largest capture.
    ackTimeoutMs: { min: 1, default: DEFAULT_HL7_LINK.ackTimeoutMs },
    sendAttempts: { min: 1, max: 100, default: DEFAULT_HL7_LINK.sendAttempts },
    maxFrameBytes: { min: 1024, max: MAX_MESSAGE_BYTES, default: DEFAULT_HL7_LINK.maxFrameBytes },
    maxSegments: { min: 10, default: DEFAULT_HL7_LINK.maxSegments },
    ...ALARM_SETTINGS,
  },
  'folder-link': {
    // Polled, not watched: a network share delivers no reliable change events (lib/protocols/file/folder/watcher.ts).
    pollMs: { min: 100, default: FOLDER_DEFAULTS.pollMs },
    settleMs: { min: 0, default: FOLDER_DEFAULTS.settleMs },
    maxSizeMB: { min: 1, default: FOLDER_DEFAULTS.maxBytes / (1024 * 1024) },
    ...ALARM_SETTINGS,
  },
} as const satisfies Record<string, Record<string, NumericSetting>>;

export type SettingsNode = keyof typeof NODE_SETTINGS;

/** A node's numeric settings as stored in the flow (readSettings). */
export function readNodeSettings<T extends SettingsNode>(type: T, raw: Record<string, unknown>): { values: Record<keyof (typeof NODE_SETTINGS)[T], number>; errors: string[]; faults: SettingFault[] } {
  return readSettings(NODE_SETTINGS[type] as Record<string, NumericSetting>, raw) as { values: Record<keyof (typeof NODE_SETTINGS)[T], number>; errors: string[]; faults: SettingFault[] };
}
