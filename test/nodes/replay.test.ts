/**
 * An operator's replay through the deployed flow, in a Node-RED runtime with
 * the loopback LIS: results delivered once over astm-link (bytes as a serial
 * node hands them over), the mapping then edited, and the link's trace
 * replayed: a dry run reaches nothing, "new" sends only what the LIS never
 * got, "all" sends again and the journal says so. A paste never seen before
 * goes once with "new". The replayed messages never reach the line nor the
 * journal's received messages.
 */
import type { ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useLisStub } from '../support/lifecycle';
import { FAST } from '../support/lis-flow';
import { ALL_LIS_NODES, collect, helper, journalDir, nodeModules, waitUntil } from '../support/red';
import { readJournalFile } from '../support/journal-file';
import { buildFrames } from '../../lib/protocols/astm/link';
import { resultMessage } from '../support/result-message';

const ctx = useLisStub();

const GLU_ONLY = [{ lisTestId: 'T-GLU', lisCode: 'GLU', lisName: 'Glucose', instrumentCode: 'GLU' }];
const GLU_AND_CREA = [...GLU_ONLY, { lisTestId: 'T-CREA', lisCode: 'CREA', lisName: 'Creatinine', instrumentCode: 'CREA' }];

async function load(): Promise<void> {
  const flow = [
    { id: 'lisCfg', type: 'lis-config', resultApiUrl: ctx.stub.url('/results'), ...FAST },
    { id: 'lnk', type: 'astm-link', wires: [['hLine'], ['msgr'], []] },
    { id: 'hLine', type: 'helper' },
    { id: 'msgr', type: 'astm-message', dialect: 'generic-lis2a2', timeZone: 'Europe/Berlin', wires: [[], ['mapper'], ['hToLink'], ['hOther']] },
    { id: 'hToLink', type: 'helper' },
    { id: 'hOther', type: 'helper' },
    { id: 'mapper', type: 'test-mapper', direction: 'toLis', unmapped: 'warn', mapping: GLU_ONLY, wires: [['sender'], []] },
    { id: 'sender', type: 'lis-send-results', lis: 'lisCfg', wires: [['hOut']] },
    { id: 'hOut', type: 'helper' },
  ];
  await helper.load(nodeModules(...ALL_LIS_NODES) as never, flow as never, { lisCfg: { bearerToken: 'replay-test-token' } } as never);
}

/** The analyzer on the serial line: ENQ, one frame, EOT after the frame's ACK. */
async function analyzerSends(text: string, line: Array<Record<string, unknown>>): Promise<void> {
  const link = helper.getNode('lnk');
  const before = line.length;
  link.receive({ payload: Buffer.of(0x05) } as never);
  await waitUntil(() => line.length >= before + 1, 3000, 'the ACK of ENQ');
  const [frame] = buildFrames(Buffer.from(text, 'latin1'), { frameTextMax: 240 });
  link.receive({ payload: frame } as never);
  await waitUntil(() => line.length >= before + 2, 3000, 'the ACK of the frame');
  link.receive({ payload: Buffer.of(0x04) } as never);
}

type Report = Record<string, any>;
const replay = async (body: Record<string, unknown>): Promise<Report> => {
  const res = await helper.request().post('/lis-bridge/links/lnk/replay').send(body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.settled, true, `the flow settled: ${JSON.stringify(res.body)}`);
  return res.body as Report;
};
const posted = () => ctx.stub.to('/results').map((r) => (r.json as { results: unknown[] }).results);
const sample = (report: Report, s: string) => (report.samples as Report[]).find((x) => x.sampleNumber === s)!;

