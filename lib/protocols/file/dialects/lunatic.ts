import type { FileDialectProfile } from '../types';
import { SAMPLE_NUMBER } from './sample-number';

/**
 * Unchained Labs Lunatic (microvolume UV/Vis plates): the results table
 * exported as CSV, one row per well: `Sample name`, the method in
 * `Application` (`A260 dsDNA`: the test), the value
 * `A260 Concentration (ng/ul)`, its unit in the header cell. The export marks no controls (blanks are
 * samples named by the operator, `H2O`). Sample:
 * Benchling-Open-Source/allotropy
 * tests/parsers/unchained_labs_lunatic_stunner/testdata/Demo_A260_dsDNA_Data.csv (MIT).
 */
export const UNCHAINED_LUNATIC_CSV: FileDialectProfile = {
  id: 'unchained-lunatic-csv',
  label: 'Unchained Labs Lunatic (results table CSV)',
  vendor: 'Unchained Labs',
  model: 'Lunatic',
  encoding: 'utf8',
  delimiter: 'comma',
  table: { skipRows: 0, header: true, endsAtEmptyRow: false },
  layout: { form: 'row-per-result', sample: 'Sample name', test: 'Application', value: 'A260 Concentration (ng/ul)', headerUnits: true },
  decimalComma: false,
  noResult: ['N/A'],
  sampleNumber: { pattern: SAMPLE_NUMBER },
  qc: [],
};

/**
 * The Lunatic's report as an Excel workbook (software 6): a `Report` sheet
 * with an `Info` block (date, application, plates), then `Table`, whose
 * header row starts with `Plate ID`; one row per well, `Sample name`, and
 * the value in `Concentration` + line break + `(ng/ul)`: one header cell, the
 * test code over its unit, split (headerUnits). The application is in the
 * Info block only, so the test is the column. Sample:
 * Benchling-Open-Source/allotropy
 * tests/parsers/unchained_labs_lunatic_stunner/testdata/2024-07-12_CW288_Plate1.xlsx (MIT).
 */
export const UNCHAINED_LUNATIC_XLSX: FileDialectProfile = {
  ...UNCHAINED_LUNATIC_CSV,
  id: 'unchained-lunatic-xlsx',
  label: 'Unchained Labs Lunatic (report Excel workbook)',
  format: 'xlsx',
  table: { skipRows: 0, header: true, headerFirstCell: 'Plate ID', endsAtEmptyRow: true },
  layout: { form: 'row-per-sample', sample: 'Sample name', tests: ['Concentration\n(ng/ul)'], headerUnits: true },
};

/**
 * The Lunatic's report saved as CSV (software 8): the `Report` and `Info`
 * rows (date, operator, application, plates) above the table, whose header
 * row starts with `Plate ID`; its cells hold line breaks inside quotes
 * (`"Plate` + CR LF + `Position"`). The value is `Concentration` + CR LF +
 * `(ng/ul)`: the test code over its unit, split as in the workbook. A well
 * whose `Sample name` is empty is held. Sample:
 * Benchling-Open-Source/allotropy
 * tests/parsers/unchained_labs_lunatic_stunner/testdata/Example_Lunatic_Plate_Reader_csv_with_header.csv (MIT).
 */
export const UNCHAINED_LUNATIC_REPORT_CSV: FileDialectProfile = {
  ...UNCHAINED_LUNATIC_CSV,
  id: 'unchained-lunatic-report-csv',
  label: 'Unchained Labs Lunatic (report CSV, with its Info rows)',
  table: { skipRows: 0, header: true, headerFirstCell: 'Plate ID', endsAtEmptyRow: true },
  layout: { form: 'row-per-sample', sample: 'Sample name', tests: ['Concentration\r\n(ng/ul)'], headerUnits: true },
};

/**
 * The Lunatic's results table CSV of a protein application (`Protein
 * (Turbidity)`): the value `Concentration (mg/ml)`, its unit split from the
 * header, the sample `Sample Name` (capital N in this version); otherwise as
 * UNCHAINED_LUNATIC_CSV (a blank's `N/A` is no result).
 * Sample: Benchling-Open-Source/allotropy
 * tests/parsers/unchained_labs_lunatic_stunner/testdata/Demo_A280_Protein.csv (MIT).
 */
export const UNCHAINED_LUNATIC_PROTEIN_CSV: FileDialectProfile = {
  ...UNCHAINED_LUNATIC_CSV,
  id: 'unchained-lunatic-protein-csv',
  label: 'Unchained Labs Lunatic (results table CSV, protein concentration)',
  layout: { form: 'row-per-result', sample: 'Sample Name', test: 'Application', value: 'Concentration (mg/ml)', headerUnits: true },
};

/**
 * The Lunatic's results table CSV exported with the spectrum: the absorbance
 * at every wavelength (`A230 (10mm)` … `A750 (10mm)`) before the results
 * columns, and the concentration named `Concentration (ng/ul)`, without the
 * `A260` of the plain table; the spectrum's columns are no results and are
 * not read.
 */
export const UNCHAINED_LUNATIC_SPECTRUM_CSV: FileDialectProfile = {
  ...UNCHAINED_LUNATIC_CSV,
  id: 'unchained-lunatic-spectrum-csv',
  label: 'Unchained Labs Lunatic (results table CSV with the spectrum)',
  layout: { form: 'row-per-result', sample: 'Sample name', test: 'Application', value: 'Concentration (ng/ul)', headerUnits: true },
};
