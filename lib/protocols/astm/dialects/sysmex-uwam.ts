/**
 * Sysmex U-WAM, the urinalysis workstation of the UF-4000/UF-5000 flow
 * cytometers (and UC-3500 strip readers), results.
 *
 * Source: a capture of U-WAM traffic logged by yoser174/astm_uf_parse @3c093a9
 * (astm_uf_parse_info.log, a proxy between the U-WAM and the lab's host); one
 * ENQ...EOT transfer is the fixture sysmex-uwam-uf4000-result-log.txt (below:
 * the capture), every checksum verified. The log repeats that same transfer
 * 38 times; nothing else of the U-WAM is in it.
 *
 * What sets it apart: each result comes twice under one
 * `21.5^RAW` and `21.5^MAINFORMAT` (the value as measured, and as the U-WAM
 * formats it for display). The form is the result's sub-code, so the mapper
 * can take one and leave the other, never merge them.
 *
 * Not covered: queries and downloads (none in the capture), QC (none either).
 */
import type { DialectProfile } from './types';
import { LIS2A2_QC_MARKERS } from './standard';

export const SYSMEX_UWAM: DialectProfile = {
  id: 'sysmex-uwam',
  label: 'Sysmex U-WAM, UF-4000/UF-5000 (results)',
  vendor: 'Sysmex',
  model: 'U-WAM with UF-4000, UF-5000',
  // The capture went over TCP (the proxy's "Instrument connected by" line, the
  // U-WAM connecting to it). Serial settings are not in it.
  transport: { tcp: true },
  // The O record is cut into an ETB frame and an ETX frame; the other records
  // are one ETX frame each, frame numbers 1-7, 0, 1 (LIS1-A's modulo 8).
  link: {},
  // Latin-1: the units `/µl` are the byte B5, test names such as `NL·RBC` the
  // byte B7 (capture, R records 1 and 3): one byte each, Latin-1's µ and ·.
  charset: 'latin1',
  // `O|1|1234test||^^^RBC\^^^NL·RBC\...`: O-3 the sample number, a plain value
  // (capture, O record); O-4 is empty.
  sampleId: { record: 'O', field: 'specimenId', component: 1, trim: true, singleComponent: false },
  // R-3 `^^^RBC^A^1^S^000002^01`: the parameter at component 4; the
  // components after it are the same for RAW and MAINFORMAT, so they name no
  // different result. R-4 component 2 (RAW / MAINFORMAT) is the sub-code.
  testId: { code: { component: 4, trim: true }, subCode: { component: 2, trim: true }, subCodeIn: 'value' },
  // `R|1|^^^RBC^A^1^S^000002^01|21.5^RAW|/µl||N||||^^sysmex^sysmex||20220608143227|UF-4000`:
  // the value is R-4 component 1; R-13 the time of the measurement, R-14 the analyzer.
  results: { value: { component: 1, trim: true, decimalComma: 'keep' }, completedAt: { record: 'R', field: 'completedAt' } },
  // No QC transfer in the capture: LIS2-A2's markers.
  qc: LIS2A2_QC_MARKERS,
  // Not used: the profile reads no queries. Conservative default.
  queryDeadlineMs: 10_000,
  acceptsUnsolicitedOrders: false,
};
