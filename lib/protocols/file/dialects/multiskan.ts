import type { FileDialectProfile } from '../types';
import { SAMPLE_NUMBER } from './sample-number';

/**
 * Thermo Scientific Multiskan GO (SkanIt) plate export as CSV: semicolons,
 * CR line ends, decimal comma; a `Sample` grid of well labels (`Un_0001 1/1`:
 * the sample, then the dilution) and an `Abs` grid of absorbances of the
 * same shape. One test per file: `Abs` here, the site names its own (or maps
 * it in test-mapper). Sample: senaite/senaite.core
 * src/senaite/core/exportimport/instruments/thermoscientific/multiskan/samples/.
 * SkanIt's newer exports are .xlsx workbooks: a dialect with format xlsx reads them (no sample here).
 */
export const THERMO_MULTISKAN_GO: FileDialectProfile = {
  id: 'thermo-multiskan-go',
  label: 'Thermo Scientific Multiskan GO (plate CSV)',
  vendor: 'Thermo Scientific',
  model: 'Multiskan GO',
  encoding: 'latin1',
  delimiter: 'semicolon',
  table: { skipRows: 0, header: false, endsAtEmptyRow: false },
  layout: { form: 'plate', samples: 'Sample', values: 'Abs', test: 'Abs' },
  decimalComma: true,
  noResult: ['OVRFLW', 'N/A'],
  // SkanIt's own labels for unknowns (Un_0001 ...) name a well, not a sample: kept aside with the reason, never sent.
  sampleNumber: { take: '^\\S+', pattern: `(?!Un_\\d+$)${SAMPLE_NUMBER}` },
  qc: [{ by: 'sample', pattern: '^(?:Bl|Ca|Ctrl|Std)_' }],
};
