/**
 * The line goes away in the middle of a message, and comes back:
 *
 * - serial: the socat pty pair is killed while the simulator is mid-message
 *   (both ends vanish, as an unplugged USB adapter does) and a new one is
 *   started on the same paths; node-red-node-serialport reopens its port
 *   (serialReconnectTime, set short in settings.js) and so does the simulator
 *   (SerialTransport reopenMs);
 * - a full redeploy (POST /flows, Node-RED-Deployment-Type: full) while the
 *   simulator is mid-message, on the serial line and on TCP (the simulator
 *   pauses inside its first result message, so the deploy lands
 *   mid-message however fast the link is);
 * - a full redeploy while a batch of results is at the LIS (the LIS stand-in
 *   answers that request slowly).
 *
 * Each time: every result the analyzer got an ACK for reaches the LIS, an
 * interrupted message is sent again by the simulator and reaches the LIS
 * once, nothing is held and nothing is delivered twice.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AnalyzerSimulator, TcpServerTransport } from '../../lib/sim';
import { LisStub } from '../support/lis-stub';
import type { NodeRedProcess } from '../support/node-red-process';
import { RestartablePty } from '../support/restartable-pty';
import { Seeded } from '../support/seeded';
import { IDS, TESTS, TIME_ZONE, countsLine, crashFlow, lisCodes, lisIdle, prepareRed, readJournal, recordSim, samplesIn, stamp, tally, type SimLog, type Tally } from './crash-harness';
import { installPackage, itemsOf, type Installation } from './harness';
import { sleep, waitUntil, withTimeout } from '../support/wait';

let installation: Installation | undefined;
before(() => {
  installation = installPackage();
});
after(() => installation?.remove());

interface Session {
  red: NodeRedProcess;
  stub: LisStub;
  sim: AnalyzerSimulator;
  simLog: SimLog;
  pty?: RestartablePty;
}

/** Node-RED with the crash flow on `line`, the LIS stand-in, and a simulator that sends one record per frame (so there is a middle to a message). */
async function openSession(line: 'serial' | 'tcp'): Promise<Session> {
  const stub = await new LisStub().start();
  stub.reply('/results', { body: { status: 'success' } });
  // Short link timers on the analyzer's side: a transfer the host lost track of is given up (EOT) and repeated within seconds.
  const link = { framePerRecord: true, replyTimeoutMs: 2_000, retryDelayMs: 200 };
  if (line === 'serial') {
    const pty = new RestartablePty();
    await pty.start();
    const red = await prepareRed(installation!.userDir, crashFlow({ kind: 'serial', path: pty.host }, (p) => stub.url(p)));
    await red.start();
    await red.waitForLog(/serial port \S+ opened at/, 15_000);
    // As on TCP: a pause before frame 4 of the first result message, so a redeploy lands mid-message however fast the line is.
    const sim = new AnalyzerSimulator({ dialect: 'generic-lis2a2', transport: { kind: 'serial', path: pty.analyzer, reopenMs: 100 }, timeZone: TIME_ZONE, seed: 11, link, misbehaviour: { pauseMs: 1_500, pauseAtFrame: 4 } });
    const simLog = recordSim(sim);
    await sim.start();
    return { red, stub, sim, simLog, pty };
  }
  const transport = new TcpServerTransport(0, '127.0.0.1');
  // A pause before frame 4 of the first result message: the redeploy comes while the transfer stands still.
  const sim = new AnalyzerSimulator({ dialect: 'generic-lis2a2', transport, timeZone: TIME_ZONE, seed: 12, link, misbehaviour: { pauseMs: 1_500, pauseAtFrame: 4 } });
  const simLog = recordSim(sim);
  await sim.start();
  const red = await prepareRed(installation!.userDir, crashFlow({ kind: 'tcp', port: transport.boundPort }, (p) => stub.url(p)));
  await red.start();
  await withTimeout(sim.waitConnected(), 15_000, 'tcp in to connect');
  return { red, stub, sim, simLog };
}

async function closeSession(s: Session | undefined): Promise<void> {
  if (!s) return;
  await s.sim.stop().catch(() => undefined);
  await s.red.stop().catch(() => undefined);
  await s.pty?.remove().catch(() => undefined);
  await s.stub.stop().catch(() => undefined);
}

interface Upload {
  tally: Tally;
  target: string;
  /** Deliveries of each of the target's results at the LIS. */
  targetDeliveries: number[];
  line: string;
  explain: string;
}

