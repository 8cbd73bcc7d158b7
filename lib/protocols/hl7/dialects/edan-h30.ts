/**
 * EDAN H30 / H30 Pro 3-part hematology analyzer (HL7 v2.4), results.
 *
 * Source (test/fixtures/SOURCES-added.md): edan-h30-oru-r01.txt, an H30 Pro's
 * ORU^R01 as an Indonesian LIS (BioSystems-Indonesia/TAMALabs) tests its
 * handler with:
 *   PID|175|WBL260217001|^0|||||0|0          PID-2 the tube's bar code
 *   OBR||9||EDANLAB^H30Pro^Sample|...|admin|0|WBL260217001|...
 *                                            OBR-2 `9` the run number, OBR-20 the bar code again
 *   OBX||NM|0|WBC|13.56|10\S\3/μL|3.50-9.50|1||0||13.56^10\S\3/μL|H
 * OBX-3 `0` for every parameter and OBX-4 its name (as the EDAN i15 writes
 * them), OBX-6 units with the `^` escaped (`10\S\3/μL` = `10^3/μL`), OBX-7
 * `low-high`, OBX-8 0/1/2 (normal/high/low), OBX-12 the unrounded value with
 * its unit, OBX-13 the flag letter `H`/`L` (absent when normal), no status,
 * no OBX time. That LIS files the results under PID-2 (its test
 * `TestBarcodeFromPIDOverridesOBR`); so does this dialect, never under OBR-2.
 *
 * Not covered: queries and order downloads (none in the source).
 */
import { STANDARD_OBX } from './common';
import type { Hl7DialectProfile } from './types';

export const HL7_EDAN_H30: Hl7DialectProfile = {
  id: 'edan-h30',
  label: 'EDAN H30 hematology (HL7 2.4, results)',
  vendor: 'EDAN',
  model: 'H30, H30 Pro',
  // MSH-12 2.4, MSH-18 `UTF8` (`μL` in UTF-8).
  versions: ['2.4'],
  charset: 'utf8',
  // PID-2 `WBL260217001`, else OBR-20, the same bar code. OBR-2 `9` is the run number.
  sampleId: { places: [{ segment: 'PID', field: 2 }, { segment: 'OBR', field: 20 }], trim: true },
  results: {
    ...STANDARD_OBX,
    // OBX-3 `0` for every parameter; OBX-4 `WBC`, `NEUT#`.
    code: { segment: 'OBX', field: 4 },
    // OBX-13 `H` / `L`; OBX-8 holds the same as 1 / 2 (0 normal).
    flagsField: 13,
    completedAt: [14],
    // PID-3 `^0`: no patient ID in the source.
    patientId: [],
  },
  // The source has no QC message; no source names a QC marker.
  qc: [],
  statusMessages: [],
  notAcknowledged: [],
  queryDeadlineMs: 10_000,
  acceptsUnsolicitedOrders: false,
  ackMode: 'original',
};
