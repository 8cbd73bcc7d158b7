/**
 * Node-RED killed (SIGKILL) while an analyzer uploads results as fast as the
 * link allows: 200 results in messages of 1-3 results, each message its own
 * sample, over TCP (the simulator is the server, Node-RED's tcp in the
 * client); three kills at seeded random moments, each followed by a restart on
 * the same userDir. Every result the analyzer got an ACK for must reach the
 * LIS or be held in the journal; the LIS may get a result twice only from one
 * batch that is or was uncertain (two batches for one result mean the bridge
 * processed the analyzer's message twice).
 *
 * A second run aims its kills: each one the moment Node-RED appends a received
 * message to its journal (inotify), i.e. after the message is in the file and
 * before its final ACK has gone out. The analyzer then sends the message
 * again; it must still reach the LIS once.
 *
 * Five more runs aim pairs of kills (crash-harness.ts AIMED_MODES), the second
 * at the window the restart after the first opens: the analyzer's repeat of a
 * message stored before its final ACK, itself being stored (repeat-store);
 * the replay at start of messages ACKed but never handed to the LIS sender,
 * once (replay-after-ack) and twice in a row (replay-twice); a batch just
 * journaled as sending, before and after a restart (after-tx-sending); a
 * result no LIS test is mapped for just held, before the rest of its batch
 * went on (after-hold: each such result must be held once). Each
 * kill must be seen to hit its window (the journal as the dead process left
 * it, and the analyzer's repeats, say so). A run whose kill missed is made
 * again with another seed, up to three times; if none hits, the case fails
 * rather than passing untested, and every run made, hit or missed, must lose
 * nothing. No message may end stuck (replayed,
 * yet its results neither at the LIS nor held in a batch).
 *
 * Two more runs do the same with an HL7 analyzer (the Mindray CL-2000i HL7
 * example's dialect over MLLP, hl7-link stores each message before its ACK):
 * random kills, and kills right after a received message is journaled. The
 * random one keeps the analyzer's QC in a lis-qc: a control run before the
 * first sample, and one 4 SD high a third of the way, after which the results
 * of the tests it covers are held by the QC gate; each counts as held, none
 * may reach the LIS, and none is held twice.
 *
 * CRASH_SEED=<n> repeats a run; test/e2e/soak.ts runs the same thing longer.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AIMED_KILLS, HOLD_CODE, crashRun, isAimed, type CrashReport, type KillMode, type Protocol } from './crash-harness';
import { installPackage, type Installation } from './harness';

const SEED = Number(process.env.CRASH_SEED ?? 20261121);

let installation: Installation | undefined;
before(() => {
  installation = installPackage();
});
after(() => installation?.remove());

const RUNS: Array<{ name: string; results: number; kills: number; killMode: KillMode; seed: number; protocol?: Protocol; qc?: boolean }> = [
  { name: 'crash run: SIGKILL at random moments during a fast upload', results: 200, kills: 3, killMode: 'random', seed: SEED },
  { name: 'crash run: SIGKILL right after a received message is written to the journal, before its final ACK', results: 80, kills: 2, killMode: 'after-rx-write', seed: SEED + 1 },
  // Aimed runs are short: their kills come early, and what follows them is the same fast upload as above.
  { name: 'crash run (repeat-store): SIGKILL while a message is stored before its final ACK, then while the analyzer\'s repeat of it is stored', results: 40, kills: AIMED_KILLS['repeat-store'], killMode: 'repeat-store', seed: SEED + 2 },
  { name: 'crash run (replay-after-ack): SIGKILL after the final ACK of a message not yet at the LIS, then during the replay at start', results: 40, kills: AIMED_KILLS['replay-after-ack'], killMode: 'replay-after-ack', seed: SEED + 3 },
  { name: 'crash run (replay-twice): SIGKILL after the final ACK of a message not yet at the LIS, then during the replay at start, twice in a row', results: 40, kills: AIMED_KILLS['replay-twice'], killMode: 'replay-twice', seed: SEED + 4 },
  { name: 'crash run (after-tx-sending): SIGKILL right after a batch is journaled as sending, then after the first one once restarted', results: 40, kills: AIMED_KILLS['after-tx-sending'], killMode: 'after-tx-sending', seed: SEED + 5 },
  { name: 'crash run (after-hold): SIGKILL right after a result no LIS test is mapped for is held, before the rest of its batch, then again once restarted', results: 40, kills: AIMED_KILLS['after-hold'], killMode: 'after-hold', seed: SEED + 8 },
  { name: 'crash run, HL7 with QC: SIGKILL at random moments during a fast upload over MLLP, its control run failing a third of the way', results: 120, kills: 3, killMode: 'random', seed: SEED + 6, protocol: 'hl7', qc: true },
  { name: 'crash run, HL7: SIGKILL right after a received message is written to the journal, before its ACK', results: 80, kills: 2, killMode: 'after-rx-write', seed: SEED + 7, protocol: 'hl7' },
];

for (const run of RUNS) {
  describe(run.name, () => {
    let report: CrashReport | undefined;
    /** Every run made for this case: each must lose nothing, whether its kills hit their windows or not. */
    const reports: CrashReport[] = [];

    before(async () => {
      // Some windows last a millisecond or less (fdatasync, then the final ACK): a kill can land just after one
      // closed. Such a run proves nothing either way, so it is made again with another seed, up to three times.
      const attempts = isAimed(run.killMode) ? 3 : 1;
      // A bound for a run that can never end, not a speed: on a loaded machine one Node-RED start takes 8 s, and a
      // run starts it several times.
      for (let i = 0; i < attempts; i++) {
        report = await crashRun({ results: run.results, kills: run.kills, seed: run.seed + i * 1000, killMode: run.killMode, installation: installation!, timeoutMs: 150_000, ...(run.protocol ? { protocol: run.protocol } : {}), ...(run.qc ? { qc: true } : {}) });
        reports.push(report);
        console.log(report.line);
        for (const k of report.kills) if (k.aim) console.log(`  kill at ${k.at} aimed at ${k.aim}: ${k.hit ? 'hit' : 'MISSED'}: ${k.evidence}`);
        if (report.missed() === '') break;
      }
    });

    const explain = (r: CrashReport | undefined = report) => (r ? `${r.line}\n${r.problems()}\n${r.diagnostics()}` : '(no run)');
    /** An assertion over every run made. */
    const everyRun = (check: (r: CrashReport) => void) => () => {
      assert.ok(reports.length > 0, 'no run was made');
      for (const r of reports) check(r);
    };

    it(`Node-RED was really killed ${run.kills} times mid-run`, () => {
      assert.equal(report!.kills.filter((k) => k.killed).length, run.kills, explain());
    });

    if (isAimed(run.killMode)) {
      it('every aimed kill hit the window it was aimed at', () => {
        assert.equal(report!.missed(), '', explain());
        assert.equal(report!.windows.hit, run.kills, explain());
      });
    }

    it('the analyzer got its ACK for every message in the end', everyRun((r) => assert.equal(r.counts.acked, r.counts.sent, explain(r))));

    it('loses no acknowledged result: each is at the LIS or held', everyRun((r) => assert.equal(r.counts.lost, 0, explain(r))));

    it('sends a result twice only as the resend of one batch that is or was uncertain', everyRun((r) => assert.deepEqual(r.tally.unexplainedDuplicates, [], explain(r))));

    it('the LIS got nothing the analyzer did not send', everyRun((r) => assert.deepEqual(r.tally.foreignKeys, [], explain(r))));

    it('leaves no message stuck: replayed, yet its results neither at the LIS nor in a held batch', everyRun((r) => assert.deepEqual(r.tally.stuckIds, [], explain(r))));

    if (run.qc) {
      it(`holds the results of the tests its control covers from the failing run on: none at the LIS, each in one hold`, everyRun((r) => {
        assert.ok(r.qc!.coveredAfterFail.length > 0, 'results of covered tests were sent after the failing run');
        assert.deepEqual({ atLis: r.qc!.atLis, heldTwice: r.qc!.heldTwice }, { atLis: [], heldTwice: [] }, explain(r));
      }));
    }

    if (run.killMode === 'after-hold') {
      it(`holds the ${HOLD_CODE} result of every acknowledged message once, in one line, and nothing else`, everyRun((r) => {
        const notOnce = [...r.holds.perAckedSample].filter(([, n]) => n !== 1).map(([s, n]) => `${s}: held ${n} times`);
        assert.deepEqual({ notOnce, foreign: r.holds.foreign, writtenTwice: r.holds.writtenTwice }, { notOnce: [], foreign: [], writtenTwice: [] }, explain(r));
      }));
    }
  });
}
