/**
 * astm-message in a Node-RED runtime: real analyzer messages (fixtures) in, lab
 * events out on the right output; orders and "no information" answers built for
 * the dialect, refused when the analyzer can no longer take them.
 */
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { collect, helper, lastStatus, nodeModules, waitUntil } from '../support/red';
import { fixtureText, loadFixture } from '../support/fixtures';
import { anOrder } from '../support/lis-stub';
import { decodeMessage, splitMessages } from '../../lib/protocols/astm/records';

beforeEach(() => helper.startServer());
afterEach(async () => {
  await helper.unload();
  await helper.stopServer();
});

async function load(dialect: string, dialectOverrides = ''): Promise<void> {
  const flow = [
    { id: 'm', type: 'astm-message', dialect, dialectOverrides, timeZone: 'Europe/Berlin', wires: [['query'], ['results'], ['send'], ['other']] },
    { id: 'query', type: 'helper' },
    { id: 'results', type: 'helper' },
    { id: 'send', type: 'helper' },
    { id: 'other', type: 'helper' },
    { id: 'catcher', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', type: 'helper' },
  ];
  await helper.load(nodeModules('astm-message') as never, flow as never);
}

const received = (text: string) => ({ topic: 'astm:message', payload: Buffer.from(text, 'latin1'), astm: { link: 'l1', messageId: 'rx-1' } });
const firstMessage = (fixture: string) => splitMessages(fixtureText(loadFixture(fixture)))[0]!;

describe('astm-message', () => {
  it('turns a Sysmex XN result upload into patient results for the test-mapper', async () => {
    await load('sysmex-xn');
    const results = collect('results');
    helper.getNode('m').receive(received(firstMessage('sysmex-xn550-result.txt')) as never);
    await waitUntil(() => results.length === 1);
    const items = results[0]!.payload as Array<Record<string, unknown>>;
    assert.ok(items.length > 10);
    const wbc = items.find((r) => r.instrumentCode === 'WBC');
    assert.ok(wbc, JSON.stringify(items.map((r) => r.instrumentCode)));
    assert.equal(typeof wbc.Result, 'string');
    assert.ok(items.every((r) => r.SampleNumber === items[0]!.SampleNumber && String(r.SampleNumber).length > 0));
    assert.equal(results[0]!.topic, 'results');
  });

  it('emits one query per sample and answers it with an order download for that sample (Roche e 411)', async () => {
    await load('roche-cobas-e411-elecsys');
    assert.equal(lastStatus(helper.getNode('m'))?.fill, 'grey', 'nothing read yet: not green');
    const queries = collect('query');
    const sent = collect('send');
    helper.getNode('m').receive(received(firstMessage('roche-e411-query-manual.txt')) as never);
    await waitUntil(() => queries.length === 1);
    assert.equal(queries[0]!.payload, '000004');
    // what lis-get-order and test-mapper make of it
    helper.getNode('m').receive({ ...queries[0], payload: { ...anOrder('000004'), instrumentTests: ['10', '20'] } } as never);
    await waitUntil(() => sent.length === 1);
    assert.equal(sent[0]!.topic, 'astm:send');
    const download = decodeMessage((sent[0]!.payload as Buffer).toString('latin1'));
    const o = download.records.find((r) => r.type === 'O') as unknown as Record<string, unknown>;
    assert.equal(o.specimenId, '000004');
    assert.equal((sent[0]!.astm as Record<string, unknown>).link, 'l1', 'the message keeps its link, so it goes back to the analyzer that asked');
    // Counted since the deploy, each number by its name (no "1 orders").
    assert.equal(lastStatus(helper.getNode('m'))?.text, 'queries 1 · results 0 · orders 1');
  });

  it('gives every output of one message a message of its own: two queries and results, each with its own payload and msg.astm', async () => {
    await load('generic-lis2a2');
    const queries = collect('query');
    const results = collect('results');
    const text = 'H|\\^&|||A^1|||||LIS||P|LIS2-A2|20261121094500\rQ|1|^Q-1||ALL\rQ|2|^Q-2||ALL\rP|1||P-R1\rO|1|R-1||^^^GLU|R\rR|1|^^^GLU|5.4|mmol/L||N||F\rL|1|N\r';
    helper.getNode('m').receive({ ...received(text), extra: { kept: true } } as never);
    await waitUntil(() => queries.length === 2 && results.length === 1);
    assert.deepEqual(queries.map((q) => q.payload), ['Q-1', 'Q-2']);
    assert.deepEqual(queries.map((q) => (q.astm as { query: { sampleNumber: string } }).query.sampleNumber), ['Q-1', 'Q-2']);
    assert.equal(results[0]!.topic, 'results');
    assert.equal((results[0]!.astm as Record<string, unknown>).query, undefined);
    const all = [...queries, results[0]!];
    assert.equal(new Set(all).size, 3);
    assert.equal(new Set(all.map((m) => m.extra)).size, 3, 'each a copy, nested objects too');
    assert.ok(all.every((m) => (m.extra as { kept: boolean }).kept && (m.astm as Record<string, unknown>).link === 'l1'));
  });

  it('honours a query cancel: the order that comes back later is refused, not sent', async () => {
    await load('roche-cobas-e411-elecsys');
    const sent = collect('send');
    const caught = collect('caught');
    helper.getNode('m').receive(received(firstMessage('roche-e411-query-manual.txt')) as never);
    helper.getNode('m').receive(received(firstMessage('roche-e411-query-cancel-manual.txt')) as never);
    helper.getNode('m').receive({ payload: { ...anOrder('000004'), instrumentTests: ['10'] } } as never);
    await waitUntil(() => caught.length === 1);
    assert.equal((caught[0]!.error as Record<string, unknown>).code, 'ORDER_REFUSED');
    assert.match(String((caught[0]!.error as Record<string, unknown>).message), /cancelled/);
    assert.equal(sent.length, 0);
  });

  it('answers "no information" for a queried sample the LIS has no order for', async () => {
    await load('generic-lis2a2');
    const sent = collect('send');
    helper.getNode('m').receive(received('H|\\^&\rQ|1|^S-9||ALL||||||||O\rL|1|N\r') as never);
    helper.getNode('m').receive({ payload: 'S-9', lis: { status: 'not found', sampleNumber: 'S-9' } } as never);
    await waitUntil(() => sent.length === 1);
    const answer = decodeMessage((sent[0]!.payload as Buffer).toString('latin1'));
    assert.equal((answer.records.at(-1) as unknown as Record<string, unknown>).terminationCode, 'I');
  });

  it('keeps QC away from patient results', async () => {
    await load('horiba-yumizen');
    const results = collect('results');
    const other = collect('other');
    helper.getNode('m').receive(received(firstMessage('horiba-yumizen-h550-qc-result.txt')) as never);
    await waitUntil(() => other.length >= 1);
    assert.equal(other[0]!.topic, 'qc');
    assert.equal(results.length, 0);
  });

  it('never files results under a guessed sample: unassigned results go to output 4 with a warning', async () => {
    await load('generic-lis2a2');
    const other = collect('other');
    const results = collect('results');
    helper.getNode('m').receive(received('H|\\^&\rP|1\rR|1|^^^GLU|5.4\rL|1|N\r') as never);
    await waitUntil(() => other.length === 1);
    assert.equal(other[0]!.topic, 'unassigned');
    assert.equal(results.length, 0);
    const warn = (helper.getNode('m') as unknown as { warn: { args: unknown[][] } }).warn;
    assert.ok(warn.args.some((a) => /^1 result kept aside, not sent to the LIS \(no sample number it can be sent under, or no result\): /.test(String(a[0]))), String(warn.args));
  });

  it('reports an undecodable message to Catch nodes with the bytes kept on the message', async () => {
    await load('generic-lis2a2');
    const caught = collect('caught');
    helper.getNode('m').receive(received('H|\\\\^&\rP|1\rL|1\r') as never);
    await waitUntil(() => caught.length === 1);
    assert.equal((caught[0]!.error as Record<string, unknown>).code, 'INVALID_INPUT');
    assert.ok(Buffer.isBuffer(caught[0]!.payload), 'nothing lost: the message bytes travel with the error');
  });

  it('refuses an unknown dialect by name', async () => {
    await load('no-such-analyzer');
    const caught = collect('caught');
    // At deploy, before any message, and again for each message.
    await waitUntil(() => caught.length === 1);
    helper.getNode('m').receive(received('H|\\^&\rL|1\r') as never);
    await waitUntil(() => caught.length === 2);
    for (const c of caught) assert.match(String((c._error as Record<string, unknown>).message), /unknown dialect "no-such-analyzer"/);
  });

  it('reads with the site\'s overrides of its dialect: results the generic dialect left unassigned become results', async () => {
    // The cobas c 311 writes counter^sampleID^... in O-3 (roche-c311-result.txt).
    const c311 = firstMessage('roche-c311-result.txt');
    await load('generic-lis2a2');
    const other = collect('other');
    helper.getNode('m').receive(received(c311) as never);
    await waitUntil(() => other.length === 1);
    assert.equal(other[0]!.topic, 'unassigned');
    await helper.unload();

    await load('generic-lis2a2', JSON.stringify({ sampleId: { component: 2, singleComponent: false }, testId: { code: { component: 4, split: { separator: '/', part: 1 }, trim: true } } }));
    const results = collect('results');
    const after = collect('other');
    helper.getNode('m').receive(received(c311) as never);
    await waitUntil(() => results.length === 1);
    const items = results[0]!.payload as Array<Record<string, unknown>>;
    assert.deepEqual(items.map((r) => [r.SampleNumber, r.instrumentCode, r.Result]).slice(0, 2), [['CL-PL-24-0370', '685', '22.4'], ['CL-PL-24-0370', '687', '15.0']]);
    assert.equal(after.length, 0);
  });

  it('refuses overrides that do not make a usable dialect, naming each setting', async () => {
    await load('generic-lis2a2', '{"sampleId": {"component": 0}}');
    const caught = collect('caught');
    await waitUntil(() => caught.length === 1);
    helper.getNode('m').receive(received('H|\\^&\rL|1\r') as never);
    await waitUntil(() => caught.length === 2);
    const error = caught[1]!.error as Record<string, unknown>;
    assert.equal(error.code, 'NOT_CONFIGURED');
    assert.match(String(error.message), /dialect overrides: sampleId\.component must be a non-zero integer/);
  });

  it('refuses overrides nested 5,000 levels deep with a red status and an error naming the setting\'s path (no stack overflow)', async () => {
    const nested = `{"results":${'{"value":'.repeat(5000)}1${'}'.repeat(5000)}}`;
    await load('generic-lis2a2', nested);
    const node = helper.getNode('m');
    assert.equal(lastStatus(node)?.fill, 'red');
    const caught = collect('caught');
    node.receive(received('H|\\^&\rL|1\r') as never);
    // Raised to Catch once the flows started, and again for the message it could not read.
    await waitUntil(() => caught.length >= 1);
    const error = caught[caught.length - 1]!.error as Record<string, unknown>;
    assert.equal(error.code, 'NOT_CONFIGURED');
    assert.match(String(error.message), /dialect overrides: results(\.value){31}: the overrides are nested deeper than 32 levels/);
  });

  it('lists the dialects for the editor', async () => {
    await load('generic-lis2a2');
    const res = await helper.request().get('/lis-bridge/dialects').expect(200);
    const ids = (res.body as Array<{ id: string }>).map((d) => d.id);
    for (const id of ['generic-lis2a2', 'roche-cobas-e411', 'mindray-cl', 'sysmex-xn']) assert.ok(ids.includes(id), id);
  });
});

describe('astm-message answer order', () => {
  it('holds a "no information" answer that names no sample until the earlier query is answered', async () => {
    await load('generic-lis2a2');
    const sent = collect('send');
    const node = helper.getNode('m');
    node.receive(received('H|\\^&\rQ|1|^SLOW1||ALL||||||||O\rL|1|N\r') as never);
    node.receive(received('H|\\^&\rQ|1|^NOORDER-FAST||ALL||||||||O\rL|1|N\r') as never);
    // The LIS answers the later query first: "not found".
    node.receive({ payload: 'NOORDER-FAST' } as never);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(sent.length, 0, 'L|1|I would be paired with SLOW1, the oldest open query: it waits');
    node.receive({ payload: { ...anOrder('SLOW1'), instrumentTests: ['GLU'] } } as never);
    await waitUntil(() => sent.length === 2);
    const first = decodeMessage((sent[0]!.payload as Buffer).toString('latin1'));
    const second = decodeMessage((sent[1]!.payload as Buffer).toString('latin1'));
    assert.equal((first.records.find((r) => r.type === 'O') as unknown as Record<string, unknown>).specimenId, 'SLOW1');
    assert.equal((second.records.at(-1) as unknown as Record<string, unknown>).terminationCode, 'I');
  });
});
