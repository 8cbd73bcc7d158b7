/** Dialects as data, whatever the protocol: a site's overrides of a built-in profile, merged, diffed and checked with the path of each setting. */
export { applyOverrides, depthIssue, mergeOverrides, overridesOf, readOverrides, siteHostProfile, type OverrideRules, type ProfileIssue, type ProfileOverrides, type SiteDialect, type SiteDialectResult } from './overrides';
export { formatPath } from './paths';
