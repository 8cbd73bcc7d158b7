/**
 * Phadia (Thermo Fisher) ImmunoCAP / Phadia Prime, results.
 *
 * Source: fixture phadia-immunocap-result.txt (the sample message of the
 * Phadia LIS2 protocol document, via twgenaux/tgenaux-ASTM-LIS).
 */
import type { DialectProfile } from './types';
import { LIS2A2_QC_MARKERS } from './standard';

export const PHADIA_IMMUNOCAP: DialectProfile = {
  id: 'phadia-immunocap',
  label: 'Phadia ImmunoCAP / Phadia Prime (results)',
  vendor: 'Phadia',
  model: 'ImmunoCAP (Phadia Prime)',
  // Phadia Prime is PC software (H-6 `^127.0.0.1`): TCP.
  transport: { tcp: true },
  // Every link option at LIS1-A's value.
  link: {},
  // Latin-1 reads every byte as one character (LIS1-A 6.3.3 sums bytes; docs/design-notes.md).
  charset: 'latin1',
  // O-3 `B7650020^N^^0`: sample ID first; O-4 repeats it (`B7650020`).
  sampleId: { record: 'O', field: 'specimenId', component: 1, trim: true, singleComponent: false },
  // R-3 `^^^t2^sIgE^1`: allergen code at 4, method at 5.
  testId: { code: { component: 4, trim: true } },
  // R-4 `9.34^^^^`: the value is component 1.
  results: { value: { component: 1, trim: true, decimalComma: 'keep' }, completedAt: { record: 'R', field: 'completedAt' } },
  qc: LIS2A2_QC_MARKERS,
  queryDeadlineMs: 10_000,
  acceptsUnsolicitedOrders: false,
};
