/**
 * The demo LIS's test catalog (spec 2.1). It lives in flows/lis-catalog.json so
 * that example flows and this server share one list; the file is checked with
 * the package's own TestSchema when loaded, so a hand edit that breaks the
 * spec fails at start-up rather than in an integrator's flow.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { TestSchema, describeIssues, type LisTest } from '../lib/lis/schemas';

const CATALOG_RELATIVE = join('flows', 'lis-catalog.json');

/**
 * Finds flows/lis-catalog.json by walking up from this module: compiled, the
 * module sits in dist/demo/, and tsc does not copy JSON files, so the catalog
 * is read from the source tree rather than from beside the .js.
 */
export function findCatalogFile(start: string = __dirname): string {
  let dir = start;
  for (;;) {
    const candidate = join(dir, CATALOG_RELATIVE);
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find ${CATALOG_RELATIVE} above ${start}`);
    dir = parent;
  }
}

/** Reads and checks a catalog file; throws naming every problem. */
export function loadCatalog(file: string = findCatalogFile()): LisTest[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`cannot read the test catalog ${file}: ${(err as Error).message}`);
  }
  return checkCatalog(parsed, file);
}

/** Validates a catalog: spec 2.1 per test, at least one test, IDs and codes unique. */
export function checkCatalog(value: unknown, source = 'catalog'): LisTest[] {
  const result = z.array(TestSchema).min(1, { message: 'must list at least one test' }).safeParse(value);
  if (!result.success) {
    throw new Error(`invalid test catalog (${source}): ${describeIssues(result.error, 'tests').join('; ')}`);
  }
  const problems: string[] = [];
  // Duplicates would make ID -> test and code -> test lookups ambiguous.
  for (const field of ['ID', 'Code'] as const) {
    const seen = new Set<string>();
    for (const test of result.data) {
      if (seen.has(test[field])) problems.push(`${field} ${test[field]} appears more than once`);
      seen.add(test[field]);
    }
  }
  if (problems.length > 0) throw new Error(`invalid test catalog (${source}): ${problems.join('; ')}`);
  return result.data;
}
