/** Checks of a protocol's site dialects (lib/dialect/overrides.ts bound to its rules), shared by the ASTM and HL7 tests. */
import assert from 'node:assert/strict';
import type { SiteDialect, SiteDialectResult } from '../../lib/dialect';

/** `apply` asserts the overrides make a usable profile and gives it; `pathsOf` gives the paths of their problems. */
export function overrideAsserts<P>(applyOverrides: (base: P, overrides: unknown) => SiteDialectResult<P>) {
  return {
    apply(base: P, overrides: unknown): P {
      const r = applyOverrides(base, overrides);
      assert.deepEqual(r.issues, []);
      assert.ok(r.profile);
      return r.profile;
    },
    pathsOf: (base: P, overrides: unknown): string[] => applyOverrides(base, overrides).issues.map((i) => i.path),
  };
}

/** Every ordered pair (A, B) of built-in profiles: B's overrides relative to A, through JSON, make B again. */
export function assertRoundTripsEveryPair<P extends { id: string }>(profiles: readonly P[], exportSite: (base: P, profile: P) => SiteDialect, importSite: (site: SiteDialect) => SiteDialectResult<P>): void {
  let pairs = 0;
  for (const base of profiles) {
    for (const target of profiles) {
      const site = JSON.parse(JSON.stringify(exportSite(base, target))) as SiteDialect;
      assert.equal(site.base, base.id);
      const back = importSite(site);
      assert.deepEqual(back.issues, [], `${base.id} -> ${target.id}`);
      assert.deepEqual(back.profile, target, `${base.id} -> ${target.id}`);
      pairs++;
    }
  }
  assert.equal(pairs, profiles.length ** 2);
}

/** The strict schema takes every built-in profile as it is (what the compiler cannot see: a value the schema narrows). */
export function assertSchemaTakesEvery(schema: { safeParse(v: unknown): { error?: { issues: unknown[] } } }, profiles: readonly { id: string }[]): void {
  for (const p of profiles) assert.deepEqual(schema.safeParse(p).error?.issues ?? [], [], p.id);
}
