import type { FileDialectProfile } from '../types';
import { SAMPLE_NUMBER } from './sample-number';

/**
 * Thermo Scientific NanoDrop 8000: the nucleic acid module's report saved
 * as text (tab separated; header cells padded with a trailing space, read
 * trimmed), one row per sample: `Sample ID`, the value `Conc.` in `Units`
 * (ng/ul), the test the module's nucleic-acid type `NA Type` (`DNA-50`,
 * `RNA-40`). A reference row the software writes (`Ref  conc`, two spaces)
 * is held by the sample-number rule. No controls marked. Sample:
 * Benchling-Open-Source/allotropy
 * tests/parsers/thermo_fisher_nanodrop_8000/testdata/Thermo_NanoDrop_8000_example03.txt (MIT).
 */
export const THERMO_NANODROP_8000: FileDialectProfile = {
  id: 'thermo-nanodrop-8000',
  label: 'Thermo Scientific NanoDrop 8000 (nucleic acid report, text)',
  vendor: 'Thermo Scientific',
  model: 'NanoDrop 8000',
  encoding: 'utf8',
  delimiter: 'tab',
  table: { skipRows: 0, header: true, endsAtEmptyRow: false },
  layout: { form: 'row-per-result', sample: 'Sample ID', test: 'NA Type', value: 'Conc.', units: 'Units' },
  decimalComma: false,
  noResult: [],
  sampleNumber: { pattern: SAMPLE_NUMBER },
  qc: [],
};

/**
 * NanoDrop 8000, the protein A280 module's report: the same text table
 * without a type column; the value is `conc.` (lower case, mg/ml in
 * `units`), the test code the column's name. Rows with an empty `Sample ID`
 * are held ("no sample number"). Sample: Benchling-Open-Source/allotropy
 * tests/parsers/thermo_fisher_nanodrop_8000/testdata/Thermo_NanoDrop_8000_example02.txt (MIT).
 */
export const THERMO_NANODROP_8000_PROTEIN: FileDialectProfile = {
  ...THERMO_NANODROP_8000,
  id: 'thermo-nanodrop-8000-protein',
  label: 'Thermo Scientific NanoDrop 8000 (protein A280 report, text)',
  layout: { form: 'row-per-sample', sample: 'Sample ID', tests: ['conc.'] },
};

/**
 * NanoDrop 8000, the report of a custom method (a user-defined extinction
 * coefficient and formulas): the same text table with the absorbances in
 * pairs `nm 1`/`Abs 1`... and no type column; the value `Conc.` in `Units`
 * (mg/ml). The method names no test, so the test code is the column's name,
 * `Conc.`. A measured `0.000` is sent as a result. Sample: Benchling-Open-Source/allotropy
 * tests/parsers/thermo_fisher_nanodrop_8000/testdata/Thermo_NanoDrop_mRNA.txt (MIT).
 */
export const THERMO_NANODROP_8000_CUSTOM: FileDialectProfile = {
  ...THERMO_NANODROP_8000,
  id: 'thermo-nanodrop-8000-custom',
  label: 'Thermo Scientific NanoDrop 8000 (custom method report, text)',
  // A nucleic-acid report names each row's type (NA Type): thermo-nanodrop-8000's, whose test it is.
  layout: { form: 'row-per-result', sample: 'Sample ID', test: { constant: 'Conc.' }, value: 'Conc.', units: 'Units', notWith: ['NA Type'] },
};

/**
 * Thermo Scientific NanoDrop Eight: a measurement's export as text (tab
 * separated): `key:`/value lines (`Application:`, serial number, user),
 * then the header row `Sample Id`, `Sample Name`, `Date & Time`, ..., the
 * concentration in `ng/µL`, then the spectrum's columns. The test is the
 * application, named once in the `Application:` line (`dsDNA`, `RNA`); a file
 * without it is refused. The sample number is the operator's `Sample Name`;
 * `Sample Id` is the software's measurement GUID, no sample a LIS knows.
 * Sample: Benchling-Open-Source/allotropy
 * tests/parsers/thermo_fisher_nanodrop_eight/testdata/thermo_nanodrop_eight_example01.txt (MIT).
 */
const APPLICATION = { from: 'header', pattern: '^Application:\\t(\\S+)' } as const;

