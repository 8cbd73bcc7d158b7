/**
 * Roche cobas 6000 analyzer series (the capture is from its e 601 immunology
 * module), "cobas type" host protocol, results.
 *
 * Source: a TCP driver's log of a cobas 6000 sending results,
 * yoser174/simdondar_e601_tcp @9d2f01d : logs/c601_tcp_info.log, lines
 * 1398-1416: one ENQ...EOT transfer, the fixture
 * roche-cobas6000-e601-result-log.txt (below: the capture), every checksum
 * verified.
 *
 * The records are laid out as the cobas e 411's cobas type (./roche-cobas-e411.ts,
 * whose Host Interface Manual the field notes below cite): O-3 the sample,
 * O-4 sequence^rack^position^^type^container, R-3 `^^^code/dilution/predilution`,
 * qualitative results `-1^COI`. What differs is the time: the cobas 6000
 * writes each result's own time in R-12, and its O-23 is earlier than every
 * one of them, so O-23 is not when the results were in (the e 411 profile's
 * reading); this profile reads R-12.
 *
 * Not covered: queries and downloads (none in the capture; the same log's
 * other transfers come from a simulator, not the analyzer, and are not used).
 */
import type { DialectProfile } from './types';

export const ROCHE_COBAS_6000: DialectProfile = {
  id: 'roche-cobas-6000',
  label: 'Roche cobas 6000 (cobas type, results)',
  vendor: 'Roche',
  model: 'cobas 6000 (e 601 module in the capture)',
  // The driver reads the analyzer over TCP (the log's "connection to
  // [127.0.0.1:5000]"; the repository is named ..._e601_tcp).
  transport: { tcp: true },
  // The analyzer cuts its text into 240-character ETB frames mid-record
  // (capture: frame 1 ends inside R-4, `-1^` | `3820.035`), as the e 411 does.
  link: { frameTextMax: 240 },
  // Latin-1 reads every byte as one character (LIS1-A 6.3.3 sums bytes; docs/design-notes.md).
  charset: 'latin1',
  // `O|1|             S3854156A|0^5007^1^^S1^SC|...`: O-3 the sample ID,
  // right-aligned in spaces (capture), hence trim.
  sampleId: { record: 'O', field: 'specimenId', component: 1, trim: true, singleComponent: false },
  // R-3 `^^^286//not` (capture): the application code before the first '/',
  // the dilution empty here.
  testId: { code: { component: 4, split: { separator: '/', part: 1 }, trim: true } },
  // `R|1|^^^286//not|-1^3820.035|COI||N||F||Fahira|20230521115617||E11`:
  // a qualitative result `-1^3820.035` (result^cut-off index, e 411 manual
  // p.43) is kept whole; R-11 the operator, R-12 the result's time, R-13
  // empty, R-14 the module (E11, E12). O-23 `20230521115400` is before every
  // R-12 (11:55:14 to 11:56:59), so the result's time is R-12.
  results: { value: { trim: true, decimalComma: 'keep' }, completedAt: { record: 'R', field: 'startedAt' } },
  // The cobas type markers (e 411 manual p.39-40): O-12 'Q' is a control
  // result, O-4 component 5 'QC' the control sample type. The capture's
  // patient sample has O-12 'N' and O-4 type 'S1'.
  qc: [
    { record: 'O', field: 'actionCode', component: 1, anyOf: ['Q'] },
    { record: 'O', field: 'instrumentSpecimenId', component: 5, anyOf: ['QC'] },
  ],
  // Not used: the profile reads no queries. Conservative default.
  queryDeadlineMs: 10_000,
  acceptsUnsolicitedOrders: false,
};
