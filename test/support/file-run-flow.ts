/**
 * The flow the file-message browser tests deploy: an inject that reads an
 * instrument's export with Node-RED's file-in node (bytes), names it in
 * msg.file as folder-link would, through file-message (on the generic CSV
 * dialect, to be shaped in the dialog), test-mapper and lis-send-results to
 * the loopback LIS stand-in.
 */
import type { LisStub } from './lis-stub';
import type { NodeRedProcess } from './node-red-process';
import { sleep, waitUntil } from './wait';

export interface FileRunFlow {
  stub: LisStub;
  token: string;
  /** The tab's label and test-mapper's instrument. */
  instrument: string;
  /** The export file the inject reads, and the name msg.file gives it. */
  file: string;
  fileName: string;
  timeZone: string;
  mapping: Array<Record<string, string>>;
}

export function fileRunFlow(f: FileRunFlow): Array<Record<string, unknown>> {
  return [
    { id: 'tab1', type: 'tab', label: f.instrument },
    { id: 'cfg', type: 'lis-config', name: 'LIS', labTestsApiUrl: f.stub.url('/tests'), transactionInfoApiUrl: f.stub.url('/orders'), resultApiUrl: f.stub.url('/results'), timeout: 5000, credentials: { bearerToken: f.token } },
    { id: 'inj', type: 'inject', z: 'tab1', name: 'run file', props: [], repeat: '', once: false, x: 100, y: 80, wires: [['read']] },
    { id: 'read', type: 'file in', z: 'tab1', name: '', filename: f.file, filenameType: 'str', format: '', chunk: false, sendError: false, encoding: 'none', allProps: false, x: 260, y: 80, wires: [['name']] },
    { id: 'name', type: 'change', z: 'tab1', name: 'msg.file', rules: [{ t: 'set', p: 'file', pt: 'msg', to: JSON.stringify({ name: f.fileName }), tot: 'json' }], x: 420, y: 80, wires: [['fm']] },
    { id: 'fm', type: 'file-message', z: 'tab1', name: '', dialect: 'generic-csv', dialectOverrides: '', timeZone: f.timeZone, x: 600, y: 80, wires: [['tm'], []] },
    { id: 'tm', type: 'test-mapper', z: 'tab1', name: '', lis: 'cfg', instrument: f.instrument, direction: 'toLis', unmapped: 'warn', mapping: f.mapping, x: 780, y: 80, wires: [['send'], []] },
    { id: 'send', type: 'lis-send-results', z: 'tab1', name: '', lis: 'cfg', autoResend: false, x: 960, y: 80, wires: [[]] },
  ];
}

/**
 * After the flow is deployed: presses its inject (once the deployed node
 * answers), then the result items the LIS got, once there are `n` (or after
 * 15 s), and a moment more: one more would be a duplicate.
 */
export async function injectAndCollect(red: NodeRedProcess, stub: LisStub, n: number): Promise<Array<Record<string, unknown>>> {
  await red.inject('inj');
  const items = () => stub.to('/results').flatMap((r) => (r.json as { results: Array<Record<string, unknown>> }).results);
  await waitUntil(() => items().length >= n, 15000, `${n} results at the LIS`, 50).catch(() => undefined); // the caller's assertions say what is missing
  await sleep(300);
  return items();
}
