/**
 * ERBA EM 200 (clinical chemistry), queries and results.
 *
 * Sources: fixtures erba-em200-query.txt, erba-em200-query-multitube.txt,
 * erba-em200-result-session.txt (Ruby-ASTM serial captures). The EM 200 uses
 * a backquote as repeat delimiter (`` H|`^& ``); the codec reads it from H.
 */
import type { DialectProfile } from './types';
import { LIS2A2_QC_MARKERS } from './standard';

export const ERBA_EM200: DialectProfile = {
  id: 'erba-em200',
  label: 'ERBA EM 200',
  vendor: 'ERBA',
  model: 'EM 200',
  // The captures are serial; 9600 8N1 is LIS1-A's default (conservative).
  transport: { serial: { baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 } },
  // Every link option at LIS1-A's value.
  link: {},
  // Latin-1 reads every byte as one character (LIS1-A 6.3.3 sums bytes; docs/design-notes.md).
  charset: 'latin1',
  // O-3 = sample ID^...: `Asha Singh^03^1^1` (the operator typed a name as the ID).
  sampleId: { record: 'O', field: 'specimenId', component: 1, trim: true, singleComponent: false },
  // Q-3 `^010520182`; a two-tube query is `^0000000406`00001001`: the first
  // tube at component 2, the next one a bare repeat (test/fixtures/SOURCES.md:
  // "host query, 2 tubes"). No cancel code is known; Q-5 is empty.
  query: { field: 'startingRange', component: 2, trim: true, repeats: 'all', bareRepeatComponent: 1, allTests: ['ALL'] },
  testId: { code: { component: 4, trim: true } },
  results: { value: { trim: true, decimalComma: 'keep' }, completedAt: { record: 'R', field: 'completedAt' } },
  qc: LIS2A2_QC_MARKERS,
  // Conservative default; answers are not built for this profile (no download sample).
  queryDeadlineMs: 10_000,
  acceptsUnsolicitedOrders: false,
};
