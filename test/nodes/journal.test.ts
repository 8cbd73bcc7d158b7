/**
 * The result journal in a Node-RED runtime, end to end: an analyzer's bytes
 * into astm-link (framed, as a serial node would hand them over), through
 * astm-message (generic LIS2-A2) and test-mapper, to lis-send-results and a
 * loopback LIS. What is checked is what the journal promises: no final ACK
 * before the message is on disk, no ACK at all when it cannot be stored,
 * nothing lost and nothing sent twice across restarts, and held batches that
 * only an operator (or auto-resend, for what provably never left) sends again.
 * The held batches' periodic check (age warning, auto-resend) runs when a test
 * says so (runChecksNow), never on a wait for its interval.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { useLisStub } from '../support/lifecycle';
import { FAST } from '../support/lis-flow';
import { ALL_LIS_NODES, blockJournalForNextLoads, bridgeSettingsForTests, allCaught, collect, helper, journalDir, keepJournalForNextLoad, nodeModules, waitUntil } from '../support/red';
import { statusOf, statusesOf, warningsOf } from '../support/node-spies';
import { readJournalFile, writeJournal } from '../support/journal-file';
import { LisGate, anOrder } from '../support/lis-stub';
import { buildFrames } from '../../lib/protocols/astm/link';
import { closeAllJournals } from '../../lib/journal/registry';
import { resultMessage } from '../support/result-message';
import { sleep } from '../support/wait';
import { runChecksNow } from '../../nodes/shared/periodic';

const ctx = useLisStub();

const ENQ = Buffer.from([0x05]);
const EOT = Buffer.from([0x04]);
const ACK = 0x06;
const NAK = 0x15;
/** For check rounds run ahead of the clock: runChecksNow({ now: Date.now() + 60 * MINUTE }). */
const MINUTE = 60_000;

const MAPPING = [
  { lisTestId: 'T-GLU', lisCode: 'GLU', lisName: 'Glucose', instrumentCode: 'GLU' },
  { lisTestId: 'T-CREA', lisCode: 'CREA', lisName: 'Creatinine', instrumentCode: 'CREA' },
];

/** What lis-send-results posts for resultMessage(sample). */
function lisItems(sample: string, glucose = '5.4'): unknown[] {
  return [
    { SampleNumber: sample, TestCode: 'GLU', Result: glucose },
    { SampleNumber: sample, TestCode: 'CREA', Result: '88' },
  ];
}

interface ChainOptions {
  /** lis-config overrides (resultApiUrl defaults to the stub). */
  config?: Record<string, unknown>;
  /** lis-send-results properties. */
  sender?: Record<string, unknown>;
  /** The sender's node id (a different id is a different node: its held batches are not its own). */
  senderId?: string;
  /** astm-link's message output wired to a helper only: the LIS path is not deployed. */
  linkOnly?: boolean;
  /** test-mapper's rows (MAPPING when not given). */
  mapping?: unknown[];
}

/**
 * Node ids are chosen so that none equals a property value of another node
 * (Node-RED would take it for a config-node reference).
 */
async function loadChain(opts: ChainOptions = {}): Promise<void> {
  const senderId = opts.senderId ?? 'sender';
  const flow: Array<Record<string, unknown>> = [
    { id: 'lisCfg', type: 'lis-config', resultApiUrl: ctx.stub.url('/results'), ...FAST, ...opts.config },
    { id: 'lnk', type: 'astm-link', wires: [['hLine'], opts.linkOnly ? ['hMessages'] : ['msgr', 'hMessages'], ['hSent']] },
    { id: 'hLine', type: 'helper' },
    { id: 'hMessages', type: 'helper' },
    { id: 'hSent', type: 'helper' },
    { id: 'catcher', type: 'catch', scope: null, uncaught: false, wires: [['hCaught']] },
    { id: 'hCaught', type: 'helper' },
  ];
  if (!opts.linkOnly) {
    flow.push(
      { id: 'msgr', type: 'astm-message', dialect: 'generic-lis2a2', timeZone: 'Europe/Berlin', wires: [['hQuery'], ['mapper'], ['hToLink'], ['hOther']] },
      { id: 'hQuery', type: 'helper' },
      { id: 'hToLink', type: 'helper' },
      { id: 'hOther', type: 'helper' },
      { id: 'mapper', type: 'test-mapper', direction: 'toLis', unmapped: 'warn', mapping: opts.mapping ?? MAPPING, wires: [[senderId], ['hUnmapped']] },
      { id: 'hUnmapped', type: 'helper' },
      { id: senderId, type: 'lis-send-results', lis: 'lisCfg', wires: [['hOut']], ...opts.sender },
      { id: 'hOut', type: 'helper' },
    );
  }
  await helper.load(nodeModules(...ALL_LIS_NODES) as never, flow as never, { lisCfg: { bearerToken: 'journal-test-token' } } as never);
}

/** A restart of Node-RED: the runtime stops (journals closed), and starts again on the same journal directory. */
async function restart(opts: ChainOptions = {}): Promise<void> {
  keepJournalForNextLoad();
  await helper.unload();
  await loadChain(opts);
}

interface Reply {
  byte: number;
  /** Received messages (rx lines) in the journal file at the moment astm-link sent the reply. */
  rxInFile: number;
}

/**
 * The analyzer's side of the serial line: feeds astm-link bytes as a serial
 * node would, and notes every reply byte together with what the journal file
 * held at the moment astm-link handed that byte to Node-RED (its send() call,
 * before any serial node could write it).
 */
class Analyzer {
  readonly replies: Reply[] = [];
  private read = 0;

  constructor(private readonly dir: () => string = journalDir) {
    const link = helper.getNode('lnk') as unknown as { send: (msg: unknown) => void };
    const send = link.send;
    link.send = (msg: unknown) => {
      const line = Array.isArray(msg) ? (msg[0] as { payload?: Buffer } | null) : null;
      if (line?.payload) {
        const rxInFile = readJournalFile(this.dir()).messages.size;
        for (const byte of line.payload) this.replies.push({ byte, rxInFile });
      }
      send.call(link, msg);
    };
  }

  feed(bytes: Buffer): void {
    helper.getNode('lnk').receive({ payload: bytes } as never);
  }

  async reply(what = 'a reply'): Promise<Reply> {
    const want = this.read + 1;
    await waitUntil(() => this.replies.length >= want, 3000, what);
    return this.replies[this.read++]!;
  }

