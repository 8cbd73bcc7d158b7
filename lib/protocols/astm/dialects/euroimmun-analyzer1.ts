/**
 * EUROIMMUN Analyzer I (ELISA), results.
 *
 * Source: fixture euroimmun-analyzer1-result.txt (go-astm's example, whose
 * test reads `TEST-27-079-5-1` as the lab-assigned patient ID, P-4). Every
 * sample comes as its own P/O/R group and O-3 is empty: the sample is
 * identified by P-4 only.
 */
import type { DialectProfile } from './types';
import { LIS2A2_QC_MARKERS } from './standard';

export const EUROIMMUN_ANALYZER1: DialectProfile = {
  id: 'euroimmun-analyzer1',
  label: 'EUROIMMUN Analyzer I (results)',
  vendor: 'EUROIMMUN',
  model: 'Analyzer I',
  // Conservative default (LIS1-A's).
  transport: { serial: { baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 } },
  // The capture has no L record (test/fixtures/SOURCES.md): a message must be accepted without one.
  link: { terminatorRequired: false },
  // Latin-1 reads every byte as one character (LIS1-A 6.3.3 sums bytes; docs/design-notes.md).
  charset: 'latin1',
  sampleId: { record: 'P', field: 'laboratoryPatientId', component: 1, trim: true, singleComponent: false },
  testId: { code: { component: 4, trim: true } },
  // Decimal commas (`7,41`) become dots for the LIS; the text as sent stays in rawResult.
  results: { value: { trim: true, decimalComma: 'dot' }, completedAt: { record: 'R', field: 'completedAt' } },
  qc: LIS2A2_QC_MARKERS,
  queryDeadlineMs: 10_000,
  acceptsUnsolicitedOrders: false,
};
