import type { FileDialectProfile } from '../types';
import { SAMPLE_NUMBER } from './sample-number';

/**
 * QIAGEN QIAcuity (digital PCR), QIAcuity Software Suite: the plate's
 * "Absolute quantification" results CSV. Its first line is Excel's `sep=,`
 * (skipped: skipRows 1; a UTF-8 byte-order mark before it is dropped), then
 * a header row and one row per well and target: the sample in
 * `Sample/NTC/Control`, the target in `Target (Name)`, the value
 * `Conc. [cp/µL] (dPCR reaction)` (copies per µL of reaction; the export
 * also has the undiluted sample's concentration, which needs the site's
 * dilution set-up). Controls by `Type`: `Control` and `Non Template Control`
 * (`Sample` rows are patient wells). Sample: Benchling-Open-Source/allotropy
 * tests/parsers/qiacuity_dpcr/testdata/qiacuity_dpcr_example04.csv (MIT).
 */
export const QIAGEN_QIACUITY: FileDialectProfile = {
  id: 'qiagen-qiacuity',
  label: 'QIAGEN QIAcuity (dPCR absolute quantification CSV)',
  vendor: 'QIAGEN',
  model: 'QIAcuity',
  encoding: 'utf8',
  delimiter: 'comma',
  table: { skipRows: 1, header: true, endsAtEmptyRow: false },
  layout: { form: 'row-per-result', sample: 'Sample/NTC/Control', test: 'Target (Name)', value: 'Conc. [cp/µL] (dPCR reaction)' },
  decimalComma: false,
  noResult: [],
  sampleNumber: { pattern: SAMPLE_NUMBER },
  qc: [{ by: 'column', column: 'Type', anyOf: ['Control', 'Non Template Control'] }],
};

/**
 * The same export as the older QIAcuity software writes it: a leading
 * unnamed well column, the target in `Target`, the value in
 * `Concentration (copies/µL)`; everything else as QIAGEN_QIACUITY.
 * Sample: Benchling-Open-Source/allotropy
 * tests/parsers/qiacuity_dpcr/testdata/qiacuity_dpcr_example01.csv (MIT).
 */
export const QIAGEN_QIACUITY_OLDER: FileDialectProfile = {
  ...QIAGEN_QIACUITY,
  id: 'qiagen-qiacuity-older',
  label: 'QIAGEN QIAcuity (dPCR CSV, older column names)',
  layout: { form: 'row-per-result', sample: 'Sample/NTC/Control', test: 'Target', value: 'Concentration (copies/µL)' },
};

/**
 * The export as another QIAcuity Software Suite version writes it: the target
 * in `Target`, the value in `Conc. [copies/µL]`, whose µ the software wrote as
 * the replacement character U+FFFD (the file's bytes EF BF BD: the column is
 * named as written), a `Control type` column (`-` for a sample) instead of
 * `Type`. No control in the sample file: add a qc rule by `Control type` for
 * your plate's names. Sample: Benchling-Open-Source/allotropy
 * tests/parsers/qiacuity_dpcr/testdata/qiacuity_dpcr_example03.csv (MIT).
 */
export const QIAGEN_QIACUITY_COPIES: FileDialectProfile = {
  ...QIAGEN_QIACUITY,
  id: 'qiagen-qiacuity-copies',
  label: 'QIAGEN QIAcuity (dPCR CSV, Conc. [copies/µL])',
  layout: { form: 'row-per-result', sample: 'Sample/NTC/Control', test: 'Target', value: 'Conc. [copies/\uFFFDL]' },
  qc: [],
};
