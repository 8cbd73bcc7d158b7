import type { FileDialectProfile } from '../types';
import { SAMPLE_NUMBER } from './sample-number';

/**
 * Meso Scale Discovery (MSD) Discovery Workbench: a plate's results exported
 * as CSV. The first line names the plate (`Plate_<barcode>`, skipped), then
 * a header row and one row per well and assay: `Sample` (standards `S001`,
 * unknowns `U001`, as the plate layout names them), `Assay`, and the value
 * `Calc. Concentration` (the concentration read off the standard curve).
 * `NaN` (a signal off the curve) is no result. The export has no column
 * telling standards and controls from samples: add a qc rule for your
 * layout's names (`^S\\d{3}$`). Sample: Benchling-Open-Source/allotropy
 * tests/parsers/msd_workbench/testdata/msd_workbench_test_2.csv (MIT).
 */
export const MSD_WORKBENCH_CSV: FileDialectProfile = {
  id: 'msd-workbench-csv',
  label: 'MSD Discovery Workbench (plate results CSV)',
  vendor: 'Meso Scale Discovery',
  model: 'MESO QuickPlex / SECTOR (Discovery Workbench)',
  encoding: 'utf8',
  delimiter: 'comma',
  table: { skipRows: 1, header: true, endsAtEmptyRow: false },
  layout: { form: 'row-per-result', sample: 'Sample', test: 'Assay', value: 'Calc. Concentration' },
  decimalComma: false,
  noResult: ['NaN'],
  sampleNumber: { pattern: SAMPLE_NUMBER },
  qc: [],
};

/**
 * The same plate results saved as an Excel workbook: a first sheet of the
 * reader's key/value lines (`FileName :`, `Plate ID :`...), the results on
 * the sheet `Workbench data`, under a `Plate_<id>` row, from the header row
 * starting `Sample`; columns as in the CSV. A well without a calculated
 * concentration (a blank cell: the signal is read, no curve applied) is not
 * sent. Sample: Benchling-Open-Source/allotropy
 * tests/parsers/msd_workbench/testdata/test_msd_workbench_xlsx.xlsx (MIT).
 */
export const MSD_WORKBENCH_XLSX: FileDialectProfile = {
  ...MSD_WORKBENCH_CSV,
  id: 'msd-workbench-xlsx',
  label: 'MSD Discovery Workbench (plate results, Excel workbook)',
  format: 'xlsx',
  sheet: 'Workbench data',
  table: { skipRows: 0, header: true, headerFirstCell: 'Sample', endsAtEmptyRow: false },
};
