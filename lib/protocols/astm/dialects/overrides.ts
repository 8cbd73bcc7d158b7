/**
 * A site's dialect: a built-in profile and what differs from it at this site,
 * `{ base: 'generic-lis2a2', overrides: { sampleId: { field: 'instrumentSpecimenId' } } }`.
 * Integrators edit it in astm-message's dialog; it is stored in the node, so it
 * travels with the flow, and its JSON can be copied to another site or into a
 * new built-in profile file.
 *
 * Merging the overrides onto the base:
 * - objects merge key by key (`results.value.component` alone changes only that);
 * - arrays and locators (`testId.code`, `testId.subCode`) are replaced whole:
 *   a test-code locator kept half from the base (a cobas `split` left under a
 *   new component) would read codes nobody asked for;
 * - a choice given with another `record` or `form` than the base's
 *   (`sampleId` from P instead of O, `noOrder` as an order record) is replaced
 *   whole, as its other keys belong to the other choice;
 * - `null` removes a setting the base has (`query: null`: read no queries;
 *   `results.value.component: null`: the whole field is the value).
 *
 * The merged profile is checked like a built-in one: its shape by
 * DialectProfileSchema (unknown keys refused), then profileIssues. Every
 * problem carries the path of its setting.
 */
import { DialectProfileSchema } from './schema';
import { formatPath } from './paths';
import { profileIssues, type ProfileIssue } from './validate';
import { MAX_JSON_DEPTH, tooDeepAt } from '../../../lis/json-depth';
import type { DialectProfile } from './types';

/** What a site changes of a built-in profile (any part of it; see the top comment for how it merges). */
export type ProfileOverrides = { readonly [key: string]: unknown };

export interface SiteDialect {
  /** The built-in profile the site starts from. */
  readonly base: string;
  readonly overrides: ProfileOverrides;
}

/** Settings replaced whole rather than merged key by key. */
const WHOLE = new Set(['testId.code', 'testId.subCode']);
/** Keys that say which of several shapes an object has. */
const TAGS = ['record', 'form'] as const;

type Plain = Record<string, unknown>;

function isPlain(v: unknown): v is Plain {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function replacesWhole(path: string, base: Plain, over: Plain): boolean {
  return WHOLE.has(path) || TAGS.some((t) => t in over && t in base && over[t] !== base[t]);
}

function child(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** The base with the overrides laid over it (see the top comment); nothing is checked here. */
export function mergeOverrides(base: DialectProfile, overrides: ProfileOverrides): unknown {
  return mergeAt('', base as unknown as Plain, overrides);
}

function mergeAt(path: string, base: Plain, over: Plain): Plain {
  const out: Plain = structuredClone(base);
  for (const [key, value] of Object.entries(over)) {
    const at = child(path, key);
    const was = out[key];
    if (value === null) delete out[key];
    else if (isPlain(value) && isPlain(was) && !replacesWhole(at, was, value)) out[key] = mergeAt(at, was, value);
    else out[key] = structuredClone(value);
  }
  return out;
}

/**
 * The smallest overrides that turn `base` into `profile`: what is stored and
 * exported, so a site's dialect shows only what it changed, and
 * mergeOverrides(base, overridesOf(base, profile)) equals profile.
 */
export function overridesOf(base: DialectProfile, profile: DialectProfile): ProfileOverrides {
  return diffAt('', base as unknown as Plain, profile as unknown as Plain);
}

function diffAt(path: string, base: Plain, target: Plain): Plain {
  const out: Plain = {};
  for (const [key, value] of Object.entries(target)) {
    if (value === undefined) continue;
    const was = base[key];
    if (sameValue(was, value)) continue;
    const at = child(path, key);
    if (isPlain(value) && isPlain(was) && !replacesWhole(at, was, value)) out[key] = diffAt(at, was, value);
    else out[key] = structuredClone(value);
  }
  for (const key of Object.keys(base)) if (base[key] !== undefined && target[key] === undefined) out[key] = null;
  return out;
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

export type SiteDialectResult = { profile: DialectProfile; issues: [] } | { profile?: undefined; issues: ProfileIssue[] };

/**
 * The profile a site's overrides make of `base`, or every problem with its
 * path. The overrides may be given as stored (JSON text, see readOverrides).
 */
export function applyOverrides(base: DialectProfile, stored: unknown): SiteDialectResult {
  const read = readOverrides(stored);
  if (read.overrides === undefined) return { issues: read.issues };
  const merged = mergeOverrides(base, read.overrides);
  const shape = DialectProfileSchema.safeParse(merged);
  if (!shape.success) {
    return { issues: shape.error.issues.map(issueOf) };
  }
  const profile = shape.data as DialectProfile;
  const issues = profileIssues(profile);
  return issues.length > 0 ? { issues } : { profile, issues: [] };
}

function issueOf(issue: { path: PropertyKey[]; message: string; code: string; keys?: string[] }): ProfileIssue {
  const at = formatPath(issue.path);
  // zod names an unknown key on its object; the key itself is the setting to show it next to.
  if (issue.code === 'unrecognized_keys') {
    const named = (issue.keys ?? []).map((k) => formatPath([...issue.path, k]));
    const whole = WHOLE.has(at) ? ` (${at} is given whole: component, trim, and split or alsoComponents with joinWith)` : '';
    return { path: named[0] ?? at, message: `${named.join(', ')}: not a setting of a dialect profile${whole}` };
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
