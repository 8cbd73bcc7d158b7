/** Test mapping between the analyzer's codes and the LIS's, and its CSV form. What nodes/ uses of it. */
export { mergeCatalog } from './catalog-merge';
export { csvMappingRows, formatCsv, parseCsv } from './csv';
export { detectDirection, type Direction, orderTestsOf, resultItemsOf } from './directions';
export { cleanRow, mappedRows, type MappingRow, MappingSchema, parseMapping, type RowUse, type ValueRow } from './model';
export { toInstrumentTests } from './to-instrument';
export { remapHeld, type Rejected, toLisResults } from './to-lis';
export { applyMerge, type MapperTable, type MergeDifference, type MergePlan, planMerge } from './merge';
export { type Seen, seenNotMapped } from './seen';
