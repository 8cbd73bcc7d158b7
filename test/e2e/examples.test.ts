/**
 * Every example flow in examples/, end to end, as an integrator runs it: the
 * package packed and installed into a fresh Node-RED userDir (once for this
 * file), the example's JSON as the flows file, Node-RED as its own process with
 * the LIS's environment variables pointing at a loopback LIS, and the
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
 * Each run sets the example's tab variables (docs/examples.md) to its line and
 * a free lis-push-in port, so a running demo or Node-RED holding the example's
 * default port does not get in the way.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CURATED_FILES, EXAMPLES } from '../../demo/examples';
import { getProfile } from '../../lib/protocols/astm/dialects';
import { checkDownloads, exampleChecks } from './checks';
import { E2eRun, exampleFiles, installPackage, loadExample, pushOrderToAnalyzer, useRun, withDiagnostics, type Installation } from './harness';

/**
 * The hand-written ASTM examples, in depth; the HL7 ones run in hl7-examples.test.ts. Every example, the
 * ones derived from a dialect too, runs one sample in side-by-side.test.ts, all in one Node-RED.
 */
const ASTM_FILES = EXAMPLES.filter((e) => e.protocol !== 'hl7' && CURATED_FILES.includes(e.file)).map((e) => e.file);
const FILES = exampleFiles().filter((f) => ASTM_FILES.includes(f));

let installation: Installation | undefined;

before(() => {
  installation = installPackage();
});

after(() => {
  installation?.remove();
});

it('finds the example flows of demo/examples.ts in examples/, five hand-written ones ASTM', () => {
  assert.deepEqual(exampleFiles(), EXAMPLES.map((e) => e.file).sort());
  assert.equal(FILES.length, 5);
});

/** A short, distinct prefix per example: GEN, ROC, SYS, IMM, MIN. */
function prefixOf(file: string): string {
  return file.slice(0, 3).toUpperCase();
}

for (const file of FILES) {
  describe(`example ${file}`, () => {
    const p = prefixOf(file);
    // The NOORDER sample comes second: the samples after it must go through as if it had not been there.
    const { current, check } = useRun(() => new E2eRun({ example: loadExample(file), installation: installation!, samples: [`${p}1001`, `NOORDER-${p}`, `${p}1002`, `${p}1003`], seed: 20261121 }));

    for (const [title, fn] of exampleChecks(checkDownloads)) it(title, check(fn));
    if (getProfile(EXAMPLES.find((e) => e.file === file)!.dialect).acceptsUnsolicitedOrders) {
      it('downloads an order the LIS pushes to lis-push-in, which no query asked for, to the analyzer', () => withDiagnostics(current(), () => pushOrderToAnalyzer(current()!, `PUSHED-${p}`).then(() => undefined)));
    }
  });
}
