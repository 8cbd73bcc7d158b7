import type { FileDialectProfile } from '../types';
import { SAMPLE_NUMBER } from './sample-number';

/**
 * Thermo Scientific GENESYS 150 (on-board software): a Fixed wavelength
 * measurement saved as `.csv`, which is UTF-16LE text with tabs: one row per
 * sample, the sample in `Well Position` (the name the operator typed, with
 * the read's number: `WD10369453 1`), the value `Absorbance` (the test code).
 * No controls marked. Sample: Benchling-Open-Source/allotropy
 * tests/parsers/thermo_fisher_genesys_on_board/testdata/Genesys150_ExampleFile_Fixed_10_2_2024_1_57_42_PM.csv (MIT).
 */
export const THERMO_GENESYS_150: FileDialectProfile = {
  id: 'thermo-genesys-150',
  label: 'Thermo Scientific GENESYS 150 (Fixed wavelength export)',
  vendor: 'Thermo Scientific',
  model: 'GENESYS 150',
  encoding: 'utf16le',
  delimiter: 'tab',
  table: { skipRows: 0, header: true, endsAtEmptyRow: false },
  layout: { form: 'row-per-sample', sample: 'Well Position', tests: ['Absorbance'] },
  decimalComma: false,
  noResult: [],
  sampleNumber: { pattern: SAMPLE_NUMBER },
  qc: [],
};

/**
 * Thermo Scientific VISIONlite (GENESYS 10S, Evolution): the Fixed
 * application's results, saved as UTF-16LE text with tabs (named `.csv`):
 * one row per sample, `Sample name`, then a column per wavelength the method
 * reads (`A260`: the test code; add the others to `layout.tests`), then
 * `Result`. Sample: Benchling-Open-Source/allotropy
 * tests/parsers/thermo_fisher_visionlite/testdata/Fixed_tab_sep.csv (MIT).
 */
export const THERMO_VISIONLITE_FIXED: FileDialectProfile = {
  ...THERMO_GENESYS_150,
  id: 'thermo-visionlite-fixed',
  label: 'Thermo Scientific VISIONlite Fixed (results, UTF-16 text)',
  model: 'VISIONlite Fixed (GENESYS 10S, Evolution)',
  layout: { form: 'row-per-sample', sample: 'Sample name', tests: ['A260'] },
};

/**
 * VISIONlite Quant: the quantitation application's results as CSV (UTF-8,
 * commas): one row per sample, `Sample Name`, `Dilution factor`, the reading
 * `Ordinate [A]` and the value `Concentration [mg/L]` (the test code; the
 * unit is the method's). Sample: Benchling-Open-Source/allotropy
 * tests/parsers/thermo_fisher_visionlite/testdata/Thermo_VISIONlite_example_quant.csv (MIT).
 */
export const THERMO_VISIONLITE_QUANT: FileDialectProfile = {
  ...THERMO_GENESYS_150,
  id: 'thermo-visionlite-quant',
  label: 'Thermo Scientific VISIONlite Quant (results CSV)',
  model: 'VISIONlite Quant (GENESYS 10S, Evolution)',
  encoding: 'utf8',
  delimiter: 'comma',
  layout: { form: 'row-per-sample', sample: 'Sample Name', tests: ['Concentration [mg/L]'] },
};

/**
 * VISIONlite Fixed's results as CSV (UTF-8, commas): `Sample Name`, then a
 * column per wavelength the method reads (`500 nm   [A]`): every column
 * after the sample is a test, its code the wavelength (`500 nm`), its unit
 * the bracket's `A` (layout.headerUnits). A method with a `Result` equation
 * adds that column, read here as one more test: the export's answer is then
 * that Result, which thermo-visionlite-fixed-result reads alone. Sample:
 * Benchling-Open-Source/allotropy
 * tests/parsers/thermo_fisher_visionlite/testdata/Thermo_VISIONlite_example_multiple_wavelengths_fixed.csv (MIT).
 */
export const THERMO_VISIONLITE_FIXED_CSV: FileDialectProfile = {
  ...THERMO_VISIONLITE_QUANT,
  id: 'thermo-visionlite-fixed-csv',
  label: 'Thermo Scientific VISIONlite Fixed (results CSV, a column per wavelength)',
  model: 'VISIONlite Fixed (GENESYS 10S, Evolution)',
  // A method with an equation (its Result) or a Quant method's export is another built-in's: its absorbances, or its
  // dilution factor, would be sent as results of their own.
  layout: { form: 'row-per-sample', sample: 'Sample Name', tests: 'rest', headerUnits: true, notWith: ['Result', 'Concentration [mg/L]'] },
};

/**
 * VISIONlite Fixed's results as CSV from a method with an equation: the
 * wavelengths' columns, then `Result`, the method's answer computed from
 * them (the test code). The absorbances are that answer's inputs, as Quant's
 * `Ordinate [A]` is, and are not sent. Sample: Benchling-Open-Source/allotropy
 * tests/parsers/thermo_fisher_visionlite/testdata/Fixed_with_Result_Multi.csv (MIT).
 */
export const THERMO_VISIONLITE_FIXED_RESULT: FileDialectProfile = {
  ...THERMO_VISIONLITE_QUANT,
  id: 'thermo-visionlite-fixed-result',
  label: 'Thermo Scientific VISIONlite Fixed (results CSV, the method\'s Result)',
  model: 'VISIONlite Fixed (GENESYS 10S, Evolution)',
  layout: { form: 'row-per-sample', sample: 'Sample Name', tests: ['Result'] },
};
