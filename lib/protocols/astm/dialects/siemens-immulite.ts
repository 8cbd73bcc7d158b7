/**
 * Siemens (formerly DPC) IMMULITE: results and host queries.
 *
 * Sources: fixtures siemens-immulite-result.txt and siemens-immulite-query.txt,
 * copied from levinalex/lis @405f97d : features/lis.feature, a LIS "developed
 * for and tested with DPC Immulite I2500 using the LIS specification version
 * 600129-H" (its README). The messages are the DPC specification's own
 * examples (demo names `Last 1^First 1`, the DPC address in H-6) as that
 * project's tests replay them; the expected values below are the ones its
 * feature file checks (sample `DPC-130000445`, TT4 `10.3` ug/dL, flag N,
 * status F, time 1995-01-19 09:28:26 = R-13).
 *
 * The result example's header is `H|\^|`: two delimiters declared, no escape
 * character, which the record codec reads as declared.
 *
 * Not covered: the order download. The project answers a query with one O
 * record per test (`O|1|123ABC||^^^TSH`, `O|1|123ABC||^^^FT3`, ...), a layout
 * the order builder here does not write, and no DPC page was read to confirm it.
 */
import type { DialectProfile } from './types';
import { LIS2A2_QC_MARKERS } from './standard';

export const SIEMENS_IMMULITE: DialectProfile = {
  id: 'siemens-immulite',
  label: 'Siemens / DPC IMMULITE (results, queries)',
  vendor: 'Siemens',
  model: 'IMMULITE, IMMULITE 2000/2500',
  // The DPC header advertises `N81` in H-9 (characteristics of sender) in the
  // query example and levinalex/lis writes `8N1` in its own: 9600 is not
  // given, so LIS1-A's rate stays as a conservative default. Serial only: the
  // project talks to the analyzer over a serial port (README `-l /dev/ttyUSB0`).
  transport: { serial: { baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 } },
  // Every link option at LIS1-A's value; the examples end with `L|1` (no code).
  link: {},
  // Latin-1 reads every byte as one character (LIS1-A 6.3.3 sums bytes; docs/design-notes.md).
  charset: 'latin1',
  // O-3 `130000445`: the specimen ID the project files results under
  // (`DPC-130000445`); P-3 `119813;TGH` is the patient's.
  sampleId: { record: 'O', field: 'specimenId', component: 1, trim: true, singleComponent: false },
  // `Q|1|^123ABC||ALL||||||||O`: the sample at component 2 of Q-3
  // (LIS2-A2's patientID^specimenID), Q-5 `ALL`, Q-13 `O`. No cancel is shown.
  query: { field: 'startingRange', component: 2, trim: true, repeats: 'first', allTests: ['ALL'] },
  // R-3 `^^^TT4`.
  testId: { code: { component: 4, trim: true } },
  // R-4 `173.` kept as sent; R-6 `.5\.5^1500\1500` is kept whole as text; R-13
  // is the completion time the project posts as result_timestamp.
  results: { value: { trim: true, decimalComma: 'keep' }, completedAt: { record: 'R', field: 'completedAt' } },
  // No QC example: LIS2-A2's markers.
  qc: LIS2A2_QC_MARKERS,
  // Conservative default: no source gives the analyzer's wait for an answer.
  queryDeadlineMs: 10_000,
  acceptsUnsolicitedOrders: false,
};
