/**
 * Pieces several HL7 profiles share: the OBX layout of HL7 v2.5.1 chapter 7
 * (7.4.2) and IHE LAW's supplemental observations. A profile spreads one of
 * these and changes what its analyzer does differently, so the differences
 * stay visible in each profile file.
 */
import type { Hl7Match, Hl7ResultsRule } from './types';

/** OBX per HL7 v2.5.1 7.4.2: OBX-3.1 code, OBX-5 value, OBX-6.1 units, OBX-7 range, OBX-8 flags (repeating), OBX-11 status, OBX-19 analysis time (v2.5) or OBX-14 observation time. */
export const STANDARD_OBX: Hl7ResultsRule = {
  messages: ['ORU^R01'],
  code: { segment: 'OBX', field: 3, component: 1 },
  value: { field: 5 },
  units: { field: 6 },
  referenceRange: { field: 7 },
  flagsField: 8,
  statusField: 11,
  completedAt: [19, 14],
  trim: false,
  // HL7 v2.5.1 2A.3.22: ED is encapsulated data (images, histograms).
  asideValueTypes: ['ED'],
  supplemental: [],
  patientId: [{ segment: 'PID', field: 3 }],
};

/**
 * IHE LAW (Laboratory Analytical Workflow, TF-2 rev. 1.x, OUL^R22 OBX-3):
 * supplemental results carry S_RAW or S_OTHER as OBX-3's alternate
 * identifier (`PT^Pipetting_Time^99ROC^S_OTHER^Other Supplemental^IHELAW`,
 * roche-cobaspro-oul-r22-e801.txt OBX-3..13).
 */
export const LAW_SUPPLEMENTAL: readonly Hl7Match[] = [{ place: { segment: 'OBX', field: 3, component: 4 }, anyOf: ['S_RAW', 'S_OTHER'] }];

/** IHE LAW: a control specimen has SPM-11 (specimen role, HL7 table 0369) Q (roche-cobaspure-oul-r22-qc.txt SPM-11 `Q^^HL70369`). */
export const LAW_QC: readonly Hl7Match[] = [{ place: { segment: 'SPM', field: 11 }, anyOf: ['Q'] }];
