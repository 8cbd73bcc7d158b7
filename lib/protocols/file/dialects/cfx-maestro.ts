import type { FileDialectProfile } from '../types';
import { SAMPLE_NUMBER } from './sample-number';

/**
 * Bio-Rad CFX Maestro (CFX Opus, CFX96/384 Touch): the "Quantification Cq
 * Results" export as CSV: a header row that starts with an empty cell (the
 * export's row-number column), then one row per well and fluorophore.
 * `Sample` is the sample name, `Cq` the value; the test is `Fluor` (FAM,
 * VIC...), as the `Target` column is empty unless the plate names its
 * targets (then set `layout.test` to `Target`). `NaN` (no amplification,
 * no Cq) is no result. Controls by `Content`: standards (`Std`), no-template
 * (`NTC`), positive and negative controls (`Pos Ctrl`, `Neg Ctrl`); `Unkn`
 * rows are patient wells. Sample: Benchling-Open-Source/allotropy
 * tests/parsers/cfxmaestro/testdata/example01.csv (MIT).
 */
export const BIORAD_CFX_MAESTRO: FileDialectProfile = {
  id: 'biorad-cfx-maestro',
  label: 'Bio-Rad CFX Maestro (Cq results CSV export)',
  vendor: 'Bio-Rad',
  model: 'CFX Opus / CFX96 Touch (CFX Maestro)',
  encoding: 'utf8',
  delimiter: 'comma',
  table: { skipRows: 0, header: true, endsAtEmptyRow: false },
  layout: { form: 'row-per-result', sample: 'Sample', test: 'Fluor', value: 'Cq' },
  decimalComma: false,
  noResult: ['NaN'],
  sampleNumber: { pattern: SAMPLE_NUMBER },
  qc: [{ by: 'column', column: 'Content', anyOf: ['Std', 'NTC', 'Pos Ctrl', 'Neg Ctrl'] }],
};
