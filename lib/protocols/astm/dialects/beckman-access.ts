/**
 * Beckman Coulter Access 2 and UniCel DxI (one LIS interface, documented in
 * the one "UniCel DxI and Access 2 LIS Vendor Information" manual), results.
 *
 * Source: an Access 2's serial log, PrasoonPratham/astmio @2d79b20 :
 * example_astm/Acquired/access2_logs.txt (below: the log). Its second
 * transfer (lines 44-76) is the fixture beckman-access2-result-log.txt, every
 * checksum verified. The log's other transfers print the serial reads out of
 * order (their checksums still add up, the text does not), so they are read
 * for the layout only: they show the same H, O and R layout, and a
 * `C|1|I|ORL|I` result comment after some R records.
 *
 * Not covered: queries and downloads (none in a capture that could be cited).
 */
import type { DialectProfile } from './types';
import { LIS2A2_QC_MARKERS } from './standard';

export const BECKMAN_ACCESS: DialectProfile = {
  id: 'beckman-access',
  label: 'Beckman Coulter Access 2 / UniCel DxI (results)',
  vendor: 'Beckman Coulter',
  model: 'Access 2, UniCel DxI 600/800',
  // The log is a serial log ([ENQ], then the host's ` - [ACK]`). Rate: LIS1-A's, a conservative default.
  transport: { serial: { baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 } },
  // One record per ETX frame (`[STX]2P|1|[CR][ETX]BB`), frame numbers 1-5:
  // every link option at LIS1-A's value.
  link: {},
  // Latin-1 reads every byte as one character (LIS1-A 6.3.3 sums bytes; docs/design-notes.md).
  charset: 'latin1',
  // `O|1|25020053|^1316^4|^^^HCG5^1|...`: O-3 the sample ID, a plain value;
  // O-4 `^rack^position` is where the tube stood.
  sampleId: { record: 'O', field: 'specimenId', component: 1, trim: true, singleComponent: false },
  // R-3 `^^^HCG5^1`: the assay name at component 4; component 5 (`1`) is the
  // same in every transfer of the log, not part of the test's name.
  testId: { code: { component: 4, trim: true } },
  // `R|1|^^^HCG5^1|108.66|mIU/mL||N||F||||20250701182626|575707`: the value
  // alone in the completion time (R-14 the instrument's serial number).
  results: { value: { trim: true, decimalComma: 'keep' }, completedAt: { record: 'R', field: 'completedAt' } },
  // No QC transfer in the log: LIS2-A2's markers.
  qc: LIS2A2_QC_MARKERS,
  // Not used: the profile reads no queries. Conservative default.
  queryDeadlineMs: 10_000,
  acceptsUnsolicitedOrders: false,
};
