/**
 * Abbott ARCHITECT i-series and m2000 (same result layout): results, and the
 * ARCHITECT's host queries.
 *
 * Sources: fixtures abbott-architect-i-result-multi.txt, abbott-m2000-result.txt,
 * abbott-m2000-result-framed.txt (provenance in test/fixtures/SOURCES.md). The
 * ARCHITECT capture shows three R records per assay, F final value, I
 * interpretation, P raw RLU, the type being the last component of R-3.
 * Queries: abbott-architect-query-strings.txt (test/fixtures/SOURCES-added.md),
 * an ARCHITECT 7.01's query whose three frame checksums all add up.
 *
 * Not covered: the order download (no ARCHITECT answer to a query was found),
 * so a query is reported and the LIS answers it through a flow of its own.
 */
import type { DialectProfile } from './types';
import { LIS2A2_QC_MARKERS } from './standard';

export const ABBOTT_ARCHITECT: DialectProfile = {
  id: 'abbott-architect',
  label: 'Abbott ARCHITECT / m2000 (results, queries)',
  vendor: 'Abbott',
  model: 'ARCHITECT i-series, m2000rt',
  // Conservative default (LIS1-A's).
  transport: { serial: { baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 }, tcp: true },
  // m2000 sends one record per ETX frame (test/fixtures/SOURCES.md); ARCHITECT ends with `L|1` (no code).
  link: {},
  // Latin-1 reads every byte as one character (LIS1-A 6.3.3 sums bytes; docs/design-notes.md).
  charset: 'latin1',
  // O-3 = specimen ID (LIS2-A2 8.4); O-4 = specimen^carrier^position, as the ARCHITECT capture sends it.
  sampleId: { record: 'O', field: 'specimenId', component: 1, trim: true, singleComponent: false },
  // H-5 `ARCHITECT^7.01^F5260044206^H1P1O1R1C1Q1L1` lists the record types it
  // speaks, Q among them. `Q|1|^0000040735||^^^ALL||||||||O`: the sample at
  // Q-3 component 2 (LIS2-A2's patient^specimen), Q-5 `^^^ALL` (every test,
  // in the code's own component 4), Q-13 `O`. No cancel is shown.
  query: { field: 'startingRange', component: 2, trim: true, repeats: 'first', allTests: ['ALL'] },
  // R-3 `^^^580^Anti-HBcII^UNDILUTED^P^73294BE00^02130^^F` (ARCHITECT) and
  // `^^^HIV1mlDBS^HIV1.0mlDBS^489932^11790271^^F` (m2000): assay code at 4,
  // result type F/I/P last, at different positions, hence -1. The type is the
  // sub-code so that the final value, its interpretation and the raw signal
  // map to different LIS tests (or are rejected by the mapper), never merged.
  testId: { code: { component: 4, trim: true }, subCode: { component: -1, trim: true } },
  results: { value: { trim: false, decimalComma: 'keep' }, completedAt: { record: 'R', field: 'completedAt' } },
  // No QC capture: LIS2-A2's markers.
  qc: LIS2A2_QC_MARKERS,
  queryDeadlineMs: 10_000,
  acceptsUnsolicitedOrders: false,
};