describe('replay through the deployed flow', () => {
  it('a trace range after a mapping edit: dry run, then "new", then "all", never twice unasked', async () => {
    ctx.stub.reply('/results', { body: { status: 'success' } });
    await load();
    const line = collect('hLine');
    const out = collect('hOut');
    const from = new Date(Date.now() - 1000).toISOString();
    await analyzerSends(resultMessage('S-R1'), line);
    await waitUntil(() => out.length === 1, 3000, 'the first results at the LIS');
    assert.deepEqual(posted(), [[{ SampleNumber: 'S-R1', TestCode: 'GLU', Result: '5.4' }]]);
    const lineBytes = line.length;
    const received = readJournalFile(journalDir()).messages.size;

    // The integrator maps creatinine too.
    helper.getNode('mapper').receive({ topic: 'mapping', payload: GLU_AND_CREA } as never);
    const range = { from, to: new Date(Date.now() + 1000).toISOString() };

    const dry = await replay(range);
    assert.equal(dry.mode, 'none');
    assert.equal(dry.source, 'trace');
    assert.equal(dry.messages, 1);
    assert.deepEqual(sample(dry, 'S-R1').atLis, [{ SampleNumber: 'S-R1', TestCode: 'GLU', Result: '5.4' }]);
    assert.deepEqual(sample(dry, 'S-R1').wouldSend, [{ SampleNumber: 'S-R1', TestCode: 'CREA', Result: '88' }]);
    assert.deepEqual(sample(dry, 'S-R1').sent, []);
    assert.equal(posted().length, 1, 'a dry run sends nothing');

    const fresh = await replay({ ...range, send: 'new' });
    assert.deepEqual(sample(fresh, 'S-R1').sent, [{ SampleNumber: 'S-R1', TestCode: 'CREA', Result: '88' }]);
    assert.deepEqual(posted().slice(1), [[{ SampleNumber: 'S-R1', TestCode: 'CREA', Result: '88' }]], 'only the result the LIS never got');

    const again = await replay({ ...range, send: 'new' });
    assert.deepEqual(sample(again, 'S-R1').sent, []);
    assert.equal(sample(again, 'S-R1').atLis.length, 2);
    assert.equal(posted().length, 2, 'nothing reaches the LIS twice');

    const all = await replay({ ...range, send: 'all' });
    assert.equal(sample(all, 'S-R1').sent.length, 2);
    assert.deepEqual(posted().at(-1), [
      { SampleNumber: 'S-R1', TestCode: 'GLU', Result: '5.4' },
      { SampleNumber: 'S-R1', TestCode: 'CREA', Result: '88' },
    ]);
    const journal = readJournalFile(journalDir());
    const resent = journal.lines.find((l) => l.e === 'tx' && l.key === `replay:${all.id}:1#0`);
    assert.deepEqual(resent?.replay, { id: all.id, mode: 'all', resent: 2 });
    assert.equal(journal.batches.get(`replay:${all.id}:1#0`)?.state, 'delivered');

    // Never on the line, never stored as received, and the report can be read again.
    assert.equal(line.length, lineBytes, 'nothing was written to the analyzer');
    assert.equal(journal.messages.size, received, 'no replayed message in the journal as received');
    const later = (await helper.request().get(`/lis-bridge/replays/${all.id}`).expect(200)).body as Report;
    assert.deepEqual(later, all);
  });

  it('a paste never seen before goes once with "new"; the report shows what was unmapped and unassigned', async () => {
    ctx.stub.reply('/results', { body: { status: 'success' } });
    await load();
    const paste = resultMessage('S-P1', '6.1').replace(/\r/g, '\n') + 'H|\\^&|||ANALYZER^1\nO|1|||^^^GLU|R\nR|1|^^^GLU|7.7|mmol/L||N||F\nL|1|N\n';
    const first = await replay({ text: paste, send: 'new' });
    assert.equal(first.messages, 2);
    assert.deepEqual(sample(first, 'S-P1').sent, [{ SampleNumber: 'S-P1', TestCode: 'GLU', Result: '6.1' }]);
    assert.deepEqual(sample(first, 'S-P1').unmapped.map((u: Report) => u.instrumentCode), ['CREA']);
    assert.equal(first.unassigned.length, 1, JSON.stringify(first.unassigned));
    assert.equal(first.unassigned[0].message, 2);
    assert.deepEqual(posted(), [[{ SampleNumber: 'S-P1', TestCode: 'GLU', Result: '6.1' }]]);

    const second = await replay({ text: paste, send: 'new' });
    assert.deepEqual(sample(second, 'S-P1').sent, []);
    assert.equal(posted().length, 1, 'delivered once');
  });

  it('five replays of one capture started together: the LIS gets each result once (a result in flight counts as at the LIS)', async () => {
    // The LIS keeps every answer until the test lets it go: a replay that sends does so while the others are deciding.
    const parked: ServerResponse[] = [];
    ctx.stub.handle('/results', () => ({ write: (res) => parked.push(res) }));
    await load();
    const paste = resultMessage('S-C1');
    const started = await Promise.all(
      Array.from({ length: 5 }, () => helper.request().post('/lis-bridge/links/lnk/replay').send({ text: paste, send: 'new', wait: 0 })),
    );
    const ids = started.map((res) => {
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.id as string;
    });
    const reports = () => Promise.all(ids.map(async (id) => (await helper.request().get(`/lis-bridge/replays/${id}`).expect(200)).body as Report));
    // Every replay either sent (its request is parked at the LIS) or decided not to.
    await waitUntil(async () => posted().length + (await reports()).filter((r) => r.settled).length >= 5, 5000, 'every replay sent or decided');
    const answer = JSON.stringify({ status: 'success' });
    for (const res of parked) res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(answer.length) }).end(answer);
    await waitUntil(async () => (await reports()).every((r) => r.settled), 5000, 'every replay settled');
    assert.deepEqual(posted(), [[{ SampleNumber: 'S-C1', TestCode: 'GLU', Result: '5.4' }]], 'the result went to the LIS once');
    const final = await reports();
    assert.equal(final.filter((r) => sample(r, 'S-C1').sent.length === 1).length, 1, 'one replay sent it');
    for (const r of final.filter((x) => sample(x, 'S-C1').sent.length === 0)) assert.deepEqual(sample(r, 'S-C1').atLis, [{ SampleNumber: 'S-C1', TestCode: 'GLU', Result: '5.4' }]);
  });

  it('a replay while the live flow sends the same result: not sent twice', async () => {
    const parked: ServerResponse[] = [];
    ctx.stub.handle('/results', () => ({ write: (res) => parked.push(res) }));
    await load();
    const line = collect('hLine');
    const out = collect('hOut');
    await analyzerSends(resultMessage('S-L1'), line);
    await waitUntil(() => parked.length === 1, 3000, 'the live batch at the LIS');
    const res = await helper.request().post('/lis-bridge/links/lnk/replay').send({ text: resultMessage('S-L1'), send: 'all' }).expect(200);
    assert.equal(res.body.settled, true, JSON.stringify(res.body));
    assert.deepEqual(sample(res.body as Report, 'S-L1').sent, [], 'not even "all" sends a result while its batch is in flight');
    assert.deepEqual(sample(res.body as Report, 'S-L1').atLis, [{ SampleNumber: 'S-L1', TestCode: 'GLU', Result: '5.4' }]);
    const answer = JSON.stringify({ status: 'success' });
    for (const r of parked) r.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(answer.length) }).end(answer);
    await waitUntil(() => out.length === 1, 3000, 'the live batch delivered');
    assert.equal(posted().length, 1, 'the live batch only');
  });

  it('refuses a body it cannot replay, and a link that is not deployed', async () => {
    await load();
    const res = await helper.request().post('/lis-bridge/links/lnk/replay').send({ send: 'twice' }).expect(400);
    assert.match(res.body.errors.join('\n'), /send must be one of/);
    await helper.request().post('/lis-bridge/links/nope/replay').send({ text: resultMessage('S-X') }).expect(404);
    const none = await helper.request().post('/lis-bridge/links/lnk/replay').send({ text: 'hello' }).expect(422);
    assert.match(none.body.message, /no message found in the paste/);
    await helper.request().get('/lis-bridge/replays/unknown').expect(404);
  });

  it('refuses a paste over the size a replay takes with 413, naming the limit', async () => {
    await load();
    const one = resultMessage('S-BIG');
    const paste = one.repeat(Math.ceil((2 * 1024 * 1024 + 1) / one.length));
    const res = await helper.request().post('/lis-bridge/links/lnk/replay').send({ text: paste }).expect(413);
    assert.match(res.body.message, /the paste holds \d+ bytes of messages, more than the 2 MiB \(2097152 bytes\) a replay takes: replay it in parts/);
  });
});
