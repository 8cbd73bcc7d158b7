/**
 * Roche cobas c 311, results only. Its O-3 is not a plain sample ID:
 * `11625^CL-PL-24-0370         ^1^^004` is counter^sampleID^count^^daily
 * counter, the sample ID padded to 22 characters (roche-c311-result.txt;
 * the same reading in senaite.astm's roche_cobas_c311.py, which notes the
 * field "behaves different than described in the documentation"). Component 1
 * would file every result under a running counter, which is why the generic
 * profile refuses this O-3.
 *
 * Queries and downloads are not covered: no fixture shows them.
 */
import type { DialectProfile } from './types';

export const ROCHE_COBAS_C311: DialectProfile = {
  id: 'roche-cobas-c311',
  label: 'Roche cobas c 311 (results)',
  vendor: 'Roche',
  model: 'cobas c 311',
  // Conservative default (LIS1-A's).
  transport: { serial: { baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 } },
  // Every link option at LIS1-A's value.
  link: {},
  // Latin-1 reads every byte as one character (LIS1-A 6.3.3 sums bytes; docs/design-notes.md).
  charset: 'latin1',
  sampleId: { record: 'O', field: 'specimenId', component: 2, trim: true, singleComponent: false },
  // R-3 `^^^685/`: application code before '/', as on the e 411 cobas type.
  testId: { code: { component: 4, split: { separator: '/', part: 1 }, trim: true } },
  // No time per result (R-12/R-13 empty in the fixture); O-23 holds the
  // reporting time (`20240203132011`).
  results: { value: { trim: true, decimalComma: 'keep' }, completedAt: { record: 'O', field: 'resultedAt' } },
  // O-12 'Q' = control (senaite's ACTION_CODES N/Q/A/C; the e 411 cobas type uses the same code).
  qc: [{ record: 'O', field: 'actionCode', component: 1, anyOf: ['Q'] }],
  // Not used: the profile reads no queries. Conservative default.
  queryDeadlineMs: 10_000,
  acceptsUnsolicitedOrders: false,
};
