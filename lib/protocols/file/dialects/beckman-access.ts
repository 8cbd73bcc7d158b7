import type { FileDialectProfile } from '../types';
import { SAMPLE_NUMBER } from './sample-number';

/**
 * Beckman Coulter Access 2 immunoassay, "export results" CSV: one row per
 * result, `Sample ID`, `Test Name`, `Result` (`No Value` when the run gave
 * none, `>822.00` with flag `OVR` above the range: sent as written),
 * `Units`, `Flags`, `Comp. Time` day first. The sample file holds patient
 * samples only (`Sample Priority` "patient"); how it marks controls is not
 * shown, so a control whose ID is no sample number stays unassigned, and a
 * site adds a qc rule once it has seen its own. Sample: senaite/senaite.core
 * src/senaite/core/exportimport/instruments/beckmancoulter/access/samples/.
 */
export const BECKMAN_ACCESS_2: FileDialectProfile = {
  id: 'beckman-access-2',
  label: 'Beckman Coulter Access 2 (results CSV export)',
  vendor: 'Beckman Coulter',
  model: 'Access 2',
  encoding: 'latin1',
  delimiter: 'comma',
  table: { skipRows: 0, header: true, endsAtEmptyRow: false },
  layout: { form: 'row-per-result', sample: 'Sample ID', test: 'Test Name', value: 'Result', units: 'Units', flags: 'Flags', time: { columns: ['Comp. Time'], format: 'DD/MM/YYYY HH:mm:ss' } },
  decimalComma: false,
  noResult: ['No Value'],
  sampleNumber: { pattern: SAMPLE_NUMBER },
  qc: [],
};
