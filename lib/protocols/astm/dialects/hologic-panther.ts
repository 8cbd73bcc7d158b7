/**
 * Hologic Panther (molecular), results.
 *
 * Source: fixture hologic-panther-result.txt (felicity-astm). Each assay sends
 * several R records with the same code at R-3 component 4 (`qHIV-1`) and the
 * result's name at component 5 (`HIV-1`, `ICResult`, `ResultValid`,
 * `HIV-1LogBase10`): the name is the sub-code, or every row would carry the
 * one code and land on the same LIS test.
 */
import type { DialectProfile } from './types';
import { LIS2A2_QC_MARKERS } from './standard';

export const HOLOGIC_PANTHER: DialectProfile = {
  id: 'hologic-panther',
  label: 'Hologic Panther (results)',
  vendor: 'Hologic',
  model: 'Panther',
  // Conservative default (LIS1-A's).
  transport: { serial: { baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 }, tcp: true },
  // The capture ends without an L record.
  link: { terminatorRequired: false },
  // Latin-1 reads every byte as one character (LIS1-A 6.3.3 sums bytes; docs/design-notes.md).
  charset: 'latin1',
  // O-3 = specimen ID (`662047`); O-4 = run GUID^position.
  sampleId: { record: 'O', field: 'specimenId', component: 1, trim: true, singleComponent: false },
  testId: { code: { component: 4, trim: true }, subCode: { component: 5, trim: true } },
  results: { value: { trim: true, decimalComma: 'keep' }, completedAt: { record: 'R', field: 'completedAt' } },
  qc: LIS2A2_QC_MARKERS,
  queryDeadlineMs: 10_000,
  acceptsUnsolicitedOrders: false,
};
