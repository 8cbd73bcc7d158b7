import type { FileDialectProfile } from '../types';
import { SAMPLE_NUMBER } from './sample-number';

/**
 * Thermo Scientific SkanIt Software 6/7 "Measurement results" workbook
 * (.xlsx; Varioskan LUX, Multiskan SkyHigh and FC run from SkanIt): the
 * first sheet is the first measurement step (`Absorbance 1_01`), an `Abs`
 * grid of absorbances and a `Sample` grid of well labels below it, the same
 * plate as the Multiskan GO CSV. Labels are SkanIt's (`Un0001` unknowns,
 * `Std0001` standards, `Blank1` blanks) unless the layout names the samples
 * (an `Un0001` label is no sample number: kept aside, never sent);
 * a control is taken as `Ctrl` (not in the samples: the Multiskan GO's
 * SkanIt names it `Ctrl_`). One test per file: `Abs`; a luminescence step's
 * grid is `RLU` (allotropy's luciferase_assay_example.xlsx, which has no
 * Sample grid: a plate without a layout names no sample and is refused).
 * Sample: Benchling-Open-Source/allotropy
 * tests/parsers/thermo_skanit/testdata/skanit_data.xlsx (MIT; SkanIt 7.0.0.50,
 * Varioskan LUX, an APOE ELISA at 450 nm).
 */
export const THERMO_SKANIT_XLSX: FileDialectProfile = {
  id: 'thermo-skanit-xlsx',
  label: 'Thermo Scientific SkanIt 6/7 (plate workbook, .xlsx)',
  vendor: 'Thermo Scientific',
  model: 'SkanIt (Varioskan LUX, Multiskan SkyHigh)',
  format: 'xlsx',
  encoding: 'utf8',
  delimiter: 'comma',
  table: { skipRows: 0, header: false, endsAtEmptyRow: false },
  layout: { form: 'plate', samples: 'Sample', values: 'Abs', test: 'Abs' },
  decimalComma: false,
  // SkanIt writes NaN in a well it could not compute (the sample's Dilution Factor sheet).
  noResult: ['NaN', 'OVRFLW'],
  // SkanIt's own labels for unknowns (Un0001 ...) name a well, not a sample: a plate whose layout was never given
  // sample numbers is kept aside with the reason, never sent under those labels to the LIS.
  sampleNumber: { pattern: `(?!Un\\d+$)${SAMPLE_NUMBER}` },
  qc: [{ by: 'sample', pattern: '^(?:Std|Blank|Ctrl)\\d' }],
};
