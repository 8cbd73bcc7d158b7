import type { FileDialectProfile } from '../types';
import { SAMPLE_NUMBER } from './sample-number';

/**
 * Abbott m2000rt real-time PCR (viral load), the results log: tab
 * separated, UTF-8 with a byte-order mark, banner sections; the results
 * table is the one after `Result Information`, its header row starting with
 * `Location`. The value is `InvariantReportedResult`, the result as the
 * instrument reports it, written without locale (`767 Copies / mL`,
 * `< 40 Copies / mL`, `Not detected`: all results, sent as written), not
 * `FinalResult`, which holds 18 where the report says `< 40` (below the
 * quantitation limit). Controls by `SampleType`; a row whose `Status` is
 * not `Valid` is not sent. The run's time is `Time Stamp AD End`.
 * Sample: senaite/senaite.core src/senaite/core/exportimport/instruments/abbott/m2000rt/samples/Results.log.321.
 */
export const ABBOTT_M2000RT: FileDialectProfile = {
  id: 'abbott-m2000rt',
  label: 'Abbott m2000rt (results log)',
  vendor: 'Abbott',
  model: 'm2000rt',
  encoding: 'utf8',
  delimiter: 'tab',
  table: { skipRows: 0, startsAfter: 'Result Information', header: true, headerFirstCell: 'Location', endsAtEmptyRow: true },
  layout: { form: 'row-per-result', sample: 'SampleId', test: 'AssayName', value: 'InvariantReportedResult' },
  decimalComma: false,
  noResult: [],
  sampleNumber: { pattern: SAMPLE_NUMBER },
  qc: [{ by: 'column', column: 'SampleType', anyOf: ['Control', 'Calibrator'] }],
  validWhen: [{ column: 'Status', anyOf: ['Valid'] }],
  runDate: { from: 'header', pattern: '^Time Stamp AD End\\s+(\\d{4}/\\d{2}/\\d{2} \\d{2}:\\d{2}:\\d{2} [AP]M)', format: 'YYYY/MM/DD hh:mm:ss A' },
};
