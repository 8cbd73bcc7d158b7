/**
 * Immucor NEO and Galileo/Echo (blood bank), queries and results.
 *
 * Sources: fixtures immucor-neo-query.txt (`Q|n|<specimen>||ALL`: the
 * specimen is component 1 of Q-3, astm.md 2.2), immucor-neo-result.txt,
 * immucor-galileo-result.txt. immucor-galileo-order.txt is an order from a
 * LIS; its layout is not enough to build NEO answers, so no order layout.
 */
import type { DialectProfile } from './types';

export const IMMUCOR: DialectProfile = {
  id: 'immucor',
  label: 'Immucor NEO / Galileo / Echo',
  vendor: 'Immucor',
  model: 'NEO, Galileo, Echo',
  // Conservative default (LIS1-A's).
  transport: { serial: { baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 }, tcp: true },
  // Every link option at LIS1-A's value.
  link: {},
  // Latin-1 reads every byte as one character (astm.md 1.4, 6.1).
  charset: 'latin1',
  // O-3 `VAL99999903`, `0651439A`.
  sampleId: { record: 'O', field: 'specimenId', component: 1, trim: true, singleComponent: false },
  // Q-3 holds the specimen alone (`Q|1|VALI200301||ALL`). No cancel code is known.
  query: { field: 'startingRange', component: 1, trim: true, repeats: 'first', allTests: ['ALL'] },
  // R-3 `^^^Anti-A`, `^^^Pool_Cell 1`.
  testId: { code: { component: 4, trim: true } },
  // Reaction grades stay whole: `3+^3+^45` (Galileo).
  results: { value: { trim: false, decimalComma: 'keep' }, completedAt: { record: 'R', field: 'completedAt' } },
  qc: [
    { record: 'H', field: 'processingId', component: 1, anyOf: ['Q'] },
    { record: 'O', field: 'actionCode', component: 1, anyOf: ['Q'] },
  ],
  // Conservative default; answers are not built for this profile.
  queryDeadlineMs: 10_000,
  acceptsUnsolicitedOrders: false,
};
