/**
 * An HL7 site's dialect: a built-in profile and what differs from it at this
 * site, `{ base: 'generic-oru', overrides: { results: { code: { segment: 'OBX', field: 3, component: 2 } } } }`,
 * merged, diffed and checked by the rules every protocol shares
 * (lib/dialect/overrides.ts). What is HL7's own: a place (`results.code`,
 * `query.sample`: an object with a `segment`) and a field reading
 * (`results.units`: an object with a `field`) are given whole, as ASTM's
 * locators are: `{ segment: 'OBX', field: 4 }` laid over OBX-3.2 must read
 * OBX-4.1, not OBX-4.2; units read as component 1 must not keep the base's
 * `join`. An answer given with another `form` is replaced whole.
 */
import * as shared from '../../../dialect/overrides';
import { Hl7DialectProfileSchema } from './schema';
import { profileIssues } from './validate';
import type { Hl7DialectProfile } from './types';

export type Hl7SiteDialectResult = shared.SiteDialectResult<Hl7DialectProfile>;

const isLocation = (o: Record<string, unknown>) => 'segment' in o || 'field' in o;

const PLACE = /(?:^|\.)(?:code|subCode|sample|tag|place)$|(?:places|codeFallbacks|patientId)\[\d+\]$/;
const READING = /^results\.(?:value|units|referenceRange)$/;

function wholeHint(path: string): string | undefined {
  if (PLACE.test(path)) return `${path} is a place, given whole: segment, field, and component and subcomponent when not 1`;
  if (READING.test(path)) return `${path} is given whole: field, and component (a number or 'all') with join`;
  return undefined;
}

const RULES: shared.OverrideRules<Hl7DialectProfile> = {
  schema: Hl7DialectProfileSchema,
  issues: profileIssues,
  whole: (_path, base, over) => isLocation(base) || isLocation(over) || ('form' in over && 'form' in base && over.form !== base.form),
  wholeHint,
};

/**
 * The base with the overrides laid over it (nothing checked); the smallest
 * overrides that turn a base into a profile (what is stored and exported);
 * the profile a site's overrides (an object or stored JSON text) make of a
 * base, or every problem with its path.
 */
export const { merge: mergeHl7Overrides, diff: hl7OverridesOf, apply: applyHl7Overrides } = shared.siteOverrides(RULES);
