/**
 * The HL7 dialect profiles. Adding an analyzer: write its profile (every value
 * with its source), add its fixtures and value tests, and add it to PROFILES.
 *
 * Mindray BS chemistry: no HL7 source (manual or capture) is in the
 * repository, so there is no profile for it yet; its ASTM dialect
 * (lib/protocols/astm/dialects/mindray-bs.ts) stays the way to connect it.
 */
import { deepFreeze } from '../../../util/freeze';
import { HL7_BIOSYSTEMS } from './biosystems';
import { HL7_GENERIC_ORU } from './generic-oru';
import { HL7_IHE_LAW } from './ihe-law';
import { HL7_MINDRAY_BC } from './mindray-bc';
import { HL7_MINDRAY_CL } from './mindray-cl';
import { HL7_ROCHE_COBAS_6800, HL7_ROCHE_COBAS_PRO } from './roche-cobas';
import { HL7_EDAN_I15, HL7_SIEMENS_CLINITEK, HL7_URIT_8030, HL7_URIT_UT5160 } from './small-analyzers';
import type { Hl7DialectProfile } from './types';
import { applyHl7Overrides, hl7OverridesOf, type Hl7SiteDialectResult } from './overrides';
import type { SiteDialect } from '../../../dialect/overrides';

export type * from './types';
export { Hl7ProfileError, assertHl7Profile, profileIssues, profileProblems } from './validate';
export { applyHl7Overrides, hl7OverridesOf, mergeHl7Overrides, type Hl7SiteDialectResult } from './overrides';
export { Hl7DialectProfileSchema } from './schema';
export { HL7_BIOSYSTEMS, HL7_EDAN_I15, HL7_GENERIC_ORU, HL7_IHE_LAW, HL7_MINDRAY_BC, HL7_MINDRAY_CL, HL7_ROCHE_COBAS_6800, HL7_ROCHE_COBAS_PRO, HL7_SIEMENS_CLINITEK, HL7_URIT_8030, HL7_URIT_UT5160 };

/** Every profile, the generic ones first. Frozen: a profile is shared data. */
export const HL7_PROFILES: readonly Hl7DialectProfile[] = deepFreeze([
  HL7_GENERIC_ORU,
  HL7_IHE_LAW,
  HL7_MINDRAY_CL,
  HL7_MINDRAY_BC,
  HL7_ROCHE_COBAS_6800,
  HL7_ROCHE_COBAS_PRO,
  HL7_BIOSYSTEMS,
  HL7_SIEMENS_CLINITEK,
  HL7_URIT_UT5160,
  HL7_URIT_8030,
  HL7_EDAN_I15,
]);

export function findHl7Profile(id: string): Hl7DialectProfile | undefined {
  return HL7_PROFILES.find((p) => p.id === id);
}

/**
 * A site's HL7 dialect as a usable profile (frozen like the built-in ones), or
 * every problem with the path of its setting (`base` for an unknown base).
 */
export function hl7SiteProfile(site: { base: string; overrides?: unknown }): Hl7SiteDialectResult {
  const base = findHl7Profile(site.base);
  if (base === undefined) return { issues: [{ path: 'base', message: `unknown HL7 dialect ${JSON.stringify(site.base)}; known: ${HL7_PROFILES.map((p) => p.id).join(', ')}` }] };
  const result = applyHl7Overrides(base, site.overrides);
  return result.profile === undefined ? result : { profile: deepFreeze(result.profile), issues: [] };
}

/** The JSON a site exports of its HL7 dialect: the base and only what differs from it. */
export function hl7SiteDialectOf(base: Hl7DialectProfile, profile: Hl7DialectProfile): SiteDialect {
  return { base: base.id, overrides: hl7OverridesOf(base, profile) };
}
