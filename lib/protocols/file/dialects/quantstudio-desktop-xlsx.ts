import type { FileDialectProfile } from '../types';
import { APPBIO_QUANTSTUDIO } from './quantstudio';

/**
 * Applied Biosystems QuantStudio desktop software (QuantStudio 12K Flex, 6/7
 * Flex): "Export > Results" saved as Excel instead of text. The workbook
 * holds one sheet per section; the `Results` sheet has the experiment's
 * `key`/`value` rows, then the table whose header row starts with `Well`,
 * with the text export's columns: `Sample Name`, `Target Name`, the Ct in
 * `CT` (`Undetermined`: no result), controls by `Task` and omitted wells as there. The run
 * date is not read (the sheet writes it `03-10-2024 10:05:00 AM EST`, month
 * first, and no row says the run ended). Design & Analysis v1.5 writes the
 * same sheet and columns. Sample:
 * Benchling-Open-Source/allotropy
 * tests/parsers/appbio_quantstudio/testdata/appbio_quantstudio_example10.xlsx (MIT).
 */
export const APPBIO_QUANTSTUDIO_XLSX: FileDialectProfile = {
  id: 'appbio-quantstudio-xlsx',
  label: 'Applied Biosystems QuantStudio / 12K Flex (results Excel export)',
  vendor: APPBIO_QUANTSTUDIO.vendor,
  model: 'QuantStudio 12K Flex, 6/7 Flex (desktop software)',
  format: 'xlsx',
  sheet: 'Results',
  encoding: 'utf8',
  delimiter: 'tab',
  table: { skipRows: 0, header: true, headerFirstCell: 'Well', endsAtEmptyRow: true },
  layout: APPBIO_QUANTSTUDIO.layout,
  decimalComma: false,
  noResult: APPBIO_QUANTSTUDIO.noResult,
  sampleNumber: APPBIO_QUANTSTUDIO.sampleNumber,
  qc: APPBIO_QUANTSTUDIO.qc,
  validWhen: APPBIO_QUANTSTUDIO.validWhen,
};

/**
 * The same Excel results export from an experiment analysed by relative
 * threshold (`Quantification Cycle Method` `Crt` in the sheet's header rows):
 * the software names the cycle column `CRT` (with `Crt Mean`, `Delta Crt`)
 * instead of `CT`; the other columns, the `Results` sheet and the rules are
 * those of appbio-quantstudio-xlsx. Samples: Benchling-Open-Source/allotropy
 * tests/parsers/appbio_quantstudio/testdata/appbio_quantstudio_example08.xlsx,
 * appbio_quantstudio_example09.xlsx (MIT).
 */
export const APPBIO_QUANTSTUDIO_CRT_XLSX: FileDialectProfile = {
  ...APPBIO_QUANTSTUDIO_XLSX,
  id: 'appbio-quantstudio-crt-xlsx',
  label: 'Applied Biosystems QuantStudio / 12K Flex (results Excel export, relative threshold Crt)',
  layout: { form: 'row-per-result', sample: 'Sample Name', test: 'Target Name', value: 'CRT' },
};
