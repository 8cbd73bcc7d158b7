/** Test mapping between the analyzer's codes and the LIS's, and its CSV form. What nodes/ uses of it. */
export { mergeCatalog } from './catalog-merge';
export { csvMappingRows, formatCsv, parseCsv } from './csv';
export { detectDirection, type Direction, orderTestsOf, resultItemsOf } from './directions';
export { cleanRow, mappedRows, type MappingRow, MappingSchema } from './model';
export { toInstrumentTests } from './to-instrument';
export { remapHeld, type Rejected, toLisResults } from './to-lis';
