/**
 * Roche cobas e 411, "cobas type" host protocol: what the real analyzer
 * captures show (H-5 `cobas-e411^1`, H-11 `RSUPL^BATCH` / `TSREQ^REAL`).
 *
 * The cobas e 411 Host Interface Manual v2.3 (US), read at
 * https://www.easymanua.ls/roche/cobas-e-411/manual?p=N, documents two record
 * formats side by side, "Elecsys type" and "cobas type"; they differ in where
 * Q-3 puts the sample ID and in the order fields, so each is a profile
 * (Elecsys type: ./roche-cobas-e411-elecsys.ts).
 *
 * Fixtures: roche-e411-result.txt, roche-e411-result-multiframe.txt (results),
 * roche-e411-query.txt (Q-13 'A', a cancel), roche-e411-query-unknown-sample.txt.
 */
import { DEFAULT_DELIMITERS } from '../records';
import type { DialectProfile } from './types';

export const ROCHE_COBAS_E411: DialectProfile = {
  id: 'roche-cobas-e411',
  label: 'Roche cobas e 411 (cobas type)',
  vendor: 'Roche',
  model: 'cobas e 411',
  // The captures are serial (Ruby-ASTM read them from a serial port, test/fixtures/SOURCES.md).
  // 9600 8N1 is LIS1-A's default: a conservative default, to be checked on the
  // analyzer's host communication screen.
  transport: { serial: { baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 } },
  // The analyzer itself splits into 240-character frames mid-record
  // (roche-e411-result-multiframe.txt); we send 240-character frames too,
  // the E1381-91/-95 limit (247 with overhead) older analyzers enforce; LIS1-A
  // 6.3.1 allows more.
  link: { frameTextMax: 240 },
  // Latin-1 reads every byte as one character (LIS1-A 6.3.3 sums bytes; docs/design-notes.md).
  charset: 'latin1',
  // O-3 = sample ID (`O|1|000002327|159^0^1^^S1^SC|...`, result fixtures;
  // manual p.38-39: O-4 is sequence^carrier^position^^type^container).
  sampleId: { record: 'O', field: 'specimenId', component: 1, trim: true, singleComponent: false },
  // Manual p.35 cobas type: Q-3 = `^^SampleID^SequenceNo^CarrierNo^PositionNo^^SampleType^ContainerType`,
  // so the sample is component 3 (roche-e411-query.txt: `^^0000000387^587^0^2^^S1^SC`).
  // Q-13 'A' cancels the query (manual p.51); Q-5 is always 'ALL'.
  query: { field: 'startingRange', component: 3, trim: true, repeats: 'first', cancelStatus: 'A', allTests: ['ALL'] },
  // Manual p.42 cobas type: R-3 = `^^^ApplicationCode/Dilution/PreDilution`
  // (`^^^8/1/not`): the host test code is the part before the first '/'.
  testId: { code: { component: 4, split: { separator: '/', part: 1 }, trim: true } },
  // Manual p.43: qualitative results are `qualitative^cut-off index`
  // (`-1^0.282`), kept whole; "seven spaces if no result", hence trim. No
  // time per result: O-23 is "date when all test results are collected"
  // (manual p.40; `20190110163045` in the multiframe fixture).
  results: { value: { trim: true, decimalComma: 'keep' }, completedAt: { record: 'O', field: 'resultedAt' } },
  // Manual p.40 cobas type: O-12 'Q' = control sample result; p.39: sample
  // type 'QC' in O-4 component 5.
  qc: [
    { record: 'O', field: 'actionCode', component: 1, anyOf: ['Q'] },
    { record: 'O', field: 'instrumentSpecimenId', component: 5, anyOf: ['QC'] },
  ],
  order: {
    delimiters: DEFAULT_DELIMITERS,
    // Manual p.51 example 1: `H|\^&|||host^1|||||cobas-e411|TSDWN^REPLY|P|1`.
    header: { fields: { senderId: ['host', '1'], receiverId: 'cobas-e411', comments: ['TSDWN', 'REPLY'], processingId: 'P', version: '1' }, timestamp: false },
    // Every manual example downloads `P|1` only.
    patient: { fields: {} },
    order: {
      fields: {},
      sampleField: 'specimenId',
      // Manual p.39: O-5 = `^^^ApplicationCode^Dilution` repeats (`^^^10^\^^^30^2`).
      test: { codeComponent: 4, components: 5 },
      priority: { S: 'S', R: 'R', absent: 'R' },
      // Manual p.40: O-16 sample type 1 blood serum, 2 urine, 5 others.
      // Plasma goes with serum: Roche's S1 is the serum/plasma class (the
      // cobas c 311 list S1-S5 in senaite's roche_cobas_c311.py); types the
      // analyzer has no code for are refused rather than sent as 'others'.
      sampleType: { field: 'specimenDescriptor', map: { Serum: '1', Plasma: '1', Urine: '2', Other: '5' } },
      // Manual p.40 cobas type: O-12 'A' = test order from host; O-26 'O' = test order.
      actionCode: { queried: 'A', unsolicited: 'A' },
      reportType: { queried: 'O', unsolicited: 'O' },
      // Manual p.51: the answer repeats the query's sequence^carrier^position^^type^container in O-4.
      echo: [{ field: 'instrumentSpecimenId', from: 4, to: 9 }],
    },
    // Manual p.51: `L|1|N`.
    terminator: { terminationCode: 'N' },
    textDelimiters: 'escape',
  },
  // Manual p.51 example 2: "HOST replies without order information" is an O
  // record without tests, O-26 'O', O-16 the sample type code ('1' for S1).
  noOrder: { form: 'order', reportType: 'O', derived: [{ field: 'specimenDescriptor', component: 8, map: { S1: '1', S2: '2', S5: '5' } }] },
  // Manual p.51: "sends a cancel to HOST when HOST does not reply within 15 seconds".
  queryDeadlineMs: 15_000,
  // The manual lists a batch download (p.16), but its header and O-4 without a
  // query are not in the pages read; answers echo the query, so only queried
  // samples are answered. A late order is refused with a reason: the operator
  // reloads the sample, which queries again.
  acceptsUnsolicitedOrders: false,
};
