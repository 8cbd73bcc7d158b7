/**
 * Ortho Clinical Diagnostics ORTHO VISION (blood bank): results and host
 * queries.
 *
 * Sources:
 * - fixtures ortho-vision-result.txt (twgenaux/tgenaux-ASTM-LIS @a66bef4 :
 *   ExampleMessages/ASTM/Vision.txt), ortho-vision-result-abo-rh.txt
 *   (twgenaux/twgenaux.github.io @d1e0d50 : MessageFormats/MessageFormats.md,
 *   whose "Breaking down the introductory Message" names each field) and
 *   ortho-vision-test-cases.json (krishnareddyML/astm-interface-service
 *   @da3d454 : instrument-simulator/src/main/resources/ortho-vision-test-cases.json,
 *   the VISION specification's examples: "Result with Strip trailing
 *   delimiters set to No", "Cross Match Result", host queries). All use
 *   placeholder IDs (`PID123456`, `SID305`, `Brown^Bobby^B`);
 * - that repository's astm_message_specs.md, the specification's field
 *   tables transcribed record by record (below: the spec).
 *
 * The M records after an R carry the card wells behind the result
 * (`M|1|Anti-A|ABO-Rh/Reverse^1^...||40^A`, the spec's M record); they stay in
 * the message and are not results.
 *
 * Known limits: a crossmatch sends one R per donor, `XM^=W13131200096300`, the
 * donor's sample ID at R-3 component 2 (the spec). The result keeps the code
 * `XM` only, so two donors' results arrive as the same test, which the reader
 * reports as a problem; the donor is in the R record the result points to
 * (`record`). A donor ID is no stable sub-code a test map could match. An
 * order with two samples (`O|1|SID303\SID304|...`, packed cells and plasma of
 * one draw, the spec's O-3/O-16 pairs) cannot tell which result belongs to
 * which sample: its results are unassigned, not guessed. The order download is
 * not covered: the spec's host-side header and the answer to an unknown sample
 * are not in the transcript.
 */
import type { DialectProfile } from './types';
import { LIS2A2_QC_MARKERS } from './standard';

export const ORTHO_VISION: DialectProfile = {
  id: 'ortho-vision',
  label: 'Ortho VISION (results, queries)',
  vendor: 'Ortho Clinical Diagnostics',
  model: 'ORTHO VISION',
  // Conservative default (LIS1-A's); no source gives the analyzer's settings.
  transport: { serial: { baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 }, tcp: true },
  // The spec: L-2 and L-3 are unused (`L||`, or a bare `L`); a keep-alive is
  // an H and an L alone. Every link option at LIS1-A's value.
  link: {},
  // Latin-1 reads every byte as one character (LIS1-A 6.3.3 sums bytes; docs/design-notes.md).
  charset: 'latin1',
  // The spec: "O-3 Specimen ID = Sample ID", at most two as repeats (see above).
  sampleId: { record: 'O', field: 'specimenId', component: 1, trim: true, singleComponent: false },
  // The spec: "Q-3.2 Computer system specimen ID ... only one allowed per
  // record" (`Q|1|^SID107||||||||||O`), Q-5 unused, Q-13 `O` the only status: no cancel.
  query: { field: 'startingRange', component: 2, trim: true, repeats: 'first', allTests: ['ALL'] },
  // The spec: "R-3.1 Analysis = Analysis type" (`ABO`, `Rh`, `ABScr`, `XM`).
  testId: { code: { component: 1, trim: true } },
  // The spec: R-4 "Analysis Result" (`A`, `NEG`, `CMP`); unused;
  // R-7 flags M/Q/S/T/X/E/I/F/C/P/NA/R/N (T: test mode); R-9 F/R/X; R-13 "Date/Time Test Completed".
  results: { value: { trim: true, decimalComma: 'keep' }, completedAt: { record: 'R', field: 'completedAt' } },
  // The spec: O-12 `Q` marks a QC order the host downloads and is empty on
  // upload, and H-12 is always `P`: no upload marker is documented.
  // LIS2-A2's markers stay, so a QC run marked either way is never a patient result.
  qc: LIS2A2_QC_MARKERS,
  // Conservative default: no source gives the analyzer's wait for an answer.
  queryDeadlineMs: 10_000,
  acceptsUnsolicitedOrders: false,
};
