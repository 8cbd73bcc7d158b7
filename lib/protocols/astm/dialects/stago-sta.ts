/**
 * Stago STA Satellite Max (coagulation), results.
 *
 * Source: fixture stago-sta-satellite-max-result.txt (a Ruby-ASTM serial
 * capture), read field by field. Each test comes as its own O record for the
 * same sample, followed by R, C (instrument messages) and M (reagent) records.
 */
import type { DialectProfile } from './types';
import { LIS2A2_QC_MARKERS } from './standard';

export const STAGO_STA: DialectProfile = {
  id: 'stago-sta',
  label: 'Stago STA Satellite Max (results)',
  vendor: 'Stago',
  model: 'STA Satellite Max',
  // The capture is serial; 9600 8N1 is LIS1-A's default (conservative).
  transport: { serial: { baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 } },
  // One record per ETX frame, frame numbers wrapping (test/fixtures/SOURCES.md).
  link: {},
  // Latin-1 reads every byte as one character (LIS1-A 6.3.3 sums bytes; docs/design-notes.md).
  charset: 'latin1',
  // O-3 `000004782` is the sample; O-4 (`226`, `227`, `651`) changes per test.
  sampleId: { record: 'O', field: 'specimenId', component: 1, trim: true, singleComponent: false },
  // R-3 `^^^SPT^F^64`: test code at component 4.
  testId: { code: { component: 4, trim: true } },
  results: { value: { trim: true, decimalComma: 'keep' }, completedAt: { record: 'R', field: 'completedAt' } },
  // No QC capture: LIS2-A2's markers (H-12 'Q', O-12 'Q').
  qc: LIS2A2_QC_MARKERS,
  queryDeadlineMs: 10_000,
  acceptsUnsolicitedOrders: false,
};
