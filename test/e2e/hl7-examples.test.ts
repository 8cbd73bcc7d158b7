/**
 * The HL7 example flows end to end, as examples.test.ts runs the ASTM ones:
 * the package packed and installed into a fresh Node-RED userDir, the
 * example's JSON as the flows file (its tab's variables set to this run's
 * analyzer and a free lis-push-in port), Node-RED
 * as its own process, a loopback LIS, and the HL7 analyzer simulator of the
 * example's dialect listening on TCP for Node-RED's tcp in.
 *
 * Per example: three samples with orders and one the LIS does not know, each
 * queried (QRY^Q02 or QBP^Q11), answered before the analyzer's deadline (the
 * simulator gives up after its dialect's queryDeadlineMs), its order
 * downloaded (DSR^Q03 or OML^O33) with the mapped tests, its results (ORU^R01
 * or OUL^R22) at the LIS once, processed notified; "not found" for the
 * unknown one; an order the LIS pushes reaches the analyzer unasked.
 *
 * Then the misbehaviour that matters for HL7, on the Mindray example: frames
 * without their VT and junk between frames, a lost ACK so the analyzer sends
 * its results again under the same MSH-10 (processed once), and an AE answer to
 * the host's order, which reaches the Catch node with the analyzer's text.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CURATED_FILES, EXAMPLES } from '../../demo/examples';
import type { Hl7Misbehaviour } from '../../lib/sim';
import { checkHl7Downloads, checkProcessed, checkResults, exampleChecks } from './checks';
import { E2eRun, exampleFiles, installPackage, loadExample, pushOrderToAnalyzer, resultItems, useRun, withDiagnostics, type Example, type FlowNode, type Installation } from './harness';

/** The hand-written HL7 examples, in depth; every HL7 example runs one sample in side-by-side.test.ts. */
const HL7_FILES = EXAMPLES.filter((e) => e.protocol === 'hl7' && CURATED_FILES.includes(e.file)).map((e) => e.file);

let installation: Installation | undefined;
before(() => {
  installation = installPackage();
});
after(() => installation?.remove());

it('finds the HL7 example flows of demo/examples.ts in examples/: Mindray CL-2000i and a LAW analyzer', () => {
  assert.deepEqual(exampleFiles().filter((f) => HL7_FILES.includes(f)), ['mindray-cl2000i-hl7-tcp', 'roche-cobas6800-hl7-tcp']);
});

/** A short, distinct prefix per example: MH7, RH7. */
const prefixOf = (file: string) => `${file.slice(0, 1).toUpperCase()}H7`;

/**
 * The example as shipped, but for its "errors" debug node, which also writes to
 * Node-RED's log: that is where a test sees what reached the Catch node.
 */
function withCatchInLog(example: Example): Example {
  const errorsDebug = example.flow.find((n) => n.type === 'catch')?.wires as string[][] | undefined;
  const debugId = errorsDebug?.[0]?.[0];
  assert.ok(debugId, `${example.file} has a Catch node wired to a debug node`);
  const flow: FlowNode[] = example.flow.map((n) => (n.id === debugId ? { ...n, console: true } : n));
  return { ...example, flow };
}

for (const file of HL7_FILES) {
  describe(`HL7 example ${file}`, () => {
    const p = prefixOf(file);
    const { current, check } = useRun(() => new E2eRun({ example: loadExample(file), installation: installation!, samples: [`${p}1001`, `NOORDER-${p}`, `${p}1002`, `${p}1003`], seed: 20261123 }));

    for (const [title, fn] of exampleChecks(checkHl7Downloads)) it(title, check(fn));
    it('downloads an order the LIS pushes to lis-push-in, unasked, to the analyzer', () => withDiagnostics(current(), () => pushedOrderArrives(current()!, `PUSHED-${p}`)));
  });
}

/** An order the LIS pushes reaches the analyzer, which reads it as sent unasked, in the dialect's order message. */
async function pushedOrderArrives(run: E2eRun, sample: string): Promise<void> {
  const order = await pushOrderToAnalyzer(run, sample);
  assert.equal(order.unsolicited, true, 'the analyzer reads it as sent unasked');
  assert.equal(order.messageType, run.example.hl7Profile!.answer!.form === 'display' ? 'DSR^Q03' : 'OML^O33');
}

interface FaultCase {
  name: string;
  misbehaviour: Hl7Misbehaviour;
  samples: string[];
  faultCheck: (run: E2eRun) => void;
}

