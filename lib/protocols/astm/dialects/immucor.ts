/**
 * Immucor NEO and Galileo/Echo (blood bank): queries, results and order downloads.
 *
 * Sources:
 * - immucor-neo-query.txt (go-astm @54708f0 e2etest/identify_test.go
 *   `TestIdentifyQuery`): `Q|n|<specimen>||ALL`, the specimen is component 1
 *   of Q-3, where LIS2-A2 section 11 has patientID^specimenID;
 * - immucor-neo-result.txt, immucor-galileo-result.txt: results;
 * - immucor-galileo-order.txt (go-astm @9b3fc38 examples/galileo/order.astm):
 *   an order download a LIS sent to an Echo, records H, P, O, C, L. The order
 *   layout below is that file read field by field:
 *     H|\^&|||LIS|||||Echo|||LIS2-A2|20050222140243
 *     P|1|1171984|||Patient^Test||19590422|M
 *     O|1|0651439A||^^^Crossmatch|R||||||N||||Blood^Patient
 *     C|1|L|Donor^R02460      (the crossmatch's donor unit; a LIS order has none)
 *     L|1|N
 * - CLSI LIS2-A2, the version both Immucor headers declare (H-13), where the
 *   files show nothing: O-26 'Q' for an answer, L-3 'I' for "no information"
 *   (LIS2-A2 sections 8.4 and 12).
 *
 * Not known from these sources: whether NEO wants its own name in H-10 (go-astm's
 * `TestIdentifyOrderMessage` writes `NEO` there, the Galileo file `Echo`), and
 * how a crossmatch's donor units are ordered (the C record above).
 */
import { DEFAULT_DELIMITERS } from '../records';
import type { DialectProfile } from './types';
import { LIS2A2_QC_MARKERS } from './standard';

// H as the Galileo order file writes it: H-5 sender 'LIS', H-10 receiver
// 'Echo', H-11 and H-12 empty, H-13 'LIS2-A2'; H-14 is the message time.
const HOST_HEADER = { senderId: 'LIS', receiverId: 'Echo', comments: '', processingId: '', version: 'LIS2-A2' } as const;

export const IMMUCOR: DialectProfile = {
  id: 'immucor',
  label: 'Immucor NEO / Galileo / Echo',
  vendor: 'Immucor',
  model: 'NEO, Galileo, Echo',
  // Conservative default (LIS1-A's).
  transport: { serial: { baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 }, tcp: true },
  // Every link option at LIS1-A's value.
  link: {},
  // Latin-1 reads every byte as one character (LIS1-A 6.3.3 sums bytes; docs/design-notes.md).
  charset: 'latin1',
  // O-3 `VAL99999903`, `0651439A`.
  sampleId: { record: 'O', field: 'specimenId', component: 1, trim: true, singleComponent: false },
  // Q-3 holds the specimen alone (`Q|1|VALI200301||ALL`). No cancel code is known.
  query: { field: 'startingRange', component: 1, trim: true, repeats: 'first', allTests: ['ALL'] },
  // R-3 `^^^Anti-A`, `^^^Pool_Cell 1`.
  testId: { code: { component: 4, trim: true } },
  // Reaction grades stay whole: `3+^3+^45` (Galileo).
  results: { value: { trim: false, decimalComma: 'keep' }, completedAt: { record: 'R', field: 'completedAt' } },
  qc: LIS2A2_QC_MARKERS,
  order: {
    // The file's H-2 `\^&` (and `|`): the LIS2-A2 defaults.
    delimiters: DEFAULT_DELIMITERS,
    header: { fields: HOST_HEADER, timestamp: true },
    patient: {
      fields: {},
      // P-3 `1171984`: the practice-assigned patient ID.
      id: 'practicePatientId',
      // P-6 `Patient^Test`: last^first.
      nameComponents: 2,
      // P-8 `19590422`: the birth date alone.
      birth: ['dateOfBirth'],
      // P-9 `M`.
      sex: true,
    },
    order: {
      fields: {},
      // O-3 `0651439A`: the LIS's specimen ID; O-4 stays empty.
      sampleField: 'specimenId',
      // O-5 `^^^Crossmatch`: the test code in component 4 of 4.
      test: { codeComponent: 4, components: 4 },
      // O-6 `R` (routine) in the file; 'S' is LIS2-A2's stat code, which the
      // file does not show.
      priority: { S: 'S', R: 'R', absent: 'R' },
      // O-16 `Blood^Patient`: specimen type^source. Only the type the file shows
      // is mapped; any other LIS SampleType is refused rather than guessed.
      sampleType: { field: 'specimenDescriptor', map: { Blood: ['Blood', 'Patient'] } },
      // O-12 `N`: new order.
      actionCode: { queried: 'N', unsolicited: 'N' },
      // The file has no O-26; an answer to a query says 'Q' (LIS2-A2 "response
      // to query"), as no Immucor example of an answer was found.
      reportType: { queried: 'Q', unsolicited: '' },
    },
    // `L|1|N`.
    terminator: { terminationCode: 'N' },
    // No escape appears in the Immucor files, and readers disagree on escapes
    // (E1394 `&S&` against go-astm 3.1.1's prefix convention): a
    // delimiter in free text becomes a space, and an identifier holding one
    // is refused.
    textDelimiters: { replaceWith: ' ' },
  },
  // LIS2-A2 L-3 'I' "no information available from last query", under the
  // order's own header; no Immucor source shows another answer.
  noOrder: { form: 'terminator', header: HOST_HEADER, terminationCode: 'I' },
  // Conservative default: no source gives the analyzers' wait for an answer.
  queryDeadlineMs: 10_000,
  // The Galileo file is a download the LIS sent on its own (no O-26 'Q'),
  // and answers do not repeat anything from the query.
  acceptsUnsolicitedOrders: true,
};
