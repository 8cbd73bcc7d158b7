import type { FileDialectProfile } from '../types';
import { SAMPLE_NUMBER } from './sample-number';

/**
 * Varian (now Agilent) Vista-PRO ICP-OES, ICP Expert export as CSV: one row
 * per solution and element line (`Mn 257.610`), the concentration in
 * `Soln Conc` with its `Units` (the file has two `Units` columns: the first,
 * the solution's, is read), the row's `Date` and `Time`. The `Type` column
 * tells blanks, standards and lab control samples (QC) from samples; a
 * sample labelled `BLANK` is a blank too. The solution label is
 * `<sample number>*<description>`: the part before `*` is the sample number.
 * The date is read day first (`08/02/2016`); a site whose ICP Expert writes
 * month first changes layout.time.format.
 * Sample: senaite/senaite.core src/senaite/core/exportimport/instruments/varian/vistapro/samples/export.csv.
 */
export const VARIAN_VISTA_PRO: FileDialectProfile = {
  id: 'varian-vista-pro',
  label: 'Varian / Agilent Vista-PRO ICP-OES (CSV export)',
  vendor: 'Varian (Agilent)',
  model: 'Vista-PRO ICP-OES',
  encoding: 'latin1',
  delimiter: 'comma',
  table: { skipRows: 0, header: true, endsAtEmptyRow: false },
  layout: { form: 'row-per-result', sample: 'Solution Label', test: 'Element', value: 'Soln Conc', units: 'Units', flags: 'Flags', time: { columns: ['Date', 'Time'], format: 'DD/MM/YYYY HH:mm:ss' } },
  decimalComma: false,
  noResult: ['-', '--', '----', 'ND', 'N/A'],
  sampleNumber: { take: '^([^*]+)', pattern: SAMPLE_NUMBER },
  qc: [
    { by: 'column', column: 'Type', anyOf: ['Blk', 'Std', 'LCS', 'QC', 'Cal'] },
    { by: 'sample', pattern: '^(?:BLANK|Blank)$' },
  ],
};