  /**
   * ENQ, the message's frames one at a time (each after the reply to the one
   * before), then EOT. Returns the reply to each frame. With `stopAtNak` it
   * stops at the first frame not ACKed, without EOT.
   */
  async send(text: string, opts: { frameTextMax?: number; stopAtNak?: boolean } = {}): Promise<Reply[]> {
    const frames = buildFrames(Buffer.from(text, 'latin1'), { frameTextMax: opts.frameTextMax ?? 60 });
    this.feed(ENQ);
    assert.equal((await this.reply('the ACK of ENQ')).byte, ACK);
    const out: Reply[] = [];
    for (const [i, f] of frames.entries()) {
      this.feed(f);
      const r = await this.reply(`the reply to frame ${i + 1} of ${frames.length}`);
      out.push(r);
      if (r.byte !== ACK && opts.stopAtNak) return out;
    }
    this.feed(EOT);
    return out;
  }

  /** Sends one frame again (the analyzer's answer to a NAK). */
  async resend(frame: Buffer): Promise<Reply> {
    this.feed(frame);
    return this.reply('the reply to the repeated frame');
  }
}

const errorCode = (m: Record<string, unknown>): unknown => (m.error as Record<string, unknown> | undefined)?.code;
const errorSource = (m: Record<string, unknown>): unknown => ((m.error as Record<string, unknown> | undefined)?.source as Record<string, unknown> | undefined)?.id;
const heldList = async (): Promise<{ batches: Array<Record<string, unknown>>; stuck: unknown[]; holds: Array<Record<string, unknown>> }> => (await helper.request().get('/lis-bridge/held').expect(200)).body;
const statusText = (id: string): string => String(statusOf(id)?.text ?? '');

/** The one batch the journal file holds. */
function onlyBatch(): { key: string; state: string; history: string[]; notSent: boolean; error?: { code: string } } {
  const { batches } = readJournalFile(journalDir());
  assert.equal(batches.size, 1, `one batch in the journal, found ${[...batches.keys()].join(', ')}`);
  return [...batches.values()][0]!;
}

describe('journal: the final ACK waits for the disk', () => {
  it('ACKs the final frame only once the message is in the journal file', async () => {
    ctx.stub.reply('/results', { body: { status: 'success' } });
    await loadChain();
    const analyzer = new Analyzer();
    const out = collect('hOut');
    const replies = await analyzer.send(resultMessage('S-ACK'));
    assert.ok(replies.length >= 3, `a message of several frames (${replies.length})`);
    assert.ok(
      replies.every((r) => r.byte === ACK),
      'every frame ACKed',
    );
    // Intermediate frames are ACKed at once, before anything is stored (the check below is not vacuous)...
    assert.ok(replies.slice(0, -1).every((r) => r.rxInFile === 0), 'nothing stored before the final frame');
    // ...and the final frame's ACK only reached the line with the rx line already on disk.
    assert.equal(replies.at(-1)!.rxInFile, 1, 'the rx line was in the file when the final ACK went out');

    await waitUntil(() => out.length === 1, 3000, 'the results at the LIS');
    const { messages } = readJournalFile(journalDir());
    const [rx] = [...messages.values()];
    assert.equal(rx!.data.toString('latin1'), resultMessage('S-ACK'), 'the exact bytes are stored');
    assert.equal(rx!.link, 'lnk');
    const batch = onlyBatch();
    assert.equal(batch.key, `${rx!.id}#0`);
    assert.deepEqual(batch.history, ['sending', 'delivered']);
    assert.deepEqual(ctx.stub.to('/results').map((r) => r.json), [{ results: lisItems('S-ACK') }]);
  });

  it('ACKs a message of queries only at once and does not store it: it carries no result to lose', async () => {
    await loadChain();
    const analyzer = new Analyzer();
    const queries = collect('hQuery');
    const query = 'H|\\^&|||ANALYZER^1|||||LIS||P|LIS2-A2|20261121094500\rQ|1|^S-Q1||ALL||||||||O\rL|1|N\r';
    const replies = await analyzer.send(query);
    assert.ok(replies.every((r) => r.byte === ACK && r.rxInFile === 0), 'every frame ACKed, nothing in the journal');
    await waitUntil(() => queries.length === 1, 3000, 'the query on astm-message output 1');
    assert.equal(queries[0]!.payload, 'S-Q1');
    assert.equal((queries[0]!.astm as Record<string, unknown>).journalId, undefined);
    // A result message on the same link is still stored before its final ACK.
    const results = await analyzer.send(resultMessage('S-Q2'));
    assert.equal(results.at(-1)!.rxInFile, 1);
    assert.equal(readJournalFile(journalDir()).messages.size, 1);
  });

  it('NAKs the final frame when the journal cannot be opened, reports JOURNAL to Catch, and sends nothing', async (t) => {
    const blocked = blockJournalForNextLoads();
    // t.after runs after afterEach has unloaded the flow: nothing can open the journal path any more.
    t.after(() => rmSync(blocked.blocker, { recursive: true, force: true }));
    try {
      ctx.stub.reply('/results', { body: { status: 'success' } });
      await loadChain();
      const caught = collect('hCaught');
      const messages = collect('hMessages');
      const analyzer = new Analyzer(() => blocked.journal);
      const text = resultMessage('S-NOSTORE');
      const replies = await analyzer.send(text, { stopAtNak: true });
      const frames = buildFrames(Buffer.from(text, 'latin1'), { frameTextMax: 60 });
      assert.equal(replies.length, frames.length, 'every frame answered');
      assert.ok(replies.slice(0, -1).every((r) => r.byte === ACK));
      assert.equal(replies.at(-1)!.byte, NAK, 'the final frame is NAKed, so the analyzer keeps the message');
      // The analyzer repeats the frame; still nowhere to store it: NAK again.
      assert.equal((await analyzer.resend(frames.at(-1)!)).byte, NAK);
      analyzer.feed(EOT);
      await waitUntil(() => caught.some((m) => errorSource(m) === 'lnk' && /could not be stored/.test(String((m.error as Record<string, unknown>).message))), 3000, 'JOURNAL from astm-link');
      const fromLink = caught.filter((m) => errorSource(m) === 'lnk');
      assert.ok(fromLink.every((m) => errorCode(m) === 'JOURNAL'), JSON.stringify(fromLink.map((m) => m.error)));
      assert.ok(caught.some((m) => errorSource(m) === 'sender' && errorCode(m) === 'JOURNAL'), 'lis-send-results says it cannot send safely');
      await sleep(100);
      assert.equal(messages.length, 0, 'the message was not passed on');
      assert.equal(ctx.stub.requests.length, 0, 'nothing reached the LIS');
      assert.equal(analyzer.replies.at(-1)!.byte, NAK, 'no late ACK after the NAKs');
    } finally {
      bridgeSettingsForTests({});
    }
  });

  it(
    'passes on a message whose final ACK never went out (the analyzer ended the transfer first), and not its repeat',
    async () => {
      ctx.stub.reply('/results', { body: { status: 'success' } });
      await loadChain();
      const analyzer = new Analyzer();
      const text = resultMessage('S-GAVEUP');
      const frames = buildFrames(Buffer.from(text, 'latin1'), { frameTextMax: 60 });
      analyzer.feed(ENQ);
      await analyzer.reply();
      for (const f of frames.slice(0, -1)) {
        analyzer.feed(f);
        assert.equal((await analyzer.reply()).byte, ACK);
      }
      // The final frame, then EOT before any reply (as after the analyzer's own time-outs while the disk is slow).
      analyzer.feed(frames.at(-1)!);
      analyzer.feed(EOT);
      await sleep(300);
      assert.ok(!analyzer.replies.slice(frames.length).some((r) => r.byte === ACK), 'the final frame was never ACKed');
      // An analyzer that does not wait for ACKs never repeats it: the stored copy goes on, nothing is lost.
      await waitUntil(() => ctx.stub.to('/results').length === 1, 3000, 'the stored copy at the LIS');
      // A conforming analyzer never heard the ACK, so it repeats the message: the repeat is not sent again.
      await analyzer.send(text);
      await sleep(300);
      assert.equal(ctx.stub.to('/results').length, 1, 'the results reach the LIS once, not once per copy');
    },
  );

  it('NAKs the final frame when a write to an open journal fails, and sends nothing', async () => {
    ctx.stub.reply('/results', { body: { status: 'success' } });
    await loadChain();
    const caught = collect('hCaught');
    const messages = collect('hMessages');
    const analyzer = new Analyzer();
    // One message through, so the journal is open and working...
    await analyzer.send(resultMessage('S-FIRST'));
    await waitUntil(() => ctx.stub.to('/results').length === 1, 3000, 'the first results');
    // ...then every write fails (the journal underneath is closed, as on an I/O error).
    await closeAllJournals();
    const replies = await analyzer.send(resultMessage('S-SECOND'), { stopAtNak: true });
    assert.equal(replies.at(-1)!.byte, NAK);
    analyzer.feed(EOT);
    await waitUntil(() => caught.some((m) => errorSource(m) === 'lnk' && errorCode(m) === 'JOURNAL'), 3000, 'JOURNAL from astm-link');
    await sleep(100);
    assert.equal(messages.length, 1, 'only the stored message was passed on');
    assert.equal(ctx.stub.to('/results').length, 1, 'the unstored message never reached the LIS');
  });
});

