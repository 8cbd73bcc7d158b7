/**
 * What an HL7 analyzer writes around the values the host reads.
 *
 * An HL7 dialect profile (lib/protocols/hl7/dialects) says where the host finds the
 * sample, the test code and the value, and how the host writes its answers.
 * It does not say what the analyzer puts in MSH-3, MSH-21 or QPD-1, or how it
 * codes a test in OBX-3: those come from the captures and manual examples the
 * profiles cite (test/fixtures/SOURCES.md), one flavour per known analyzer,
 * as lib/sim/flavours.ts does for ASTM. Kept on the simulator's side because
 * the host never needs them.
 */
import type { Hl7DialectProfile } from '../../protocols/hl7/dialects';

export interface Hl7Flavour {
  /** MSH-3 of the analyzer's messages. */
  sendingApplication: string;
  /** MSH-5: whom the analyzer addresses. */
  receivingApplication: string;
  /** MSH-15 / MSH-16 the analyzer states (enhanced mode); absent: left empty (original mode). */
  ackModes?: { accept: string; application: string };
  /** MSH-21 of a results message and of a query. */
  resultsProfile?: string;
  queryProfile?: string;
  /** QPD-1 (LAW): the query's name, as components. */
  queryName: string[];
  /** QPD fields after the sample (QPD-4 on), as the analyzer fills them. */
  queryTail: string[];
  /** OBX-3 components for one test. */
  testCode(code: string): string[];
  /** SPM-2.2 after the sample number (`022&BARCODE`), if the analyzer writes one. */
  specimenIdType?: string;
  /**
   * How often a message answered AE or AR is sent again. Mindray CL manual
   * p.1-11 (MSA-1): "the analyzer ... will send them again for at most 2 times".
   */
  rejectResends: number;
  /** MSH-16 of a patient result and of a QC result (Mindray CL p.1-10: 0 sample, 2 QC). */
  resultKind?: { patient: string; qc: string };
  /** The EQU segment's fields of an ESU^U01 (equipment status). */
  equipment?: (stamp: string) => string[][];
}

/** Mindray CL: MSH-3..6 "void and reserved", original mode (manual p.1-10, fixtures mindray-cl2000i-*). */
const MINDRAY_CL: Hl7Flavour = {
  sendingApplication: '',
  receivingApplication: '',
  queryName: [],
  queryTail: [],
  // p.1-19: OBX-3 the channel number; OBX-4 is written with the name separately.
  testCode: (code) => [code],
  rejectResends: 2,
  resultKind: { patient: '0', qc: '2' },
};

/** IHE LAW as the LAW profile writes it (LAB-27 WOS query, biosystems-ba400-qbp-q11.txt; LAB-29 OUL^R22). */
const LAW: Hl7Flavour = {
  sendingApplication: 'Analyzer',
  receivingApplication: 'Host',
  ackModes: { accept: 'NE', application: 'AL' },
  resultsProfile: 'LAB-29^IHE',
  queryProfile: 'LAB-27^IHE',
  queryName: ['WOS', 'Work Order Step', 'IHE_LABTF'],
  queryTail: [],
  testCode: (code) => [code, '', '99LAB'],
  specimenIdType: 'BARCODE',
  rejectResends: 0,
};

/**
 * cobas pro / pure: roche-cobaspro-qbp-q11.txt (`QPD|INIBAR^^99ROC|262|498100|50006|1|||||SERPLAS^^99ROC|SC^^99ROC|R`,
 * MSH-21 `LAB-27R^ROCHE`), roche-cobaspro-oul-r22-manual.txt (OBX-3 `20490^20490^99ROC^^^IHELAW`),
 * roche-cobaspro-esu-inu-session.log.txt (ESU^U01 with its EQU segment, MSH-21 `ROC-02^ROCHE`).
 */
const COBAS_PRO: Hl7Flavour = {
  ...LAW,
  sendingApplication: 'cobas pro',
  queryProfile: 'LAB-27R^ROCHE',
  queryName: ['INIBAR', '', '99ROC'],
  queryTail: ['50006', '1', '', '', '', '', 'SERPLAS^^99ROC', 'SC^^99ROC', 'R'],
  testCode: (code) => [code, code, '99ROC', '', '', 'IHELAW'],
  equipment: (stamp) => [['0^ROCHE', 'C223-10^ROCHE', '0^ROCHE'], [stamp], ['ID^IDLE^99LECIS^3^Stand by^99HITACHI']],
};

/** cobas 6800/8800: roche-cobas6800-oul-r22-result.txt (MSH-3 `COBAS6800/8800`, OBX-3 `HIV^HIV^99ROC`, no `&BARCODE`). */
const COBAS_6800: Hl7Flavour = {
  ...LAW,
  sendingApplication: 'COBAS6800/8800',
  receivingApplication: 'LIS',
  testCode: (code) => [code, code, '99ROC'],
  specimenIdType: undefined,
};

/** Results-only analyzers: what HL7 v2.5.1 chapter 7 needs, nothing vendor-specific. */
const GENERIC: Hl7Flavour = {
  sendingApplication: 'Analyzer',
  receivingApplication: 'LIS',
  queryName: [],
  queryTail: [],
  testCode: (code) => [code],
  rejectResends: 0,
};

/** Analyx Panca: analyx-panca-*.txt, MSH-3..6 empty, OBX-3 the parameter name alone (`WBC`). */
const ANALYX_PANCA: Hl7Flavour = {
  sendingApplication: '',
  receivingApplication: '',
  queryName: [],
  queryTail: [],
  testCode: (code) => [code],
  rejectResends: 0,
};

const BY_ID: Readonly<Record<string, Hl7Flavour>> = {
  'mindray-cl-hl7': MINDRAY_CL,
  'ihe-law': LAW,
  'biosystems-ba': { ...LAW, sendingApplication: 'BA400' },
  'roche-cobas-pro': COBAS_PRO,
  'roche-cobas-6800': COBAS_6800,
  'analyx-panca': ANALYX_PANCA,
};

export function hl7FlavourOf(profile: Hl7DialectProfile): Hl7Flavour {
  return BY_ID[profile.id] ?? (profile.answer?.form === 'law' ? LAW : profile.answer?.form === 'display' ? MINDRAY_CL : GENERIC);
}
