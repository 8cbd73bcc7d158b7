/**
 * Analyx Panca 5-part hematology analyzer, HL7 v2.3.1: results (ORU^R01) and
 * the worklist query the analyzer sends as ORM^O01 before it runs a sample.
 *
 * Sources (test/fixtures/SOURCES-added.md): analyx-panca-oru-r01.txt and
 * analyx-panca-orm-o01-query.txt, the messages an Indonesian LIS
 * (BioSystems-Indonesia/TAMALabs) tests its Analyx Panca handler with:
 *   ORC|RF|C1|wbl2506100001||IP        ORC-1 RF (refill: "send my order"), ORC-3 the tube
 *   OBR|1||testbarcode|||...           OBR-3 the sample
 *   OBX|1|NM|WBC||7.56|10^9/L|4.00-10.00||||F
 * OBX-3 the parameter name alone, OBX-6 units with an unescaped `^`, OBX-7
 * `low-high`, OBX-8 the flag (`H`), no OBX time; 14 IS rows carry the run's
 * settings (`Take Mode` O, `Blood Mode` WH, `Recheck flag` Y), sent as the
 * analyzer sends them.
 *
 * Not covered: the answer to the ORM^O01. The analyzer expects ORR^O02, but
 * no manual or capture of an answer the analyzer accepted was found: the
 * LIS above answers MSA-1 `AF` (its own commit history changed it from `AA`),
 * and other LIS code for similar hematology analyzers writes ORC-1 `AF` with
 * MSA-1 `AA`, or MSA `AR` for "no order". The query reaches the LIS as a query
 * event; no order is written back until a source shows the layout.
 */
import { STANDARD_OBX } from './common';
import type { Hl7DialectProfile } from './types';

export const HL7_ANALYX_PANCA: Hl7DialectProfile = {
  id: 'analyx-panca',
  label: 'Analyx Panca hematology (HL7 2.3.1, results, worklist query)',
  vendor: 'Analyx',
  model: 'Panca',
  // MSH-12 2.3.1, MSH-18 UTF-8.
  versions: ['2.3.1'],
  charset: 'utf8',
  // OBR-3 `testbarcode` (OBR-2 empty; PID-3 `9` is the patient's).
  sampleId: { places: [{ segment: 'OBR', field: 3 }], trim: true },
  results: {
    ...STANDARD_OBX,
    // OBX-6 `10^9/L`, `10^12/L`: read whole, or the unit would be `10`.
    units: { field: 6, component: 'all', join: '^' },
    // No OBX-14 in the capture; OBX-14 per v2.3.1 should one come.
    completedAt: [14],
  },
  // The capture has no QC message; no source names a QC marker.
  qc: [],
  statusMessages: [],
  // ORM^O01 `ORC|RF|C1|wbl2506100001||IP`: ORC-3 the tube's bar code.
  query: { messages: ['ORM^O01'], sample: { segment: 'ORC', field: 3 } },
  notAcknowledged: [],
  // Conservative default; no source gives the analyzer's wait.
  queryDeadlineMs: 10_000,
  acceptsUnsolicitedOrders: false,
  ackMode: 'original',
};
