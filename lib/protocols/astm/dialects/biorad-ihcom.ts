/**
 * Bio-Rad IH-Com (the IH-500/IH-1000 blood bank systems' data manager),
 * results.
 *
 * Sources: fixtures biorad-ihcom-bloodtype-result.txt and
 * biorad-ihcom-bloodtype-multipatient-result.txt (blutspende/go-astm @9b3fc38 :
 * examples/ihcom_v52/, a blood service's ASTM library; demo patients
 * `Testus^Test`, `Testis^Tost`), and that library's tests reading them
 * (e2etest/unmarshal_test.go: H-5 `Bio-Rad`, H-6 `IH v5.2`).
 *
 * What the generic profile already reads right (O-3, R-3 component 4) is kept;
 * what differs is the time: IH-Com leaves R-13 empty and sends the result time
 * in R-12.
 */
import type { DialectProfile } from './types';
import { LIS2A2_QC_MARKERS } from './standard';

export const BIORAD_IHCOM: DialectProfile = {
  id: 'biorad-ihcom',
  label: 'Bio-Rad IH-Com (results)',
  vendor: 'Bio-Rad',
  model: 'IH-Com v5 (IH-500, IH-1000)',
  // Conservative default (LIS1-A's); no source gives the link settings.
  transport: { serial: { baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 }, tcp: true },
  // Every link option at LIS1-A's value.
  link: {},
  // Latin-1 reads every byte as one character (LIS1-A 6.3.3 sums bytes; docs/design-notes.md).
  charset: 'latin1',
  // O-3 `1122206642`; O-4 repeats it with components (`1122206642^^^\1122206642^^^`).
  sampleId: { record: 'O', field: 'specimenId', component: 1, trim: true, singleComponent: false },
  // R-3 `^^^AntiA^MO10^Bloodgroup: A,B,D Confirmation ... (5005)^`: the
  // reaction or `Result` at component 4, the test profile (MO10) at 5. The
  // profile is the same for every row of one test, so it names no other result.
  testId: { code: { component: 4, trim: true } },
  // Values stay whole: a reaction grade `40^^`, a blood group
  // `A^NEG^NEG^ccee^K-^NEG^^^` (one component per antigen). R-9 `R`/`S`, R-11
  // the operator (`lalina^`), R-12 the time (`20220311114103`, also O-23).
  results: { value: { trim: false, decimalComma: 'keep' }, completedAt: { record: 'R', field: 'startedAt' } },
  // No QC capture: LIS2-A2's markers.
  qc: LIS2A2_QC_MARKERS,
  // Not used: the profile reads no queries. Conservative default.
  queryDeadlineMs: 10_000,
  acceptsUnsolicitedOrders: false,
};
