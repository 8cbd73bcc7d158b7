/**
 * Abbott ARCHITECT i-series and m2000 (same result layout), results.
 *
 * Sources: fixtures abbott-architect-i-result-multi.txt, abbott-m2000-result.txt,
 * abbott-m2000-result-framed.txt (provenance in test/fixtures/SOURCES.md). The
 * ARCHITECT capture shows three R records per assay, F final value, I
 * interpretation, P raw RLU, the type being the last component of R-3.
 */
import type { DialectProfile } from './types';
import { LIS2A2_QC_MARKERS } from './standard';

export const ABBOTT_ARCHITECT: DialectProfile = {
  id: 'abbott-architect',
  label: 'Abbott ARCHITECT / m2000 (results)',
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