describe('journal: restarts', () => {
  it('processes a message stored but never handed to the LIS again after a restart, exactly once', async () => {
    ctx.stub.reply('/results', { body: { status: 'success' } });
    // The LIS path is not there: the message is stored and ACKed, then Node-RED stops.
    await loadChain({ linkOnly: true });
    const analyzer = new Analyzer();
    const stored = collect('hMessages');
    const replies = await analyzer.send(resultMessage('S-REPLAY'));
    assert.ok(replies.every((r) => r.byte === ACK));
    await waitUntil(() => stored.length === 1);
    const journalId = (stored[0]!.astm as Record<string, unknown>).journalId;
    assert.equal(typeof journalId, 'string');

    await restart();
    const out = collect('hOut');
    await waitUntil(() => out.length === 1, 3000, 'the replayed results at the LIS');
    assert.deepEqual(ctx.stub.to('/results').map((r) => r.json), [{ results: lisItems('S-REPLAY') }]);
    assert.equal((out[0]!.astm as Record<string, unknown>).replay, true, 'marked as a replay');
    assert.deepEqual(out[0]!.processed, [{ SampleNumber: 'S-REPLAY', Tests: ['T-GLU', 'T-CREA'] }]);
    assert.ok(warningsOf('lnk').some((w) => /^1 message stored before the last stop .* was processed again/.test(w)), warningsOf('lnk').join(' | '));
    await waitUntil(() => readJournalFile(journalDir()).messages.get(journalId as string)?.parts === 1, 2000, 'the message noted as translated');
    const rx = readJournalFile(journalDir()).messages.get(journalId as string)!;
    assert.equal(rx.replayed, true);
    assert.deepEqual(onlyBatch().history, ['sending', 'delivered']);

    await restart();
    await sleep(300);
    assert.equal(ctx.stub.to('/results').length, 1, 'a further restart does not send it again');
    assert.ok(!warningsOf('lnk').some((w) => /processed again/.test(w)), 'nothing replayed the second time');
    assert.deepEqual((await heldList()).stuck, [], 'nothing stuck');
  });

  it('holds each result no LIS test is mapped for, one hold per code, at once: the message is settled, never replayed by itself, and the results reach the LIS once when a person sends them after mapping', async () => {
    ctx.stub.reply('/results', { body: { status: 'success' } });
    const onlyPotassium = [{ lisTestId: 'T-K', lisCode: 'K', lisName: 'Potassium', instrumentCode: 'K' }];
    await loadChain({ mapping: onlyPotassium });
    const analyzer = new Analyzer();
    const unmapped = collect('hUnmapped');
    const stored = collect('hMessages');
    const caught = collect('hCaught');
    assert.ok((await analyzer.send(resultMessage('S-NOMAP'))).every((r) => r.byte === ACK));
    await waitUntil(() => unmapped.length === 1, 3000, 'the results on test-mapper output 2');
    const journalId = String((stored[0]!.astm as Record<string, unknown>).journalId);
    await waitUntil(async () => (await heldList()).holds.length === 2, 3000, 'two holds listed');
    const { holds, stuck } = await heldList();
    assert.deepEqual(
      holds.map((h) => [h.id, h.kind, h.code, h.samples, h.results, h.link, h.node, h.state, h.deployed]),
      [
        [`${journalId}#0:unmapped:GLU`, 'unmapped', 'GLU', ['S-NOMAP'], 1, 'lnk', 'mapper', 'open', true],
        [`${journalId}#0:unmapped:CREA`, 'unmapped', 'CREA', ['S-NOMAP'], 1, 'lnk', 'mapper', 'open', true],
      ],
    );
    assert.match(String(holds[0]!.reason), /no LIS test is mapped to instrument test GLU/);
    assert.deepEqual(stuck, [], 'held, not stuck: each result has its end');
    assert.equal(readJournalFile(journalDir()).messages.get(journalId)!.parts, 1);
    await waitUntil(() => /0 mapped · 2 held/.test(statusText('mapper')), 2000, 'the mapper status');
    await allCaught('hCaught', caught);
    assert.deepEqual(caught.filter((m) => errorCode(m) === 'STUCK'), []);

    // Still unmapped: sending is refused, naming what to do, and nothing is sent.
    const refused = await helper.request().post('/lis-bridge/holds/send').send({ ids: [holds[0]!.id] }).expect(409);
    assert.match(String(refused.body.message), /still cannot be mapped \(no LIS test is mapped to instrument test GLU\): map the code in this test-mapper, deploy, then send them/);

    await restart({ mapping: onlyPotassium });
    await allCaught('hCaught', collect('hCaught'));
    assert.equal(ctx.stub.to('/results').length, 0, 'nothing reached the LIS');
    assert.ok(!warningsOf('lnk').some((w) => /processed again/.test(w)), `not replayed by itself: ${warningsOf('lnk').join(' | ')}`);
    assert.equal((await heldList()).holds.length, 2, 'still held after the restart');

    // The integrator maps the codes and deploys; a person sends the held results from the list.
    await restart();
    const out = collect('hOut');
    const ids = (await heldList()).holds.map((h) => String(h.id));
    await helper.request().post('/lis-bridge/holds/send').send({ ids }).expect(200);
    await waitUntil(() => out.length === 2, 3000, 'the held results at the LIS');
    assert.deepEqual(ctx.stub.to('/results').map((r) => r.json), [{ results: [lisItems('S-NOMAP')[0]] }, { results: [lisItems('S-NOMAP')[1]] }]);
    assert.deepEqual(out.map((m) => m.processed), [[{ SampleNumber: 'S-NOMAP', Tests: ['T-GLU'] }], [{ SampleNumber: 'S-NOMAP', Tests: ['T-CREA'] }]], 'each for lis-mark-processed');
    assert.deepEqual((await heldList()).holds, [], 'none held once sent');
    const again = await helper.request().post('/lis-bridge/holds/send').send({ ids }).expect(409);
    assert.match(String(again.body.message), /are sent already/);
    await restart();
    await allCaught('hCaught', collect('hCaught'));
    assert.equal(ctx.stub.to('/results').length, 2, 'sent once, across a restart');
    assert.deepEqual((await heldList()).holds, []);
  });

  it('holds the results of a sample number that cannot be trusted (a raw delimiter in it), by code, before the message counts as translated; they cannot be sent, only dismissed', async () => {
    ctx.stub.reply('/results', { body: { status: 'success' } });
    await loadChain();
    const analyzer = new Analyzer();
    const stored = collect('hMessages');
    assert.ok((await analyzer.send(resultMessage('RC-BAD2&BARCODE'))).every((r) => r.byte === ACK), 'acknowledged: the message is stored');
    await waitUntil(async () => (await heldList()).holds.length === 2, 3000, 'the two results held');
    const journalId = String((stored[0]!.astm as Record<string, unknown>).journalId);
    const { holds, stuck } = await heldList();
    assert.deepEqual(holds.map((h) => [h.id, h.kind, h.code, h.results, h.node, h.link, h.sendable]), [
      [`${journalId}:unassigned:GLU`, 'unassigned', 'GLU', 1, 'msgr', 'lnk', false],
      [`${journalId}:unassigned:CREA`, 'unassigned', 'CREA', 1, 'msgr', 'lnk', false],
    ]);
    assert.match(String(holds[0]!.reason), /holds "&", a delimiter of its message that arrived unescaped/);
    assert.deepEqual(stuck, []);
    // The sidebar lists a hold as its line is written: wait for both lines to be on disk before comparing them.
    const lineOf = (lines: Array<Record<string, unknown>>) => ({ holdAt: lines.findIndex((e) => e.e === 'hold'), plannedAt: lines.findIndex((e) => e.e === 'rxu' && e.id === journalId && e.parts !== undefined) });
    await waitUntil(() => { const at = lineOf(readJournalFile(journalDir()).lines); return at.holdAt >= 0 && at.plannedAt >= 0; }, 3000, 'the hold and the translated note on disk');
    const { holdAt, plannedAt } = lineOf(readJournalFile(journalDir()).lines);
    assert.ok(holdAt < plannedAt, `held (line ${holdAt}) before the message was noted translated (line ${plannedAt})`);
    const refused = await helper.request().post('/lis-bridge/holds/send').send({ ids: [holds[0]!.id] }).expect(409);
    assert.match(String(refused.body.message), /have no sample number the bridge can trust: place them under the right sample number \(POST \/lis-bridge\/holds\/place, Place in the Lab sidebar\), or dismiss them with why/);
    await helper.request().post('/lis-bridge/holds/dismiss').send({ ids: holds.map((h) => h.id), note: 'entered at the LIS by hand under RC-BAD2' }).expect(200);
    assert.deepEqual((await heldList()).holds, []);
    assert.equal(ctx.stub.to('/results').length, 0, 'nothing under that sample number reached the LIS');
  });

  it('places results held for their sample number under the one a person types, once the LIS order holds their test; refuses, sending nothing, when it does not', async () => {
    ctx.stub.reply('/results', { body: { status: 'success' } });
    ctx.stub.reply('/orders', { body: { status: 'success', order: anOrder('RC-OK', { Tests: ['T-GLU'] }) } });
    await loadChain({ config: { transactionInfoApiUrl: ctx.stub.url('/orders') } });
    const analyzer = new Analyzer();
    const stored = collect('hMessages');
    await analyzer.send(resultMessage('RC-BAD3&BARCODE'));
    await waitUntil(async () => (await heldList()).holds.length === 2, 3000, 'the two results held');
    const journalId = String((stored[0]!.astm as Record<string, unknown>).journalId);
    const holds = (await heldList()).holds;
    assert.deepEqual(holds.map((h) => [h.code, h.placeable, h.deployed]), [['GLU', true, true], ['CREA', true, true]]);
    assert.match(String((holds[0]!.records as string[])[0]), /^R\|1\|\^\^\^GLU\|/, 'the record, for the person who places it');
    const place = (id: string, sampleNumber: string) => helper.request().post('/lis-bridge/holds/place').send({ id, sampleNumber });
    // Creatinine is not on the order RC-OK: refused, nothing sent, the hold still open.
    const refused = await place(`${journalId}:unassigned:CREA`, 'RC-OK').expect(409);
    assert.match(String(refused.body.message), /the LIS order for RC-OK does not hold T-CREA: nothing was sent/);
    assert.equal((ctx.stub.to('/orders').at(-1)?.json as Record<string, unknown> | undefined)?.SampleNumber, 'RC-OK', "the order asked for is the typed sample's");
    // Glucose is: placed, sent once under RC-OK, the user recorded.
    await place(`${journalId}:unassigned:GLU`, 'RC-OK').expect(200);
    await waitUntil(() => ctx.stub.to('/results').length === 1, 5000, 'the placed result at the LIS');
    assert.deepEqual((ctx.stub.to('/results')[0]!.json as { results: unknown[] }).results, [{ SampleNumber: 'RC-OK', TestCode: 'GLU', Result: '5.4' }]);
    const again = await place(`${journalId}:unassigned:GLU`, 'RC-OK').expect(409);
    assert.match(String(again.body.message), /already/);
    await waitUntil(async () => (await heldList()).holds.length === 1, 3000, 'the placed hold ended');
    const lines = readJournalFile(journalDir()).lines;
    const placed = lines.find((e) => e.e === 'holdu' && e.id === `${journalId}:unassigned:GLU`);
    assert.equal(placed?.note, 'placed under RC-OK');
    assert.equal(typeof placed?.by, 'string');
    // A sample the LIS has no order for: refused, named.
    ctx.stub.reply('/orders', { body: { status: 'not found' } });
    const none = await place(`${journalId}:unassigned:CREA`, 'RC-NONE').expect(409);
    assert.match(String(none.body.message), /the LIS has no order for RC-NONE: nothing was sent/);
    const bad = await place(`${journalId}:unassigned:CREA`, 'RC\u0000X').expect(400);
    assert.match(String(bad.body.message), /sampleNumber must be/);
    assert.equal(ctx.stub.to('/results').length, 1, 'only the placed glucose reached the LIS');
  });

  it('a message with one code mapped and one not: the mapped result reaches the LIS, the other is held; dismissed, it says who and why', async () => {
    ctx.stub.reply('/results', { body: { status: 'success' } });
    await loadChain({ mapping: [MAPPING[0]] });
    const analyzer = new Analyzer();
    const out = collect('hOut');
    assert.ok((await analyzer.send(resultMessage('S-HALF'))).every((r) => r.byte === ACK));
    await waitUntil(() => out.length === 1, 3000, 'the mapped result at the LIS');
    assert.deepEqual(ctx.stub.to('/results').map((r) => r.json), [{ results: [lisItems('S-HALF')[0]] }]);
    const { holds } = await heldList();
    assert.deepEqual(holds.map((h) => [h.code, h.samples]), [['CREA', ['S-HALF']]]);
    await helper.request().post('/lis-bridge/holds/dismiss').send({ ids: [holds[0]!.id] }).expect(400);
    await helper.request().post('/lis-bridge/holds/dismiss').send({ ids: [holds[0]!.id], note: 'creatinine is reported from the other analyzer' }).expect(200);
    assert.deepEqual((await heldList()).holds, []);
    const line = readJournalFile(journalDir()).lines.find((e) => e.e === 'holdu');
    assert.deepEqual([line?.action, line?.by, line?.note], ['dismiss', 'admin:anonymous', 'creatinine is reported from the other analyzer']);
    assert.equal(ctx.stub.to('/results').length, 1);
  });

  it('replays a message left unsettled by a process that stopped before translating it, once, even if that replay does not get through', async () => {
    ctx.stub.reply('/results', { body: { status: 'success' } });
    await loadChain({ linkOnly: true });
    const dir = journalDir();
    await helper.unload();
    await writeJournal(dir, (j) => j.received('lnk', 'rx-written', Buffer.from(resultMessage('S-WRITTEN'), 'latin1'), 'terminator'));
    // First restart: the LIS path is still not deployed, so the replay reaches nothing.
    keepJournalForNextLoad();
    await loadChain({ linkOnly: true });
    const replayed = collect('hMessages');
    await waitUntil(() => replayed.length === 1, 2000, 'the replay');
    assert.equal((replayed[0]!.astm as Record<string, unknown>).replay, true);
    assert.equal((replayed[0]!.astm as Record<string, unknown>).journalId, 'rx-written');
    // Replayed once only: a message that fails again is stuck, listed for the operator, not replayed in a loop.
    await restart();
    await sleep(300);
    assert.equal(ctx.stub.requests.length, 0);
    const { stuck } = await heldList();
    assert.equal(stuck.length, 1);
    assert.equal((stuck[0] as Record<string, unknown>).id, 'rx-written');

    // The operator deploys the LIS path and replays the stuck message: its results reach the LIS once.
    await restart();
    await sleep(200);
    assert.equal(ctx.stub.requests.length, 0, 'a start does not replay it again by itself');
    await helper.request().post('/lis-bridge/stuck/no-such-message/replay').expect(404);
    await helper.request().post('/lis-bridge/stuck/rx-written/replay').expect(200);
    await waitUntil(() => ctx.stub.to('/results').length === 1, 3000, 'the replayed results at the LIS');
    assert.ok(readJournalFile(journalDir()).lines.some((e) => e.e === 'rxu' && e.id === 'rx-written' && e.replayBy === 'admin:anonymous'), 'who asked for the replay is on the record');
    await waitUntil(() => readJournalFile(journalDir()).messages.get('rx-written')?.parts === 1, 2000, 'the message settled');
    assert.deepEqual((await heldList()).stuck, []);
    await helper.request().post('/lis-bridge/stuck/rx-written/replay').expect(404);
  });

  it('lets an operator dismiss a stuck message, and refuses to replay one whose astm-link is not deployed', async () => {
    await loadChain({ linkOnly: true });
    const dir = journalDir();
    await helper.unload();
    await writeJournal(dir, async (j) => {
      await j.received('gone-link', 'rx-orphan', Buffer.from(resultMessage('S-ORPHAN'), 'latin1'), 'terminator');
      await j.replayed('rx-orphan');
    });
    keepJournalForNextLoad();
    await loadChain({ linkOnly: true });
    assert.equal((await heldList()).stuck.length, 1);
    const refused = await helper.request().post('/lis-bridge/stuck/rx-orphan/replay').expect(409);
    assert.match(String(refused.body.message), /gone-link.*not deployed/);
    await helper.request().post('/lis-bridge/stuck/rx-orphan/dismiss').expect(200);
    assert.deepEqual((await heldList()).stuck, []);
    assert.match(String(readJournalFile(journalDir()).messages.get('rx-orphan')?.note), /dismissed by admin:/);
  });

  it('does not send twice the batch of a replayed message that was handed to the LIS before the restart', async () => {
    ctx.stub.reply('/results', { body: { status: 'success' } });
    await loadChain();
    const dir = journalDir();
    await helper.unload();
    // Stopped after the batch was delivered but before "translated into 1 batch" was written: the message looks unsettled.
    await writeJournal(dir, async (j) => {
      await j.received('lnk', 'rx-sent', Buffer.from(resultMessage('S-SENT'), 'latin1'), 'terminator');
      await j.beginSend({ key: 'rx-sent#0', node: 'sender', message: 'rx-sent', part: 0, samples: ['S-SENT'], body: lisItems('S-SENT'), msg: { topic: 'results' } });
      await j.settle('rx-sent#0', 'delivered');
    });
    keepJournalForNextLoad();
    await loadChain();
    const out = collect('hOut');
    await waitUntil(() => warningsOf('lnk').some((w) => /processed again/.test(w)), 2000, 'the replay');
    await waitUntil(() => warningsOf('sender').some((w) => /rx-sent#0 .*already delivered: not sent twice/.test(w)), 2000, 'the duplicate warning');
    await sleep(100);
    assert.equal(ctx.stub.requests.length, 0, 'the LIS did not get it again');
    assert.equal(out.length, 0);
    assert.deepEqual([...readJournalFile(dir).batches.values()].map((b) => b.history), [['sending', 'delivered']]);
    // Now settled: a further restart replays nothing.
    await restart();
    await sleep(300);
    assert.equal(ctx.stub.requests.length, 0);
    assert.ok(!warningsOf('lnk').some((w) => /processed again/.test(w)));
  });
});

describe('journal: held batches', () => {
  it('holds a batch the LIS refused (500), lists it, and resends it once on lis:resend with the flow message restored', async () => {
    ctx.stub.reply('/results', { status: 500, body: { message: 'LIS busy', errors: [] } }, { body: { status: 'success' } });
    await loadChain();
    const caught = collect('hCaught');
    const out = collect('hOut');
    const analyzer = new Analyzer();
    await analyzer.send(resultMessage('S-HELD'));
    await waitUntil(() => caught.some((m) => errorSource(m) === 'sender'), 3000, 'the failure at Catch');
    const failure = caught.find((m) => errorSource(m) === 'sender')!;
    assert.equal(errorCode(failure), 'HTTP_STATUS');
    await waitUntil(() => /^1 held/.test(statusText('sender')), 2000, 'status "1 held"');
    assert.equal(out.length, 0);

    const { batches } = await heldList();
    assert.equal(batches.length, 1);
    const held = batches[0]!;
    assert.equal(held.node, 'sender');
    assert.equal(held.state, 'failed');
    assert.equal(held.deployed, true);
    assert.equal(held.notSent, false);
    assert.deepEqual(held.samples, ['S-HELD']);
    assert.equal(held.results, 2);
    assert.equal((held.error as Record<string, unknown>).code, 'HTTP_STATUS');
    assert.equal((held.error as Record<string, unknown>).status, 500);
    // The value 5.4 as a JSON string or number; a time such as 21:08:05.412Z must not count.
    assert.doesNotMatch(JSON.stringify(batches), /[":]5\.4[",}\]]/, 'no result values in the list');
    assert.equal(onlyBatch().key, held.key);

    helper.getNode('sender').receive({ topic: 'lis:resend', payload: held.key } as never);
    await waitUntil(() => out.length === 1, 3000, 'the resent batch on output 1');
    const resent = out[0]!;
    assert.equal((resent.lis as Record<string, unknown>).resent, true);
    assert.equal((resent.lis as Record<string, unknown>).batch, held.key);
    assert.deepEqual(resent.payload, { status: 'success' });
    assert.deepEqual(resent.processed, [{ SampleNumber: 'S-HELD', Tests: ['T-GLU', 'T-CREA'] }], 'msg.processed kept for lis-mark-processed');
    assert.deepEqual(ctx.stub.to('/results').map((r) => r.json), [{ results: lisItems('S-HELD') }, { results: lisItems('S-HELD') }]);
    // A resend is a request like any other (spec 5): the token, a request ID of its own, a time-stamp.
    const [first, again] = ctx.stub.to('/results');
    for (const req of [first!, again!]) {
      assert.equal(req.headers.authorization, 'Bearer journal-test-token');
      assert.ok(req.headers['x-request-timestamp']);
      assert.equal(req.headers['x-expected-sample'], undefined);
    }
    assert.ok(again!.headers['x-request-id'] && again!.headers['x-request-id'] !== first!.headers['x-request-id'], 'a new X-Request-ID');
    assert.deepEqual((await heldList()).batches, []);
    assert.deepEqual(onlyBatch().history, ['sending', 'failed', 'sending', 'delivered']);
    assert.doesNotMatch(statusText('sender'), /^\d+ held/);
    // A second resend finds nothing held: nothing more reaches the LIS.
    helper.getNode('sender').receive({ topic: 'lis:resend', payload: 'all' } as never);
    await sleep(150);
    assert.equal(ctx.stub.to('/results').length, 2);
  });

  it('discards held batches by lis:discard and by the admin endpoint; they never reach the LIS', async () => {
    ctx.stub.reply('/results', { status: 500 });
    await loadChain();
    const caught = collect('hCaught');
    const analyzer = new Analyzer();
    await analyzer.send(resultMessage('S-D1'));
    await waitUntil(() => caught.length === 1, 3000);
    await analyzer.send(resultMessage('S-D2'));
    await waitUntil(() => caught.length === 2, 3000);
    await waitUntil(() => /^2 held/.test(statusText('sender')), 2000, 'status "2 held"');
    const [first, second] = (await heldList()).batches;
    assert.deepEqual([first!.samples, second!.samples], [['S-D1'], ['S-D2']], 'oldest first');

    helper.getNode('sender').receive({ topic: 'lis:discard', payload: first!.key } as never);
    await waitUntil(() => warningsOf('sender').some((w) => w.includes(`held batch ${String(first!.key)}`) && /discarded/.test(w)), 2000, 'the discard warning');
    assert.deepEqual((await heldList()).batches.map((b) => b.key), [second!.key]);

    const res = await helper.request().post(`/lis-bridge/held/${encodeURIComponent(String(second!.key))}/discard`).expect(200);
    assert.equal(res.body.state, 'discarded');
    assert.equal(res.body.results, 2, 'the answer still says what was given up');
    assert.deepEqual((await heldList()).batches, []);
    await helper.request().post(`/lis-bridge/held/${encodeURIComponent(String(second!.key))}/discard`).expect(409);
    await helper.request().post('/lis-bridge/held/no-such-batch/discard').expect(404);
    const states = [...readJournalFile(journalDir()).batches.values()].map((b) => b.state);
    assert.deepEqual(states, ['discarded', 'discarded']);
    assert.equal(ctx.stub.to('/results').length, 2, 'one attempt each, none after the discard');
    assert.doesNotMatch(statusText('sender'), /^\d+ held/, 'the status no longer shows held batches');
  });

  it('resends through the admin endpoint; 404 for an unknown key, 409 for one not held or whose node is not deployed', async () => {
    ctx.stub.reply('/results', { status: 503 }, { status: 503 }, { body: { status: 'success' } });
    await loadChain();
    const caught = collect('hCaught');
    const out = collect('hOut');
    const analyzer = new Analyzer();
    await analyzer.send(resultMessage('S-A1'));
    await analyzer.send(resultMessage('S-A2'));
    await waitUntil(() => caught.length === 2, 3000);
    const [a1, a2] = (await heldList()).batches;

    await helper.request().post('/lis-bridge/held/no-such-batch/resend').expect(404);
    const res = await helper.request().post(`/lis-bridge/held/${encodeURIComponent(String(a1!.key))}/resend`).expect(200);
    assert.equal(res.body.state, 'delivered');
    assert.equal(res.body.results, 2, 'the answer still says what was sent');
    await waitUntil(() => out.length === 1, 2000, 'the resent batch on output 1');
    assert.equal((out[0]!.lis as Record<string, unknown>).resent, true);
    assert.deepEqual(out[0]!.processed, [{ SampleNumber: 'S-A1', Tests: ['T-GLU', 'T-CREA'] }]);
    // Delivered now: not held, so nothing to resend.
    await helper.request().post(`/lis-bridge/held/${encodeURIComponent(String(a1!.key))}/resend`).expect(409);
    assert.equal(ctx.stub.to('/results').length, 3);

    // The flow is redeployed with another sender node: a2 belongs to a node that is gone.
    await restart({ senderId: 'otherSender' });
    const listed = (await heldList()).batches;
    assert.deepEqual(listed.map((b) => [b.key, b.deployed]), [[a2!.key, false]]);
    const refused = await helper.request().post(`/lis-bridge/held/${encodeURIComponent(String(a2!.key))}/resend`).expect(409);
    assert.match(refused.body.message, /not deployed/);
    assert.equal(ctx.stub.to('/results').length, 3, 'nothing sent');
  });

  it('keeps held batches across a restart, still listed and resendable', async () => {
    ctx.stub.reply('/results', { status: 500 }, { body: { status: 'success' } });
    await loadChain();
    const caught = collect('hCaught');
    await new Analyzer().send(resultMessage('S-KEEP'));
    await waitUntil(() => caught.length === 1, 3000);
    const before = (await heldList()).batches;
    assert.equal(before.length, 1);

    await restart();
    await waitUntil(() => /^1 held/.test(statusText('sender')), 2000, 'status "1 held" after the restart');
    const after = (await heldList()).batches;
    assert.deepEqual(after.map((b) => [b.key, b.state, b.deployed]), [[before[0]!.key, 'failed', true]]);
    await sleep(200);
    assert.equal(ctx.stub.to('/results').length, 1, 'not resent (nor replayed) by the restart');

    const out = collect('hOut');
    helper.getNode('sender').receive({ topic: 'lis:resend' } as never);
    await waitUntil(() => out.length === 1, 3000, 'the resent batch');
    assert.deepEqual(out[0]!.processed, [{ SampleNumber: 'S-KEEP', Tests: ['T-GLU', 'T-CREA'] }]);
    assert.equal(ctx.stub.to('/results').length, 2);
    assert.deepEqual(onlyBatch().history, ['sending', 'failed', 'sending', 'delivered']);
  });

  it('brings a batch that was sending when the process died back as uncertain, and never auto-resends it', async () => {
    ctx.stub.reply('/results', { body: { status: 'success' } });
    await loadChain();
    const dir = journalDir();
    await helper.unload();
    await writeJournal(dir, async (j) => {
      await j.received('lnk', 'rx-died', Buffer.from(resultMessage('S-DIED'), 'latin1'), 'terminator');
      await j.planned('rx-died', 1);
      await j.beginSend({ key: 'rx-died#0', node: 'sender', message: 'rx-died', part: 0, samples: ['S-DIED'], body: lisItems('S-DIED'), msg: { processed: [] } });
      // No outcome: the process stopped while the request was out.
    });
    keepJournalForNextLoad();
    await loadChain({ sender: { autoResend: true } });
    const { batches } = await heldList();
    assert.deepEqual(batches.map((b) => [b.key, b.state, b.notSent]), [['rx-died#0', 'uncertain', false]]);
    await waitUntil(() => /^1 held/.test(statusText('sender')), 2000, 'status "1 held"');
    // Auto-resend rounds, now and an hour on: each awaited, so a resend would have reached the LIS by now.
    await runChecksNow();
    await runChecksNow({ now: Date.now() + 60 * MINUTE });
    assert.equal(ctx.stub.requests.length, 0, 'the LIS may have it: only an operator may send it again');
    assert.deepEqual((await heldList()).batches.map((b) => b.state), ['uncertain']);
  });
});

