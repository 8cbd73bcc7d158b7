/**
 * Roche cobas u 411 urine analyzer, results.
 *
 * Source: the result example of the cobas u 411 Host Interface Manual (V 2.1,
 * software 3.2.0.1001, the version in the example's H-5), as a Python test
 * script carries it: fixture roche-cobas-u411-result-manual.txt
 * (test/fixtures/SOURCES-added.md). The manual prints each blank as `·`; all
 * seventeen frame checksums add up over spaces, so the text is the manual's
 * to the byte. The manual's field tables were not read: each value below is
 * cited from the example and LIS2-A2.
 *
 * What sets it apart: R-3 is `number^abbreviation` (`1^SG`, `2^pH`), the
 * strip pad's position first and its name second, where LIS2-A2 and every
 * other profile here read the code at component 4 (`^^^code`). The generic
 * profile finds no test code in it and reports the twelve results unassigned.
 *
 * Not covered: queries and downloads (not in the example), QC (no example),
 * the sediment and flag records the manual's later versions describe.
 */
import type { DialectProfile } from './types';
import { LIS2A2_QC_MARKERS } from './standard';

export const ROCHE_COBAS_U411: DialectProfile = {
  id: 'roche-cobas-u411',
  label: 'Roche cobas u 411 (results)',
  vendor: 'Roche',
  model: 'cobas u 411',
  // The example is a serial exchange (ENQ ... EOT, ETX frames); the rate is
  // not in it: LIS1-A's 9600 8N1 as a conservative default.
  transport: { serial: { baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 } },
  // One record per ETX frame, frame numbers wrapping 7 to 0 (fixture): LIS1-A's values.
  link: {},
  // The example is ASCII; Latin-1 reads every byte as one character (LIS1-A 6.3.3 sums bytes).
  charset: 'latin1',
  // `O|1|001|1^^^^SAMPLE||R||||||X|||20110315101754`: O-3 `001` the sample
  // ID; O-4 `1^^^^SAMPLE` the rack position and the kind of tube, no sample number.
  sampleId: { record: 'O', field: 'specimenId', component: 1, trim: true, singleComponent: false },
  // `R|1|1^SG|1.005|||||||service`: the parameter's name at component 2 of
  // R-3 (`SG`, `pH`, `LEU` ... `CLA`). Component 1 is its position on the
  // strip (1-12), which would change meaning with another strip type.
  testId: { code: { component: 2, trim: true } },
  // R-4 the value alone, as printed (`1.005`, `neg`, `p.yel`; `12^CLA` is sent
  // empty). R-13 is empty in every R record: the example gives no per-result
  // time (its only times are H-14 and O-15, the measurement of the strip),
  // so completedAt stays absent rather than guessed from another record.
  results: { value: { trim: true, decimalComma: 'keep' }, completedAt: { record: 'R', field: 'completedAt' } },
  // No QC example: LIS2-A2's markers (O-12 is `X`, "specimen already collected").
  qc: LIS2A2_QC_MARKERS,
  // Not used: the profile reads no queries. Conservative default.
  queryDeadlineMs: 10_000,
  acceptsUnsolicitedOrders: false,
};
