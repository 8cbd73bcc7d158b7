/**
 * SNIBE MAGLUMI X3 (chemiluminescence immunoassay), results over its own ASTM
 * interface (no SnibeLis in between).
 *
 * Sources:
 * - fixtures snibe-maglumi-x3-result-session.txt and
 *   snibe-maglumi-x3-result-session-hostid-notlis.txt: bench captures of a
 *   MAGLUMI X3 (aiLabSolution/lis-control @0afa30a, provenance in
 *   test/fixtures/SOURCES.md), the patient name in O-3 already redacted there;
 * - the same repository's config-screen record of that analyzer,
 *   evidence/bench/maglumi-x3/20260717-0101010034012301113/config-baseline.md
 *   (below: config baseline).
 *
 * Link layer: with "Enable Checksum" unchecked (config baseline) the X3 sends
 * ENQ STX records ETX EOT with neither frame numbers nor checksums, the
 * framing of both captures. The link layer here reads LIS1-A frames only, so
 * the analyzer must be set to send checksums; whether it then frames every
 * record as LIS1-A does is not shown by any capture. This profile covers the
 * records.
 */
import type { DialectProfile } from './types';

export const SNIBE_MAGLUMI: DialectProfile = {
  id: 'snibe-maglumi',
  label: 'SNIBE MAGLUMI X3 (results)',
  vendor: 'SNIBE',
  model: 'MAGLUMI X3',
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
  sampleId: { record: 'O', field: 'specimenId', component: 1, trim: true, singleComponent: false },
  // R-3 `^^^FT4 II`: the assay name at component 4, spaces and all.
  testId: { code: { component: 4, trim: true } },
  // R-4 `5.43`, R-5 `pmol/L`, R-6 `3.08 - 6.468`, R-7 `N`; R-9 (status) is
  // empty; the completion time is R-13 (`|N||||||20250320153245`), which the
  // same manifest notes as "R.13, not the KB-documented R.12".
  results: { value: { trim: true, decimalComma: 'keep' }, completedAt: { record: 'R', field: 'completedAt' } },
  // No QC capture (config baseline: "Auto Upload QC Data: off"): LIS2-A2's markers.
  qc: [
    { record: 'H', field: 'processingId', component: 1, anyOf: ['Q'] },
    { record: 'O', field: 'actionCode', component: 1, anyOf: ['Q'] },
  ],
  // Not used: the profile reads no queries. Conservative default.
  queryDeadlineMs: 10_000,
  acceptsUnsolicitedOrders: false,
};
