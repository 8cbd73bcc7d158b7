import type { FileDialectProfile } from '../types';
import { NOT_OMITTED } from './quantstudio';
import { SAMPLE_NUMBER } from './sample-number';

/**
 * Applied Biosystems QuantStudio 7 Pro (and the other instruments of the
 * Design & Analysis software, and Thermo Fisher's Diomni software, which
 * writes the same workbook): the results export is an Excel workbook only.
 * Its results sheet (`Results` in Design & Analysis, first in its own exports
 * and after the amplification sheets in its auto-export; `Primary_result` in
 * Diomni) holds a `Name`/value header block, then the table whose header row
 * starts with `Well`: one row per well and target, the Cq in `Cq`
 * (`UNDETERMINED` when the target did not amplify: no result).
 * Controls by `Task` (NTC, POSITIVE_CONTROL, BLOCKED_IPC, STANDARD; UNKNOWN
 * and IPC rows are patient wells, as in the text dialect); a well the
 * operator omitted (`Omit` TRUE) is never sent. Design & Analysis v2.6
 * writes the flag in lower case (`false`), the other versions `FALSE`.
 * The run date is `Run End Date/Time` (Diomni writes `Run End Data/Time`), a
 * 12-hour clock with AM/PM and a zone name (`2026-02-13 02:39:53 PM EST`):
 * the zone name is not read (the site's zone is).
 * Sample: Benchling-Open-Source/allotropy
 * tests/parsers/appbio_quantstudio_designandanalysis/testdata/appbio_quantstudio_designandanalysis_Diomni_v4.3_Presence_Absence.xlsx;
 * the column names match that folder's Design & Analysis exports (…_QS7Pro_Presence_and_Absence_example10.xlsx).
 */
export const APPBIO_QUANTSTUDIO_DA_XLSX: FileDialectProfile = {
  id: 'appbio-quantstudio-design-analysis-xlsx',
  label: 'Applied Biosystems QuantStudio Design & Analysis / Diomni (Excel results export)',
  vendor: 'Applied Biosystems',
  model: 'QuantStudio 7 Pro, 5, 3, 1 (Design & Analysis software, Diomni)',
  format: 'xlsx',
  sheet: ['Results', 'Primary_result'],
  encoding: 'utf8',
  delimiter: 'tab',
  table: { skipRows: 0, header: true, headerFirstCell: 'Well', endsAtEmptyRow: true },
  layout: { form: 'row-per-result', sample: 'Sample', test: 'Target', value: 'Cq' },
  decimalComma: false,
  noResult: ['UNDETERMINED'],
  sampleNumber: { pattern: SAMPLE_NUMBER },
  qc: [{ by: 'column', column: 'Task', anyOf: ['NTC', 'POSITIVE_CONTROL', 'NEGATIVE_CONTROL', 'BLOCKED_IPC', 'STANDARD'] }],
  validWhen: NOT_OMITTED,
  runDate: { from: 'header', pattern: '^Run End Dat[ae]/Time\\t(\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2} [AP]M)', format: 'YYYY-MM-DD hh:mm:ss A' },
};
