/**
 * Roche Urisys 1100 urine strip reader, results.
 *
 * Source: the result example of the Urisys 1100 Host Interface Document
 * ("Technical Product Information & Serial Interface Description of Urisys
 * 1100, Software Version 5.x & 6.x"; the example's H-5 says SW5.31), as a
 * Python test script carries it: fixture roche-urisys1100-result-manual.txt
 * (test/fixtures/SOURCES-added.md). The document prints each blank as `·`;
 * 14 of the 15 frame checksums add up over spaces, the fifteenth (SG) over
 * `g/cm3` where the script has `gcm3`, one slash lost in copying. The
 * document's field tables were not read: each value below is cited from the
 * example and LIS2-A2.
 *
 * What sets it apart from the cobas u 411 profile, its successor's: O-3 is
 * empty and the sample sits in O-4; R-3's name is padded to three characters
 * (`01^ SG`); R-4 holds two readings, `··neg^··neg`, `···50^···3+`, each
 * right-aligned in blanks.
 *
 * Not covered: queries and downloads (the reader has none), QC (no example).
 */
import type { DialectProfile } from './types';
import { LIS2A2_QC_MARKERS } from './standard';

export const ROCHE_URISYS_1100: DialectProfile = {
  id: 'roche-urisys1100',
  label: 'Roche Urisys 1100 (results)',
  vendor: 'Roche',
  model: 'Urisys 1100',
  // A serial interface ("Serial Interface Description", 1.1 Serial
  // Connection); the rate is not in the example: LIS1-A's 9600 8N1 as a
  // conservative default.
  transport: { serial: { baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 } },
  // One record per ETX frame, frame numbers wrapping 7 to 0 (fixture): LIS1-A's values.
  link: {},
  // The example is ASCII; Latin-1 reads every byte as one character (LIS1-A 6.3.3 sums bytes).
  charset: 'latin1',
  // `O|1||001^00036^C10|Urinalysis^Incubated|...`: O-3 empty; O-4, LIS2-A2's
  // instrument specimen ID, `001^00036^C10`. Component 1 is taken as the
  // sample ID, as in the same vendor's cobas u 411 example (sample `001` in
  // O-3, its rack position in O-4); `00036` reads as the reader's running
  // number and `C10` as the strip (Combur 10). Not confirmed by the field
  // table: a site whose reader numbers otherwise overrides sampleId.component.
  sampleId: { record: 'O', field: 'instrumentSpecimenId', component: 1, trim: true, singleComponent: false },
  // `R|01|01^ SG|1.020|gcm3|...`: the parameter's name at component 2, padded
  // to three characters (` SG`, ` pH`, `LEU`); component 1 is its pad number.
  testId: { code: { component: 2, trim: true } },
  // `  neg^  neg`, `   50^   3+`: two readings of one pad, right-aligned in
  // blanks; the first is in R-5's units (`50` with ` Ery/ul`), the second a
  // grade. The first is the value; the field as sent stays in rawResult.
  // R-10 holds a date alone (`20090116`) and R-13 is empty: no per-result
  // time is read (the example's times are H-14 and O-15).
  results: { value: { component: 1, trim: true, decimalComma: 'keep' }, completedAt: { record: 'R', field: 'completedAt' } },
  // No QC example: LIS2-A2's markers (O-12 is `X`, "specimen already collected").
  qc: LIS2A2_QC_MARKERS,
  // Not used: the profile reads no queries. Conservative default.
  queryDeadlineMs: 10_000,
  acceptsUnsolicitedOrders: false,
};
