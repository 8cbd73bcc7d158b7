/**
 * QC in a real Node-RED, with the Mindray CL-2000i HL7 example installed from the packed package and the simulated
 * analyzer over real TCP: its control runs in control, then goes 4 SD out (1-3s on every level). From that run on,
 * the patient results of the tests the control covers are held, not at the LIS, while a test it does not cover goes;
 * the results sent since the last good control are listed with the event; once the technologist accepts the event
 * with a corrective action, the held results are released and reach the LIS exactly once.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { waitUntil } from '../support/wait';
import { E2eRun, installPackage, loadExample, postAdmin, resultItems, useRun, type Installation } from './harness';

let installation: Installation | undefined;
before(() => {
  installation = installPackage();
});
after(() => installation?.remove());

const EXAMPLE = 'mindray-cl2000i-hl7-tcp';
/** Sent after the good run: at the LIS, and listed for review once the next run fails. */
const AFTER_GOOD = 'QC2001';
/** Sent after the failed run: its results of the control's tests held. */
const AFTER_BAD = 'QC2002';

interface QcTest {
  test: string;
  state: string;
  events: Array<{ run: string; violations: Array<{ rule: string }>; review: { items: Array<{ sample: string }>; more: number } }>;
}

describe(`a control of ${EXAMPLE} going out of control holds its tests' patient results until a technologist accepts the event`, () => {
  // The second run and those after it are 4 SD high on every level of tests 1 and 2; test 3 has no control here.
  const { current, check } = useRun(() => new E2eRun({ example: loadExample(EXAMPLE), installation: installation!, samples: ['QC1001'], seed: 20261202, qc: { control: 'QC1', levels: 3, tests: ['1', '2'], bias: 4, from: 2 } }));
  const qc = async (r: E2eRun): Promise<{ analyzer: string; tests: QcTest[] }> => {
    const body = (await (await fetch(`${r.red!.url}/lis-bridge/qc`)).json()) as { analyzers: Array<{ analyzer: string; tests: QcTest[] }> };
    assert.equal(body.analyzers.length, 1, 'the example has one lis-qc');
    return body.analyzers[0]!;
  };
  const atLis = (r: E2eRun, sample: string) => resultItems(r.stub!).filter((i) => i.SampleNumber === sample).map((i) => i.TestCode).sort();

  before(async () => {
    const r = current()!;
    const sim = r.hl7Sim!;
    await sim.sendControlRun();
    await waitUntil(async () => (await qc(r)).tests.filter((t) => t.state === 'in-control').length === 2, 20_000, 'the first run judged in control on tests 1 and 2');
    await sim.sendResults(AFTER_GOOD, ['1', '2', '3']);
    await waitUntil(() => atLis(r, AFTER_GOOD).length === 3, 20_000, `${AFTER_GOOD}'s results at the LIS`);
    await sim.sendControlRun();
    await waitUntil(async () => (await qc(r)).tests.every((t) => t.state === 'rejected'), 20_000, 'the second run rejected on tests 1 and 2');
    await sim.sendResults(AFTER_BAD, ['1', '2', '3']);
    await waitUntil(async () => (await r.red!.held()).holds.length === 2, 20_000, `${AFTER_BAD}'s results of tests 1 and 2 held`);
    await waitUntil(() => atLis(r, AFTER_BAD).length === 1, 20_000, `${AFTER_BAD}'s test 3 at the LIS`);
  });

  it('holds the control\'s tests from the failed run on, sends the test it does not cover, and lists what was sent since the last good control', check(async (r) => {
    const holds = (await r.red!.held()).holds as unknown as Array<{ kind: string; code: string; samples: string[]; reason: string }>;
    assert.deepEqual(holds.map((h) => `${h.kind} ${h.code} ${h.samples.join(',')}`).sort(), [`qc 1 ${AFTER_BAD}`, `qc 2 ${AFTER_BAD}`]);
    for (const h of holds) assert.match(h.reason, /^QC rejected on .*: the control run of test [12] at .* violated 1-3s.*; accept the QC event in the Lab sidebar/);
    const tests = (await qc(r)).tests;
    assert.deepEqual(tests.map((t) => t.test), ['1', '2']);
    for (const t of tests) {
      assert.equal(t.events.length, 1, `test ${t.test}: one open event`);
      assert.ok(t.events[0]!.violations.some((v) => v.rule === '1-3s'), `test ${t.test}: 1-3s`);
      assert.deepEqual(t.events[0]!.review.items.map((i) => i.sample), [AFTER_GOOD], `test ${t.test}: sent since the last good control`);
    }
    const metrics = await (await fetch(`${r.red!.url}/lis-bridge/metrics`)).text();
    assert.match(metrics, /^lisbridge_qc_state\{analyzer="[^"]+",test="1",state="rejected"\} 1$/m);
  }));

  it('refuses the release while the event is open; after the technologist accepts it, the held results reach the LIS once', check(async (r) => {
    const ids = ((await r.red!.held()).holds as Array<{ id: string }>).map((h) => h.id);
    await postAdmin(r, '/lis-bridge/holds/send', { ids }, 409);
    const { analyzer, tests } = await qc(r);
    for (const t of tests) await postAdmin(r, '/lis-bridge/qc/accept', { analyzer, test: t.test, run: t.events[0]!.run, reason: 'control vial left open', action: 'rerun-in-control' });
    await postAdmin(r, '/lis-bridge/holds/send', { ids });
    await waitUntil(() => atLis(r, AFTER_BAD).length === 3, 20_000, `${AFTER_BAD}'s released results at the LIS`);
    await postAdmin(r, '/lis-bridge/holds/send', { ids }, 409);
    const items = resultItems(r.stub!).map((i) => `${i.SampleNumber} ${i.TestCode}`);
    assert.equal(items.length, new Set(items).size, 'none at the LIS twice');
    assert.equal(atLis(r, AFTER_BAD).length, 3);
  }));
});
