/**
 * Small analyzers sending ORU^R01 results only, each from its capture
 * (test/fixtures/SOURCES.md); none documents a host query or an order
 * download in the sources.
 */
import { STANDARD_OBX } from './common';
import type { Hl7DialectProfile } from './types';

const RESULTS_ONLY = { statusMessages: [], notAcknowledged: [], queryDeadlineMs: 10_000, acceptsUnsolicitedOrders: false, ackMode: 'original' } as const;

/**
 * Siemens CLINITEK Status urine analyzer (HL7 v2.4). Captures
 * siemens-clinitek-status-oru-r01.txt and -qc.txt: PID-3 the ID the operator
 * entered for the specimen (`010820187`, also in PID-5), OBX-3 the pad
 * (`GLU`), OBX-19 the time; QC marked in OBR-15's seventh component
 * (`ORH^^^^^^Q` against `UR^^^^^^P`) with the control in NTE segments
 * (`QCName:CHEKSTIX`).
 */
export const HL7_SIEMENS_CLINITEK: Hl7DialectProfile = {
  ...RESULTS_ONLY,
  id: 'siemens-clinitek',
  label: 'Siemens CLINITEK Status (HL7 2.4, results)',
  vendor: 'Siemens',
  model: 'CLINITEK Status, Status+, Status Connect',
  versions: ['2.4'],
  charset: 'latin1',
  // OBR-3 is the filler's (the analyzer's) order number, a test counter the
  // LIS never issued: `143` on 2018-12-05, `184` on 2018-12-20 in the
  // captures. The specimen is named by the ID entered on the analyzer, PID-3
  // (the capture's own source files its order under that field). A QC run has
  // no PID, so its counter is what names it.
  sampleId: { places: [{ segment: 'PID', field: 3 }, { segment: 'OBR', field: 3 }], trim: true },
  results: STANDARD_OBX,
  qc: [{ place: { segment: 'OBR', field: 15, component: 7 }, anyOf: ['Q'] }],
};

/**
 * URIT UT-5160 hematology (HL7 v2.3.1). Capture urit-ut5160-oru-r01-manual.txt:
 * OBR-3 the bar code (`BAR101010101`), OBX-3 the parameter (`WBC`), OBX-6
 * units with an unescaped `^` (`10^9/L`, so the whole field is the unit),
 * four ED OBX with BMP histograms and scattergrams.
 */
export const HL7_URIT_UT5160: Hl7DialectProfile = {
  ...RESULTS_ONLY,
  id: 'urit-ut5160',
  label: 'URIT UT-5160 hematology (HL7 2.3.1, results)',
  vendor: 'URIT',
  model: 'UT-5160',
  versions: ['2.3.1'],
  charset: 'utf8',
  sampleId: { places: [{ segment: 'OBR', field: 3 }], trim: true },
  results: { ...STANDARD_OBX, units: { field: 6, component: 'all', join: '^' }, completedAt: [14] },
  qc: [],
};

/**
 * URIT-8030/8031 chemistry (HL7 v2.3.1, Mindray-like layout). Capture
 * urit-8030-oru-r01.txt: OBR-2 the sample bar code (`0000966134`; OBR-3
 * repeats MSH-10, the message number), OBX-3 a channel number (`1`) and
 * OBX-4 the test (`GLI`), OBX-14 a date written `2025-08-09`.
 */
export const HL7_URIT_8030: Hl7DialectProfile = {
  ...RESULTS_ONLY,
  id: 'urit-8030',
  label: 'URIT-8030 / 8031 chemistry (HL7 2.3.1, results)',
  vendor: 'URIT',
  model: 'URIT-8030, URIT-8031',
  versions: ['2.3.1'],
  charset: 'ascii',
  sampleId: { places: [{ segment: 'OBR', field: 2 }], trim: true },
  results: { ...STANDARD_OBX, code: { segment: 'OBX', field: 4 }, completedAt: [14], patientId: [{ segment: 'PID', field: 2 }] },
  qc: [],
};

/**
 * EDAN i15 blood gas (HL7 v2.4). Capture edan-i15-oru-r01.txt: OBR-3 the
 * sample (`20250902001`), OBX-3 measured (0) or calculated (1), OBX-4 the
 * analyte (`pH`, `pO2`), OBX-7 the range as `low^high`, OBX-14 the time.
 */
export const HL7_EDAN_I15: Hl7DialectProfile = {
  ...RESULTS_ONLY,
  id: 'edan-i15',
  label: 'EDAN i15 blood gas (HL7 2.4, results)',
  vendor: 'EDAN',
  model: 'i15',
  versions: ['2.4'],
  charset: 'utf8',
  sampleId: { places: [{ segment: 'OBR', field: 3 }], trim: true },
  results: { ...STANDARD_OBX, code: { segment: 'OBX', field: 4 }, referenceRange: { field: 7, component: 'all', join: '-' }, completedAt: [14] },
  qc: [],
};
