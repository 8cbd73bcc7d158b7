/**
 * Strict CLSI LIS2-A2 (ASTM E1394): for an analyzer that follows the standard,
 * and the baseline the vendor profiles are compared against.
 *
 * Sources: field positions and code lists are CLSI LIS2-A2's (ASTM E1394;
 * records H section 6, O 8.4, R 9, Q 11, L 12), as go-astm's lis02a2 format and
 * SwatInc's code enums also read them; link and serial values are CLSI
 * LIS1-A's (ASTM E1381).
 *
 * "Strict" means it refuses to guess: it reads the sample number only from a
 * plain O-3 (LIS2-A2 O-3 "specimen ID", the computer's own number). An O-3
 * with components (cobas c 311 `counter^sampleID^...`, Pentra
 * `ID^rack^position`, Mindray `analyzerNumber^^` with the bar code in O-4) is a
 * vendor layout this profile does not know, and the results are reported as
 * unassigned rather than filed under a counter. It cannot catch an analyzer
 * that sends its own running number as a plain O-3: choosing the analyzer's
 * own profile is what protects against that.
 */
import { DEFAULT_DELIMITERS } from '../records';
import type { DialectProfile } from './types';
import { LIS2A2_QC_MARKERS } from './standard';

export const GENERIC_LIS2A2: DialectProfile = {
  id: 'generic-lis2a2',
  label: 'Generic CLSI LIS2-A2 / ASTM E1394',
  vendor: 'any',
  model: 'LIS2-A2 conformant analyzer',
  // LIS1-A 5.2.2-5.2.3: 9600 baud, 8 data bits, no parity, 1 stop bit is the
  // mandatory default; TCP per LIS1-A sections 7-8, with the same link rules.
  transport: { serial: { baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 }, tcp: true },
  // Every link option at its LIS1-A value (lib/protocols/astm/link/options.ts DEFAULT_OPTIONS).
  link: {},
  // Latin-1 keeps every byte; the checksum is over bytes anyway (LIS1-A 6.3.3;
  // docs/design-notes.md).
  charset: 'latin1',
  // LIS2-A2 O-3 specimen ID; singleComponent: see the file comment.
  sampleId: { record: 'O', field: 'specimenId', component: 1, trim: true, singleComponent: true },
  // LIS2-A2 Q-3 starting range: patientID^specimenID (section 11); Q-13 'A' =
  // cancel the last request (confirmed by the cobas e 411 Host Interface Manual
  // p.50 and the Mindray CL Host Interface Manual p.2-24); Q-5 'ALL' = every test.
  query: { field: 'startingRange', component: 2, trim: true, repeats: 'first', cancelStatus: 'A', allTests: ['ALL'] },
  // LIS2-A2 universal test ID: components 1-3 universal ID/name/type, 4 the
  // manufacturer's local code: `^^^GLU` (LIS2-A2 section 9, R-3).
  testId: { code: { component: 4, trim: true } },
  // The value exactly as sent (no trim, no decimal-comma change); R-13 is the
  // completion time (LIS2-A2 R-13; a MAGLUMI X3 bench run confirmed it,
  // aiLabSolution/lis-control's MAGLUMI X3 bring-up runbook).
  results: { value: { trim: false, decimalComma: 'keep' }, completedAt: { record: 'R', field: 'completedAt' } },
  // H-12 'Q' = quality control processing (LIS2-A2 H-12: P/T/D/Q); O-12 'Q' =
  // treat the specimen as a QC specimen (LIS2-A2 O-12 action codes).
  qc: LIS2A2_QC_MARKERS,
  order: {
    delimiters: DEFAULT_DELIMITERS,
    // H-5 sender 'LIS' as the Immucor Galileo order fixture's host writes it
    // (override per site), H-12 'P' production, H-13 'LIS2-A2', H-14 now.
    header: { fields: { senderId: 'LIS', processingId: 'P', version: 'LIS2-A2' }, timestamp: true },
    // P-3 practice-assigned patient ID, P-6 last^first, P-8 birth date, P-9 sex.
    patient: { fields: {}, id: 'practicePatientId', nameComponents: 2, birth: ['dateOfBirth'], sex: true },
    order: {
      fields: {},
      sampleField: 'specimenId',
      test: { codeComponent: 4, components: 4 },
      // LIS2-A2 O-6: S stat, R routine; an order without priority is routine.
      priority: { S: 'S', R: 'R', absent: 'R' },
      requestedAtFromTransaction: true,
      // LIS2-A2 O-16 specimen descriptor, component 1 = specimen type; the LIS
      // names (spec 2.4) are written as they are.
      sampleType: { field: 'specimenDescriptor', map: 'as-is' },
      // O-12 'N' new request; O-26 'Q' response to query, 'O' order.
      actionCode: { queried: 'N', unsolicited: 'N' },
      reportType: { queried: 'Q', unsolicited: 'O' },
    },
    terminator: { terminationCode: 'N' },
    textDelimiters: 'escape',
  },
  // LIS2-A2 L-3 'I': no information available from the last query.
  noOrder: { form: 'terminator', header: { senderId: 'LIS', processingId: 'P', version: 'LIS2-A2' }, terminationCode: 'I' },
  // Conservative default: the standard sets no application deadline; 10 s
  // stays inside the 15 s the best documented analyzer (cobas e 411) waits.
  queryDeadlineMs: 10_000,
  // LIS2-A2 lets the host send orders at any time (O-26 'O').
  acceptsUnsolicitedOrders: true,
};