/**
 * Queues `messages` messages of 3 results (7 frames each) and runs `interrupt`
 * (without waiting for it: the simulator carries on) when message `at` is
 * where `when` says: its O record going out on the line ('frame'), or its
 * results arriving at the LIS, which then takes 1.5 s to answer ('lis').
 * Resolves once every message was acknowledged and the LIS has been quiet
 * for a second.
 */
async function upload(s: Session, prefix: string, messages: number, at: number, when: 'frame' | 'lis', interrupt: () => Promise<void>): Promise<Upload> {
  s.stub.requests.length = 0;
  // Three results each, so each message is H, P, O, three R and L: seven frames.
  const rng = new Seeded(messages + prefix.charCodeAt(0) * 31 + prefix.charCodeAt(1));
  const plan = Array.from({ length: messages }, (_, i) => ({ sample: `${prefix}${String(i + 1).padStart(5, '0')}`, tests: rng.pick(TESTS.map((t) => t.instrumentCode), 3) }));
  const target = plan[at]!.sample;
  let interrupted: Promise<void> | undefined;
  const fire = (where: string) => {
    s.simLog.log.push(`${stamp()} ===== interrupting: ${where} =====`);
    interrupted = interrupt();
  };
  const onFrame = (f: { direction: 'in' | 'out'; bytes: Buffer }) => {
    if (interrupted || f.direction !== 'out') return;
    if (samplesIn(f.bytes.toString('latin1').replace(/[\x00-\x09\x0b\x0c\x0e-\x1f]/g, '')).includes(target)) fire(`in the middle of ${target}`);
  };
  if (when === 'frame') s.sim.on('frame', onFrame);
  else {
    s.stub.handle('/results', (req) => {
      if (interrupted || !itemsOf(req).some((i) => i.SampleNumber === target)) return { body: { status: 'success' } };
      fire(`the results of ${target} are at the LIS, which answers in 1.5 s`);
      return { delayMs: 1_500, body: { status: 'success' } };
    });
  }
  try {
    const sent = plan.map((m) => s.sim.sendResults(m.sample, m.tests));
    await withTimeout(Promise.allSettled(sent), 45_000, 'the simulator to get every message acknowledged');
    await waitUntil(() => interrupted !== undefined, 10_000, `the interruption (${when} of ${target})`);
    await interrupted;
  } catch (err) {
    if (err instanceof Error) err.message = `${err.message}\n--- Node-RED log (tail) ---\n${s.red.tail(60)}\n--- simulator frame log (tail) ---\n${s.simLog.log.tail(100)}`;
    throw err;
  } finally {
    s.sim.off('frame', onFrame);
    s.stub.reply('/results', { body: { status: 'success' } });
  }
  const ours = new Set(plan.map((p) => p.sample));
  const acked = new Set(s.simLog.acked.filter((x) => ours.has(x)));
  // Long bounds: they matter only when a result is missing, and a busy machine can be slow to send the last ones.
  await lisIdle(s.stub, { quietMs: 1_000, giveUpQuietMs: 30_000, timeoutMs: 60_000 }, () => {
    const got = new Set(s.stub.to('/results').flatMap((r) => itemsOf(r).map((i) => i.SampleNumber)));
    return [...acked].every((x) => got.has(x));
  });
  const held = await s.red.held();
  const t = tally({ plan, acked, stub: s.stub, held, journal: readJournal(s.red.journalFile), simContext: (x) => s.simLog.around(x) });
  const codes = lisCodes();
  const targetTests = plan[at]!.tests.map((c) => codes.get(c)!);
  const items = s.stub.to('/results').flatMap(itemsOf);
  const targetDeliveries = targetTests.map((code) => items.filter((i) => i.SampleNumber === target && i.TestCode === code).length);
  const line = countsLine(prefix, t.counts);
  const explain = [
    line,
    `target ${target}: O frame sent ${s.simLog.oFrames.get(target) ?? 0} time(s), deliveries per result ${JSON.stringify(targetDeliveries)}`,
    t.problems(),
    t.explain(target),
    ...held.batches.flatMap((b) => b.samples).filter((x) => x !== target && plan.some((p) => p.sample === x)).map((x) => `held: ${t.explain(x)}`),
    '--- Node-RED log (tail) ---',
    s.red.tail(80),
    '--- simulator frame log (tail) ---',
    s.simLog.log.tail(120),
  ].join('\n');
  console.log(line);
  return { tally: t, target, targetDeliveries, line, explain };
}

