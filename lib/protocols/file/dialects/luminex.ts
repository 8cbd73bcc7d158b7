import type { FileDialectProfile } from '../types';
import { SAMPLE_NUMBER } from './sample-number';

/**
 * Luminex xPONENT batch export (CSV; MAGPIX, Luminex 200, FLEXMAP 3D): the
 * batch's key/value lines and calibration records, then `Results` with one
 * section per data type, each titled over two cells (`"DataType:","Median"`)
 * with its own header `Location`, `Sample`, one column per analyte (bead
 * region), `Total Events`. The table is the `Net MFI` section (the median
 * fluorescence less the background), one row per well, each analyte a test;
 * `Total Events` is a count, not a test. `NaN` (no beads counted) is no
 * result. Standards, background and controls by their names are QC.
 * Sample: Benchling-Open-Source/allotropy
 * tests/parsers/luminex_xponent/testdata/luminex_xPONENT_example02.csv (MIT).
 */
export const LUMINEX_XPONENT: FileDialectProfile = {
  id: 'luminex-xponent',
  label: 'Luminex xPONENT (batch CSV, Net MFI)',
  vendor: 'Luminex',
  model: 'xPONENT (MAGPIX, Luminex 200, FLEXMAP 3D)',
  encoding: 'utf8',
  delimiter: 'comma',
  table: { skipRows: 0, startsAfter: ['DataType:', 'Net MFI'], header: true, endsAtEmptyRow: true },
  layout: { form: 'row-per-sample', sample: 'Sample', tests: 'rest', notTests: ['Total Events'] },
  decimalComma: false,
  noResult: ['NaN'],
  sampleNumber: { pattern: SAMPLE_NUMBER },
  qc: [{ by: 'sample', pattern: '^(?:Background|Standard|Control)\\d*$' }],
};

/**
 * Luminex INTELLIFLEX results CSV: a header row, then one row per well: the
 * run's settings in every row, `SAMPLE ID`, and for each analyte (a bead
 * region and reporter, `R25: RP1`) a column per statistic, the analyte and
 * the statistic in one header cell (`R25: RP1 MEDIAN`, `R25: RP1 COUNT`,
 * `R25: RP1 AVERAGE MFI`). The result is the average MFI of the replicates;
 * the test code is the region (`R25: RP1`), since exports name an analyte
 * (`R25: RP1 ANALYTE NAME`) only in newer versions, and only in wells that
 * read it. `NaN` is no result; standards, background and controls by their
 * names are QC. The document signature below the table ends it.
 * Sample: Benchling-Open-Source/allotropy
 * tests/parsers/luminex_intelliflex/testdata/luminex_intelliflex_single_dataset.csv (MIT).
 */
export const LUMINEX_INTELLIFLEX: FileDialectProfile = {
  ...LUMINEX_XPONENT,
  id: 'luminex-intelliflex',
  label: 'Luminex INTELLIFLEX (results CSV, average MFI)',
  model: 'INTELLIFLEX',
  table: { skipRows: 0, header: true, endsAtEmptyRow: false },
  layout: { form: 'row-per-sample', sample: 'SAMPLE ID', tests: 'rest', testPattern: '^(.+) AVERAGE MFI$' },
};

/**
 * The same batch CSV read at its `Avg Net MFI` section (`"DataType:","Avg Net
 * MFI"`): one row per sample, the net MFI averaged over its replicate wells,
 * as an INTELLIFLEX writes the xPONENT format; otherwise as LUMINEX_XPONENT.
 * Sample: Benchling-Open-Source/allotropy
 * tests/parsers/luminex_intelliflex/testdata/luminex_intelliflex_example_01.csv (MIT).
 */
export const LUMINEX_XPONENT_AVERAGE: FileDialectProfile = {
  ...LUMINEX_XPONENT,
  id: 'luminex-xponent-average',
  label: 'Luminex xPONENT (batch CSV, Avg Net MFI)',
  table: { ...LUMINEX_XPONENT.table, startsAfter: ['DataType:', 'Avg Net MFI'] },
};
