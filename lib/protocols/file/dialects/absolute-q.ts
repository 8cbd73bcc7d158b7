import type { FileDialectProfile } from '../types';
import { SAMPLE_NUMBER } from './sample-number';

/**
 * Applied Biosystems QuantStudio Absolute Q (digital PCR): the run's CSV
 * export, one row per well and target: `Name` is the sample, `Target` the
 * test, the value `Conc. cp/uL` (copies per µL of reaction). Each group's
 * average row comes first (`Well` is `Average`, `Name` empty): the
 * software's summary of its wells, counted as not for the LIS (validWhen);
 * the export marks no controls. The summary export and a ZIP of a run's
 * exports have dialects of their own (below).
 * Sample: Benchling-Open-Source/allotropy
 * tests/parsers/appbio_absolute_q/testdata/Appbio_AbsoluteQ_example01.csv (MIT).
 */
export const APPBIO_ABSOLUTE_Q: FileDialectProfile = {
  id: 'appbio-absolute-q',
  label: 'Applied Biosystems QuantStudio Absolute Q (dPCR well CSV export)',
  vendor: 'Applied Biosystems',
  model: 'QuantStudio Absolute Q',
  encoding: 'utf8',
  delimiter: 'comma',
  table: { skipRows: 0, header: true, endsAtEmptyRow: false },
  layout: { form: 'row-per-result', sample: 'Name', test: 'Target', value: 'Conc. cp/uL' },
  decimalComma: false,
  noResult: [],
  sampleNumber: { pattern: SAMPLE_NUMBER },
  qc: [],
  validWhen: [{ column: 'Well', noneOf: ['Average'] }],
};

/**
 * Absolute Q's summary export (CSV): a first row naming each dye over its
 * group of columns (`FAM`, `VIC`), then the header row from `Run name`, then
 * the software's average row (`Well` `Average`, no sample), then one row per
 * well: `Sample`, and for each dye a group `Target`, `Conc.` (copies/µL),
 * `SD` ...: each group one result (layout.repeats), the test the group's
 * `Target`. The average row is the export's own summary, counted as not for
 * the LIS. Sample: Benchling-Open-Source/allotropy
 * tests/parsers/appbio_absolute_q/testdata/Appbio_AbsoluteQ_summary.csv (MIT).
 */
export const APPBIO_ABSOLUTE_Q_SUMMARY: FileDialectProfile = {
  ...APPBIO_ABSOLUTE_Q,
  id: 'appbio-absolute-q-summary',
  label: 'Applied Biosystems QuantStudio Absolute Q (summary CSV, a column group per dye)',
  table: { skipRows: 0, header: true, headerFirstCell: 'Run name', endsAtEmptyRow: false },
  layout: { form: 'row-per-result', sample: 'Sample', test: 'Target', value: 'Conc.', repeats: true },
  validWhen: [{ column: 'Well', noneOf: ['Average'] }],
};

/**
 * The same summary inside the ZIP archive the software's export of a run
 * writes (the summary CSV beside the fluorescence and multichannel ones):
 * the member whose name ends `summary.csv` is read as
 * APPBIO_ABSOLUTE_Q_SUMMARY reads the CSV alone; the other members are not
 * inflated. Sample: Benchling-Open-Source/allotropy
 * tests/parsers/appbio_absolute_q/testdata/Appbio_AbsoluteQ_zip_test.zip (MIT).
 */
export const APPBIO_ABSOLUTE_Q_ARCHIVE: FileDialectProfile = {
  ...APPBIO_ABSOLUTE_Q_SUMMARY,
  id: 'appbio-absolute-q-archive',
  label: 'Applied Biosystems QuantStudio Absolute Q (ZIP of a run\'s exports, its summary read)',
  archive: { member: '[Ss]ummary\\.csv$' },
};

/**
 * Absolute Q's multichannel export (CSV): one row per sample and channel,
 * `Sample`, the channel in `Channels` (a dye, `VIC`, or the partitions
 * positive in several, `VIC JUN`: the test code), `Count` of its positive
 * partitions and the value `Copies per microliter`. Each sample's first row
 * has an empty `Channels`: the partitions positive in no channel, no
 * target's concentration (its 0.00 is no result), counted as not for the
 * LIS (validWhen). No controls marked. Sample: Benchling-Open-Source/allotropy
 * tests/parsers/appbio_absolute_q/testdata/Appbio_AbsoluteQ_multichannel.csv (MIT).
 */
export const APPBIO_ABSOLUTE_Q_MULTICHANNEL: FileDialectProfile = {
  ...APPBIO_ABSOLUTE_Q,
  id: 'appbio-absolute-q-multichannel',
  label: 'Applied Biosystems QuantStudio Absolute Q (multichannel CSV, a row per channel)',
  layout: { form: 'row-per-result', sample: 'Sample', test: 'Channels', value: 'Copies per microliter' },
  validWhen: [{ column: 'Channels', noneOf: [''] }],
};
