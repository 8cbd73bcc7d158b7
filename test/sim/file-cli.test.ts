/**
 * lis-analyzer-sim --folder: the file-exporting instrument from the command
 * line, as a separate process writing into a temporary folder from the real
 * QuantStudio export: numbered files with their own sample numbers, the copy,
 * the malformed file; a usage error exits 2 with the folder usage.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MALFORMED } from '../../lib/sim';
import { parseFolderOptions, varied } from '../../lib/sim/file/cli';

const CLI = join(__dirname, '..', '..', 'lib', 'sim', 'cli.js');
const TEMPLATE = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'file', 'quantstudio-7-flex-results.txt');

function run(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { timeout: 30_000 }, (error, out, err) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, out, err }));
  });
}

describe('lis-analyzer-sim --folder', () => {
  it('writes numbered exports with their own sample numbers, then the copy and the malformed file, and exits 0', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'sim-folder-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const r = await run(['--folder', dir, '--template', TEMPLATE, '--count', '3', '--vary', '5000018696', '--interval', '0', '--half-written', '--pause-ms', '10', '--duplicate', '--malformed']);
    assert.equal(r.code, 0, r.err);
    const ext = '.txt';
    const stem = 'quantstudio-7-flex-results';
    assert.deepEqual(readdirSync(dir).sort(), [`${stem}-1 copy${ext}`, `${stem}-1${ext}`, `${stem}-2${ext}`, `${stem}-3${ext}`, `${stem}-bad${ext}`]);
    const template = readFileSync(TEMPLATE, 'latin1');
    assert.equal(readFileSync(join(dir, `${stem}-2${ext}`), 'latin1'), template.split('5000018696').join('5000018692'));
    assert.deepEqual(readFileSync(join(dir, `${stem}-1 copy${ext}`)), readFileSync(join(dir, `${stem}-1${ext}`)));
    assert.deepEqual(readFileSync(join(dir, `${stem}-bad${ext}`)), MALFORMED);
    assert.match(r.out, /wrote quantstudio-7-flex-results-1 copy\.txt \(the same bytes as quantstudio-7-flex-results-1\.txt\)/);
    assert.match(r.out, /files written into .+: 5/);
  });

  it('a usage error exits 2 and shows the folder usage', async () => {
    const r = await run(['--folder', '/tmp/x']);
    assert.equal(r.code, 2);
    assert.match(r.err, /--template needs a real export file/);
    assert.match(r.err, /File-exporting instrument/);
  });

  it('parses its options; varied() keeps a sample number\'s length', () => {
    assert.deepEqual(parseFolderOptions(['--folder', 'f', '--template', 't', '--via-temp', '--marker', '.done']), { folder: 'f', template: 't', count: 1, vary: undefined, intervalMs: 2000, write: { viaTemp: true, marker: '.done' }, duplicate: false, malformed: false });
    assert.throws(() => parseFolderOptions(['--folder', 'f', '--template', 't', '--count', '0']), /--count must be a whole number of at least 1/);
    assert.equal(varied('5000018696', 12), '5000018612');
    assert.equal(varied('S1', 123), '23');
  });
});
