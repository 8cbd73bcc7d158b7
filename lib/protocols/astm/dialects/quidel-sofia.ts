/**
 * Quidel (QuidelOrtho) Sofia 2 fluorescent immunoassay analyzer, results.
 *
 * Source: a line monitor's log of one Sofia 2 result transfer (a Lyme IgM/IgG
 * test), bickelj17/LIS-ASTM @41dff36 : LIS_result.txt, the fixture
 * quidel-sofia2-result-monitor-log.txt (below: the capture).
 *
 * What sets it apart: the Sofia sends its text in UTF-8 (the monitor's byte
 * counts prove it: 86 bytes for the 83 characters of the P record) and
 * computes each frame's checksum over the characters, not the bytes. A frame
 * of ASCII text checks out either way; the two frames holding umlauts carry
 * checksums that LIS1-A 6.3.3 (a sum of bytes) does not give, and the link
 * answers them with NAK, as the monitor flagged them ("Bad checksum"). Sample
 * numbers and patient fields in ASCII avoid it.
 *
 * Not covered: queries and downloads (none in the capture), QC (none).
 */
import type { DialectProfile } from './types';
import { LIS2A2_QC_MARKERS } from './standard';

export const QUIDEL_SOFIA: DialectProfile = {
  id: 'quidel-sofia',
  label: 'Quidel Sofia 2 (results)',
  vendor: 'QuidelOrtho',
  model: 'Sofia 2',
  // The monitor names the analyzer "Client" and the host "Server", the roles
  // of a TCP session (capture). Serial settings are not in it.
  transport: { tcp: true },
  // One record per ETX frame, frame numbers 1-7 (capture): LIS1-A's values.
  link: {},
  // UTF-8: `O|1|üäö öÜÄ|...` went out as 62 bytes for 56 characters (capture,
  // the monitor's count), two bytes per umlaut.
  charset: 'utf8',
  // `O|1|üäö öÜÄ|543225^20340806|Lyme||||||1234|||||P`: O-3 the sample ID as
  // the operator typed it; O-4 `543225^20340806` is no sample number (it
  // reads as a lot and an expiry date, 2034-08-06), O-5 the test type.
  sampleId: { record: 'O', field: 'specimenId', component: 1, trim: true, singleComponent: false },
  // `R|1|^^^IgM|negative|||||F||||20251210220914`: the analyte at R-3
  // component 4, the qualitative result alone in R-4, R-9 'F', R-13 the time.
  testId: { code: { component: 4, trim: true } },
  results: { value: { trim: true, decimalComma: 'keep' }, completedAt: { record: 'R', field: 'completedAt' } },
  // No QC transfer in the capture: LIS2-A2's markers.
  qc: LIS2A2_QC_MARKERS,
  // Not used: the profile reads no queries. Conservative default.
  queryDeadlineMs: 10_000,
  acceptsUnsolicitedOrders: false,
};
