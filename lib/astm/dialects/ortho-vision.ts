/**
 * Ortho Clinical Diagnostics ORTHO VISION (blood bank), results.
 *
 * Sources: fixtures ortho-vision-result.txt (twgenaux/tgenaux-ASTM-LIS
 * @a66bef4 : ExampleMessages/ASTM/Vision.txt) and ortho-vision-result-abo-rh.txt
 * (twgenaux/twgenaux.github.io @d1e0d50 : MessageFormats/MessageFormats.md),
 * VISION example messages by Theron Genaux (placeholder IDs such as
 * `PID123456`, `SID101`), whose MessageFormats.md names each field of the
 * second one ("Breaking down the introductory Message"). Below: the article.
 *
 * The M records after an R carry the card wells behind the result
 * (`M|1|Anti-A|ABO-Rh/Reverse^1^...||40^A`); they are kept in the message and
 * are not results.
 */
import type { DialectProfile } from './types';

export const ORTHO_VISION: DialectProfile = {
  id: 'ortho-vision',
  label: 'Ortho VISION (results)',
  vendor: 'Ortho Clinical Diagnostics',
  model: 'ORTHO VISION',
  // Conservative default (LIS1-A's); no source gives the analyzer's settings.
  transport: { serial: { baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 }, tcp: true },
  // One example ends with `L||` (no sequence, no code); every link option at LIS1-A's value.
  link: {},
  // Latin-1 reads every byte as one character (LIS1-A 6.3.3 sums bytes; docs/design-notes.md).
  charset: 'latin1',
  // The article: "O.3 Sample IDs" (`SID305`); a repeat there (`SID102\SID103`,
  // its RepeatFields example) is two specimens, which the reader refuses for a result.
  sampleId: { record: 'O', field: 'specimenId', component: 1, trim: true, singleComponent: false },
  // The article: "R.3 Analysis ID" `ABO`, `Rh`: the whole field, no components.
  testId: { code: { component: 1, trim: true } },
  // The article: "R.4 Analysis Value" `B`, `POS`; "R.9 Status"; "R.13 Completion Time".
  results: { value: { trim: true, decimalComma: 'keep' }, completedAt: { record: 'R', field: 'completedAt' } },
  // No QC example: LIS2-A2's markers.
  qc: [
    { record: 'H', field: 'processingId', component: 1, anyOf: ['Q'] },
    { record: 'O', field: 'actionCode', component: 1, anyOf: ['Q'] },
  ],
  // Not used: the profile reads no queries. Conservative default.
  queryDeadlineMs: 10_000,
  acceptsUnsolicitedOrders: false,
};
