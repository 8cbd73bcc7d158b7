import type { FileDialectProfile } from '../types';
import { SAMPLE_NUMBER } from './sample-number';

/**
 * Thermo Fisher Qubit 4: the run's data exported as CSV (to a USB drive),
 * one row per tube read: the sample in `Test Name` (the name the operator
 * gave the tube, `Sample_#231212-064054` when none), the assay in
 * `Assay Name` (the test), the value `Original sample conc.` (the tube's
 * concentration times the dilution). Two columns are named `Units` (the
 * tube's, then the original sample's): the value's unit is the second, by
 * position (8). A tube read outside the assay's range is written `Out of
 * range` in place of a number: no result. Standards are not exported as
 * rows. Sample:
 * Benchling-Open-Source/allotropy
 * tests/parsers/thermo_fisher_qubit4/testdata/thermo_fisher_qubit4_example_1.csv (MIT).
 */
export const THERMO_QUBIT_4_CSV: FileDialectProfile = {
  id: 'thermo-qubit-4-csv',
  label: 'Thermo Fisher Qubit 4 (run data CSV)',
  vendor: 'Thermo Fisher',
  model: 'Qubit 4',
  encoding: 'utf8',
  delimiter: 'comma',
  table: { skipRows: 0, header: true, endsAtEmptyRow: false },
  layout: { form: 'row-per-result', sample: 'Test Name', test: 'Assay Name', value: 'Original sample conc.', units: 8 },
  decimalComma: false,
  noResult: ['Out of range'],
  sampleNumber: { pattern: SAMPLE_NUMBER },
  qc: [],
};

/** Qubit 4, the same data exported as an Excel workbook (one sheet, the same columns). Sample: allotropy tests/parsers/thermo_fisher_qubit4/testdata/thermo_fisher_qubit4_example_2.xlsx (MIT). */
export const THERMO_QUBIT_4_XLSX: FileDialectProfile = {
  ...THERMO_QUBIT_4_CSV,
  id: 'thermo-qubit-4-xlsx',
  label: 'Thermo Fisher Qubit 4 (run data Excel)',
  format: 'xlsx',
};

/**
 * Thermo Fisher Qubit Flex: the run's data exported as CSV, one row per
 * tube or well: `Sample Name`, `Assay Name` (the test), the value
 * `Original Sample Conc.` with its unit in `Original sample conc. units`.
 * Standards are not rows. Sample: Benchling-Open-Source/allotropy
 * tests/parsers/thermo_fisher_qubit_flex/testdata/thermo_fisher_qubit_flex_example_01.csv (MIT).
 */
export const THERMO_QUBIT_FLEX_CSV: FileDialectProfile = {
  ...THERMO_QUBIT_4_CSV,
  id: 'thermo-qubit-flex-csv',
  label: 'Thermo Fisher Qubit Flex (run data CSV)',
  model: 'Qubit Flex',
  // Some exports start with Excel's `sep=,` line: the header row is found by its first cell.
  table: { skipRows: 0, header: true, headerFirstCell: 'Run ID', endsAtEmptyRow: false },
  layout: { form: 'row-per-result', sample: 'Sample Name', test: 'Assay Name', value: 'Original Sample Conc.', units: 'Original sample conc. units' },
};

/** Qubit Flex, the same data exported as an Excel workbook. Sample: allotropy tests/parsers/thermo_fisher_qubit_flex/testdata/thermo_fisher_qubit_flex_example_02.xlsx (MIT). */
export const THERMO_QUBIT_FLEX_XLSX: FileDialectProfile = {
  ...THERMO_QUBIT_FLEX_CSV,
  id: 'thermo-qubit-flex-xlsx',
  label: 'Thermo Fisher Qubit Flex (run data Excel)',
  format: 'xlsx',
};
