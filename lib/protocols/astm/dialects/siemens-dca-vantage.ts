/**
 * Siemens DCA Vantage (HbA1c, urine albumin/creatinine), results.
 *
 * Sources: fixture siemens-dca-vantage-result.txt; senaite.astm's
 * dca_vantage.py, which quotes "DCA Vantage Analyzer, Host Computer
 * Communications Link, 17306 Rev. E 2012-06": O-4 is
 * `<sample sequence number>^<reagent lot number>`, not a sample ID, and the
 * DCA has no sample ID field. The one identifier an operator types is P-3
 * (practice-assigned patient ID), so that is read as the sample number: a site
 * using this profile must type the sample number there.
 */
import type { DialectProfile } from './types';

export const SIEMENS_DCA_VANTAGE: DialectProfile = {
  id: 'siemens-dca-vantage',
  label: 'Siemens DCA Vantage (results)',
  vendor: 'Siemens',
  model: 'DCA Vantage',
  // Conservative default (LIS1-A's).
  transport: { serial: { baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 } },
  // Every link option at LIS1-A's value.
  link: {},
  // Latin-1 reads every byte as one character (LIS1-A 6.3.3 sums bytes; docs/design-notes.md).
  charset: 'latin1',
  sampleId: { record: 'P', field: 'practicePatientId', component: 1, trim: true, singleComponent: false },
  // R-3 `^^^Alb`.
  testId: { code: { component: 4, trim: true } },
  // R-12 is the only time sent (`|F|||20240820151030`); senaite names it started_at.
  results: { value: { trim: true, decimalComma: 'keep' }, completedAt: { record: 'R', field: 'startedAt' } },
  // senaite: O-12 'Q' "when control is run".
  qc: [{ record: 'O', field: 'actionCode', component: 1, anyOf: ['Q'] }],
  queryDeadlineMs: 10_000,
  acceptsUnsolicitedOrders: false,
};
