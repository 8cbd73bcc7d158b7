/**
 * Beckman Coulter Access 2 and UniCel DxI (one LIS interface, documented in
 * the one "UniCel DxI and Access 2 LIS Vendor Information" manual): results,
 * host queries and order downloads.
 *
 * Source: an Access 2's serial log, PrasoonPratham/astmio @2d79b20 :
 * example_astm/Acquired/access2_logs.txt (below: the log). Its second
 * transfer (lines 44-76) is the fixture beckman-access2-result-log.txt, every
 * checksum verified. The log's other transfers print the serial reads out of
 * order (their checksums still add up, the text does not), so they are read
 * for the layout only: they show the same H, O and R layout, and a
 * `C|1|I|ORL|I` result comment after some R records.
 *
 * Host queries and the answer (issue 25: a DxI on a results-only dialect
 * never gets its orders):
 * - beckman-access-query-strings.txt (test/fixtures/SOURCES-added.md): an
 *   Access query as a LIS developer's simulator sends it, the header the
 *   manual's own example header (`ACCESS^500001`, `20111231235959`):
 *     H|\^&|||ACCESS^500001|||||LIS||P|1|20111231235959
 *     Q|1|^3588820543||ALL||||||||O
 *     L|1|F
 *   Q-3 `^specimen` (LIS2-A2's patientID^specimenID, the specimen at
 *   component 2), Q-5 `ALL` every test, Q-13 `O` (request orders);
 * - the order a host downloads, the example of the "UniCel DxI and Access 2
 *   LIS Vendor Information" manual (C03112), whose printed checksums a second
 *   project checks record by record (`3O|1|SPEC1234||^^^Ferritin|R||||||A||||Serum`
 *   F8, `4L|1|F` FF; cited in SOURCES-added.md):
 *     H|\^&|||LIS|||||||P|1|<time>
 *     P|1|<patient ID>
 *     O|1|SPEC1234||^^^Ferritin|R||||||A||||Serum
 *     L|1|F
 *   O-5 `^^^test`, O-6 `R` routine, O-12 `A` (add the tests to the sample),
 *   O-16 `Serum`.
 * Not in those sources, so LIS2-A2's: the "no information" answer (H and
 * L-3 `I`), the stat priority `S`, and a query cancel (none is read: Q-13
 * other than `O` asks as a query does).
 */
import { DEFAULT_DELIMITERS } from '../records';
import type { DialectProfile } from './types';
import { LIS2A2_QC_MARKERS } from './standard';

// The manual's download header: H-5 sender `LIS`, H-10 left empty, H-12 `P`, H-13 `1`.
const HOST_HEADER = { senderId: 'LIS', processingId: 'P', version: '1' } as const;

export const BECKMAN_ACCESS: DialectProfile = {
  id: 'beckman-access',
  label: 'Beckman Coulter Access 2 / UniCel DxI',
  vendor: 'Beckman Coulter',
  model: 'Access 2, UniCel DxI 600/800',
  // The log is a serial log ([ENQ], then the host's ` - [ACK]`). Rate: LIS1-A's, a conservative default.
  transport: { serial: { baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 } },
  // One record per ETX frame (`[STX]2P|1|[CR][ETX]BB`), frame numbers 1-5:
  // every link option at LIS1-A's value.
  link: {},
  // Latin-1 reads every byte as one character (LIS1-A 6.3.3 sums bytes; docs/design-notes.md).
  charset: 'latin1',
  // `O|1|25020053|^1316^4|^^^HCG5^1|...`: O-3 the sample ID, a plain value;
  // O-4 `^rack^position` is where the tube stood.
  sampleId: { record: 'O', field: 'specimenId', component: 1, trim: true, singleComponent: false },
  // R-3 `^^^HCG5^1`: the assay name at component 4; component 5 (`1`) is the
  // same in every transfer of the log, not part of the test's name.
  testId: { code: { component: 4, trim: true } },
  // `R|1|^^^HCG5^1|108.66|mIU/mL||N||F||||20250701182626|575707`: the value
  // alone in the completion time (R-14 the instrument's serial number).
  results: { value: { trim: true, decimalComma: 'keep' }, completedAt: { record: 'R', field: 'completedAt' } },
  // Q-3 `^3588820543`: the specimen at component 2; Q-5 `ALL`.
  query: { field: 'startingRange', component: 2, trim: true, repeats: 'first', allTests: ['ALL'] },
  // No QC transfer in the log: LIS2-A2's markers.
  qc: LIS2A2_QC_MARKERS,
  order: {
    delimiters: DEFAULT_DELIMITERS,
    header: { fields: HOST_HEADER, timestamp: true },
    // `P|1|098765678` in the manual: the patient ID in P-3, nothing else.
    patient: { fields: {}, id: 'practicePatientId' },
    order: {
      fields: {},
      // O-3 `SPEC1234`, O-4 (rack^position) left to the analyzer.
      sampleField: 'specimenId',
      // O-5 `^^^Ferritin`.
      test: { codeComponent: 4, components: 4 },
      // O-6 `R`; `S` (stat) is LIS2-A2's, the example shows none.
      priority: { S: 'S', R: 'R', absent: 'R' },
      // O-16 `Serum`: the LIS SampleType as it is named.
      sampleType: { field: 'specimenDescriptor', map: 'as-is' },
      // O-12 `A` in the manual's download, queried or not.
      actionCode: { queried: 'A', unsolicited: 'A' },
      // The manual's download has no O-26.
      reportType: { queried: '', unsolicited: '' },
    },
    // `L|1|F`.
    terminator: { terminationCode: 'F' },
    // The manual shows no escape; the analyzer's reading of one is not documented.
    textDelimiters: { replaceWith: ' ' },
  },
  // LIS2-A2 L-3 'I' "no information available from last query", under the download's header.
  noOrder: { form: 'terminator', header: HOST_HEADER, terminationCode: 'I' },
  // Conservative default: no source gives the analyzer's wait for an answer.
  queryDeadlineMs: 10_000,
  // The manual's download is the host's own, not tied to a query.
  acceptsUnsolicitedOrders: true,
};
