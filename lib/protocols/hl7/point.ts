/**
 * Shaping an HL7 dialect by pointing, as lib/protocols/astm/point.ts does for
 * ASTM: the integrator clicks a value in the capture (a place of capture.ts)
 * or in the decoded table (a value, looked up in the capture) and says what
 * it is; this writes the setting that reads it from there (types.ts):
 *
 * - sample number: sampleId.places = [the place] (SPM, SAC, OBR, ORC, PID,
 *   PV1), or in a query query.sample (QPD, QRD, QRF). The place alone, no fallbacks
 *   kept: a fallback the integrator did not point at is how a run number
 *   ends up as a sample number, and the preview shows a message that lacks it;
 * - test code: results.code, a component of OBX-3 or OBX-4 (the fallbacks dropped for the same reason);
 * - value: results.value, OBX-5 (a component, or the field);
 * - units: results.units, OBX-6 (a component, or the field).
 *
 * HL7 places read the first repetition: a click on another one is refused.
 */
import { changedResults, findValue, ROLE_NAMES, type ComparedResult, type PointRequest, type PointRole } from '../../dialect/capture';
import type { ProfileIssue, ProfileOverrides } from '../../dialect/overrides';
import type { SitePreview } from '../../dialect/preview';
import { findHl7Profile, hl7OverridesOf, hl7SiteProfile, type Hl7DialectProfile, type Hl7Place } from './dialects';
import { hl7Pieces, parseAll, type Hl7CapturePlace, type Hl7Piece } from './capture';
import { readHl7Capture } from './paste';
import { previewHl7Messages, previewHl7Site, type Hl7PasteInfo } from './preview';
import type { Preview } from '../../dialect/preview';

export type Hl7PointRequest = PointRequest;

export type Hl7PointAnswer =
  | { overrides: ProfileOverrides; changed: number; setting: string; place: Hl7CapturePlace; preview: SitePreview<Hl7PasteInfo>; issues: ProfileIssue[] }
  | { choices: Array<{ place: Record<string, unknown>; label: string }> }
  | { refused: string; issues?: ProfileIssue[] };

type Mutable = Record<string, unknown> & { sampleId: Record<string, unknown>; results: Record<string, unknown> };

/** Segments that describe the sample, its order or its patient: where results' sample numbers are read from. */
const SAMPLE_SEGMENTS = new Set(['SPM', 'SAC', 'OBR', 'ORC', 'PID', 'PV1']);
/** Segments a host query names its sample in. */
const QUERY_SEGMENTS = new Set(['QPD', 'QRD', 'QRF']);

export function pointAtHl7(request: Hl7PointRequest): Hl7PointAnswer {
  const built = hl7SiteProfile({ base: request.base, overrides: request.overrides });
  const base = findHl7Profile(request.base);
  if (built.profile === undefined || base === undefined) return { refused: 'the dialect has problems: fix them before pointing', issues: built.issues };
  const current = built.profile;
  const { messages } = readHl7Capture(request.text);
  const pieces = hl7Pieces(parseAll(messages, current.charset));

  let piece: Hl7Piece | undefined;
  if (request.place !== undefined) {
    const asked = placeOf(request.place);
    if (asked === undefined) return { refused: 'the place is not one of the capture (message, segment, index, field, repetition, component, subcomponent)' };
    piece = pieces.find((p) => samePlace(p.place, asked));
    if (piece === undefined) return { refused: `${labelOf(asked)} is not in the capture: preview it again` };
  } else if (typeof request.value === 'string' && request.value.trim() !== '') {
    const inMessage = pieces.filter((p) => request.message === undefined || p.place.message === request.message);
    const found = findValue(inMessage, request.value, ROLE_NAMES[request.role], (p) => typeof setRole(structuredClone(current) as unknown as Mutable, request.role, p as Hl7Piece) === 'string', settingKey, labelOf);
    if (!('piece' in found)) return found;
    piece = found.piece as Hl7Piece;
  } else return { refused: 'say where: a place in the capture, or a value' };

  const target = structuredClone(current) as unknown as Mutable;
  const setting = setRole(target, request.role, piece);
  if (typeof setting !== 'string') return setting;
  const overrides = hl7OverridesOf(base, target as unknown as Hl7DialectProfile);
  const after = hl7SiteProfile({ base: request.base, overrides });
  if (after.profile === undefined) return { refused: `reading the ${ROLE_NAMES[request.role]} there gives a dialect with problems`, issues: after.issues };
  const changed = changedResults(compared(previewHl7Messages(current, messages, request.timeZone)), compared(previewHl7Messages(after.profile, messages, request.timeZone)));
  const preview = previewHl7Site({ base: request.base, overrides }, request.text, request.timeZone);
  return { overrides, changed, setting, place: piece.place, preview, issues: preview.issues };
}

function compared(p: Preview): ComparedResult[] {
  return [...p.results, ...p.qc];
}