describe('journal: auto-resend', () => {
  it('with autoResend on, resends a batch refused at connection (LIS down) once the LIS is up, exactly once', async () => {
    ctx.stub.reply('/results', { body: { status: 'success' } });
    const gate = await LisGate.inFrontOf(ctx.stub.url('/'));
    try {
      await loadChain({ config: { resultApiUrl: gate.url('/results') }, sender: { autoResend: true } });
      const caught = collect('hCaught');
      const out = collect('hOut');
      await new Analyzer().send(resultMessage('S-AUTO'));
      await waitUntil(() => caught.length === 1, 3000, 'the failure at Catch');
      assert.equal(errorCode(caught[0]!), 'NETWORK');
      const held = onlyBatch();
      assert.equal(held.state, 'failed');
      assert.equal(held.notSent, true, 'connection refused: provably not sent');

      await gate.up();
      await runChecksNow(); // the auto-resend round that finds the LIS up
      await waitUntil(() => out.length === 1, 2000, 'the automatic resend');
      assert.equal((out[0]!.lis as Record<string, unknown>).resent, true);
      assert.deepEqual(out[0]!.processed, [{ SampleNumber: 'S-AUTO', Tests: ['T-GLU', 'T-CREA'] }]);
      // Two more rounds: nothing more to send.
      await runChecksNow();
      await runChecksNow({ now: Date.now() + MINUTE });
      assert.deepEqual(ctx.stub.to('/results').map((r) => r.json), [{ results: lisItems('S-AUTO') }]);
      assert.equal(out.length, 1);
      assert.equal(onlyBatch().state, 'delivered');
      assert.deepEqual((await heldList()).batches, []);
      assert.doesNotMatch(statusText('sender'), /^\d+ held/, 'the status no longer shows a held batch');
    } finally {
      await gate.down();
    }
  });

  it('with autoResend off (the default), keeps the batch held when the LIS comes back', async () => {
    ctx.stub.reply('/results', { body: { status: 'success' } });
    const gate = await LisGate.inFrontOf(ctx.stub.url('/'));
    try {
      await loadChain({ config: { resultApiUrl: gate.url('/results') } });
      const caught = collect('hCaught');
      await new Analyzer().send(resultMessage('S-MANUAL'));
      await waitUntil(() => caught.length === 1, 3000);
      await gate.up();
      // Check rounds with the LIS up, now and a minute on: none resends.
      await runChecksNow();
      await runChecksNow({ now: Date.now() + MINUTE });
      assert.equal(ctx.stub.requests.length, 0);
      const { batches } = await heldList();
      assert.deepEqual(batches.map((b) => [b.state, b.notSent]), [['failed', true]]);
      assert.match(statusText('sender'), /^1 held/);
    } finally {
      await gate.down();
    }
  });
});

