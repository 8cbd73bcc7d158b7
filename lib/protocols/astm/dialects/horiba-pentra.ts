/**
 * HORIBA ABX Pentra XLR / Pentra 60, results.
 *
 * Sources: fixtures horiba-pentra-xlr-result.txt, horiba-pentra60-result-log.txt;
 * field meanings as read by senaite.astm's horiba_pentra_xlr.py (from the
 * HORIBA "ABX Pentra XL80 / Pentra XLR" host documentation it quotes).
 */
import type { DialectProfile } from './types';

export const HORIBA_PENTRA: DialectProfile = {
  id: 'horiba-pentra',
  label: 'HORIBA ABX Pentra (results)',
  vendor: 'HORIBA',
  model: 'Pentra XLR, Pentra 60',
  // Conservative default (LIS1-A's 9600 8N1). node-astm opens the Pentra 60
  // at 38 400 baud, one of LIS1-A 5.2.3's optional rates (iShafayet/node-astm,
  // horiba-pentra-60-reader.js): check the analyzer's setting.
  transport: { serial: { baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 } },
  // The XLR sends one record per ETX frame with frame numbers wrapping 7 -> 0 (test/fixtures/SOURCES.md).
  link: {},
  // Latin-1 reads every byte as one character (LIS1-A 6.3.3 sums bytes; docs/design-notes.md).
  charset: 'latin1',
  // O-3 = SampleID^Rack^TubePosition (`S1234^00^00`), senaite's note on field 9.4.3.
  sampleId: { record: 'O', field: 'specimenId', component: 1, trim: true, singleComponent: false },
  // R-3 = `^^^WBC^804-5^1`: result name^LOINC^dilution ratio.
  testId: { code: { component: 4, trim: true } },
  results: { value: { trim: true, decimalComma: 'keep' }, completedAt: { record: 'R', field: 'completedAt' } },
  // H-12: P patient, Q quality control, D technician message (senaite).
  qc: [{ record: 'H', field: 'processingId', component: 1, anyOf: ['Q'] }],
  // Conservative default; the profile reads no queries.
  queryDeadlineMs: 10_000,
  acceptsUnsolicitedOrders: false,
};
