/** LIS -> instrument: the instrument tests to order for a LIS order's test IDs. */
import { mappedRows, type MappingRow } from './model';

export interface InstrumentOrder {
  /** Instrument test codes in the order of the LIS tests, each once. */
  instrumentTests: string[];
  /** LIS test IDs of the order with no instrument test mapped. */
  unmapped: string[];
}

export function toInstrumentTests(lisTestIds: readonly string[], rows: readonly MappingRow[]): InstrumentOrder {
  const byLisId = new Map<string, MappingRow[]>();
  for (const row of mappedRows(rows, 'orders')) {
    const list = byLisId.get(row.lisTestId) ?? [];
    list.push(row);
    byLisId.set(row.lisTestId, list);
  }
  const instrumentTests: string[] = [];
  const unmapped: string[] = [];
  for (const id of lisTestIds) {
    const matches = byLisId.get(id);
    if (!matches) {
      if (!unmapped.includes(id)) unmapped.push(id);
      continue;
    }
    for (const row of matches) if (!instrumentTests.includes(row.instrumentCode)) instrumentTests.push(row.instrumentCode);
  }
  return { instrumentTests, unmapped };
}
