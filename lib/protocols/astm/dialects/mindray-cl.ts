/**
 * Mindray CL-2000i / CL-2200i chemiluminescence analyzers, ASTM interface.
 *
 * Source: Mindray CL Host Interface Manual (2013), chapter 2, as extracted in
 * hmislk/MindrayCL1000i @1879a6b : document/manual_extracted.txt (pages 2-8 to
 * 2-30). Fixtures: mindray-cl2000i-result.txt, -qc-result.txt, -query.txt,
 * -query-answer-notfound.txt, -order-download.txt, -session-trace.txt.
 *
 * Mindray overloads H-12 (LIS2-A2's processing ID) with a message type:
 * PR patient result, QR QC result, RQ query, QA query answer, SA sample
 * (order) download (manual p.2-11).
 */
import { DEFAULT_DELIMITERS } from '../records';
import type { DialectProfile } from './types';

export const MINDRAY_CL: DialectProfile = {
  id: 'mindray-cl',
  label: 'Mindray CL-2000i / CL-2200i (ASTM)',
  vendor: 'Mindray',
  model: 'CL-2000i, CL-2200i',
  // Manual p.2-1: "With TCP/IP, the LIS host can receive test results".
  transport: { tcp: true },
  // The manual's trace numbers a frame 8 (p.2-27): strict frame numbering
  // stays off (the LIS1-A default here). Records may come one per ETB frame
  // (p.2-27); the receiver accepts that in any case.
  link: { strictFrameNumbers: false },
  // Latin-1 reads every byte as one character (LIS1-A 6.3.3 sums bytes; docs/design-notes.md).
  charset: 'latin1',
  // Manual p.2-15: O-3 = sample ID^tray^position (the analyzer's own number),
  // O-4 = "Instrument Specimen ID: sample bar code" (`O|1|1^^|SAMPLE123|`).
  sampleId: { record: 'O', field: 'instrumentSpecimenId', component: 1, trim: true, singleComponent: false },
  // Manual p.2-24: Q-3 = patient ID^specimen ID (bar code): `Q|1|^SAMPLE123||...|O`.
  // The manual says the analyzer may cancel an unanswered inquiry but shows
  // only 'O'; 'A' is LIS2-A2's cancel code (Q-13, section 11). Q-5 is empty.
  query: { field: 'startingRange', component: 2, trim: true, repeats: 'first', cancelStatus: 'A', allTests: ['ALL'] },
  // Manual p.2-20: R-3 = assay no.^assay name^replicate^result type
  // (`1^CA125^^F`); the assay (channel) number is the code both sides share
  // ("The test code of the 5th field can be recognized by both sides", p.2-17).
  testId: { code: { component: 1, trim: true } },
  // Manual p.2-20: R-4 = quantitative value^interpretation^serum indices, the
  // quantitative part empty for qualitative tests. R-12 holds the finish time
  // (p.2-22 "Date/time test started: Test finish time"; R-13 is void).
  results: { value: { component: 'first-non-empty', trim: true, decimalComma: 'keep' }, completedAt: { record: 'R', field: 'startedAt' } },
  // H-12 'QR' = QC result message (p.2-11).
  qc: [{ record: 'H', field: 'processingId', component: 1, anyOf: ['QR'] }],
  // Manual p.2-18: QC values ride in O-12 repeats:
  // no^name^lot^expiry^mean^level^SD^concentration.
  qcInOrder: { field: 'actionCode', components: { id: 1, name: 2, lot: 3, expiry: 4, mean: 5, level: 6, sd: 7, value: 8 } },
  order: {
    delimiters: DEFAULT_DELIMITERS,
    // mindray-cl2000i-order-download.txt: `H|\^&|||Mindray^^|||||||SA|1394-97|<time>`.
    header: { fields: { senderId: ['Mindray', '', ''], processingId: 'SA', version: '1394-97' }, timestamp: true },
    patient: {
      // "we not omit any field" (p.2-10): every P field up to P-35 is written.
      fields: { dosageCategory: '' },
      // p.2-12: P-4 patient ID, P-6 last^first^middle, P-8 birth date^age^age
      // unit (Y/M/W/D/H), P-9 sex M/F/U.
      id: 'laboratoryPatientId',
      nameComponents: 3,
      birth: ['dateOfBirth', 'age', 'ageUnit'],
      sex: true,
    },
    order: {
      // O-3 sample ID^tray^position is the analyzer's own numbering (the
      // fixture has `1^^`); the LIS has no such number, so it goes empty with
      // its components. Every O field up to O-31 is written.
      fields: { specimenId: ['', '', ''], specimenInstitution: '' },
      sampleField: 'instrumentSpecimenId',
      // p.2-15: O-5 repeats assay no.^name^dilution^repeat (`1^Test1^^`).
      test: { codeComponent: 1, components: 4 },
      // p.2-15: O-6 R routine, S STAT.
      priority: { S: 'S', R: 'R', absent: 'R' },
      // p.2-15: O-7 "sample program creation date" = the LIS order's date.
      requestedAtFromTransaction: true,
      // p.2-16: O-16 sample type as text; the fixture writes `Urine`, the LIS
      // spelling (spec 2.4).
      sampleType: { field: 'specimenDescriptor', map: 'as-is' },
      // p.2-15: O-12 is void for patient samples; p.2-16/2-30: O-26 'Q' answers
      // a query, 'O' is a download without one.
      actionCode: { queried: '', unsolicited: '' },
      reportType: { queried: 'Q', unsolicited: 'O' },
    },
    terminator: { terminationCode: 'N' },
    // p.2-8: Mindray escapes with a prefix ("'|' is transferred to '&|'"),
    // not with E1394's &F&; a name holding a delimiter would be misread, so
    // such characters in free text become a space.
    textDelimiters: { replaceWith: ' ' },
  },
  // mindray-cl2000i-query-answer-notfound.txt (p.2-25): H-12 'QA' and `L|1|I`.
  noOrder: { form: 'terminator', header: { senderId: ['Mindray', '', ''], processingId: 'QA', version: '1394-97' }, terminationCode: 'I' },
  // Conservative default: the manual says the analyzer cancels an inquiry "if
  // the LIS server does not return information in specified time" without a number.
  queryDeadlineMs: 10_000,
  // p.2-6: "When the LIS system download sample information, only the
  // downloading procedure is necessary" (O-26 'O').
  acceptsUnsolicitedOrders: true,
};
