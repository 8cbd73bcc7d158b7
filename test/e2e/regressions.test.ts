/**
 * Faults the end-to-end runs found, kept as regression tests now that they are
 * fixed. The simulator's are reproduced with the exact bytes Node-RED's
 * astm-message wrote in examples.test.ts (sysmex-xn-serial); the flow's with the
 * installed mindray-cl2000i-tcp example.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { getProfile } from '../../lib/protocols/astm/dialects';
import { readHostMessage } from '../../lib/sim';
import { E2eRun, installPackage, loadExample, withDiagnostics, type Installation } from './harness';
import { sleep } from '../support/wait';

/** The download Node-RED sent for sample SYS1001 (sysmex-xn-serial example, query `Q|1|^^SYS1001||ALL||||||||O`). */
const SYSMEX_DOWNLOAD =
  'H|\\^&|||||||||||E1394-97\r' +
  'P|1|||PID-SYS1001|^Jane^Roe||19800229|F\r' +
  'O|1|^^SYS1001^||^^^^WBC\\^^^^RBC||20261121093015|||||N||||||||||||||Q\r' +
  'L|1|N\r';

function readOrder(text: string) {
  const answers = readHostMessage(text, getProfile('sysmex-xn'));
  assert.equal(answers.length, 1);
  const [answer] = answers;
  assert.equal(answer?.kind, 'order');
  return answer.kind === 'order' ? answer.order : assert.fail('no order');
}

describe('lib/sim reading Sysmex XN downloads', () => {
  it('pairs the download with its query: the sample is O-3 component 3, where the echo of Q-3 puts it', () => {
    const order = readOrder(SYSMEX_DOWNLOAD);
    assert.deepEqual(order.problems, []);
    assert.equal(order.sampleNumber, 'SYS1001');
  });

  it('does not read the empty O-6 of a Sysmex download as STAT: the priority is unknown', () => {
    assert.equal(readOrder(SYSMEX_DOWNLOAD).priority, undefined);
  });
});

describe('mindray-cl2000i-tcp: "no information" while an earlier query still waits on the LIS', () => {
  let installation: Installation | undefined;
  let run: E2eRun | undefined;

  before(async () => {
    installation = installPackage();
    // SLOW1's order takes the LIS 1.5 s; NOORDER-FAST's "not found" comes at once.
    run = new E2eRun({ example: loadExample('mindray-cl2000i-tcp'), installation, samples: ['SLOW1', 'NOORDER-FAST'], orderDelayMs: (s) => (s === 'SLOW1' ? 1500 : 0) });
    await withDiagnostics(run, () => run!.start());
  });

  after(async () => {
    await run?.stop();
    installation?.remove();
  });

  it(
    // Once a fault: L|1|I (which names no sample) went out before the earlier query's download, and an analyzer
    // pairing it with its oldest open query told SLOW1 "no order". astm-message now holds such answers in query order.
    'gives each of two overlapping queries its own answer: the order to SLOW1, "no information" to NOORDER-FAST',
    () =>
      withDiagnostics(run, async () => {
        const sim = run!.sim!;
        const first = sim.scan('SLOW1');
        await sleep(200);
        const second = sim.scan('NOORDER-FAST');
        // Settled before asserting, so a failure leaves no scan pending (stop() rejects what is left).
        second.catch(() => undefined);
        const a = await first.catch((err: Error) => ({ error: err.message }));
        assert.ok('order' in a && a.order !== undefined, `SLOW1 got ${JSON.stringify(a)}`);
        assert.deepEqual(a.order.tests, ['1', '2', '3', '4']);
        const b = await second;
        assert.equal(b.noInformation, true, `NOORDER-FAST got ${JSON.stringify(b)}`);
      }),
  );
});
