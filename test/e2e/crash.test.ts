/**
 * Node-RED killed (SIGKILL) while an analyzer uploads results as fast as the
 * link allows: 300 results in messages of 1-3 results, each message its own
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
 * CRASH_SEED=<n> repeats a run; test/e2e/soak.ts runs the same thing longer.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { crashRun, type CrashReport } from './crash-harness';
import { installPackage, type Installation } from './harness';

const SEED = Number(process.env.CRASH_SEED ?? 20261121);

let installation: Installation | undefined;
before(() => {
  installation = installPackage();
});
after(() => installation?.remove());

const RUNS = [
  { name: 'crash run: SIGKILL at random moments during a fast upload', results: 300, kills: 3, killMode: 'random' as const, seed: SEED },
  { name: 'crash run: SIGKILL right after a received message is written to the journal, before its final ACK', results: 120, kills: 2, killMode: 'after-rx-write' as const, seed: SEED + 1 },
];

for (const run of RUNS) {
  describe(run.name, () => {
    let report: CrashReport | undefined;

    before(async () => {
      report = await crashRun({ results: run.results, kills: run.kills, seed: run.seed, killMode: run.killMode, installation: installation!, timeoutMs: 40_000 });
      console.log(report.line);
    });

    const explain = () => (report ? `${report.line}\n${report.problems()}\n${report.diagnostics()}` : '(no run)');

    it(`Node-RED was really killed ${run.kills} times mid-run`, () => {
      assert.equal(report!.kills.length, run.kills, explain());
    });

    it('the analyzer got its ACK for every message in the end', () => {
      assert.equal(report!.counts.acked, report!.counts.sent, explain());
    });

    it('loses no acknowledged result: each is at the LIS or held', () => {
      assert.equal(report!.counts.lost, 0, explain());
    });

    it('sends a result twice only as the resend of one batch that is or was uncertain', () => {
      assert.deepEqual(report!.tally.unexplainedDuplicates, [], explain());
    });

    it('the LIS got nothing the analyzer did not send', () => {
      assert.deepEqual(report!.tally.foreignKeys, [], explain());
    });
  });
}
