/**
 * A site's dialect: a built-in profile and what differs from it at this site,
 * `{ base: 'generic-lis2a2', overrides: { sampleId: { field: 'instrumentSpecimenId' } } }`.
 * Integrators edit it in a message node's dialog; it is stored in the node, so
 * it travels with the flow, and its JSON can be copied to another site or into
 * a new built-in profile file. The rules are the same for every protocol; a
 * protocol says only which of its settings are given whole and how its
 * profiles are checked (OverrideRules).
 *
 * Merging the overrides onto the base:
 * - objects merge key by key (`results.value.component` alone changes only that);
 * - arrays are replaced whole, and so are the settings a protocol names as
 *   given whole (ASTM's test-code locators, HL7's places and field readings):
 *   a place kept half from the base (a subcomponent left under a new field)
 *   would read what nobody asked for;
 * - a choice given with another tag than the base's (ASTM's `record` or
 *   `form`, HL7's answer `form`) is replaced whole, as its other keys belong
 *   to the other choice;
 * - `null` removes a setting the base has (`query: null`: read no queries).
 *
 * The merged profile is checked like a built-in one: its shape by the
 * protocol's strict schema (unknown keys refused), then its consistency
 * rules. Every problem carries the path of its setting.
 */
import { MAX_JSON_DEPTH, tooDeepAt } from '../lis/json-depth';
import { formatPath } from './paths';
import type { SettingFault } from '../settings/unresolved';

/**
 * One problem of a profile: `path` names the offending setting the way the
 * profile (and a site's overrides of it) spell it, e.g. `results.value.component`
 * or `qc[1].anyOf`, so an editor can show the problem next to its field.
 */
export interface ProfileIssue {
  readonly path: string;
  readonly message: string;
}

/** What a site changes of a built-in profile (any part of it; see the top comment for how it merges). */
export type ProfileOverrides = { readonly [key: string]: unknown };

export interface SiteDialect {
  /** The built-in profile the site starts from. */
  readonly base: string;
  readonly overrides: ProfileOverrides;
}

export type SiteDialectResult<P> = { profile: P; issues: [] } | { profile?: undefined; issues: ProfileIssue[] };

type Plain = Record<string, unknown>;

/** What a schema's failed parse gives (zod's issues, as far as they are read here). */
interface SchemaIssue {
  readonly path: PropertyKey[];
  readonly message: string;
  readonly code: string;
  readonly keys?: string[];
}

/** What a protocol tells the shared rules about its profiles. */
export interface OverrideRules<P> {
  /** The profile's strict shape (a zod schema held to P by the compiler). */
  readonly schema: { safeParse(value: unknown): { success: true; data: unknown } | { success: false; error: { issues: readonly SchemaIssue[] } } };
  /** The profile's consistency rules, each problem with its setting's path. */
  issues(profile: P): ProfileIssue[];
  /** Whether the setting at `path` is replaced whole rather than merged key by key. */
  whole(path: string, base: Plain, over: Plain): boolean;
  /** How a setting given whole is written, said when an override names a key it does not have. */
  wholeHint?(path: string): string | undefined;
}

function isPlain(v: unknown): v is Plain {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function child(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** The base with the overrides laid over it (see the top comment); nothing is checked here. */
export function mergeOverrides<P>(base: P, overrides: ProfileOverrides, rules: Pick<OverrideRules<P>, 'whole'>): unknown {
  const mergeAt = (path: string, from: Plain, over: Plain): Plain => {
    const out: Plain = structuredClone(from);
    for (const [key, value] of Object.entries(over)) {
      const at = child(path, key);
      const was = out[key];
      if (value === null) delete out[key];
      else if (isPlain(value) && isPlain(was) && !rules.whole(at, was, value)) out[key] = mergeAt(at, was, value);
      else out[key] = structuredClone(value);
    }
    return out;
  };
  return mergeAt('', base as unknown as Plain, overrides);
}

/**
 * The smallest overrides that turn `base` into `profile`: what is stored and
 * exported, so a site's dialect shows only what it changed, and
 * mergeOverrides(base, overridesOf(base, profile)) equals profile.
 */
export function overridesOf<P>(base: P, profile: P, rules: Pick<OverrideRules<P>, 'whole'>): ProfileOverrides {
  const diffAt = (path: string, from: Plain, target: Plain): Plain => {
    const out: Plain = {};
    for (const [key, value] of Object.entries(target)) {
      if (value === undefined) continue;
      const was = from[key];
      if (sameValue(was, value)) continue;
      const at = child(path, key);
      if (isPlain(value) && isPlain(was) && !rules.whole(at, was, value)) out[key] = diffAt(at, was, value);
      else out[key] = structuredClone(value);
    }
    for (const key of Object.keys(from)) if (from[key] !== undefined && target[key] === undefined) out[key] = null;
    return out;
  };
  return diffAt('', base as unknown as Plain, profile as unknown as Plain);
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  if (isPlain(a) && isPlain(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)].filter((k) => a[k] !== undefined || b[k] !== undefined));
    return [...keys].every((k) => sameValue(a[k], b[k]));
  }
  return false;
}

/**
 * The profile a site's overrides make of `base`, or every problem with its
 * path. The overrides may be given as stored (JSON text, see readOverrides).
 */
