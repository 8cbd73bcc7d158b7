/**
 * folder-link in a real Node-RED (node-red-node-test-helper) over real
 * temporary folders: a file taken once stored, sent with msg.file, moved to
 * done/ once the journal says its results were delivered; a duplicate; a file
 * too big for error/ and a Catch error; a missing folder on the status and to
 * Catch; a restart mid-file (the file sent again from the journal, not read
 * again); the Lab sidebar's row and the metrics. Downstream delivery is
 * written to the journal as lis-send-results writes it (its own tests and the
 * end-to-end test run the real thing).
 */
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { collect, helper, journalDir, keepJournalForNextLoad, lastStatus, nodeModules, waitUntil } from '../support/red';
import { openedJournal } from '../../lib/journal/registry';
import type { ResultJournal } from '../../lib/journal/journal';
import { runChecksNow } from '../../nodes/shared/periodic';
import { sleep } from '../support/wait';

let root: string;
let inbox: string;
beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'folder-link-'));
  inbox = join(root, 'inbox');
  mkdirSync(inbox);
  await helper.startServer();
});
afterEach(async () => {
  await helper.unload();
  await helper.stopServer();
  rmSync(root, { recursive: true, force: true });
});

const CSV = 'Sample,Test,Value\nS1,GLU,5.4\n';
const FAST = { pollMs: '100', settleMs: '200' };

function flow(settings: Record<string, unknown> = {}): Array<Record<string, unknown>> {
  return [
    { id: 'folder', type: 'folder-link', name: 'QuantStudio 5', analyzer: 'QS5-LAB2', folder: inbox, pattern: '*.csv', ...FAST, wires: [['out']], ...settings },
    { id: 'out', type: 'helper' },
    { id: 'catcher', type: 'catch', scope: ['folder'], uncaught: false, wires: [['caught']] },
    { id: 'caught', type: 'helper' },
  ];
}
const load = (settings: Record<string, unknown> = {}) => helper.load(nodeModules('folder-link') as never, flow(settings) as never);

async function journal(): Promise<ResultJournal> {
  const j = openedJournal(join(journalDir(), 'journal.jsonl'));
  assert.ok(j, 'the journal is open');
  return j;
}
/** What lis-send-results writes for a file's one batch. */
async function deliver(id: string): Promise<void> {
  const j = await journal();
  await j.planned(id, 1, undefined, ['S1']);
  await j.beginSend({ key: `${id}#0`, node: 'sender', message: id, part: 0, samples: ['S1'], body: [{ SampleNumber: 'S1', Result: '5.4' }], msg: {} });
  await j.settle(`${id}#0`, 'delivered');
}
const done = () => (existsSync(join(inbox, 'done')) ? readdirSync(join(inbox, 'done')).sort() : []);
const codes = (caught: Array<Record<string, unknown>>) => caught.map((m) => (m.error as { code?: string }).code);
async function sidebarRow(): Promise<Record<string, unknown>> {
  const res = await helper.request().get('/lis-bridge/links').expect(200);
  return (res.body as { links: Array<Record<string, unknown>> }).links.find((l) => l.node === 'folder')!;
}

