/**
 * folder-link: the folder a file-exporting instrument (PCR cycler, plate
 * reader, ICP) writes its result files into, polled (network shares deliver
 * no reliable change events) and each complete file taken exactly once.
 *
 * No input. Output: each new file, stored in the result journal first:
 * msg.payload its bytes (Buffer), msg.topic "file:message", msg.file
 * { link, journalId, name, path, size, mtime, hash, analyzer, receivedAt, replay }.
 * Wire it to file-message. Once the file's results are delivered, it moves to
 * done/ (or stays, remembered); a file that cannot be taken goes to error/
 * with <name>.reason.txt. The folder watching is lib/protocols/file/folder.
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { AFTER_CHOICES, type AfterDelivery, globProblem } from '../lib/protocols/file';
import { invalidSetting, type SettingFault, unresolvedSetting } from '../lib/settings';
import { readNodeSettings } from './shared/node-settings';
import { refuseMisconfigured } from './shared/lis-request-node';
import { readAlarmSettings, type LinkAlarmDef } from './shared/link-alarms';
import { installLabRoutes } from './shared/lab-routes';
import { metricsFor } from './shared/metrics';
import { bridgeSettings } from './shared/journal';
import { runFolderLink } from './shared/folder-watch';
import { StatusReporter } from './shared/status';

interface Def extends NodeDef, LinkAlarmDef {
  folder?: string;
  pattern?: string;
  marker?: string;
  after?: string;
  analyzer?: string;
  pollMs?: string | number;
  settleMs?: string | number;
  maxSizeMB?: string | number;
}

/** The text settings that cannot work, each naming what to set. */
function textFaults(def: Def): SettingFault[] {
  const out: Array<SettingFault | undefined> = [];
  const folder = (def.folder ?? '').trim();
  out.push(unresolvedSetting('folder', folder, 'the folder the instrument exports into'));
  if (folder === '') out.push(invalidSetting('folder', 'folder is empty: set Folder to the folder the instrument writes its result files into (a local path or a mounted share)'));
  out.push(unresolvedSetting('pattern', def.pattern, 'a file name pattern such as *.csv'));
  const glob = globProblem(def.pattern ?? '');
  if (glob !== undefined) out.push(invalidSetting('pattern', glob));
  const marker = def.marker ?? '';
  if (/[\\/]/.test(marker)) out.push(invalidSetting('marker', `marker ${JSON.stringify(marker)} names a folder: write the marker's suffix only, such as .done or .ok`));
  if (def.after !== undefined && def.after !== '' && !AFTER_CHOICES.includes(def.after as AfterDelivery)) out.push(invalidSetting('after', `after must be one of ${AFTER_CHOICES.join(', ')}, not ${JSON.stringify(def.after)}`));
  return out.filter((f) => f !== undefined);
}

export = function register(RED: NodeAPI): void {
  function FolderLinkNode(this: Node, def: Def) {
    RED.nodes.createNode(this, def);
    const node = this;
    const status = new StatusReporter(RED, node);
    const { values, faults } = readNodeSettings('folder-link', def as unknown as Record<string, unknown>);
    const { quietMinutes, downMinutes, alarmCheckSeconds, pollMs, settleMs, maxSizeMB } = values;
    const alarms = readAlarmSettings(RED, def, { quietMinutes, downMinutes, alarmCheckSeconds });
    const errors: Array<string | SettingFault> = [...textFaults(def), ...faults, ...alarms.errors];
    if (errors.length > 0) return refuseMisconfigured(RED, node, status, errors);
    // "keep" remembers a file by its content in the journal, which forgets after its retention.
    const rememberMs = bridgeSettings(RED).retentionDays * 24 * 60 * 60_000;
    const options = {
      folder: def.folder!.trim(),
      pattern: def.pattern ?? '',
      marker: def.marker ?? '',
      after: (def.after === 'keep' ? 'keep' : 'move') as AfterDelivery,
      pollMs,
      settleMs,
      maxBytes: Math.round(maxSizeMB * 1024 * 1024),
      rememberMs,
    };
    runFolderLink(RED, node, status, options, (def.analyzer ?? '').trim(), alarms.settings);
  }

  metricsFor(RED);
  // As the other links: the Lab sidebar's routes are there even when the plugin is not (the test helper loads none).
  installLabRoutes(RED);
  RED.nodes.registerType('folder-link', FolderLinkNode as never);
};
