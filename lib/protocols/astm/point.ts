/**
 * Shaping an ASTM dialect by pointing: the integrator clicks a value in the
 * captured message (a place of capture.ts) or in the decoded table (a value,
 * looked up in the capture) and says what it is; this writes the setting of
 * the profile that reads it from there, and says how many results that
 * changed. Where each role is read (types.ts):
 *
 * - sample number: sampleId, O-3 / O-4 or P-3 / P-4, a component; in a query, query.component of Q-3;
 * - test code: testId.code, a component of R-3;
 * - value: results.value.component of R-4 (or the whole field);
 * - units: results.units.component of R-5 (or the whole field).
 *
 * A place the model cannot read a role from (a second repetition, a field no
 * setting names) is refused with the reason, never approximated.
 */
import { changedResults, findValue, POINT_ROLES, ROLE_NAMES, type ComparedResult, type PointChoice, type PointRequest, type PointRole } from '../../dialect/capture';
import { findProfile, overridesOf, siteProfile, type DialectProfile, type ProfileIssue, type ProfileOverrides } from './dialects';
import { delimitersOf, piecesOf, recordTexts, type AstmPlace } from './capture';
import { readPaste } from './paste';
import { previewMessages, previewSite, type Preview } from './preview';
import type { SitePreview } from '../../dialect/preview';
import type { PasteRead } from './paste';
import { ORDER_FIELDS, PATIENT_FIELDS, QUERY_FIELDS, RESULT_FIELDS, unescapeText } from './records';

export { POINT_ROLES };

export type AstmPointRequest = PointRequest;

export type PointAnswer =
  | { overrides: ProfileOverrides; changed: number; setting: string; place: AstmPlace; preview: SitePreview<Omit<PasteRead, 'messages'>>; issues: ProfileIssue[] }
  | { choices: PointChoice[] }
  | { refused: string; issues?: ProfileIssue[] };

type Mutable = { -readonly [K in keyof DialectProfile]: unknown } & Record<string, unknown>;

interface Piece {
  place: AstmPlace;
  /** The piece's text with escapes resolved. */
  text: string;
  /** How many repetitions its field has, and components its repetition has. */
  repetitions: number;
  components: number;
}

export function pointAt(request: AstmPointRequest): PointAnswer {
  const site = { base: request.base, overrides: request.overrides };
  const built = siteProfile(site);
  const base = findProfile(request.base);
  if (built.profile === undefined || base === undefined) return { refused: 'the dialect has problems: fix them before pointing', issues: built.issues };
  const current = built.profile;
  const { messages } = readPaste(request.text, current.charset);
  const records = recordTexts(
    messages.map((m) => m.bytes),
    current.charset,
  );
  const pieces = allPieces(records);

  let piece: Piece | undefined;
  if (request.place !== undefined) {
    const asked = placeOf(request.place);
    if (asked === undefined) return { refused: 'the place is not one of the capture (message, record, type, field, repetition, component)' };
    piece = pieces.find((p) => samePlace(p.place, asked));
    if (piece === undefined) return { refused: `${labelOf(asked)} is not in the capture: preview it again` };
  } else if (typeof request.value === 'string' && request.value.trim() !== '') {
    const inMessage = pieces.filter((p) => request.message === undefined || p.place.message === request.message);
    const found = findValue(inMessage, request.value, ROLE_NAMES[request.role], (p) => typeof setRole(structuredClone(current) as Mutable, request.role, p as Piece) === 'string', settingKey, labelOf);
    if (!('piece' in found)) return found;
    piece = found.piece as Piece;
  } else return { refused: 'say where: a place in the capture, or a value' };
  if (piece === undefined) return { refused: 'no place' };

  const target = structuredClone(current) as Mutable;
  const setting = setRole(target, request.role, piece);
  if (typeof setting !== 'string') return { refused: setting.refused };
  const overrides = overridesOf(base, target as unknown as DialectProfile);
  const after = siteProfile({ base: request.base, overrides });
  if (after.profile === undefined) return { refused: `reading the ${ROLE_NAMES[request.role]} there gives a dialect with problems`, issues: after.issues };
  const bytes = messages.map((m) => m.bytes);
  const changed = changedResults(compared(previewMessages(current, bytes, request.timeZone)), compared(previewMessages(after.profile, bytes, request.timeZone)));
  const preview = previewSite({ base: request.base, overrides }, request.text, request.timeZone);
  return { overrides, changed, setting, place: piece.place, preview, issues: preview.issues };
}


function compared(p: Preview): ComparedResult[] {
  return [...p.results, ...p.qc];
}

function allPieces(messages: readonly string[][]): Piece[] {
  const out: Piece[] = [];
  messages.forEach((records, m) => {
    const delimiters = delimitersOf(records);
    records.forEach((record, r) => {
      const d = delimiters[r];
      if (d === undefined) return;
      const list = piecesOf(record, d);
      // Counted once per record: a field of 20,000 repeats must not be scanned once per repeat.
      const repeatsIn = new Map<number, number>();
      const componentsIn = new Map<string, number>();
      for (const q of list) {
        repeatsIn.set(q.field, Math.max(repeatsIn.get(q.field) ?? 1, q.repetition ?? 1));
        const k = `${q.field}.${q.repetition ?? ''}`;
        componentsIn.set(k, (componentsIn.get(k) ?? 0) + 1);
      }
      for (const p of list) {
        const repetitions = repeatsIn.get(p.field) ?? 1;
        const components = componentsIn.get(`${p.field}.${p.repetition ?? ''}`) ?? 1;
        const place: AstmPlace = { message: m + 1, record: r + 1, type: record.charAt(0), field: p.field };
        if (p.repetition !== undefined) place.repetition = p.repetition;
        if (p.component !== undefined) place.component = p.component;
        out.push({ place, text: unescapeText(p.text, d), repetitions, components });
      }
    });
  });
  return out;
}

