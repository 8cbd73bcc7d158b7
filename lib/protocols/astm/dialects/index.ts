/**
 * The dialect profiles. Adding an analyzer: write its profile file (every
 * value with its source), add its fixtures, and add one line to PROFILES.
 */
import { ABBOTT_ARCHITECT } from './abbott-architect';
import { CEPHEID_GENEXPERT } from './cepheid-genexpert';
import { BIORAD_IHCOM } from './biorad-ihcom';
import { ERBA_EM200 } from './erba-em200';
import { EUROIMMUN_ANALYZER1 } from './euroimmun-analyzer1';
import { GENERIC_LIS2A2 } from './generic-lis2a2';
import { HOLOGIC_PANTHER } from './hologic-panther';
import { HORIBA_PENTRA } from './horiba-pentra';
import { HORIBA_YUMIZEN } from './horiba-yumizen';
import { IMMUCOR } from './immucor';
import { MINDRAY_BS } from './mindray-bs';
import { MINDRAY_CL } from './mindray-cl';
import { ORTHO_VISION } from './ortho-vision';
import { ORTHO_VITROS } from './ortho-vitros';
import { PHADIA_IMMUNOCAP } from './phadia-immunocap';
import { ROCHE_COBAS_C111 } from './roche-cobas-c111';
import { ROCHE_COBAS_C311 } from './roche-cobas-c311';
import { ROCHE_COBAS_E411 } from './roche-cobas-e411';
import { ROCHE_COBAS_E411_ELECSYS } from './roche-cobas-e411-elecsys';
import { SIEMENS_DCA_VANTAGE } from './siemens-dca-vantage';
import { SIEMENS_IMMULITE } from './siemens-immulite';
import { SNIBE_MAGLUMI } from './snibe-maglumi';
import { STAGO_STA } from './stago-sta';
import { SYSMEX_XN } from './sysmex-xn';
import { BECKMAN_ACCESS } from './beckman-access';
import { SYSMEX_UWAM } from './sysmex-uwam';
import { ROCHE_COBAS_6000 } from './roche-cobas-6000';
import { QUIDEL_SOFIA } from './quidel-sofia';
import { ROCHE_COBAS_U411 } from './roche-cobas-u411';
import { ROCHE_URISYS_1100 } from './roche-urisys1100';
import type { DialectProfile } from './types';
import { deepFreeze } from '../../../util/freeze';
import { applyOverrides, overridesOf, type SiteDialect, type SiteDialectResult } from './overrides';

export type * from './types';
export { DialectProfileError, assertProfile, profileIssues, profileProblems, type ProfileIssue } from './validate';
export { applyOverrides, mergeOverrides, overridesOf, readOverrides, type ProfileOverrides, type SiteDialect, type SiteDialectResult } from './overrides';
export { DialectProfileSchema } from './schema';
export {
  ABBOTT_ARCHITECT,
  BIORAD_IHCOM,
  CEPHEID_GENEXPERT,
  ERBA_EM200,
  EUROIMMUN_ANALYZER1,
  GENERIC_LIS2A2,
  HOLOGIC_PANTHER,
  HORIBA_PENTRA,
  HORIBA_YUMIZEN,
  IMMUCOR,
  MINDRAY_BS,
  MINDRAY_CL,
  ORTHO_VISION,
  ORTHO_VITROS,
  PHADIA_IMMUNOCAP,
  ROCHE_COBAS_C111,
  ROCHE_COBAS_C311,
  ROCHE_COBAS_E411,
  ROCHE_COBAS_E411_ELECSYS,
  SIEMENS_DCA_VANTAGE,
  SIEMENS_IMMULITE,
  SNIBE_MAGLUMI,
  STAGO_STA,
  SYSMEX_XN,
  BECKMAN_ACCESS,
  SYSMEX_UWAM,
  ROCHE_COBAS_6000,
  QUIDEL_SOFIA,
  ROCHE_COBAS_U411,
  ROCHE_URISYS_1100,
};

/** Every profile, the generic one first. Frozen: a profile is shared data, never edited in place. */
export const PROFILES: readonly DialectProfile[] = deepFreeze([
  GENERIC_LIS2A2,
  ROCHE_COBAS_E411,
  ROCHE_COBAS_E411_ELECSYS,
  ROCHE_COBAS_C311,
  MINDRAY_CL,
  SYSMEX_XN,
  HORIBA_PENTRA,
  HORIBA_YUMIZEN,
  STAGO_STA,
  ABBOTT_ARCHITECT,
  IMMUCOR,
  ERBA_EM200,
  SIEMENS_DCA_VANTAGE,
  CEPHEID_GENEXPERT,
  EUROIMMUN_ANALYZER1,
  PHADIA_IMMUNOCAP,
  HOLOGIC_PANTHER,
  SNIBE_MAGLUMI,
  SIEMENS_IMMULITE,
  ORTHO_VITROS,
  ORTHO_VISION,
  ROCHE_COBAS_C111,
  MINDRAY_BS,
  BIORAD_IHCOM,
  BECKMAN_ACCESS,
  SYSMEX_UWAM,
  ROCHE_COBAS_6000,
  QUIDEL_SOFIA,
  ROCHE_COBAS_U411,
  ROCHE_URISYS_1100,
]);

export function findProfile(id: string): DialectProfile | undefined {
  return PROFILES.find((p) => p.id === id);
}

/** The profile with this id; an unknown id throws with the list of known ones (it comes from node configuration). */
export function getProfile(id: string): DialectProfile {
  const found = findProfile(id);
  if (found === undefined) throw new RangeError(`unknown dialect profile ${JSON.stringify(id)}; known: ${PROFILES.map((p) => p.id).join(', ')}`);
  return found;
}

/**
 * A site's dialect as a usable profile (frozen like the built-in ones), or
 * every problem with the path of its setting (`base` for an unknown base).
 */
export function siteProfile(site: { base: string; overrides?: unknown }): SiteDialectResult {
  const base = findProfile(site.base);
  if (base === undefined) return { issues: [{ path: 'base', message: `unknown dialect ${JSON.stringify(site.base)}; known: ${PROFILES.map((p) => p.id).join(', ')}` }] };
  const result = applyOverrides(base, site.overrides);
  return result.profile === undefined ? result : { profile: deepFreeze(result.profile), issues: [] };
}

/** The JSON a site exports of its dialect: the base and only what differs from it. */
export function siteDialectOf(base: DialectProfile, profile: DialectProfile): SiteDialect {
  return { base: base.id, overrides: overridesOf(base, profile) };
}
