/**
 * settings.js's lisBridge entries for a Node-RED the tests run as its own
 * process (test/support/browser.ts's editor sessions), beside whatever else
 * they set under lisBridge (dir):
 *
 *   settings: { nodesDir: [ROOT], lisBridge: { ...TEST_BRIDGE_SETTINGS } }
 *
 * checkEveryMs runs every periodic check (held batches, link alarms, stuck
 * messages: nodes/shared/periodic.ts) every 100 ms in place of the node's
 * own interval (30 s by default, 1 s at least), so an alarm whose limit has
 * passed shows within a tenth of a second. In-process tests run the checks
 * themselves instead (runChecksNow).
 */
export const TEST_BRIDGE_SETTINGS = { checkEveryMs: 100 } as const;
