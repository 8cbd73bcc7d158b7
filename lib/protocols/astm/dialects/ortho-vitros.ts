/**
 * Ortho Clinical Diagnostics VITROS (3600 immunodiagnostic system): results
 * and host queries.
 *
 * Sources:
 * - fixtures ortho-vitros-3600-*.txt: a VITROS 3600's own transfers (H-5
 *   `3600796`, R-14 `36000796`) logged by a hospital lab's interface program,
 *   nishishailesh/astm_general @20519b0 : astmbi/misc/data/3600/ (provenance
 *   in test/fixtures/SOURCES-added.md);
 * - that program's reader of these files,
 *   astmbi/astm_file2mysql_bidirectional_cl_general_vitros.py (below: the
 *   reader), which was used with this analyzer.
 *
 * Not covered: the order download. The reader's own answer writes frame
 * numbers inside a single frame (`...^M2P|1|...`), so it shows no layout the
 * analyzer is known to accept.
 */
import type { DialectProfile } from './types';
import { LIS2A2_QC_MARKERS } from './standard';

export const ORTHO_VITROS: DialectProfile = {
  id: 'ortho-vitros',
  label: 'Ortho VITROS 3600 (results, queries)',
  vendor: 'Ortho Clinical Diagnostics',
  model: 'VITROS 3600',
  // The captures came over a serial line (the reader's companion services
  // vitros_read/vitros_write read a tty). Rate: LIS1-A's, a conservative default.
  transport: { serial: { baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 } },
  // One record per ETX frame, numbers running 1-7 then 0: LIS1-A's own
  // numbering, every link option at its LIS1-A value.
  link: {},
  // Latin-1 reads every byte as one character (LIS1-A 6.3.3 sums bytes; docs/design-notes.md).
  charset: 'latin1',
  // O-3 `1111111^3^1`: the reader's comment "sample_id^tray^cup (Vitros)", and
  // it takes component 1.
  sampleId: { record: 'O', field: 'specimenId', component: 1, trim: true, singleComponent: false },
  // `Q|1|^1068687||ALL||||||||O`: the reader takes component 2 of Q-3; Q-13
  // `A` (`Q|1|^1068687||ALL||||||||A`, sent ten seconds after the first when no
  // answer came) is LIS2-A2's "cancel the last request".
  query: { field: 'startingRange', component: 2, trim: true, repeats: 'first', cancelStatus: 'A', allTests: ['ALL'] },
  // R-3 `^^^1.0000+002+1.0`: the reader's comment "^^^manualDil+testcode+autodilu",
  // and it takes the part after the first '+'. The dilutions are not another
  // result of the test, so they are not a sub-code.
  testId: { code: { component: 4, split: { separator: '+', part: 2 }, trim: true } },
  // R-4 `33.86` (or `No Result`), R-5 `nmol/L`; R-7 holds one repeat per
  // replicate (`^0^FRMN\^0^NR...`), kept as sent; R-9 `V`; are
  // two times, R-13 the later one (completion, LIS2-A2 R-13).
  results: { value: { trim: true, decimalComma: 'keep' }, completedAt: { record: 'R', field: 'completedAt' } },
  // No control in the captures (O-12 is `N`): LIS2-A2's markers.
  qc: LIS2A2_QC_MARKERS,
  // The captured cancel followed the query by ten seconds (20201121110643 ->
  // 20201121110653, H-14 of the two messages): the analyzer's wait is at most that.
  queryDeadlineMs: 10_000,
  acceptsUnsolicitedOrders: false,
};
