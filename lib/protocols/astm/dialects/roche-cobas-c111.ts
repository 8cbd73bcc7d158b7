/**
 * Roche cobas c 111 (compact chemistry), results.
 *
 * Sources: fixture roche-c111-result.txt (senaite/senaite.astm @b701c18 :
 * src/senaite/astm/tests/data/cobas_c111.txt) and the cobas c 111 Host
 * Interface Manual version 2.1 (October 2012), read at
 * https://www.easymanua.ls/roche/cobas-c111/manual?p=N (below: manual pN).
 *
 * The c 111 leaves O-3 empty when it sends (`O|1||T20 10134GA D28^^6||S...`):
 * manual p44, O-3 is read only when the analyzer receives, O-4 is "the sample
 * identification known by the instrument", `<Sample ID>^^<Position ID>`. The
 * generic profile, reading O-3, reports these results as unassigned.
 */
import type { DialectProfile } from './types';

export const ROCHE_COBAS_C111: DialectProfile = {
  id: 'roche-cobas-c111',
  label: 'Roche cobas c 111 (results)',
  vendor: 'Roche',
  model: 'cobas c 111',
  // Conservative default (LIS1-A's); the manual's RS-232 chapter (4.1) was not read.
  transport: { serial: { baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 } },
  // One record per frame, ETB on all but the last (test/fixtures/SOURCES.md);
  // the receiver takes that in any case, every option at LIS1-A's value.
  link: {},
  // Latin-1 reads every byte as one character (LIS1-A 6.3.3 sums bytes; docs/design-notes.md).
  charset: 'latin1',
  // Manual p44: O-4 component 1, up to 23 characters, spaces allowed
  // (`T20 10134GA D28`); for controls "1000 + Control Code".
  sampleId: { record: 'O', field: 'instrumentSpecimenId', component: 1, trim: true, singleComponent: false },
  // Manual p45: "^^^<HostCode>^<Dilution>", the host application code at
  // component 4 (`R|1|^^^413|...`); a dilution is no other result.
  testId: { code: { component: 4, trim: true } },
  // Manual p50: R-9 F/C/X/R/I, R-11 the operator or `$SYS$`, R-12 "not used",
  // R-13 "Date and time the test result was calculated".
  results: { value: { trim: true, decimalComma: 'keep' }, completedAt: { record: 'R', field: 'completedAt' } },
  // Manual p44 points to the action code (O-12) for controls, on a page not
  // read; senaite's module has no QC code either: LIS2-A2's O-12 'Q'. Manual
  // p50: R-9 'I' = "QC result is ignored".
  qc: [{ record: 'O', field: 'actionCode', component: 1, anyOf: ['Q'] }],
  // Not used: the profile reads no queries. Conservative default.
  queryDeadlineMs: 10_000,
  acceptsUnsolicitedOrders: false,
};
