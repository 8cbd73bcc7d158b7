/**
 * HORIBA Yumizen H500 / H550, results and QC.
 *
 * Sources: fixtures horiba-yumizen-h500-qc-result.txt and
 * horiba-yumizen-h550-qc-result.txt (both QC runs), read field by field.
 */
import type { DialectProfile } from './types';

export const HORIBA_YUMIZEN: DialectProfile = {
  id: 'horiba-yumizen',
  label: 'HORIBA Yumizen H500 / H550 (results)',
  vendor: 'HORIBA',
  model: 'Yumizen H500, H550',
  // Conservative default (LIS1-A's).
  transport: { serial: { baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 }, tcp: true },
  // The H500 numbers frames irregularly (1-5,1,1,1,4,5) and sends one 26 KB
  // M frame (test/fixtures/SOURCES.md): no strict numbering; frames up to LIS1-A's 64,000
  // (section 6.3.1) are accepted.
  link: { strictFrameNumbers: false },
  // Latin-1 reads every byte as one character (LIS1-A 6.3.3 sums bytes; docs/design-notes.md).
  charset: 'latin1',
  // O-3 = sample (or control lot) ID, a single component in both captures (`PX440N`).
  sampleId: { record: 'O', field: 'specimenId', component: 1, trim: true, singleComponent: false },
  // R-3 = `^^^MCV^787-2`: parameter^LOINC.
  testId: { code: { component: 4, trim: true } },
  // R-12 is the only time sent (`MATYL^^USER|20230329110631||`); R-13 is empty.
  results: { value: { trim: true, decimalComma: 'keep' }, completedAt: { record: 'R', field: 'startedAt' } },
  // H-12 'Q' (the captures' `|Q|LIS2-A2|`) and O-16 `CTRL^^CTRL MEDIUM`.
  qc: [
    { record: 'H', field: 'processingId', component: 1, anyOf: ['Q'] },
    { record: 'O', field: 'specimenDescriptor', component: 1, anyOf: ['CTRL'] },
  ],
  // Conservative default; the profile reads no queries.
  queryDeadlineMs: 10_000,
  acceptsUnsolicitedOrders: false,
};
