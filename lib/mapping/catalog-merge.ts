/**
 * Folding a fresh LIS catalog into the operator's rows: known tests get the
 * catalog's current code, name and type; new tests get an empty row to fill in;
 * rows for tests the catalog no longer lists are kept and marked stale, never
 * dropped (their mapping may still be needed for samples in flight).
 */
import type { LisTest } from '../lis/schemas';
import type { MappingRow } from './model';

export function mergeCatalog(rows: readonly MappingRow[], catalog: readonly LisTest[]): MappingRow[] {
  const byId = new Map(catalog.map((t) => [t.ID, t]));
  const seen = new Set<string>();
  const merged: MappingRow[] = rows.map((row) => {
    const test = byId.get(row.lisTestId);
    if (!test) return { ...row, stale: true };
    seen.add(row.lisTestId);
    const updated: MappingRow = { ...row, lisCode: test.Code, lisName: test.Name };
    delete updated.stale;
    if (test.Type) updated.lisType = test.Type;
    else delete updated.lisType;
    return updated;
  });
  for (const test of catalog) {
    if (seen.has(test.ID)) continue;
    const row: MappingRow = { lisTestId: test.ID, lisCode: test.Code, lisName: test.Name, instrumentCode: '' };
    if (test.Type) row.lisType = test.Type;
    merged.push(row);
    seen.add(test.ID);
  }
  return merged;
}
