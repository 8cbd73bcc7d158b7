/**
 * Mindray BS chemistry analyzers (BS-240), results and QC over ASTM.
 *
 * Sources:
 * - a BS-240's serial log, PrasoonPratham/astmio @2d79b20 :
 *   example_astm/Acquired/bs240_logs.txt (below: the log). Its QC transfers
 *   are the fixture mindray-bs240-qc-log.txt (lines 210-387, every checksum
 *   verified); two of its patient transfers (lines 6-15) are the fixture
 *   mindray-bs240-result-calculated-log.txt: their P records hold no name,
 *   birth date or ID (sex `U`), only the lab's sample numbers, as the
 *   Access 2 fixture does; the rest are read for the layout only (the log
 *   dropped non-ASCII bytes such as the µ of `µmol/L`, so their checksums
 *   fail);
 * - the Mindray CL Host Interface Manual (2013, chapter 2; see mindray-cl.ts),
 *   whose H-12 message types and O-12 QC layout the BS-240 follows field for
 *   field.
 *
 * The BS-240 differs from the CL series where the test code sits: R-3 is
 * code^name^^result type with a text code (`P^Phosphorus^^F`), and calculated
 * items come without a code, their name at component 2 the only name they
 * have (`^Glo^^F`, `^A/G^^F`, `^AST/ALT^^F`, with no R-12 time), as does a
 * measured test the lab set up without a code (`^RF^^F`, with its time).
 * Those are filed under that name (`AST/ALT` in the fixture
 * mindray-bs240-result-calculated-log.txt), which the test mapping then maps
 * like any code; a result with neither is unassigned.
 *
 * Not covered: queries and downloads (none in the log).
 */
import type { DialectProfile } from './types';

export const MINDRAY_BS: DialectProfile = {
  id: 'mindray-bs',
  label: 'Mindray BS-240 (ASTM results, QC)',
  vendor: 'Mindray',
  model: 'BS-240',
  // The log is a serial log ([ENQ]/[ACK] per byte read). Rate: LIS1-A's, a conservative default.
  transport: { serial: { baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 } },
  // Each message comes in one frame (`[STX]1H|...L|474|N[CR][ETX]BB`); every
  // link option at LIS1-A's value.
  link: {},
  // Latin-1 reads every byte as one character (LIS1-A 6.3.3 sums bytes; docs/design-notes.md).
  charset: 'latin1',
  // The log's patient orders: `O|476|8^^|2025105875|...`, O-3 the analyzer's
  // sample no^tray^position, O-4 the bar code, as in the CL manual (p.2-15).
  sampleId: { record: 'O', field: 'instrumentSpecimenId', component: 1, trim: true, singleComponent: false },
  // R-3 `CREAS^Creatinine (Sarcosine Oxidase Method)^^F` and the QC orders'
  // O-5 `P^P`: the code at component 1; calculated items `^A/G^^F`: their
  // name at component 2, read only when component 1 is empty.
  testId: { code: { component: 1, trim: true }, codeFallbacks: [{ component: 2, trim: true }] },
  // R-4 `3.216365^^^^` (the quantitative value first, CL manual p.2-20); R-12
  // the finish time (`|0|20250701154742||Mindry^`, CL manual p.2-22), R-13 empty.
  results: { value: { component: 'first-non-empty', trim: true, decimalComma: 'keep' }, completedAt: { record: 'R', field: 'startedAt' } },
  // H-12 `QR` = QC result message (`H|\^&|||Mindry^^|||||||QR|1394-97|...`; CL manual p.2-11).
  qc: [{ record: 'H', field: 'processingId', component: 1, anyOf: ['QR'] }],
  // O-12 `1^MLT cntrl1^059325001^20270201^4.220000^M^0.220000^4.926913`:
  // no^name^lot^expiry^mean^level^SD^value, the CL manual's layout (p.2-18).
  qcInOrder: { field: 'actionCode', components: { id: 1, name: 2, lot: 3, expiry: 4, mean: 5, level: 6, sd: 7, value: 8 } },
  // Not used: the profile reads no queries. Conservative default.
  queryDeadlineMs: 10_000,
  acceptsUnsolicitedOrders: false,
};
