/**
 * A file-exporting instrument end to end, as an integrator runs it: the
 * package installed into a fresh Node-RED (npm pack), Node-RED as its own
 * process, the simulator writing QuantStudio exports into a temporary folder
 * (one at once, one in parts with pauses, one under a temporary name, the
 * same bytes again under another name, a malformed one), folder-link ->
 * file-message -> test-mapper -> lis-send-results to the loopback LIS. Each
 * result reaches the LIS once; every good file ends in done/; the malformed
 * one in error/ with its reason, and a Catch node hears why.
 */
import { LOCK_NAME } from '../../lib/protocols/file/folder';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LisStub } from '../support/lis-stub';
import { startNodeRed, type NodeRedProcess } from '../support/node-red-process';
import { FileExporter } from '../../lib/sim';
import { installPackage, type Installation } from './harness';
import { expectedResults, exportFile, FILE_TOKEN, fileFlow, resultsAtLis } from './file-flow';
import { sleep, waitUntil } from '../support/wait';

let installation: Installation | undefined;
before(() => {
  installation = installPackage();
});
after(() => installation?.remove());

describe('a file-exporting instrument, end to end (QuantStudio exports into a folder, to the loopback LIS)', () => {
  let work: string;
  let folder: string;
  let stub: LisStub;
  let red: NodeRedProcess | undefined;
  const list = (dir: string) => (existsSync(join(folder, dir)) ? readdirSync(join(folder, dir)).sort() : []);
  /** What a wait is for, and Node-RED's log tail when it fails. */
  const withLog = (what: string) => () => `${what}\n--- Node-RED log ---\n${red?.tail(60) ?? ''}`;

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'file-e2e-'));
    folder = join(work, 'export');
    mkdirSync(folder);
    stub = await new LisStub().start();
    stub.reply('/results', { body: { status: 'success' } });
    stub.reply('/caught', { body: { status: 'ok' } });
    red = await startNodeRed({ userDir: installation!.userDir, flows: fileFlow({ folder, lisUrl: (p) => stub.url(p) }), env: { LIS_TOKEN: FILE_TOKEN } });
    const sim = new FileExporter(folder);
    const first = await sim.write('01OCT2024.txt', exportFile(1));
    await sim.halfWritten('02OCT2024.txt', exportFile(2), 4, 300);
    await sim.write('03OCT2024.txt', exportFile(3), { viaTemp: true, parts: 3, pauseMs: 300 });
    await sim.duplicate(first, '01OCT2024 (copy).txt');
    await sim.malformed('04OCT2024.txt');
    await waitUntil(() => list('done').length === 4 && list('error').length === 2, 60_000, withLog('done/ and error/'), 100);
    await waitUntil(() => stub.requests.some((r) => r.path === '/caught' && JSON.stringify(r.json).includes('04OCT2024')), 60_000, withLog('the Catch of the malformed file'), 100);
    // A few more polls: nothing more may reach the LIS.
    await sleep(1500);
  });

  after(async () => {
    await red?.stop();
    await stub?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('every result of every good file reached the LIS once', () => {
    const got = resultsAtLis(stub.requests);
    const expected = [1, 2, 3].flatMap(expectedResults);
    assert.equal(expected.length, 54);
    assert.deepEqual([...got].sort(), [...expected].sort());
    assert.ok(stub.requests.filter((r) => r.path === '/results').every((r) => r.headers.authorization === `Bearer ${FILE_TOKEN}`));
  });

  it('the good files and the duplicate ended in done/, nothing is left in the folder', () => {
    assert.deepEqual(list('done'), ['01OCT2024 (copy).txt', '01OCT2024.txt', '02OCT2024.txt', '03OCT2024.txt']);
    // The lock the folder-link holds while it runs stays (docs/nodes.md): nothing else.
    assert.deepEqual(readdirSync(folder).sort(), [LOCK_NAME, 'done', 'error']);
  });

  it('the malformed file ended in error/ with its reason, and a Catch node got the error naming it', () => {
    assert.deepEqual(list('error'), ['04OCT2024.txt', '04OCT2024.txt.reason.txt']);
    const reason = readFileSync(join(folder, 'error', '04OCT2024.txt.reason.txt'), 'utf8');
    assert.match(reason, /04OCT2024\.txt: not understood: /);
    const caught = stub.requests.filter((r) => r.path === '/caught').map((r) => r.json as { error: { code: string; message: string }; file: { name?: string } | null });
    const aboutIt = caught.filter((c) => c.file?.name === '04OCT2024.txt');
    assert.equal(aboutIt.length, 1, JSON.stringify(caught));
    assert.equal(aboutIt[0]!.error.code, 'INVALID_INPUT');
    assert.ok(reason.includes(aboutIt[0]!.error.message), 'the reason file says what the Catch node heard');
  });

  it('the journal recorded the duplicate as a repeat of the first file, and the Lab sidebar counts it', async () => {
    const lines = readFileSync(join(installation!.userDir, 'lis-bridge', 'journal.jsonl'), 'utf8').split('\n').filter((l) => l.includes('"e":"rx"')).map((l) => JSON.parse(l) as { id: string; repeatOf?: string; source: { name: string } });
    const byName = new Map(lines.map((l) => [l.source.name, l]));
    assert.equal(lines.length, 5);
    assert.equal(byName.get('01OCT2024 (copy).txt')!.repeatOf, byName.get('01OCT2024.txt')!.id);
    const res = await fetch(`${red!.url}/lis-bridge/links`);
    const row = ((await res.json()) as { links: Array<{ protocol: string; files: Record<string, unknown> }> }).links.find((l) => l.protocol === 'file')!;
    assert.deepEqual(row.files, { waiting: 0, held: 0, duplicates: 1, errorFiles: 1, untaken: 0, lastFile: '04OCT2024.txt' });
  });
});
