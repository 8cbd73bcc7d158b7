/**
 * Sysmex XN-L series (XN-550 ...) and the XP-100, results and QC.
 *
 * Sources: fixtures sysmex-xn550-result.txt, sysmex-xn550-result-framed-session.txt
 * (a QC run), sysmex-xp100-result.txt; field meanings as read by senaite.astm's
 * sysmex_xn.py, which cites "Automated Hematology Analyzer XN-L series ASTM
 * Host Interface Specifications, Revision 6, 2017".
 */
import type { DialectProfile } from './types';

export const SYSMEX_XN: DialectProfile = {
  id: 'sysmex-xn',
  label: 'Sysmex XN-L / XP (results)',
  vendor: 'Sysmex',
  model: 'XN-550, XN-450, XN-350, XP-100',
  // Conservative default: LIS1-A's serial values; senaite talks to the XN over TCP.
  transport: { serial: { baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 }, tcp: true },
  // The XN-550 session repeats frame number 2 with different records
  // (SOURCES.md): strict numbering stays off.
  link: { strictFrameNumbers: false },
  // Latin-1 reads every byte as one character (astm.md 1.4, 6.1).
  charset: 'latin1',
  // O-4 = sampler adaptor^position^sample ID^ID attribute, the ID padded with
  // spaces: `^^                    27^M` (fixture; senaite's OrderRecord.instrument).
  sampleId: { record: 'O', field: 'instrumentSpecimenId', component: 3, trim: true, singleComponent: false },
  // senaite's RequestInformationRecord: Q-3 has the O-4 layout, sample ID at
  // component 3. Q-13 F/N/C are kinds of inquiry, none cancels. No query
  // fixture exists.
  query: { field: 'startingRange', component: 3, trim: true, repeats: 'first', allTests: ['ALL'] },
  // R-3 `^^^^WBC^1`: parameter at component 5, dilution ratio at 6 (not a
  // different result, so not a sub-code).
  testId: { code: { component: 5, trim: true } },
  // The XP-100 right-aligns values (`  5.5`); R-13 is the completion time.
  results: { value: { trim: true, decimalComma: 'keep' }, completedAt: { record: 'R', field: 'completedAt' } },
  // O-12 'Q' = QC analysis (senaite's ACTION_CODES; the QC session fixture).
  qc: [{ record: 'O', field: 'actionCode', component: 1, anyOf: ['Q'] }],
  // Conservative default; orders are not built for this profile.
  queryDeadlineMs: 10_000,
  acceptsUnsolicitedOrders: false,
};
