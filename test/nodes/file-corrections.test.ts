/**
 * Corrections, not duplicates, in a real Node-RED over real folders: folder-link, file-message, test-mapper and
 * lis-send-results to the loopback LIS. A file replaced under its name after its results were delivered sends no
 * value twice: the same values end "not for the LIS" (counted, with where they went before), a changed one is held
 * as a correction (old and new side by side) that a person sends once or dismisses. A file that was taken
 * half-written and grew sends only its new rows. A reused name with new samples, and another name with the same
 * sample (a new run), are delivered.
 */
import { describe, it, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useLisStub } from '../support/lifecycle';
import { ALL_LIS_NODES, collect, helper, nodeModules, waitUntil } from '../support/red';

const ctx = useLisStub();
let root: string;
let inbox: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'file-corrections-'));
  inbox = join(root, 'inbox');
  mkdirSync(inbox);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

async function load(after: 'move' | 'keep' = 'move'): Promise<void> {
  const flow = [
    { id: 'lisCfg', type: 'lis-config', resultApiUrl: ctx.stub.url('/results'), timeout: 2000 },
    { id: 'folder', type: 'folder-link', folder: inbox, pattern: '*.csv', pollMs: '100', settleMs: '200', after, wires: [['m']] },
    { id: 'm', type: 'file-message', dialect: 'generic-csv', wires: [['mapper'], ['aside']] },
    { id: 'aside', type: 'helper' },
    { id: 'mapper', type: 'test-mapper', direction: 'toLis', unmapped: 'warn', mapping: [{ lisTestId: 'T-GLU', lisCode: 'GLU', lisName: 'Glucose', instrumentCode: 'GLU' }], wires: [['sender'], []] },
    { id: 'sender', type: 'lis-send-results', lis: 'lisCfg', wires: [[]] },
  ];
  ctx.stub.reply('/results', { body: { status: 'success' } });
  await helper.load(nodeModules(...ALL_LIS_NODES, 'file-message', 'folder-link') as never, flow as never, { lisCfg: { bearerToken: 'file-test-token' } } as never);
}

const csv = (...rows: string[]) => `Sample,Test,Result\n${rows.map((r) => `${r}\n`).join('')}`;
/** Each result the LIS got, in order, as "sample test value". */
const atLis = () => ctx.stub.to('/results').flatMap((r) => (r.json as { results: Array<Record<string, unknown>> }).results.map((x) => `${x.SampleNumber} ${x.TestCode} ${x.Result}`));
const inDone = (name: string) => existsSync(join(inbox, 'done', name));
type Today = Record<'results' | 'delivered' | 'heldForPerson' | 'notForLis' | 'discarded' | 'released' | 'dismissed', number>;
async function today(): Promise<Today> {
  const res = await helper.request().get('/lis-bridge/links').expect(200);
  return (res.body as { links: Array<{ node: string; today: Today }> }).links.find((l) => l.node === 'folder')!.today;
}

/** Until every result the link read today has ended (delivered, held, discarded, not for the LIS): nothing more will go. */
async function allEnded(): Promise<void> {
  await waitUntil(async () => {
    const t = await today();
    return t.delivered + t.heldForPerson + t.discarded + t.notForLis === t.results;
  }, 10_000, 'every result read ended');
}
async function holds(): Promise<Array<Record<string, unknown>>> {
  return ((await helper.request().get('/lis-bridge/held').expect(200)).body as { holds: Array<Record<string, unknown>> }).holds;
}

