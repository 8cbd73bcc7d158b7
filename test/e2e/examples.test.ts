/**
 * Every example flow in examples/, end to end, as an integrator runs it: the
 * package packed and installed into a fresh Node-RED userDir (once for this
 * file), the example's JSON as the flows file, Node-RED as its own process with
 * the example's environment variables pointing at a loopback LIS, and the
 * analyzer simulator of the example's dialect on the other end of the line
 * (a socat pty pair for serial examples; for the TCP example the simulator
 * listens and Node-RED's tcp in connects to it).
 *
 * Per example the analyzer scans three samples with orders and one the LIS
 * does not know (NOORDER-..., every example's dialect has a "no information"
 * answer), with a fixed seed so values are the same on every run. Then:
 * at the LIS, one order request per scan naming its sample, every acknowledged
 * result once under its own sample with the mapped LIS code and the value
 * sent, one processed notification per sample; at the analyzer, each download
 * with the sample's mapped tests and patient.
 *
 * Each run moves the example's lis-push-in from 8181 to a free port, so a
 * running demo or Node-RED holding 8181 does not get in the way.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EXAMPLES } from '../../demo/examples';
import { getProfile } from '../../lib/astm/dialects';
import { anOrder } from '../support/lis-stub';
import { checkDownloads, checkLine, checkNodeRedLog, checkNoOrderSamples, checkOrderRequests, checkProcessed, checkRequestHeaders, checkResults } from './checks';
import { E2eRun, exampleFiles, installPackage, loadExample, waitUntil, withDiagnostics, type Installation } from './harness';

/** The ASTM examples; the HL7 ones run in hl7-examples.test.ts. */
const ASTM_FILES = EXAMPLES.filter((e) => e.protocol !== 'hl7').map((e) => e.file);
const FILES = exampleFiles().filter((f) => ASTM_FILES.includes(f));

let installation: Installation | undefined;

before(() => {
  installation = installPackage();
});

after(() => {
  installation?.remove();
});

it('finds the example flows of demo/examples.ts in examples/, five of them ASTM', () => {
  assert.deepEqual(exampleFiles(), EXAMPLES.map((e) => e.file).sort());
  assert.equal(FILES.length, 5);
});

/** A short, distinct prefix per example: GEN, ROC, SYS, IMM, MIN. */
function prefixOf(file: string): string {
  return file.slice(0, 3).toUpperCase();
}

for (const file of FILES) {
  describe(`example ${file}`, () => {
    let run: E2eRun | undefined;
    const check = (fn: (r: E2eRun) => void) => () => withDiagnostics(run, () => fn(run!));

    before(async () => {
      assert.ok(installation, 'the package was not installed');
      const example = loadExample(file);
      const p = prefixOf(file);
      // The NOORDER sample comes second: the samples after it must go through as if it had not been there.
      run = new E2eRun({ example, installation, samples: [`${p}1001`, `NOORDER-${p}`, `${p}1002`, `${p}1003`], seed: 20261121 });
      await withDiagnostics(run, async () => {
        await run!.start();
        await run!.run();
      });
    });

    after(async () => {
      await run?.stop();
    });

    it('sends the Bearer Token from LIS_TOKEN, a fresh X-Request-ID and an ISO X-Request-Timestamp on every LIS request', check(checkRequestHeaders));
    it('asks the LIS once per scanned sample, with X-Expected-Sample equal to the SampleNumber', check(checkOrderRequests));
    it('downloads each sample\'s LIS tests as the mapped instrument codes, with its patient, as the answer to the query', check(checkDownloads));
    it('delivers every acknowledged result once, for its own sample, with the mapped LIS code and the value sent', check(checkResults));
    it('reports each sample processed once, after its results, with the LIS test IDs that came back', check(checkProcessed));
    it('answers the NOORDER sample "no information" and sends nothing of it to the LIS', check(checkNoOrderSamples));
    it('leaves no message of the analyzer undelivered', check(checkLine));
    if (getProfile(EXAMPLES.find((e) => e.file === file)!.dialect).acceptsUnsolicitedOrders) {
      it('downloads an order the LIS pushes to lis-push-in, which no query asked for, to the analyzer', () => withDiagnostics(run, () => pushedOrderArrives(run!, `PUSHED-${prefixOf(file)}`)));
    }
    it('logs no error in Node-RED', check(checkNodeRedLog));
  });
}

/** Pushes an order the way the LIS does (spec 4.6) and waits for the analyzer to read it. */
async function pushedOrderArrives(run: E2eRun, sample: string): Promise<void> {
  const planned = [...run.plan.values()][0]!;
  const body = JSON.stringify({ order: anOrder(sample, { Tests: planned.tests, SampleType: planned.sampleType, patient: planned.patient }) });
  const res = await fetch(`http://127.0.0.1:${run.pushPort}/api/getSampleData`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  assert.equal(res.status, 200, await res.text());
  await waitUntil(() => run.simRecord!.orders.some((o) => o.sampleNumber === sample), 20_000, `the pushed order ${sample} at the analyzer`);
  const order = run.simRecord!.orders.find((o) => o.sampleNumber === sample)!;
  const expected = planned.tests.map((id) => run.example.tests.find((t) => t.lisTestId === id)!.instrumentCode);
  assert.deepEqual([...order.tests].sort(), [...expected].sort(), 'the pushed order carries its tests as the analyzer\'s codes');
}
