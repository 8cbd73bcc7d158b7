/**
 * Roche cobas e 411, "Elecsys type" host protocol: the format of the manual
 * examples in the fixtures (H without sender, Q-3 `^SampleID^...`,
 * `SAMPLE^NORMAL` container fields, O-26 'Q' / 'Z').
 *
 * Source: cobas e 411 Host Interface Manual v2.3 (US), pages at
 * https://www.easymanua.ls/roche/cobas-e-411/manual?p=N (p.35 query record,
 * p.39-40 order record, p.42-43 result record, p.50 examples). Fixtures:
 * roche-e411-query-manual.txt, roche-e411-query-cancel-manual.txt,
 * roche-e411-order-download-manual.txt, roche-e411-order-download-no-order-manual.txt.
 * No Elecsys-type result capture exists in the fixtures.
 */
import { DEFAULT_DELIMITERS } from '../records';
import type { DialectProfile } from './types';

export const ROCHE_COBAS_E411_ELECSYS: DialectProfile = {
  id: 'roche-cobas-e411-elecsys',
  label: 'Roche cobas e 411 (Elecsys type)',
  vendor: 'Roche',
  model: 'cobas e 411',
  // Conservative default (LIS1-A's), as for the cobas type profile.
  transport: { serial: { baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 } },
  // As for the cobas type: 240-character frames, the E1381-91/-95 limit.
  link: { frameTextMax: 240 },
  // Latin-1 reads every byte as one character (LIS1-A 6.3.3 sums bytes; docs/design-notes.md).
  charset: 'latin1',
  // Manual p.38-39: O-3 sample ID, O-4 sequence^carrier^position^^SAMPLE^NORMAL.
  sampleId: { record: 'O', field: 'specimenId', component: 1, trim: true, singleComponent: false },
  // Manual p.35 Elecsys type: Q-3 = `^SampleID^SequenceNo^CarrierNo^PositionNo^^SampleType^ContainerType`
  // (roche-e411-query-manual.txt: `^000004^40^0^5^^SAMPLE^NORMAL`); Q-13 'A'
  // cancels (roche-e411-query-cancel-manual.txt).
  query: { field: 'startingRange', component: 2, trim: true, repeats: 'first', cancelStatus: 'A', allTests: ['ALL'] },
  // Manual p.42 Elecsys type: R-3 = `^^^ApplicationCode^Dilution^PreDilution`.
  testId: { code: { component: 4, trim: true } },
  // Manual p.43: `value^cut-off index` for qualitative tests, seven spaces if
  // no result; O-23 is the date all results were collected (p.40).
  results: { value: { trim: true, decimalComma: 'keep' }, completedAt: { record: 'O', field: 'resultedAt' } },
  // Manual p.40 Elecsys type: O-12 'X\Q' (a repeat holding Q) marks a
  // control; p.39: O-4 component 5 'CONTROL'.
  qc: [
    { record: 'O', field: 'actionCode', component: 1, anyOf: ['Q'] },
    { record: 'O', field: 'instrumentSpecimenId', component: 5, anyOf: ['CONTROL'] },
  ],
  order: {
    delimiters: DEFAULT_DELIMITERS,
    // roche-e411-order-download-manual.txt: `H|\^&||||||||||P||` (H-12 'P', H-13 and H-14 empty).
    header: { fields: { processingId: 'P', version: '', timestamp: '' }, timestamp: false },
    // The fixture's `P|1`.
    patient: { fields: {} },
    order: {
      fields: {},
      sampleField: 'specimenId',
      // `^^^10^\^^^30^2\^^^40^`: code^dilution at components 4-5.
      test: { codeComponent: 4, components: 5 },
      priority: { S: 'S', R: 'R', absent: 'R' },
      // Manual p.40 Elecsys type: O-12 'N' = new sample order (download);
      // O-26 'Q' = response to inquiry. No O-16 in this format.
      actionCode: { queried: 'N', unsolicited: 'N' },
      reportType: { queried: 'Q', unsolicited: 'Q' },
      // The fixture's O-4 repeats Q-3 components 3-8: `40^0^5^^SAMPLE^NORMAL`.
      echo: [{ field: 'instrumentSpecimenId', from: 3, to: 8 }],
    },
    // The fixture's `L|1|` (L-3 present and empty; the manual omits the code
    // on normal downloads, manual p.34).
    terminator: { terminationCode: '' },
    textDelimiters: 'escape',
  },
  // roche-e411-order-download-no-order-manual.txt: the same O without tests, O-26 'Z'.
  noOrder: { form: 'order', reportType: 'Z' },
  // Manual p.51: the analyzer cancels a query not answered within 15 s.
  queryDeadlineMs: 15_000,
  // As for the cobas type: answers echo the query; no documented unsolicited layout.
  acceptsUnsolicitedOrders: false,
};
