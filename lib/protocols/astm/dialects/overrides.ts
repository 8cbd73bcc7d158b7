/**
 * An ASTM site's dialect: a built-in profile and what differs from it at this
 * site, `{ base: 'generic-lis2a2', overrides: { sampleId: { field: 'instrumentSpecimenId' } } }`,
 * merged, diffed and checked by the rules every protocol shares
 * (lib/dialect/overrides.ts). What is ASTM's own:
 * - the test-code locators (`testId.code`, `testId.subCode`) are given whole:
 *   a locator kept half from the base (a cobas `split` left under a new
 *   component) would read codes nobody asked for;
 * - a choice given with another `record` or `form` than the base's
 *   (`sampleId` from P instead of O, `noOrder` as an order record) is
 *   replaced whole, as its other keys belong to the other choice.
 */
import * as shared from '../../../dialect/overrides';
import { DialectProfileSchema } from './schema';
import { profileIssues } from './validate';
import type { DialectProfile } from './types';

export { depthIssue, readOverrides, type ProfileOverrides, type SiteDialect } from '../../../dialect/overrides';

export type SiteDialectResult = shared.SiteDialectResult<DialectProfile>;

/** Settings replaced whole rather than merged key by key. */
const WHOLE = new Set(['testId.code', 'testId.subCode']);
/** Keys that say which of several shapes an object has. */
const TAGS = ['record', 'form'] as const;

const RULES: shared.OverrideRules<DialectProfile> = {
  schema: DialectProfileSchema,
  issues: profileIssues,
  whole: (path, base, over) => WHOLE.has(path) || TAGS.some((t) => t in over && t in base && over[t] !== base[t]),
  wholeHint: (path) => (WHOLE.has(path) ? `${path} is given whole: component, trim, and split or alsoComponents with joinWith` : undefined),
};

/**
 * The base with the overrides laid over it (nothing checked); the smallest
 * overrides that turn a base into a profile (what is stored and exported);
 * the profile a site's overrides (an object or stored JSON text) make of a
 * base, or every problem with its path.
 */
export const { merge: mergeOverrides, diff: overridesOf, apply: applyOverrides } = shared.siteOverrides(RULES);
