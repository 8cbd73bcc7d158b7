import type { FileDialectProfile } from '../types';
import { SAMPLE_NUMBER } from './sample-number';

/**
 * Applied Biosystems QuantStudio Absolute Q (digital PCR): the run's CSV
 * export, one row per well and target: `Name` is the sample, `Target` the
 * test, the value `Conc. cp/uL` (copies per µL of reaction). Each group's
 * average row comes first (`Well` is `Average`, `Name` empty): it has no
 * sample, so it is held with the reason "no sample number", never sent; the
 * export marks no controls. Not read by this dialect: the summary export
 * (blocks per dye, the target in two columns) and a ZIP of the CSVs.
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
};
