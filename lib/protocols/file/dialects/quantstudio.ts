import type { FileDialectProfile } from '../types';
import { SAMPLE_NUMBER } from './sample-number';

/**
 * A well the operator omitted in the software (`Omit` true: a bubble, a failed
 * replicate) is no result: only a row the software kept (`false`, written
 * `FALSE` by the Excel exports) is sent; an omitted one is counted as not for
 * the LIS, with its reason.
 */
export const NOT_OMITTED: NonNullable<FileDialectProfile['validWhen']> = [{ column: 'Omit', anyOf: ['FALSE', 'false'] }];

/**
 * Applied Biosystems QuantStudio (6 and 7 Flex; the 7500 software's text
 * export has the same sections): the "Export > Results" text file, tab
 * separated, a `* key = value` header, then sections; results are the
 * `[Results]` section, one row per well and target, the Ct in `CT`
 * (`Undetermined` when the target did not amplify: no result).
 * Controls by the `Task` column (standards, no-template and blocked-IPC
 * controls; UNKNOWN and IPC rows are patient wells). A well `Omit` true is
 * not sent (NOT_OMITTED).
 * The run date is `Experiment Run End Time`, written with a 24-hour clock
 * and an AM/PM suffix (`2024-10-01 15:02:50 PM EST`): the hour is read as
 * written and the zone name is not (the site's zone is).
 * Samples: Benchling-Open-Source/allotropy tests/parsers/appbio_quantstudio/testdata
 * (example_quantsudio_results_only.txt, appbio_quantstudio_example02.txt).
 */
export const APPBIO_QUANTSTUDIO: FileDialectProfile = {
  id: 'appbio-quantstudio',
  label: 'Applied Biosystems QuantStudio / 7500 (results text export)',
  vendor: 'Applied Biosystems',
  model: 'QuantStudio 6/7 Flex, 7500',
  encoding: 'utf8',
  delimiter: 'tab',
  table: { skipRows: 0, startsAfter: '[Results]', header: true, endsAtEmptyRow: true },
  layout: { form: 'row-per-result', sample: 'Sample Name', test: 'Target Name', value: 'CT' },
  decimalComma: false,
  noResult: ['Undetermined'],
  sampleNumber: { pattern: SAMPLE_NUMBER },
  qc: [{ by: 'column', column: 'Task', anyOf: ['STANDARD', 'NTC', 'BlockedIPC', 'PC_ALLELE_1', 'PC_ALLELE_2', 'PC_ALLELE_BOTH'] }],
  validWhen: NOT_OMITTED,
  runDate: { from: 'header', pattern: '^\\* Experiment Run End Time = (\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2})', format: 'YYYY-MM-DD HH:mm:ss' },
};

/**
 * The same text export of a genotyping experiment (`Experiment Type` Genotyping):
 * its `[Results]` section has one row per well, the well's SNP assay in
 * `SNP Assay Name` and the Ct of each allele's probe in `Allele1 Ct` and
 * `Allele2 Ct` (`Undetermined`: no result); each test code is the assay and
 * the column (`CYP19_2 Allele1 Ct`), so a sample run with several assays keeps
 * them apart. The allele controls (PC_ALLELE_1, PC_ALLELE_2, PC_ALLELE_BOTH)
 * and NTC are QC by `Task`, as in the other runs. The genotype call (`Call`)
 * is the software's reading of the two Cts, not sent. Sample:
 * Benchling-Open-Source/allotropy
 * tests/parsers/appbio_quantstudio/testdata/appbio_quantstudio_example03.txt (MIT).
 */
export const APPBIO_QUANTSTUDIO_GENOTYPING: FileDialectProfile = {
  ...APPBIO_QUANTSTUDIO,
  id: 'appbio-quantstudio-genotyping',
  label: 'Applied Biosystems QuantStudio / 7500 (genotyping results text export)',
  layout: { form: 'row-per-sample', sample: 'Sample Name', tests: ['Allele1 Ct', 'Allele2 Ct'], assay: 'SNP Assay Name' },
};
