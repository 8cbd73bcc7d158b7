/**
 * SNIBE MAGLUMI (chemiluminescence immunoassay): results and host queries over
 * the analyzer's own ASTM interface (no SnibeLis in between).
 *
 * Sources:
 * - fixtures snibe-maglumi-x3-result-session.txt and
 *   snibe-maglumi-x3-result-session-hostid-notlis.txt: bench captures of a
 *   MAGLUMI X3 (aiLabSolution/lis-control @0afa30a, provenance in
 *   test/fixtures/SOURCES.md), the patient name in O-3 already redacted there;
 * - the same repository's config-screen record of that analyzer,
 *   evidence/bench/maglumi-x3/20260717-0101010034012301113/config-baseline.md
 *   (below: config baseline);
 * - MAGLUMI 600/800 Operating Instructions (V2.8), chapter 16 "Host Result
 *   Management", as kept in mosesmbadi/hl7_astm_parser @7b98e35 :
 *   docs/Equipment Docs/Maglumi - LIS Information.pdf (below: the manual),
 *   §16.4.1-16.4.3 with an example of each message; fixtures
 *   snibe-maglumi-600-query-manual.txt and snibe-maglumi-600-result-manual.txt.
 *
 * Not covered: the order download. The manual's answer (§16.4.2) sends one O
 * record per assay (`O|1|1234567||^^^CA125|R`, `O|2|1234567||^^^CA153|R`, ...),
 * a layout the order builder here does not write.
 *
 * Link layer: with "Enable Checksum" unchecked (config baseline) the X3 sends
 * ENQ STX records ETX EOT with neither frame numbers nor checksums, the
 * framing of both captures. The link layer here reads LIS1-A frames only, so
 * the analyzer must be set to send checksums; whether it then frames every
 * record as LIS1-A does is not shown by any capture. This profile covers the
 * records.
 */
import type { DialectProfile } from './types';
import { LIS2A2_QC_MARKERS } from './standard';

export const SNIBE_MAGLUMI: DialectProfile = {
  id: 'snibe-maglumi',
  label: 'SNIBE MAGLUMI X3, 600, 800 (results, queries)',
  vendor: 'SNIBE',
  model: 'MAGLUMI X3, MAGLUMI 600, MAGLUMI 800',
  // Config baseline, Online screen: "COM4, 9600 baud, 8 data bits, 1 stop bit,
  // parity None", or TCP/IP (the captures came over TCP).
  transport: { serial: { baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 }, tcp: true },
  // Every link option at LIS1-A's value (see the file comment on framing).
  link: {},
  // Latin-1 reads every byte as one character (LIS1-A 6.3.3 sums bytes; docs/design-notes.md).
  charset: 'latin1',
  // `O|1|PATIENT-REDACTED-1||^^^FT3`: O-3 holds the sample ID and nothing
  // else; O-4 is empty. lis-control's fixture manifest (edge/sim/fixtures/
  // snibelis-maglumi-x3-result-upload/manifest.json) calls it the specimen/sample id.
  // The manual's result (§16.4.3): `O|1|1234567||^^^CYFRA211`, "sample ID 1234567".
  sampleId: { record: 'O', field: 'specimenId', component: 1, trim: true, singleComponent: false },
  // The manual §16.4.1: once the bar code is read the analyzer asks
  // `Q|1|^1234567||ALL||||||||O`, the sample at Q-3 component 2, Q-5 `ALL`,
  // Q-13 `O`. No cancel is described.
  query: { field: 'startingRange', component: 2, trim: true, repeats: 'first', allTests: ['ALL'] },
  // R-3 `^^^FT4 II`: the assay name at component 4, spaces and all.
  testId: { code: { component: 4, trim: true } },
  // R-4 `5.43`, R-5 `pmol/L`, R-6 `3.08 - 6.468`, R-7 `N`; R-9 (status) is
  // empty; the completion time is R-13 (`|N||||||20250320153245`), which the
  // same manifest notes as "R.13, not the KB-documented R.12"; the manual's
  // example agrees (`R|1|^^^CYFRA211|0||0 to 7|N||||||20100326172956`).
  results: { value: { trim: true, decimalComma: 'keep' }, completedAt: { record: 'R', field: 'completedAt' } },
  // No QC capture (config baseline: "Auto Upload QC Data: off"): LIS2-A2's markers.
  qc: LIS2A2_QC_MARKERS,
  // Conservative default: the config baseline's "Communicate Timeout(s) 3" is
  // the link's wait for an acknowledgement, not for an answer to a query.
  queryDeadlineMs: 10_000,
  acceptsUnsolicitedOrders: false,
};