describe('file corrections', () => {
  it('a file replaced with the same values sends none again (ended not for the LIS, counted, with where they went); another name with the same sample is a new run, and run.csv the next day with new samples is delivered', async () => {
    await load();
    const aside = collect('aside');
    writeFileSync(join(inbox, 'run.csv'), csv('S1,GLU,5.4', 'S2,GLU,6.1'));
    await waitUntil(() => inDone('run.csv') && atLis().length === 2, 10_000, 'run.csv delivered and in done/');

    // Re-exported: other bytes (the rows in another order), the same values.
    writeFileSync(join(inbox, 'run.csv'), csv('S2,GLU,6.1', 'S1,GLU,5.4'));
    await waitUntil(async () => inDone('run.2.csv') && (await today()).notForLis === 2, 10_000, 'the replaced run.csv ended, its 2 results not for the LIS');
    await allEnded();
    assert.deepEqual(atLis(), ['S1 GLU 5.4', 'S2 GLU 6.1'], 'nothing sent again');
    const repeated = aside.find((m) => m.topic === 'repeated')!;
    assert.deepEqual((repeated.payload as Array<{ SampleNumber: string; reason: string }>).map((r) => r.SampleNumber), ['S2', 'S1']);
    assert.match((repeated.payload as Array<{ reason: string }>)[0]!.reason, /^already delivered from run\.csv at \d{4}-\d\d-\d\dT/);
    assert.deepEqual(await holds(), [], 'identical values are no correction');
    const t = await today();
    assert.deepEqual({ results: t.results, delivered: t.delivered, notForLis: t.notForLis, heldForPerson: t.heldForPerson }, { results: 4, delivered: 2, notForLis: 2, heldForPerson: 0 });

    // Another file with the same sample: a new run, delivered as an ASTM or HL7 rerun is.
    writeFileSync(join(inbox, 'rerun.csv'), csv('S1,GLU,5.4'));
    await waitUntil(() => atLis().length === 3, 10_000, 'the rerun at the LIS');
    // The next day's run.csv with new samples: delivered.
    writeFileSync(join(inbox, 'run.csv'), csv('S3,GLU,7.0', 'S4,GLU,8.2'));
    await waitUntil(() => atLis().length === 5, 10_000, "the next day's run at the LIS");
    assert.deepEqual(atLis(), ['S1 GLU 5.4', 'S2 GLU 6.1', 'S1 GLU 5.4', 'S3 GLU 7.0', 'S4 GLU 8.2']);
  });

  it('a file replaced with one changed value holds it as a correction, old and new side by side, sends the others no second time; Send posts the new value once, Dismiss keeps the reason', async () => {
    await load();
    writeFileSync(join(inbox, 'run.csv'), csv('S1,GLU,5.4', 'S2,GLU,6.1'));
    await waitUntil(() => inDone('run.csv') && atLis().length === 2, 10_000, 'run.csv delivered and in done/');

    writeFileSync(join(inbox, 'run.csv'), csv('S1,GLU,5.9', 'S2,GLU,6.1'));
    await waitUntil(async () => (await holds()).length === 1 && inDone('run.2.csv'), 10_000, 'the correction held and the file in done/');
    const [hold] = await holds();
    assert.equal(hold!.kind, 'correction');
    assert.equal(hold!.code, 'GLU');
    assert.deepEqual(hold!.samples, ['S1']);
    assert.equal(hold!.deployed, true);
    const [c] = hold!.corrections as Array<Record<string, unknown>>;
    assert.deepEqual({ sample: c!.sample, old: c!.old, oldFile: c!.oldFile, new: c!.new, file: c!.file }, { sample: 'S1', old: '5.4', oldFile: 'run.csv', new: '5.9', file: 'run.csv' });
    assert.match(String(c!.oldAt), /^\d{4}-\d\d-\d\dT/);
    assert.match(String(hold!.reason), /S1 GLU is 5\.9 in run\.csv, 5\.4 was delivered from run\.csv at .*: held as a correction \(Send posts 5\.9 to the LIS; Dismiss leaves 5\.4\)/);
    await allEnded();
    assert.deepEqual(atLis(), ['S1 GLU 5.4', 'S2 GLU 6.1'], 'neither the changed value nor the same one was sent');
    let t = await today();
    assert.deepEqual({ results: t.results, delivered: t.delivered, heldForPerson: t.heldForPerson, notForLis: t.notForLis }, { results: 4, delivered: 2, heldForPerson: 1, notForLis: 1 });

    await helper.request().post('/lis-bridge/holds/send').send({ ids: [hold!.id] }).expect(200);
    await waitUntil(() => atLis().length === 3, 10_000, 'the correction at the LIS');
    assert.equal(atLis()[2], 'S1 GLU 5.9');
    await helper.request().post('/lis-bridge/holds/send').send({ ids: [hold!.id] }).expect(409);
    await waitUntil(async () => (await today()).released === 1, 5000, 'the correction counted as sent by a person');

    // A third version: S1 as corrected (sent already), S2 changed: held, then dismissed with why.
    writeFileSync(join(inbox, 'run.csv'), csv('S1,GLU,5.9', 'S2,GLU,6.3'));
    await waitUntil(async () => (await holds()).length === 1, 10_000, 'the second correction');
    const [second] = await holds();
    assert.deepEqual((second!.corrections as Array<Record<string, unknown>>).map((x) => [x.sample, x.old, x.new]), [['S2', '6.1', '6.3']]);
    await helper.request().post('/lis-bridge/holds/dismiss').send({ ids: [second!.id], note: 'rerun on the bench, 6.1 stands' }).expect(200);
    await waitUntil(async () => (await holds()).length === 0 && (await today()).dismissed === 1, 5000, 'dismissed');
    await allEnded();
    assert.deepEqual(atLis(), ['S1 GLU 5.4', 'S2 GLU 6.1', 'S1 GLU 5.9'], 'the correction once, nothing else again');
    t = await today();
    assert.equal(t.delivered + t.heldForPerson + t.notForLis, t.results, 'each result read ended once');
  });

  it('a file taken half-written that then grows: the first part reaches the LIS once, the new rows are delivered', async () => {
    await load('keep');
    writeFileSync(join(inbox, 'run.csv'), csv('S1,GLU,5.4', 'S2,GLU,6.1'));
    await waitUntil(() => atLis().length === 2, 10_000, 'the first part at the LIS');
    // The instrument paused longer than the settle time, and writes on.
    appendFileSync(join(inbox, 'run.csv'), 'S3,GLU,7.0\nS4,GLU,8.2\n');
    await waitUntil(() => atLis().length === 4, 10_000, 'the new rows at the LIS');
    await waitUntil(async () => (await today()).notForLis === 2, 5000, 'the first part counted as not sent again');
    await allEnded();
    assert.deepEqual(atLis(), ['S1 GLU 5.4', 'S2 GLU 6.1', 'S3 GLU 7.0', 'S4 GLU 8.2']);
    assert.deepEqual(await holds(), []);
  });
});