describe('journal: age warning', () => {
  it('raises HELD once for a batch held longer than heldWarnMinutes, and not again after a restart', async () => {
    await loadChain();
    const dir = journalDir();
    await helper.unload();
    const twoHoursAgo = Date.now() - 2 * 60 * 60_000;
    await writeJournal(
      dir,
      async (j) => {
        await j.beginSend({ key: 'old-batch', node: 'sender', samples: ['S-OLD'], body: lisItems('S-OLD'), msg: {} });
        await j.settle('old-batch', 'failed', { error: { code: 'HTTP_STATUS', message: 'LIS ResultAPI answered 500', status: 500 } });
      },
      () => twoHoursAgo,
    );
    await writeJournal(dir, async (j) => {
      await j.beginSend({ key: 'young-batch', node: 'sender', samples: ['S-YOUNG'], body: lisItems('S-YOUNG'), msg: {} });
      await j.settle('young-batch', 'failed', { error: { code: 'HTTP_STATUS', message: 'LIS ResultAPI answered 500', status: 500 } });
    });
    keepJournalForNextLoad();
    await loadChain({ sender: { heldWarnMinutes: 60 } });
    const caught = collect('hCaught');
    await runChecksNow();
    await waitUntil(() => caught.length >= 1, 2000, 'the HELD error');
    // Two more rounds (the young batch not yet due in either); any second error has reached the Catch node after them.
    await runChecksNow();
    await runChecksNow({ now: Date.now() + 30 * MINUTE });
    await allCaught('hCaught', caught);
    assert.equal(caught.length, 1, 'raised once');
    const warning = caught[0]!;
    assert.equal(errorCode(warning), 'HELD');
    assert.equal(errorSource(warning), 'sender');
    assert.equal(warning.topic, 'lis:held');
    assert.equal((warning.payload as Record<string, unknown>).key, 'old-batch');
    assert.match(String((warning.error as Record<string, unknown>).message), /S-OLD.*held for 120 min/);
    assert.equal(statusOf('sender')?.fill, 'red', 'the status shows the overdue batch');
    assert.equal(readJournalFile(dir).batches.get('old-batch')!.warned, true, 'remembered in the journal');
    assert.equal(readJournalFile(dir).batches.get('young-batch')!.warned, false);

    await restart({ sender: { heldWarnMinutes: 60 } });
    const again = collect('hCaught');
    await runChecksNow();
    await runChecksNow({ now: Date.now() + 30 * MINUTE });
    await allCaught('hCaught', again);
    assert.equal(again.length, 0, 'not raised again after the restart');
    assert.ok(statusesOf('sender').some((s) => /^2 held/.test(String(s.text))));
    assert.equal(ctx.stub.requests.length, 0);
  });

  it('raises HELD once for an old batch even while auto-resend keeps failing on it', async () => {
    const gate = await LisGate.inFrontOf(ctx.stub.url('/')); // stays down: connection refused
    await loadChain();
    const dir = journalDir();
    await helper.unload();
    await writeJournal(
      dir,
      async (j) => {
        await j.beginSend({ key: 'old-refused', node: 'sender', samples: ['S-OLD'], body: lisItems('S-OLD'), msg: {} });
        await j.settle('old-refused', 'failed', { error: { code: 'NETWORK', message: 'LIS ResultAPI: ECONNREFUSED' }, notSent: true });
      },
      () => Date.now() - 2 * 60 * 60_000,
    );
    keepJournalForNextLoad();
    await loadChain({ config: { resultApiUrl: gate.url('/results') }, sender: { autoResend: true, heldWarnMinutes: 60 } });
    const caught = collect('hCaught');
    // The first check (at start) and two more rounds, each a failed auto-resend.
    await runChecksNow();
    await runChecksNow({ now: Date.now() + MINUTE });
    await waitUntil(() => caught.some((m) => errorCode(m) === 'HELD'), 2000, 'the HELD error');
    await allCaught('hCaught', caught);
    const resends = readJournalFile(dir).batches.get('old-refused')!.history.filter((s) => s === 'sending').length;
    assert.ok(resends >= 2, `auto-resend tried ${resends} time(s)`);
    assert.equal(caught.filter((m) => errorCode(m) === 'HELD').length, 1, 'one age warning, not one per failed auto-resend');
    assert.equal(readJournalFile(dir).batches.get('old-refused')!.state, 'failed');
  });
});
