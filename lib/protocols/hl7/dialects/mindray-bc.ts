/**
 * Mindray BC-series hematology analyzers (BC-6200 captured), HL7 v2.3.1
 * results, and the worklist query BC analyzers send as ORM^O01.
 *
 * Sources: mindray-bc5380-oru-r01-xr-qc-manual.txt (QC, below);
 * mindray-bc6200-oru-r01.txt (test/fixtures/SOURCES.md): OBR-3
 * `1770190e` the sample, OBX-3 `6690-2^WBC^LN` / `10002^PCT^99MRC`, OBX-8
 * repeating (`H~N`), OBX-11 F. mindray-bc5300-orm-o01-query.txt
 * (test/fixtures/SOURCES-added.md): the BC-5300 manual's worklist query,
 * `ORC|RF||SampleID1||IP`, ORC-3 the sample.
 *
 * Not covered: the answer to the ORM^O01 (ORR^O02). The sources quote the
 * manual's query but not its answer with an order; the query reaches the LIS
 * as a query event and no order is written back.
 */
import { STANDARD_OBX } from './common';
import type { Hl7DialectProfile } from './types';

export const HL7_MINDRAY_BC: Hl7DialectProfile = {
  id: 'mindray-bc-hl7',
  label: 'Mindray BC hematology (HL7 2.3.1, results, worklist query)',
  vendor: 'Mindray',
  model: 'BC-6200 and BC series',
  // Capture MSH-12 2.3.1, MSH-18 UNICODE (sent as UTF-8: OBX 54 `‰`).
  versions: ['2.3.1'],
  charset: 'utf8',
  // Capture OBR-3 `1770190e` (OBR-2 empty).
  sampleId: { places: [{ segment: 'OBR', field: 3 }], trim: true },
  results: {
    ...STANDARD_OBX,
    // Capture OBX-3: component 1 mixes LOINC codes and Mindray's own
    // (99MRC); component 2 is the analyzer's parameter name (WBC, NEU#,
    // PLT-I), unique within a message: it is the code the mapping uses.
    code: { segment: 'OBX', field: 3, component: 2 },
    completedAt: [14],
  },
  // QC (mindray-bc5380-oru-r01-xr-qc-manual.txt, the BC-5380 manual's X-R
  // QC example): MSH-11 `Q` where a sample has `P`, and OBR-4 a QC service
  // (`00006^XR QCR^99MRC`, `00008^XR QCR Mean^99MRC`; a BC-5300 L-J QC in
  // the LIS test quoted for the ORM^O01 query: `00003^LJ QCR^99MRC`, MSH-11
  // `Q`), where a sample has `00001^Automated Count^99MRC`. Without these a
  // control's values went out as a patient sample's, under OBR-3 `6`.
  qc: [
    { place: { segment: 'MSH', field: 11 }, anyOf: ['Q'] },
    { place: { segment: 'OBR', field: 4 }, anyOf: ['00003', '00006', '00008'] },
  ],
  statusMessages: [],
  // ORM^O01 `ORC|RF||SampleID1||IP`: ORC-3 the sample (ORC-1 RF asks for its order).
  query: { messages: ['ORM^O01'], sample: { segment: 'ORC', field: 3 } },
  notAcknowledged: [],
  queryDeadlineMs: 10_000,
  acceptsUnsolicitedOrders: false,
  ackMode: 'original',
};
