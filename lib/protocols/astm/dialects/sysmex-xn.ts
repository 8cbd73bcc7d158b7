/**
 * Sysmex XN-L series (XN-550 ...) and the XP-100: results and QC; for the XN,
 * host queries and the order download that answers them.
 *
 * Sources:
 * - fixtures sysmex-xn550-result.txt, sysmex-xn550-result-framed-session.txt
 *   (a QC run), sysmex-xp100-result.txt;
 * - field meanings as read by senaite/senaite.astm @07d958b
 *   src/senaite/astm/instruments/sysmex_xn.py, which cites "Automated
 *   Hematology Analyzer XN-L series ASTM Host Interface Specifications,
 *   Revision 6, 2017" (below: senaite);
 * - the query answer of an XN-330 driver in production use,
 *   atom982/centrallab_server @13d3046 LISserver/aparati/sysmexxn330.js
 *   (below: atom982), function parsaj_query. Its comments quote the host order
 *   of the specification:
 *     P|1|||100|^Carol^Thomas||20010820|F|||||^Dr. N||||||||||||^^^Eas
 *     O|1|^^123-4567-890123^C||^^^^WBC\^^^^RBC\····^^^^NEUT#||20010807101000|||||N||||||||||||||Q
 *   with `H|\^&|||||||||||E1394-97` before them and `L|1|N` after.
 *
 * The specification itself was not readable here (only its title pages are
 * stored), so the download repeats only what those two sources agree on; see
 * the comments on each value. No public source shows the XN's "no order"
 * answer: LIS2-A2's is used.
 */
import { DEFAULT_DELIMITERS } from '../records';
import type { DialectProfile } from './types';

// atom982 line 432: `H|\^&|||||||||||E1394-97`, H-13 the version, nothing else.
const HOST_HEADER = { version: 'E1394-97' } as const;

export const SYSMEX_XN: DialectProfile = {
  id: 'sysmex-xn',
  label: 'Sysmex XN-L / XP (results; XN query answers)',
  vendor: 'Sysmex',
  model: 'XN-550, XN-450, XN-350, XN-330, XP-100',
  // Conservative default: LIS1-A's serial values; senaite talks to the XN over TCP.
  transport: { serial: { baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 }, tcp: true },
  // The XN-550 session repeats frame number 2 with different records
  // (test/fixtures/SOURCES.md): strict numbering stays off.
  link: { strictFrameNumbers: false },
  // Latin-1 reads every byte as one character (LIS1-A 6.3.3 sums bytes; docs/design-notes.md).
  charset: 'latin1',
  // O-4 = sampler adaptor^position^sample ID^ID attribute, the ID padded with
  // spaces: `^^                    27^M` (fixture; senaite's OrderRecord.instrument).
  sampleId: { record: 'O', field: 'instrumentSpecimenId', component: 3, trim: true, singleComponent: false },
  // senaite's RequestInformationRecord: Q-3 = sampler adaptor (rack)^position^
  // sample ID^ID attribute, sample ID at component 3; atom982 reads the same
  // component, trimmed. Q-13 F/N/C are kinds of inquiry, none cancels. No
  // query capture exists in the fixtures.
  query: { field: 'startingRange', component: 3, trim: true, repeats: 'first', allTests: ['ALL'] },
  // R-3 `^^^^WBC^1`: parameter at component 5, dilution ratio at 6 (not a
  // different result, so not a sub-code).
  testId: { code: { component: 5, trim: true } },
  // The XP-100 right-aligns values (`  5.5`); R-13 is the completion time.
  results: { value: { trim: true, decimalComma: 'keep' }, completedAt: { record: 'R', field: 'completedAt' } },
  // O-12 'Q' = QC analysis (senaite's ACTION_CODES; the QC session fixture).
  qc: [{ record: 'O', field: 'actionCode', component: 1, anyOf: ['Q'] }],
  order: {
    // The header's `\^&`; the results use the E1394 escapes too (`&R&` in the
    // XN-550 image paths).
    delimiters: DEFAULT_DELIMITERS,
    // No H-14: neither atom982 nor the quoted example writes a time.
    header: { fields: HOST_HEADER, timestamp: false },
    patient: {
      fields: {},
      // P-5 `100` (`P|1|||100|`: the quoted example; atom982 writes its
      // patient ID there, and the XN-550 result fixture has `P|1|||37182|`).
      id: 'patientId3',
      // P-6 `^Carol^Thomas`: empty^first^last (senaite's PatientRecord.name).
      nameOrder: ['', 'first', 'last'],
      // P-8 `20010820`.
      birth: ['dateOfBirth'],
      // P-9 `F`; M/F/U (senaite's PATIENT_SEXES).
      sex: true,
      // P-14 physician and P-26 ward (`^Dr. N`, `^^^Eas`) are not in a LIS order.
    },
    order: {
      fields: {},
      // O-3 carries the sample: atom982 writes the query's Q-3 back as it came
      // (rack^position^sample^attribute, `2^1^ 1234567890^B` style), the
      // quoted example `^^123-4567-890123^C`; O-4 stays empty.
      sampleField: 'specimenId',
      echo: [{ field: 'specimenId', from: 1, to: 4 }],
      // O-5 `^^^^WBC\^^^^RBC`: the parameter in component 5 of 5, one repeat each.
      test: { codeComponent: 5, components: 5 },
      // O-6 is empty in both sources: no priority is sent, a STAT order goes
      // out like a routine one.
      priority: { S: '', R: '', absent: '' },
      // O-7 `20010807101000`: the requested date/time (atom982 writes the
      // current time; the LIS order's own time is the requested one).
      requestedAtFromTransaction: true,
      // O-12 `N` (senaite: initial analysis); O-26 `Q` (senaite: "Response to inquiry").
      actionCode: { queried: 'N', unsolicited: 'N' },
      reportType: { queried: 'Q', unsolicited: 'Q' },
    },
    // `L|1|N`.
    terminator: { terminationCode: 'N' },
    // The XN writes E1394 escapes itself (`PNG&R&...` in sysmex-xn550-result.txt).
    textDelimiters: 'escape',
  },
  // LIS2-A2 L-3 'I' "no information available from last query" under the
  // download's header. Not Sysmex-documented: atom982 sends nothing for an
  // unknown sample and lets the analyzer's wait run out.
  noOrder: { form: 'terminator', header: HOST_HEADER, terminationCode: 'I' },
  // Conservative default: no source read gives the XN's wait for an answer.
  queryDeadlineMs: 10_000,
  // Answers repeat the query's rack and position, so only queried samples are
  // answered; the quoted example's attribute `C` (host-assigned number) hints
  // at downloads without a query, whose O-3 the sources do not show.
  acceptsUnsolicitedOrders: false,
};