const FAULTS: FaultCase[] = [
  {
    name: 'frames without their leading VT and junk between frames',
    // Frames the simulator writes: 1 query, 2 ACK^Q03, 3 results, ... (its ACKs of the host's messages count too).
    misbehaviour: { missingStart: 0.5, junk: 0.5 },
    samples: ['MJV1', 'MJV2', 'MJV3'],
    faultCheck: (r) => {
      assert.ok(r.simRecord!.misbehaviour.some((m) => /VT/i.test(m) || /missingStart/.test(m)), `a frame went without VT: ${r.simRecord!.misbehaviour.join('; ')}`);
      assert.ok(r.simRecord!.misbehaviour.some((m) => /junk/i.test(m)), `junk went out: ${r.simRecord!.misbehaviour.join('; ')}`);
      assert.match(r.red!.output(), /discard/i, 'hl7-link warns about the bytes outside a frame');
    },
  },
  {
    name: 'a lost ACK: the analyzer sends its results again under the same MSH-10',
    // Its first results message, however the queries fall between them on a busy machine.
    misbehaviour: { dropResultsAck: 1 },
    samples: ['MDA1', 'MDA2'],
    faultCheck: (r) => {
      assert.ok(r.simRecord!.misbehaviour.some((m) => /dropResultsAck/.test(m)), `the ACK was dropped: ${r.simRecord!.misbehaviour.join('; ')}`);
      const resent = r.config.samples.filter((s) => r.simRecord!.frames.filter((f) => f.direction === 'out' && /ORU\^R01/.test(f.text) && f.text.includes(`|${s}|`)).length === 2);
      assert.equal(resent.length, 1, 'the results of one sample went out twice');
      const sample = resent[0]!;
      assert.equal(resultItems(r.stub!).filter((i) => i.SampleNumber === sample).length, r.summary!.samples.find((s) => s.sampleNumber === sample)!.results!.length, `the results of ${sample} reached the LIS once`);
      assert.equal(r.stub!.to('/processed').filter((q) => (q.json as { SampleNumber?: string }).SampleNumber === sample).length, 1, `${sample} processed notified once`);
    },
  },
];

describe('HL7 misbehaviour on the Mindray CL-2000i HL7 example', () => {
  for (const c of FAULTS) {
    describe(c.name, () => {
      const { check } = useRun(() => new E2eRun({ example: loadExample('mindray-cl2000i-hl7-tcp'), installation: installation!, samples: c.samples, seed: 7, misbehaviour: c.misbehaviour }));
      it('the fault happened', check(c.faultCheck));
      it('downloads every order and delivers every result once, processed once', check((r) => {
        checkHl7Downloads(r);
        checkResults(r);
        checkProcessed(r);
      }));
    });
  }

  describe('an AE answer to the host\'s order', () => {
    // The first host message the analyzer acknowledges is the DSR^Q03 with MAE1's order: it is answered AE and not taken.
    const { check } = useRun(() => new E2eRun({ example: withCatchInLog(loadExample('mindray-cl2000i-hl7-tcp')), installation: installation!, samples: ['MAE1', 'MAE2'], seed: 11, misbehaviour: { errorAck: 1 } }));
    it('the analyzer answered the order AE', check((r) => assert.ok(r.simRecord!.misbehaviour.some((m) => /errorAck/.test(m)), r.simRecord!.misbehaviour.join('; '))));
    it('the Catch node gets the failed send with the analyzer\'s error text', check((r) => {
      // The debug node behind the Catch prints the whole message: msg.error, then msg._error with its code.
      const printed = r.red!.output().split(/^(?=\S.*\[(?:info|warn|error)\] )/m).filter((entry) => /\[debug:errors: Mindray CL-2000i \(HL7\)\]/.test(entry));
      assert.ok(
        printed.some((entry) => /the analyzer answered AE to message \S+: simulated error: DSR\^Q03 \S+ refused/.test(entry) && /code: 'SEND_FAILED'/.test(entry) && /type: 'hl7-link'/.test(entry)),
        `what the Catch node's debug node printed:\n${printed.join('\n')}`,
      );
    }));
    it('goes on with the next sample: its order, its results once', check((r) => {
      const second = r.summary!.samples.find((s) => s.sampleNumber === 'MAE2');
      assert.equal(second?.ok, true, second?.error);
      const items = resultItems(r.stub!);
      assert.equal(items.filter((i) => i.SampleNumber === 'MAE2').length, second!.results!.length);
      assert.deepEqual(items.filter((i) => i.SampleNumber === 'MAE1'), [], 'nothing of the refused sample');
    }));
  });
});