function checkUpload(u: Upload, s: Session, resent = true): void {
  const c = u.tally.counts;
  assert.equal(c.acked, c.sent, `every message was acknowledged in the end\n${u.explain}`);
  assert.equal(c.lost, 0, `no acknowledged result lost\n${u.explain}`);
  assert.equal(c.delivered, c.acked, `every acknowledged result reached the LIS\n${u.explain}`);
  assert.equal(c.duplicated, 0, `no result delivered twice\n${u.explain}`);
  assert.equal(c.heldBatches + c.stuck, 0, `nothing held\n${u.explain}`);
  assert.deepEqual(u.tally.foreignKeys, [], u.explain);
  if (resent) assert.ok((s.simLog.oFrames.get(u.target) ?? 0) >= 2, `the interrupted message ${u.target} was sent again\n${u.explain}`);
  assert.deepEqual(u.targetDeliveries, u.targetDeliveries.map(() => 1), `the interrupted message reached the LIS exactly once\n${u.explain}`);
}

const count = (text: string, re: RegExp) => (text.match(new RegExp(re.source, 'g')) ?? []).length;

describe('serial line: the device vanishes mid-message, and a redeploy mid-message', () => {
  let s: Session | undefined;
  before(async () => {
    s = await openSession('serial');
  });
  after(() => closeSession(s));

  it('a full redeploy mid-message: nothing lost, the interrupted message delivered once', async () => {
    const session = s!;
    const started = count(session.red.output(), /Started flows/);
    // Message 0 is the first result message of the session (this test runs first): the simulator pauses before its frame 4.
    const u = await upload(session, 'SD', 8, 0, 'frame', () => session.red.redeploy());
    await waitUntil(() => count(session.red.output(), /Started flows/) > started, 5_000, 'the redeployed flows to start');
    checkUpload(u, session);
  });

  it('the pty pair is killed mid-message and started again on the same paths: nothing lost, the interrupted message delivered once', async () => {
    const session = s!;
    const opened = count(session.red.output(), /serial port \S+ opened at/);
    const lost = count(session.red.output(), /serial port \S+ (closed unexpectedly|error)/);
    const u = await upload(session, 'SV', 8, 3, 'frame', async () => {
      await session.pty!.stop('SIGKILL');
      // The device comes back only once Node-RED's serial port has seen it go. node-red-node-serialport does not
      // always notice a vanished pty from its reads (about one run in ten here); a write always fails and makes it
      // reopen, so the test writes one NUL byte when the reads stayed silent. (An analyzer ignores bytes outside
      // frames, and this one goes nowhere: the old device is gone.)
      const noticed = () => count(session.red.output(), /serial port \S+ (closed unexpectedly|error)/) > lost;
      await waitUntil(noticed, 3_000, 'Node-RED to see the serial device go').catch(async () => {
        console.log('line-drop: the serial node did not notice the vanished device from its reads; probing with a write');
        const res = await fetch(`${session.red.url}/inject/${IDS.lineProbe}`, { method: 'POST' });
        assert.equal(res.status, 200, await res.text());
        await waitUntil(noticed, 10_000, 'Node-RED to see the serial device go, after a write');
      });
      await sleep(400);
      await session.pty!.start();
    });
    assert.ok(count(session.red.output(), /serial port \S+ opened at/) > opened, `Node-RED reopened the serial port\n${u.explain}`);
    assert.ok(session.simLog.log.tail(100000).includes('disconnected'), `the simulator saw the line go\n${u.explain}`);
    checkUpload(u, session);
  });
});

describe('TCP: redeploys mid-message and mid-request', () => {
  let s: Session | undefined;
  before(async () => {
    s = await openSession('tcp');
  });
  after(() => closeSession(s));

  it('a full redeploy mid-message: the connection is dropped and made again, nothing lost, the interrupted message delivered once', async () => {
    const session = s!;
    const started = count(session.red.output(), /Started flows/);
    // Message 0 is the first result message of the session: the simulator pauses 1.5 s before its frame 4.
    const u = await upload(session, 'TD', 8, 0, 'frame', () => session.red.redeploy());
    await waitUntil(() => count(session.red.output(), /Started flows/) > started, 5_000, 'the redeployed flows to start');
    assert.ok(session.simLog.log.tail(100000).includes('disconnected'), `the redeploy dropped the TCP connection\n${u.explain}`);
    checkUpload(u, session);
  });

  it('a full redeploy while a batch is at the LIS: the batch is delivered, not held', async () => {
    const session = s!;
    const started = count(session.red.output(), /Started flows/);
    const u = await upload(session, 'TB', 8, 3, 'lis', () => session.red.redeploy());
    await waitUntil(() => count(session.red.output(), /Started flows/) > started, 5_000, 'the redeployed flows to start');
    checkUpload(u, session, false);
  });
});