function placeOf(v: unknown): Hl7CapturePlace | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  const whole = (x: unknown) => typeof x === 'number' && Number.isInteger(x) && x >= 1;
  if (!whole(o.message) || !whole(o.index) || !whole(o.field) || typeof o.segment !== 'string') return undefined;
  for (const k of ['repetition', 'component', 'subcomponent'] as const) if (o[k] !== undefined && !whole(o[k])) return undefined;
  const place: Hl7CapturePlace = { message: o.message as number, segment: o.segment, index: o.index as number, field: o.field as number };
  for (const k of ['repetition', 'component', 'subcomponent'] as const) if (o[k] !== undefined) place[k] = o[k] as number;
  return place;
}

function samePlace(a: Hl7CapturePlace, b: Hl7CapturePlace): boolean {
  return a.message === b.message && a.segment === b.segment && a.index === b.index && a.field === b.field && a.repetition === b.repetition && a.component === b.component && a.subcomponent === b.subcomponent;
}

function settingKey(p: Hl7CapturePlace): string {
  return `${p.segment}-${p.field}.${p.repetition ?? ''}.${p.component ?? ''}.${p.subcomponent ?? ''}`;
}

/** `OBX-3.2, message 1 segment 4` (`OBX-3 repeat 2 …` for a repetition): how the dialog names a place. */
export function labelOf(p: Hl7CapturePlace): string {
  const component = p.component ?? (p.subcomponent === undefined ? undefined : 1);
  const at = `${p.segment}-${p.field}${component === undefined ? '' : `.${component}`}${p.subcomponent === undefined ? '' : `.${p.subcomponent}`}`;
  return `${at}${p.repetition === undefined ? '' : ` repeat ${p.repetition}`}, message ${p.message} segment ${p.index}`;
}

/** The profile place that reads the piece: components and subcomponents at 1 are left out, as profiles write them. */
function profilePlace(p: Hl7CapturePlace): Hl7Place {
  const place: { segment: string; field: number; component?: number; subcomponent?: number } = { segment: p.segment, field: p.field };
  if (p.component !== undefined && p.component !== 1) place.component = p.component;
  if (p.subcomponent !== undefined && p.subcomponent !== 1) {
    place.component = p.component ?? 1;
    place.subcomponent = p.subcomponent;
  }
  return place;
}

function placeText(p: Hl7Place): string {
  return `${p.segment}-${p.field}${p.component === undefined ? '' : `.${p.component}`}${p.subcomponent === undefined ? '' : `.${p.subcomponent}`}`;
}

/** Sets in `profile` what reads `role` at the piece; the setting's path and place, or why no setting can. */
function setRole(profile: Mutable, role: PointRole, piece: Hl7Piece): string | { refused: string } {
  const p = piece.place;
  const at = `${p.segment}-${p.field}`;
  const repeated = p.repetition !== undefined && p.repetition > 1 ? { refused: `${at} holds ${piece.repetitions} repetitions; the dialect reads the first one only, and never guesses which` } : undefined;
  const place = profilePlace(p);
  switch (role) {
    case 'sampleNumber': {
      if (QUERY_SEGMENTS.has(p.segment)) {
        const query = profile.query as Record<string, unknown> | undefined;
        if (query === undefined) return { refused: 'this dialect reads no queries (query); choose a base dialect that does' };
        if (repeated) return repeated;
        profile.query = { ...query, sample: place };
        return `query.sample: ${placeText(place)}`;
      }
      if (!SAMPLE_SEGMENTS.has(p.segment)) return { refused: `a sample number is read from ${[...SAMPLE_SEGMENTS].join(', ')} (or ${[...QUERY_SEGMENTS].join(', ')} in a query), not ${at}` };
      if (repeated) return repeated;
      profile.sampleId = { ...profile.sampleId, places: [place] };
      return `sampleId.places: ${placeText(place)}`;
    }
    case 'testCode': {
      if (p.segment !== 'OBX' || (p.field !== 3 && p.field !== 4)) return { refused: `a test code is read from OBX-3 or OBX-4, not ${at}` };
      if (repeated) return repeated;
      const results: Record<string, unknown> = { ...profile.results, code: place };
      delete results.codeFallbacks;
      profile.results = results;
      return `results.code: ${placeText(place)}`;
    }
    case 'value':
    case 'units': {
      const field = role === 'value' ? 5 : 6;
      if (p.segment !== 'OBX' || p.field !== field) return { refused: `${role === 'value' ? 'a value is' : 'units are'} read from OBX-${field}, not ${at}` };
      if (repeated) return repeated;
      if (p.subcomponent !== undefined) return { refused: `${role === 'value' ? 'the value' : 'the units'} are read as a component of OBX-${field}, not a subcomponent` };
      const reading = piece.components > 1 ? { field, component: p.component ?? 1 } : { field };
      profile.results = { ...profile.results, [role]: reading };
      return `results.${role}: OBX-${field}${piece.components > 1 ? `.${p.component ?? 1}` : ''}`;
    }
  }
}