export function applyOverrides<P>(base: P, stored: unknown, rules: OverrideRules<P>): SiteDialectResult<P> {
  const shaped = shapedOverrides(base, stored, rules);
  if (shaped.draft === undefined) return { issues: shaped.issues };
  const issues = rules.issues(shaped.draft);
  return issues.length > 0 ? { issues } : { profile: shaped.draft, issues: [] };
}

/**
 * The merged profile once its shape is right, before its consistency rules:
 * a dialect being shaped by pointing is such a draft between two clicks (a
 * table said to have no header row still names its columns until each is
 * pointed at). Nothing runs with a draft.
 */
export function shapedOverrides<P>(base: P, stored: unknown, rules: OverrideRules<P>): { draft: P; issues: [] } | { draft?: undefined; issues: ProfileIssue[] } {
  const read = readOverrides(stored);
  if (read.overrides === undefined) return { issues: read.issues };
  const shape = rules.schema.safeParse(mergeOverrides(base, read.overrides, rules));
  if (!shape.success) return { issues: shape.error.issues.map((i) => issueOf(i, rules)) };
  return { draft: shape.data as P, issues: [] };
}

function issueOf(issue: SchemaIssue, rules: Pick<OverrideRules<unknown>, 'wholeHint'>): ProfileIssue {
  const at = formatPath(issue.path);
  // zod names an unknown key on its object; the key itself is the setting to show it next to.
  if (issue.code === 'unrecognized_keys') {
    const named = (issue.keys ?? []).map((k) => formatPath([...issue.path, k]));
    const hint = rules.wholeHint?.(at);
    return { path: named[0] ?? at, message: `${named.join(', ')}: not a setting of a dialect profile${hint === undefined ? '' : ` (${hint})`}` };
  }
  return { path: at, message: `${at === '' ? 'the profile' : at}: ${issue.message}` };
}

/**
 * Overrides as stored in a node (JSON text, possibly empty) or given as an
 * object. Empty text means none; text that is not JSON is refused with where
 * the parser stopped.
 */
export function readOverrides(stored: unknown): { overrides: ProfileOverrides; issues: [] } | { overrides?: undefined; issues: ProfileIssue[] } {
  if (stored === undefined || stored === null || (typeof stored === 'string' && stored.trim() === '')) return { overrides: {}, issues: [] };
  let value: unknown = stored;
  if (typeof stored === 'string') {
    try {
      value = JSON.parse(stored);
    } catch (err) {
      return { issues: [{ path: '', message: `the overrides are not JSON: ${(err as Error).message}` }] };
    }
  }
  if (!isPlain(value)) return { issues: [{ path: '', message: 'the overrides must be a JSON object of the settings that differ from the base dialect' }] };
  const deep = depthIssue(value);
  if (deep) return { issues: [deep] };
  return { overrides: value, issues: [] };
}

/**
 * Overrides (an object, or stored JSON text) nested deeper than any dialect setting (a few levels), checked
 * without recursion: merging and checking them recurse, and 5,000 levels
 * overflowed the stack (a 500 from the preview, a RangeError on deploy with
 * no status). The issue names the setting's path where the depth runs out.
 */
export function depthIssue(overrides: unknown): ProfileIssue | undefined {
  let value = overrides;
  if (typeof overrides === 'string') {
    try {
      value = JSON.parse(overrides);
    } catch {
      return undefined; // not JSON: readOverrides says so
    }
  }
  const at = tooDeepAt(value, MAX_JSON_DEPTH);
  if (at === undefined) return undefined;
  return { path: at, message: `${at}: the overrides are nested deeper than ${MAX_JSON_DEPTH} levels; a dialect's settings are a few levels deep (see the dialect's profile)` };
}

/**
 * What a message node runs with: the site's profile, or every reason it
 * cannot, each naming the node's setting at fault (`dialect`,
 * `dialectOverrides.<path>` for an override, `timeZone`) for the node's red
 * status, and saying what is wrong for its error to Catch.
 */
export function siteHostProfile<P>(site: SiteDialectResult<P>, timeZoneProblem: string | undefined): { profile: P; problems: [] } | { profile?: undefined; problems: SettingFault[] } {
  const problems: SettingFault[] = site.issues.map((issue) =>
    issue.path === 'base' ? { setting: 'dialect', message: issue.message } : { setting: issue.path === '' ? 'dialectOverrides' : `dialectOverrides.${issue.path}`, message: `dialect overrides: ${issue.message}` },
  );
  if (timeZoneProblem) problems.push({ setting: 'timeZone', message: timeZoneProblem });
  return site.profile !== undefined && problems.length === 0 ? { profile: site.profile, problems: [] } : { problems };
}

/** The shared rules bound to one protocol's: what its dialects module exports. */
export function siteOverrides<P>(rules: OverrideRules<P>): {
  merge: (base: P, overrides: ProfileOverrides) => unknown;
  diff: (base: P, profile: P) => ProfileOverrides;
  apply: (base: P, stored: unknown) => SiteDialectResult<P>;
} {
  return {
    merge: (base, overrides) => mergeOverrides(base, overrides, rules),
    diff: (base, profile) => overridesOf(base, profile, rules),
    apply: (base, stored) => applyOverrides(base, stored, rules),
  };
}
