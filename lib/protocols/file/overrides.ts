/**
 * A site's file dialect: a built-in one and what differs at this site,
 * merged, diffed and checked by the rules every protocol shares
 * (lib/dialect/overrides.ts). What is the file protocol's own: a layout given
 * with another `form` than the base's is replaced whole (a row-per-sample
 * layout keeps nothing of a plate's), and so are fixed widths.
 */
import { applyOverrides, overridesOf, shapedOverrides, type OverrideRules, type ProfileIssue, type SiteDialect, type SiteDialectResult } from '../../dialect/overrides';
import { deepFreeze } from '../../util/freeze';
import { findFileProfile, FILE_PROFILES } from './dialects';
import { FileDialectProfileSchema } from './schema';
import type { FileDialectProfile } from './types';
import { fileProfileIssues, pendingColumns } from './validate';

export const FILE_OVERRIDE_RULES: OverrideRules<FileDialectProfile> = {
  schema: FileDialectProfileSchema,
  issues: fileProfileIssues,
  whole: (path, base, over) => path === 'delimiter' || ('form' in over && 'form' in base && over.form !== base.form),
};

/** A site's dialect as a usable, frozen profile, or every problem with the path of its setting (`base` for an unknown base). */
export function siteFileProfile(site: { base: string; overrides?: unknown }): SiteDialectResult<FileDialectProfile> {
  const base = findFileProfile(site.base);
  if (base === undefined) return { issues: [{ path: 'base', message: `unknown file dialect ${JSON.stringify(site.base)}; known: ${FILE_PROFILES.map((p) => p.id).join(', ')}` }] };
  const result = applyOverrides(base, site.overrides, FILE_OVERRIDE_RULES);
  return result.profile === undefined ? result : { profile: deepFreeze(result.profile), issues: [] };
}

/** The JSON a site exports of its dialect: the base and only what differs from it. */
export function siteFileDialectOf(base: FileDialectProfile, profile: FileDialectProfile): SiteDialect {
  return { base: base.id, overrides: overridesOf(base, profile, FILE_OVERRIDE_RULES) };
}

/**
 * A site's dialect being shaped by pointing at a header-less file: its draft
 * when every problem it has is a layout column still named (pendingColumns),
 * with those columns; otherwise undefined (the dialect's problems stand).
 */
export function siteFileDraft(site: { base: string; overrides?: unknown }): { draft: FileDialectProfile; pending: string[] } | undefined {
  const base = findFileProfile(site.base);
  if (base === undefined) return undefined;
  const shaped = shapedOverrides(base, site.overrides, FILE_OVERRIDE_RULES);
  if (shaped.draft === undefined) return undefined;
  const pending = pendingColumns(shaped.draft);
  const issues: ProfileIssue[] = fileProfileIssues(shaped.draft);
  if (pending.length === 0 || issues.some((i) => !pending.includes(i.path))) return undefined;
  return { draft: deepFreeze(shaped.draft), pending };
}
