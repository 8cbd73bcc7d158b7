/**
 * Cepheid GeneXpert (molecular), results.
 *
 * Sources: fixture cepheid-genexpert-result.txt (delimiters `H|@^\`);
 * senaite.astm's genexpert.py, which quotes "GeneXpert LIS Interface Protocol
 * Specification, 302-2261 Rev. E": R-3 = ^panel^^result test code^test
 * name^version^analyte name^complementary name (Ct, EndPt ...), R-4 =
 * qualitative^quantitative.
 */
import type { DialectProfile } from './types';
import { LIS2A2_QC_MARKERS } from './standard';

export const CEPHEID_GENEXPERT: DialectProfile = {
  id: 'cepheid-genexpert',
  label: 'Cepheid GeneXpert (results)',
  vendor: 'Cepheid',
  model: 'GeneXpert Dx',
  // Conservative default (LIS1-A's); GeneXpert Dx also offers TCP.
  transport: { serial: { baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 }, tcp: true },
  // One frame of 4,332 characters (test/fixtures/SOURCES.md): within LIS1-A's
  // 64,000 (section 6.3.1).
  link: {},
  // Latin-1: an accented character broke a UTF-8 reading of GeneXpert data
  // (DIGI-UW/OpenELIS-Global-2 PR 4143); the checksum is over bytes (LIS1-A 6.3.3).
  charset: 'latin1',
  // O-3 = specimen ID assigned by the host (`PR25A137`).
  sampleId: { record: 'O', field: 'specimenId', component: 1, trim: true, singleComponent: false },
  // Code = the result test code (Xpert / Trace / RIF); sub-code = analyte and
  // complementary name (`MTB`, `rpoB1`, `rpoB1/Ct`), so the eighty-odd rows
  // of one run stay apart.
  testId: {
    code: { component: 4, trim: true },
    subCode: { component: 7, alsoComponents: [8], joinWith: '/', trim: true },
  },
  // R-4 qualitative^quantitative: `NOT DETECTED^`, `^24.7`; the first non-empty part.
  results: { value: { component: 'first-non-empty', trim: true, decimalComma: 'keep' }, completedAt: { record: 'R', field: 'completedAt' } },
  qc: LIS2A2_QC_MARKERS,
  queryDeadlineMs: 10_000,
  acceptsUnsolicitedOrders: false,
};
