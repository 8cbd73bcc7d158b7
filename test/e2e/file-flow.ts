/**
 * The flow of a file-exporting instrument, as an integrator wires it, for the
 * end-to-end and crash tests: folder-link (a temporary folder) -> file-message
 * (the QuantStudio dialect) -> test-mapper -> lis-send-results to the loopback
 * LIS; a Catch node posts each error to the LIS stand-in's /caught, where the
 * test reads it. The instrument's files are the real QuantStudio 7 Flex export
 * (test/fixtures/file) with its sample numbers made unique per file.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromTemplate } from '../../lib/sim';
import type { FlowNode } from './harness';

export const FILE_TOKEN = 'file-e2e-bearer-2b7c19d4';
const ROOT = join(__dirname, '..', '..', '..');
/** The real export: 6 patient samples of 3 wells each (Ct), and two standards (QC). */
export const TEMPLATE = readFileSync(join(ROOT, 'test', 'fixtures', 'file', 'quantstudio-7-flex-results.txt'));
/** The stem every patient sample number of the template shares (5000018696625, 5000018696649 ...). */
const STEM = '5000018696';

/** Export number `n`: the template with its sample numbers its own (`7` + n in 9 digits + the template's last three). */
export function exportFile(n: number): Buffer {
  return fromTemplate(TEMPLATE, { [STEM]: `7${String(n).padStart(9, '0')}` });
}

/** The results the LIS must get from export `n`: sample, test and value, 18 of them. */
export function expectedResults(n: number): string[] {
  const text = exportFile(n).toString('latin1');
  const out: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const cells = line.split('\t');
    if (cells[5] === 'UNKNOWN' && /^7\d{12}$/.test(cells[3] ?? '')) out.push(`${cells[3]}|UTR3|${cells[8]}`);
  }
  return out;
}

/** A value export `n` holds for the LIS (sample, LIS test, value), as an operator compares an old with a new one. */
export interface ChangedValue {
  sample: string;
  old: string;
  new: string;
}

/**
 * Export `n` made again, as after a technologist reopened the run: other bytes (its creation time), the same values;
 * with `changed`, the Ct of its `changed`-th patient well (0 to 17) is 0.250 higher.
 */
export function reExport(n: number, changed?: number): { bytes: Buffer; change?: ChangedValue } {
  const text = exportFile(n).toString('latin1');
  const again = text.replace('Date Created = 2024-10-01 13:07:52', 'Date Created = 2024-10-01 16:41:05');
  if (again === text) throw new Error('the template no longer holds the creation time reExport changes');
  if (changed === undefined) return { bytes: Buffer.from(again, 'latin1') };
  let well = -1;
  let change: ChangedValue | undefined;
  const lines = again.split('\n').map((line) => {
    const cells = line.split('\t');
    if (cells[5] !== 'UNKNOWN' || !/^7\d{12}$/.test(cells[3] ?? '') || ++well !== changed) return line;
    const now = (Number(cells[8]) + 0.25).toFixed(3);
    change = { sample: cells[3]!, old: cells[8]!, new: now };
    cells[8] = now;
    return cells.join('\t');
  });
  if (!change) throw new Error(`export ${n} has no patient well ${changed}`);
  return { bytes: Buffer.from(lines.join('\n'), 'latin1'), change };
}

export interface FileFlowOptions {
  folder: string;
  lisUrl: (path: string) => string;
  pollMs?: number;
  settleMs?: number;
}

export const FILE_IDS = { tab: 'file-tab', lis: 'file-lis', folder: 'file-folder', message: 'file-message', mapper: 'file-mapper', sender: 'file-sender', catcher: 'file-catch', report: 'file-report', post: 'file-post' };

export function fileFlow(o: FileFlowOptions): FlowNode[] {
  const z = FILE_IDS.tab;
  return [
    { id: z, type: 'tab', label: 'PCR cycler', disabled: false, info: '' },
    { id: FILE_IDS.lis, type: 'lis-config', name: 'LIS stand-in', labTestsApiUrl: o.lisUrl('/tests'), transactionInfoApiUrl: o.lisUrl('/orders'), resultApiUrl: o.lisUrl('/results'), orderCompletedApiUrl: o.lisUrl('/processed'), bearerTokenEnv: 'LIS_TOKEN', timeout: '5000' },
    { id: FILE_IDS.folder, type: 'folder-link', z, name: 'QuantStudio 7', analyzer: 'QS7-278875421', folder: o.folder, pattern: '*.txt', pollMs: String(o.pollMs ?? 200), settleMs: String(o.settleMs ?? 1500), marker: '', after: 'move', x: 120, y: 100, wires: [[FILE_IDS.message]] },
    { id: FILE_IDS.message, type: 'file-message', z, dialect: 'appbio-quantstudio', dialectOverrides: '', timeZone: 'America/New_York', x: 320, y: 100, wires: [[FILE_IDS.mapper], []] },
    { id: FILE_IDS.mapper, type: 'test-mapper', z, direction: 'toLis', unmapped: 'warn', mapping: [{ lisTestId: 'T-UTR', lisCode: 'UTR3', lisName: "3'UTR Ct", instrumentCode: "3'UTR" }], x: 520, y: 100, wires: [[FILE_IDS.sender], []] },
    { id: FILE_IDS.sender, type: 'lis-send-results', z, name: 'send results', lis: FILE_IDS.lis, x: 720, y: 100, wires: [[]] },
    // Every error of the tab, posted to the LIS stand-in's /caught: what a site's Catch flow would mail or page.
    { id: FILE_IDS.catcher, type: 'catch', z, scope: null, uncaught: false, x: 120, y: 200, wires: [[FILE_IDS.report]] },
    { id: FILE_IDS.report, type: 'function', z, func: 'msg.payload = { error: msg.error, file: msg.file || null, payload: Buffer.isBuffer(msg.payload) ? null : msg.payload };\nmsg.headers = { "content-type": "application/json" };\nreturn msg;', outputs: 1, x: 320, y: 200, wires: [[FILE_IDS.post]] },
    { id: FILE_IDS.post, type: 'http request', z, method: 'POST', ret: 'txt', paytoqs: 'ignore', url: o.lisUrl('/caught'), tls: '', persist: false, proxy: '', insecureHTTPParser: false, authType: '', senderr: false, headers: [], x: 520, y: 200, wires: [[]] },
  ];
}

/** Every result the LIS got, as `sample|test|value`, in the order it got them. */
export function resultsAtLis(requests: Array<{ path: string; json: unknown }>): string[] {
  return requests
    .filter((r) => r.path === '/results')
    .flatMap((r) => ((r.json as { results?: Array<{ SampleNumber: string; TestCode: string; Result: string }> }).results ?? []).map((x) => `${x.SampleNumber}|${x.TestCode}|${x.Result}`));
}