export const THERMO_NANODROP_EIGHT: FileDialectProfile = {
  id: 'thermo-nanodrop-eight',
  label: 'Thermo Scientific NanoDrop Eight (measurement export, text)',
  vendor: 'Thermo Scientific',
  model: 'NanoDrop Eight',
  encoding: 'utf8',
  delimiter: 'tab',
  table: { skipRows: 0, header: true, headerFirstCell: 'Sample Id', endsAtEmptyRow: false },
  layout: { form: 'row-per-result', sample: 'Sample Name', test: APPLICATION, value: 'ng/µL' },
  decimalComma: false,
  noResult: [],
  sampleNumber: { pattern: SAMPLE_NUMBER },
  qc: [],
};

/**
 * NanoDrop Eight's measurement export as a European-locale PC writes it: the
 * same table with a decimal comma (`-0,412`). Sample: Benchling-Open-Source/allotropy
 * tests/parsers/thermo_fisher_nanodrop_eight/testdata/thermo_nanodrop_eight_example02.txt (MIT).
 */
export const THERMO_NANODROP_EIGHT_DECIMAL_COMMA: FileDialectProfile = {
  ...THERMO_NANODROP_EIGHT,
  id: 'thermo-nanodrop-eight-decimal-comma',
  label: 'Thermo Scientific NanoDrop Eight (measurement export, decimal comma)',
  decimalComma: true,
};

/**
 * NanoDrop Eight, the export whose header row starts with `Date` (`Date`,
 * `UID`, `Sample`, `Username`, `ng/µL`...), as a European-locale PC writes it
 * (decimal comma, `704,986`). The test is the `Application:` line's, the
 * sample number the operator's `Sample` (`UID` is the measurement's GUID).
 * Sample: Benchling-Open-Source/allotropy
 * tests/parsers/thermo_fisher_nanodrop_eight/testdata/thermo_nanodrop_eight_RNA.txt (MIT).
 */
export const THERMO_NANODROP_EIGHT_DATE_FIRST: FileDialectProfile = {
  ...THERMO_NANODROP_EIGHT,
  id: 'thermo-nanodrop-eight-date-first',
  label: 'Thermo Scientific NanoDrop Eight (export with Date first, decimal comma)',
  table: { skipRows: 0, header: true, headerFirstCell: 'Date', endsAtEmptyRow: false },
  layout: { form: 'row-per-result', sample: 'Sample', test: APPLICATION, value: 'ng/µL' },
  decimalComma: true,
};

/**
 * Thermo Scientific NanoDrop One/OneC: the nucleic acid application's data
 * exported as CSV, the file named after the application and time
 * (`dsDNA 7_19_2023 3_27_29 PM.csv`): one row per measurement, `Sample Name`,
 * the concentration in `Nucleic Acid(ng/uL)`, its unit in the header cell.
 * The test is the application, named only in the file's name (its first
 * word): a file renamed without it is refused, never sent as nobody's test.
 * No controls marked. Sample: Benchling-Open-Source/allotropy
 * tests/parsers/thermo_fisher_nanodrop_one/testdata/dsDNA 7_19_2023 3_27_29 PM.csv (MIT).
 */
export const THERMO_NANODROP_ONE_CSV: FileDialectProfile = {
  id: 'thermo-nanodrop-one-csv',
  label: 'Thermo Scientific NanoDrop One (nucleic acid CSV export)',
  vendor: 'Thermo Scientific',
  model: 'NanoDrop One/OneC',
  encoding: 'utf8',
  delimiter: 'comma',
  table: { skipRows: 0, header: true, endsAtEmptyRow: false },
  layout: { form: 'row-per-result', sample: 'Sample Name', test: { from: 'name', pattern: '^(\\S+) ' }, value: 'Nucleic Acid(ng/uL)', headerUnits: true },
  decimalComma: false,
  noResult: [],
  sampleNumber: { pattern: SAMPLE_NUMBER },
  qc: [],
};

/**
 * NanoDrop One, the same export saved as an Excel workbook: one sheet, named
 * after the application and time, the same columns. The sheet's name is not
 * read, so the test is the value column (`Nucleic Acid`, its unit split from
 * the header cell). Sample: allotropy tests/parsers/thermo_fisher_nanodrop_one/testdata/example1.xlsx (MIT).
 */
export const THERMO_NANODROP_ONE_XLSX: FileDialectProfile = {
  ...THERMO_NANODROP_ONE_CSV,
  id: 'thermo-nanodrop-one-xlsx',
  label: 'Thermo Scientific NanoDrop One (nucleic acid Excel export)',
  format: 'xlsx',
  layout: { form: 'row-per-sample', sample: 'Sample Name', tests: ['Nucleic Acid(ng/uL)'], headerUnits: true },
};