function placeOf(v: unknown): AstmPlace | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  const whole = (x: unknown) => typeof x === 'number' && Number.isInteger(x) && x >= 1;
  if (!whole(o.message) || !whole(o.record) || !whole(o.field) || typeof o.type !== 'string') return undefined;
  if ((o.repetition !== undefined && !whole(o.repetition)) || (o.component !== undefined && !whole(o.component))) return undefined;
  const place: AstmPlace = { message: o.message as number, record: o.record as number, type: o.type, field: o.field as number };
  if (o.repetition !== undefined) place.repetition = o.repetition as number;
  if (o.component !== undefined) place.component = o.component as number;
  return place;
}

function samePlace(a: AstmPlace, b: AstmPlace): boolean {
  return a.message === b.message && a.record === b.record && a.type === b.type && a.field === b.field && a.repetition === b.repetition && a.component === b.component;
}

function settingKey(p: AstmPlace): string {
  return `${p.type}-${p.field}.${p.repetition ?? ''}.${p.component ?? ''}`;
}

const NAMES: Readonly<Record<string, readonly string[]>> = { P: PATIENT_FIELDS, O: ORDER_FIELDS, R: RESULT_FIELDS, Q: QUERY_FIELDS };

function fieldName(type: string, field: number): string | undefined {
  return NAMES[type]?.[field - 2];
}

/** `O-4 (instrumentSpecimenId) component 2 of repeat 1, message 1 record 3`: how the dialog names a place. */
export function labelOf(p: AstmPlace): string {
  const name = fieldName(p.type, p.field);
  const parts = [`${p.type}-${p.field}${name === undefined ? '' : ` (${name})`}`];
  if (p.component !== undefined) parts.push(`component ${p.component}`);
  if (p.repetition !== undefined) parts.push(`${p.component === undefined ? '' : 'of '}repeat ${p.repetition}`);
  return `${parts.join(' ')}, message ${p.message} record ${p.record}`;
}

/**
 * Sets in `profile` what reads `role` at the piece; the setting's path and
 * place (`sampleId: O-4 component 1`), or why no setting can.
 */
function setRole(profile: Mutable, role: PointRole, piece: Piece): string | { refused: string } {
  const { type, field, repetition } = piece.place;
  const component = piece.place.component ?? 1;
  const at = `${type}-${field}`;
  const oneRepeat = (what: string) => ({ refused: `${at} holds ${piece.repetitions} repeats; the dialect reads a ${what} from a field with one value, and never guesses which repeat` });
  const results = profile.results as Record<string, unknown>;
  switch (role) {
    case 'sampleNumber': {
      if ((type === 'O' || type === 'P') && (field === 3 || field === 4)) {
        if (repetition !== undefined) return oneRepeat('sample number');
        const name = fieldName(type, field) as string;
        const was = profile.sampleId as DialectProfile['sampleId'];
        // A plain field keeps the base's refusal of components; a component can only be read with it off.
        const singleComponent = piece.components > 1 ? false : was.singleComponent;
        profile.sampleId = { record: type, field: name, component, trim: true, singleComponent };
        return `sampleId: ${at} (${name}) component ${component}`;
      }
      if (type === 'Q' && field === 3) {
        const query = profile.query as DialectProfile['query'];
        if (query === undefined) return { refused: 'this dialect reads no queries (query); choose a base dialect that does' };
        if (repetition !== undefined && repetition > 1 && query.repeats === 'first') return oneRepeat('sample number of a query');
        profile.query = { ...query, component };
        return `query.component: Q-3 component ${component}`;
      }
      return { refused: `a sample number is read from O-3, O-4, P-3 or P-4 (or Q-3 in a query), not ${at}` };
    }
    case 'testCode': {
      if (type !== 'R' || field !== 3) return { refused: `a test code is read from R-3 (universalTestId), not ${at}` };
      if (repetition !== undefined) return { refused: `R-3 names ${piece.repetitions} tests here; one value cannot be filed under several tests` };
      profile.testId = { ...(profile.testId as object), code: { component, trim: true } };
      return `testId.code: R-3 component ${component}`;
    }
    case 'value': {
      if (type !== 'R' || field !== 4) return { refused: `a value is read from R-4 (value), not ${at}` };
      if (repetition !== undefined && repetition > 1) return oneRepeat('value');
      const value = { ...(results.value as object) } as Record<string, unknown>;
      if (piece.place.component === undefined && repetition === undefined) delete value.component;
      else value.component = component;
      profile.results = { ...results, value };
      return value.component === undefined ? 'results.value: R-4 whole' : `results.value.component: R-4 component ${component}`;
    }
    case 'units': {
      if (type !== 'R' || field !== 5) return { refused: `units are read from R-5 (units), not ${at}` };
      if (repetition !== undefined && repetition > 1) return oneRepeat('units');
      const next: Record<string, unknown> = { ...results };
      if (piece.place.component === undefined && repetition === undefined) delete next.units;
      else next.units = { component };
      profile.results = next;
      return next.units === undefined ? 'results.units: R-5 whole' : `results.units.component: R-5 component ${component}`;
    }
  }
}
