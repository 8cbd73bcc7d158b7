/**
 * Mindray CL-1000i / CL-2000i / CL-2200i chemiluminescence analyzers, HL7
 * v2.3.1 interface.
 *
 * Source: Mindray CL Host Interface Manual (2013), chapter 1, as extracted in
 * hmislk/MindrayCL1000i @1879a6b : document/manual_extracted.txt (pages 1-5
 * to 1-31; test/fixtures/SOURCES.md). Fixtures: mindray-cl2000i-*.txt, the
 * manual's own examples (results, QC, query, QCK found/not found, DSR, ACKs).
 */
import { STANDARD_OBX } from './common';
import type { Hl7DialectProfile } from './types';

export const HL7_MINDRAY_CL: Hl7DialectProfile = {
  id: 'mindray-cl-hl7',
  label: 'Mindray CL-1000i / CL-2000i / CL-2200i (HL7 2.3.1)',
  vendor: 'Mindray',
  model: 'CL-1000i, CL-2000i, CL-2200i',
  // p.1-10: MSH-12 "Version of HL7 protocol: 2.3.1"; MSH-18 "ASCII is used".
  versions: ['2.3.1'],
  charset: 'ascii',
  // p.1-14: OBR-2 "Placer Order Number, used as sample bar code", OBR-3 the
  // analyzer's sample ID. Only the bar code names the tube the LIS knows; a
  // result without one is reported unassigned rather than filed under the
  // analyzer's own counter.
  sampleId: { places: [{ segment: 'OBR', field: 2 }], trim: true },
  results: {
    ...STANDARD_OBX,
    // p.1-19: OBX-3 "Channel number of test. This field is used to match
    // tests"; OBX-4 the test name; OBX-5 the value; OBX-6 units (padded with
    // spaces in the example p.1-26: ` umol/L `); OBX-7 range; OBX-8 "Fixed as
    // N"; OBX-11 F; OBX-14 "used as test finish date/time".
    completedAt: [14],
    trim: true,
    patientId: [{ segment: 'PID', field: 2 }],
  },
  // p.1-10 and p.1-26: MSH-16 "0 for sample test result, 1 for calibration
  // result, 2 for QC result": calibration and QC are kept apart alike.
  qc: [{ place: { segment: 'MSH', field: 16 }, anyOf: ['1', '2'] }],
  // p.1-17/1-18: a QC message has no OBX; OBR-2 channel no., OBR-8 test
  // finish time, OBR-12 control no., OBR-13 name, OBR-14 lot, OBR-15
  // expiry, OBR-17 level, OBR-18 mean, OBR-19 SD, OBR-20 result, OBR-21 unit.
  qcInRequest: { code: 2, value: 20, units: 21, completedAt: 8, control: { id: 12, name: 13, lot: 14, expiry: 15, level: 17, mean: 18, sd: 19 } },
  statusMessages: [],
  // p.1-8 and p.1-21: QRY^Q02, QRD-8 "Subject filter, used as sample bar
  // code" (empty for a query by sample ID range or by time, which the host
  // cannot answer with one order).
  query: { messages: ['QRY^Q02'], sample: { segment: 'QRD', field: 8 } },
  // p.1-23/1-24: the DSR^Q03 DSP-3 items: 1 patient ID, 3 name, 4 birth date
  // (YYYYMMDDHHmmSS), 5 sex M/F/O, 21 bar code, 24 STAT Y/N, 26 sample type
  // (serum, plasma, urine, whole blood, amniotic fluid, other), 29 and on one
  // test each, `channel^name^unit^range` with only the channel required
  // (`100^^^`). p.1-10: MSH-15 "P" for sample information the LIS sends
  // (an unsolicited download); the answer example (p.1-30) leaves it empty.
  answer: {
    form: 'display',
    items: { patientId: 1, name: 3, birth: 4, sex: 5, sample: 21, stat: 24, sampleType: 26, tests: 29 },
    sampleTypes: { Serum: 'serum', Plasma: 'plasma', Urine: 'urine', 'Whole blood': 'whole blood', Blood: 'whole blood' },
    unsolicitedAcceptAck: 'P',
    testComponents: 4,
    charsetName: 'ASCII',
  },
  // p.1-8: "QCK^Q02 message is used to respond to the QRY message", and the
  // DSR^Q03 follows it (p.1-29); the analyzer answers the DSR with ACK^Q03
  // (p.1-31), never the QCK.
  notAcknowledged: ['QCK^Q02'],
  // The manual gives no number for how long the analyzer waits; the ASTM
  // profile's conservative 10 s (lib/protocols/astm/dialects/mindray-cl.ts) is kept.
  queryDeadlineMs: 10_000,
  // p.1-10: MSH-15 = P marks "sample information sent by LIS" unasked.
  acceptsUnsolicitedOrders: true,
  // p.1-5/1-25: every ORU^R01 is answered with ACK^R01, the DSR with ACK^Q03 (original mode).
  ackMode: 'original',
};