describe('folder-link', () => {
  it('sends a complete file once, stored first, with msg.file; moves it to done/ once its results are delivered; shows it in the Lab sidebar and the metrics', async () => {
    await load();
    const out = collect('out');
    writeFileSync(join(inbox, 'run1.csv'), CSV);
    await waitUntil(() => out.length > 0, 10_000, 'the file');
    const msg = out[0]!;
    assert.ok(Buffer.isBuffer(msg.payload));
    assert.equal((msg.payload as Buffer).toString(), CSV);
    assert.equal(msg.topic, 'file:message');
    const file = msg.file as Record<string, unknown>;
    assert.deepEqual({ link: file.link, name: file.name, path: file.path, size: file.size, analyzer: file.analyzer }, { link: 'folder', name: 'run1.csv', path: join(inbox, 'run1.csv'), size: CSV.length, analyzer: 'QS5-LAB2' });
    assert.match(String(file.hash), /^[0-9a-f]{64}$/);
    assert.match(String(file.mtime), /Z$/);
    const stored = (await journal()).message(String(file.journalId))!;
    assert.equal(stored.source?.hash, file.hash, 'stored in the journal under the id it carries');
    await waitUntil(() => /watching · 1 waiting/.test(lastStatus(helper.getNode('folder'))?.text ?? ''), 5000, 'the status counting it');
    await deliver(String(file.journalId));
    await waitUntil(() => done().length === 1, 5000, 'done/');
    assert.deepEqual(done(), ['run1.csv']);
    await waitUntil(() => /watching · 0 waiting \(0 held\) · last run1\.csv/.test(lastStatus(helper.getNode('folder'))?.text ?? ''), 5000, 'the status');
    assert.equal(lastStatus(helper.getNode('folder'))?.fill, 'green');
    await sleep(300);
    assert.equal(out.length, 1, 'sent once');
    const row = await sidebarRow();
    assert.equal(row.protocol, 'file');
    assert.equal(row.analyzer, 'QS5-LAB2');
    assert.equal(row.transport, 'connected');
    assert.ok(row.lastReceived, 'last file');
    assert.deepEqual(row.files, { waiting: 0, held: 0, duplicates: 0, errorFiles: 0, untaken: 0, lastFile: 'run1.csv' });
    const metrics = await helper.request().get('/lis-bridge/metrics').expect(200);
    assert.match(metrics.text, /lisbridge_folder_files_waiting\{link="folder",link_name="QuantStudio 5"\} 0/);
    assert.match(metrics.text, /lisbridge_link_messages_received_total\{link="folder",link_name="QuantStudio 5",analyzer="QS5-LAB2"\} 1/);
  });

  it('holds a file whose batch had nothing for the LIS (marked stuck, as test-mapper does): "1 held" until dismissed, then done/', async () => {
    await load();
    const out = collect('out');
    writeFileSync(join(inbox, 'unmapped.csv'), CSV);
    await waitUntil(() => out.length > 0, 10_000, 'the file');
    const id = String((out[0]!.file as Record<string, unknown>).journalId);
    const j = await journal();
    await j.planned(id, 1, undefined, ['S1']);
    await j.markStuck(id, 'its 1 result mapped to no LIS test (no LIS test is mapped to instrument test GLU)');
    await waitUntil(() => /1 waiting \(1 held\)/.test(lastStatus(helper.getNode('folder'))?.text ?? '') || /1 stuck/.test(lastStatus(helper.getNode('folder'))?.text ?? ''), 5000, 'the status');
    assert.deepEqual(done(), [], 'stays in the folder');
    await helper.request().post(`/lis-bridge/stuck/${id}/dismiss`).expect(200);
    await waitUntil(() => done().length === 1, 5000, 'done/ once dismissed');
    assert.deepEqual(done(), ['unmapped.csv']);
  });

  it('sends the same bytes under another name no second time: a warning, a yellow status, counted as a duplicate', async () => {
    await load();
    const out = collect('out');
    writeFileSync(join(inbox, 'run1.csv'), CSV);
    await waitUntil(() => out.length > 0, 10_000, 'the file');
    writeFileSync(join(inbox, 'run1-again.csv'), CSV);
    await waitUntil(() => /duplicate run1-again\.csv/.test(lastStatus(helper.getNode('folder'))?.text ?? ''), 10_000, 'the duplicate on the status');
    assert.equal(lastStatus(helper.getNode('folder'))?.fill, 'yellow');
    assert.equal(out.length, 1);
    await waitUntil(() => done().includes('run1-again.csv'), 5000, 'the duplicate in done/');
    const row = await sidebarRow();
    assert.equal((row.files as { duplicates: number }).duplicates, 1);
    const rx = readFileSync(join(journalDir(), 'journal.jsonl'), 'utf8').split('\n').filter((l) => l.includes('"e":"rx"')).map((l) => JSON.parse(l) as { repeatOf?: string; id: string });
    assert.equal(rx.length, 2);
    assert.equal(rx[1]!.repeatOf, rx[0]!.id);
  });

  it('moves a file larger than the size cap to error/ with its reason, and raises FILE_ERROR to a Catch node', async () => {
    await load({ maxSizeMB: '1' });
    const caught = collect('caught');
    writeFileSync(join(inbox, 'huge.csv'), Buffer.alloc(1024 * 1024 + 1, 0x41));
    await waitUntil(() => caught.length > 0, 10_000, 'the Catch');
    assert.deepEqual(codes(caught), ['FILE_ERROR']);
    assert.match((caught[0]!.error as { message: string }).message, /huge\.csv was put in error\/ of .+: it is 1048577 bytes, more than the largest file taken/);
    assert.deepEqual(readdirSync(join(inbox, 'error')).sort(), ['huge.csv', 'huge.csv.reason.txt']);
    assert.equal(lastStatus(helper.getNode('folder'))?.fill, 'red');
    assert.equal(((await sidebarRow()).files as { errorFiles: number }).errorFiles, 1);
  });

  it('a symbolic link to a file outside the folder: not sent, FILE_NOT_TAKEN to a Catch node once, red status, counted in the Lab sidebar', async () => {
    const secret = join(root, 'credentials.csv');
    writeFileSync(secret, `${CSV}db_password=hunter2\n`);
    symlinkSync(secret, join(inbox, 'run1.csv'));
    await load();
    const caught = collect('caught');
    const out = collect('out');
    await waitUntil(() => caught.length > 0, 10_000, 'the Catch');
    assert.deepEqual(codes(caught), ['FILE_NOT_TAKEN']);
    assert.match((caught[0]!.error as { message: string }).message, /^run1\.csv is not taken: it is a symbolic link/);
    await waitUntil(async () => ((await sidebarRow()).files as { untaken?: number } | undefined)?.untaken === 1, 5000, 'the sidebar counting it');
    assert.match(lastStatus(helper.getNode('folder'))?.text ?? '', /^FILE_NOT_TAKEN/);
    writeFileSync(join(inbox, 'run2.csv'), CSV);
    await waitUntil(() => out.length > 0, 10_000, 'the next file');
    assert.deepEqual(out.map((m) => (m.file as { name: string }).name), ['run2.csv'], 'the link never sent');
    assert.deepEqual(codes(caught), ['FILE_NOT_TAKEN'], 'raised once');
  });

  it('two folder-links on one folder with overlapping patterns: the second red, naming the first and the folder, FOLDER_SHARED to a Catch node; it takes nothing', async () => {
    const nodes = [...flow().map((n) => (n.id === 'catcher' ? { ...n, scope: ['second'] } : n)), { id: 'second', type: 'folder-link', name: 'Second copy', folder: inbox, pattern: 'run*.CSV', ...FAST, wires: [['out']] }];
    await helper.load(nodeModules('folder-link') as never, nodes as never);
    const out = collect('out');
    const caught = collect('caught');
    await waitUntil(() => caught.length > 0, 10_000, 'the Catch');
    assert.deepEqual(codes(caught), ['FOLDER_SHARED']);
    const message = (caught[0]!.error as { message: string }).message;
    assert.ok(message.includes(`nothing is taken from ${realpathSync(inbox)}: the folder is read by QuantStudio 5 (node folder, File names *.csv)`), message);
    assert.match(lastStatus(helper.getNode('second'))?.text ?? '', /^not reading: the folder is read by QuantStudio 5 \(node folder/);
    assert.equal(lastStatus(helper.getNode('second'))?.fill, 'red');
    writeFileSync(join(inbox, 'run1.csv'), CSV);
    await waitUntil(() => out.length > 0, 10_000, 'the file');
    await sleep(500);
    assert.deepEqual(out.map((m) => (m.file as { link: string }).link), ['folder'], 'sent once, by the first');
  });

  it('two folder-links on one folder with disjoint patterns (*.csv and *.txt): each sends its own files', async () => {
    const nodes = [...flow(), { id: 'second', type: 'folder-link', name: 'Plate reader', folder: inbox, pattern: '*.txt', ...FAST, wires: [['out']] }];
    await helper.load(nodeModules('folder-link') as never, nodes as never);
    const out = collect('out');
    writeFileSync(join(inbox, 'run1.csv'), CSV);
    writeFileSync(join(inbox, 'plate1.txt'), `${CSV}S2,GLU,6.1\n`);
    await waitUntil(() => out.length >= 2, 10_000, 'both files');
    assert.deepEqual(out.map((m) => [(m.file as { link: string }).link, (m.file as { name: string }).name]).sort(), [['folder', 'run1.csv'], ['second', 'plate1.txt']]);
    assert.match(lastStatus(helper.getNode('second'))?.text ?? '', /^watching/);
  });

  it('a missing folder: red status naming the setting, FOLDER_MISSING to a Catch node, disconnected in the Lab sidebar; picks up once it is there', async () => {
    rmSync(inbox, { recursive: true });
    await load();
    const caught = collect('caught');
    const out = collect('out');
    await waitUntil(() => caught.length > 0, 10_000, 'the Catch');
    assert.deepEqual(codes(caught), ['FOLDER_MISSING']);
    assert.deepEqual(lastStatus(helper.getNode('folder')), { fill: 'red', shape: 'ring', text: `folder ${inbox} does not exist: create it or set Folder` });
    assert.match((caught[0]!.error as { message: string }).message, /, or set Folder$/);
    assert.equal((await sidebarRow()).transport, 'disconnected');
    mkdirSync(inbox);
    writeFileSync(join(inbox, 'run1.csv'), CSV);
    await waitUntil(() => out.length > 0, 10_000, 'the file');
    assert.equal((await sidebarRow()).transport, 'connected');
    assert.deepEqual(codes(caught), ['FOLDER_MISSING'], 'raised once');
  });

  it('a missing folder written as ${ANALYZER_FOLDER} (the examples): the status names the tab variable to set, not the Folder field', async () => {
    rmSync(inbox, { recursive: true });
    const nodes = flow({ folder: '${ANALYZER_FOLDER}' }).map((n) => ({ ...n, z: 'tab' }));
    const tab = { id: 'tab', type: 'tab', label: 'QuantStudio', env: [{ name: 'ANALYZER_FOLDER', value: inbox, type: 'str' }] };
    await helper.load(nodeModules('folder-link') as never, [tab, ...nodes] as never);
    const caught = collect('caught');
    await waitUntil(() => caught.length > 0, 10_000, 'the Catch');
    assert.deepEqual(lastStatus(helper.getNode('folder')), { fill: 'red', shape: 'ring', text: `folder ${inbox} does not exist: create it or set ANALYZER_FOLDER` });
    assert.match((caught[0]!.error as { message: string }).message, /, or set ANALYZER_FOLDER \(Folder\)$/);
  });

  it('refuses to start without a folder, naming the setting on its status', async () => {
    await load({ folder: '' });
    const caught = collect('caught');
    await waitUntil(() => caught.length > 0, 5000, 'the Catch');
    assert.equal((caught[0]!.error as { code: string }).code, 'NOT_CONFIGURED');
    assert.deepEqual(lastStatus(helper.getNode('folder')), { fill: 'red', shape: 'ring', text: 'set folder' });
  });

  it('after a restart mid-file: sends the file again from the journal (msg.file.replay), does not read it again; moves it once delivered', async () => {
    await load();
    const first = collect('out');
    writeFileSync(join(inbox, 'run1.csv'), CSV);
    await waitUntil(() => first.length > 0, 10_000, 'the file');
    const before = first[0]!.file as Record<string, unknown>;
    await helper.unload();
    keepJournalForNextLoad();
    await load();
    const again = collect('out');
    await waitUntil(() => again.length > 0, 10_000, 'the replay');
    await sleep(500);
    assert.equal(again.length, 1, 'sent once more, from the journal');
    const file = again[0]!.file as Record<string, unknown>;
    assert.equal(file.replay, true);
    assert.deepEqual({ journalId: file.journalId, name: file.name, hash: file.hash, size: file.size }, { journalId: before.journalId, name: 'run1.csv', hash: before.hash, size: before.size });
    assert.equal((again[0]!.payload as Buffer).toString(), CSV);
    await deliver(String(file.journalId));
    await waitUntil(() => done().length === 1, 5000, 'done/');
    const rx = readFileSync(join(journalDir(), 'journal.jsonl'), 'utf8').split('\n').filter((l) => l.includes('"e":"rx"'));
    assert.equal(rx.length, 1, 'stored once');
  });

  it('goes on counting duplicates across a redeploy: the metrics\' counters never go down', async () => {
    await load();
    const out = collect('out');
    writeFileSync(join(inbox, 'run1.csv'), CSV);
    await waitUntil(() => out.length > 0, 10_000, 'the file');
    writeFileSync(join(inbox, 'run1-again.csv'), CSV);
    await waitUntil(() => done().includes('run1-again.csv'), 10_000, 'the duplicate in done/');
    assert.equal(((await sidebarRow()).files as { duplicates: number }).duplicates, 1);
    const first = helper.getNode('folder');
    // A full deploy, as the editor's Deploy button makes it: every node closed (not removed) and made again.
    await helper.setFlows(flow() as never, 'full');
    await waitUntil(() => /watching/.test(lastStatus(helper.getNode('folder'))?.text ?? ''), 10_000, 'the redeployed link watching');
    writeFileSync(join(inbox, 'run1-third.csv'), CSV);
    await waitUntil(() => done().includes('run1-third.csv'), 10_000, 'the second duplicate in done/');
    assert.notEqual(helper.getNode('folder'), first, 'a new node');
    assert.equal(((await sidebarRow()).files as { duplicates: number }).duplicates, 2);
    const metrics = await helper.request().get('/lis-bridge/metrics').expect(200);
    assert.match(metrics.text, /lisbridge_folder_duplicate_files_total\{link="folder",link_name="QuantStudio 5"\} 2/);
  });

  it('LINK_DOWN for a folder that stays unreadable says so in a folder\'s words', async () => {
    rmSync(inbox, { recursive: true });
    await load({ downMinutes: '1' });
    const caught = collect('caught');
    // Check rounds a minute on (the link's own interval is 30 s), until it has found the folder missing and the alarm is up.
    await waitUntil(
      async () => {
        await runChecksNow({ now: Date.now() + 61_000 });
        return ((await sidebarRow()).alarms as Array<{ code: string }>).some((a) => a.code === 'LINK_DOWN');
      },
      10_000,
      'LINK_DOWN on the board',
    );
    await waitUntil(() => codes(caught).includes('LINK_DOWN'), 2000, 'LINK_DOWN at Catch');
    const down = caught.find((m) => (m.error as { code: string }).code === 'LINK_DOWN')!;
    assert.match((down.error as { message: string }).message, new RegExp(`^QuantStudio 5 \\(instrument QS5-LAB2\\) cannot read its folder ${inbox.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} since .+: check that the share is mounted`));
  });
});
