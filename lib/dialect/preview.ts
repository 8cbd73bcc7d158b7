/**
 * What a dialect makes of captured messages, laid out for the dialect editor,
 * the same for every protocol: each result with its sample number, test code,
 * value, units, flags, status and time; the queries; QC apart; each result
 * left unassigned with the reason and the place to look at; what else came.
 * A protocol reads its messages into lab events exactly as its message node
 * does and hands them here (previewEvents), so the preview is what the
 * deployed flow will do.
 */
import type { InstrumentResult, LabEvent, UnassignedResult } from '../lab/types';
import type { ProfileIssue, ProfileOverrides, SiteDialectResult } from './overrides';
import { POINT_ROLES, type Capture, type FilePointRole, type PointRole } from './capture';

/** What the preview shows of a result as the LIS would get it (the fields mean what they mean on InstrumentResult). */
const SHOWN = ['units', 'referenceRange', 'flags', 'status', 'completedAt', 'completedAtRaw'] as const;

export interface PreviewResult extends Pick<InstrumentResult, (typeof SHOWN)[number]> {
  /** 1-based message of the paste, and its record (ASTM: R, or O for QC values carried in O; HL7: the OBX or OBR segment) in it. */
  message: number;
  record: number;
  sampleNumber: string;
  testCode: string;
  subCode?: string;
  value: string;
  /** The field as sent, when the value read differs from it. */
  rawValue?: string;
}

export interface PreviewQuery {
  message: number;
  record: number;
  sampleNumber: string;
  /** Instrument test codes asked for; [] = all. */
  tests: string[];
  /** The analyzer cancels its earlier query for the sample. */
  cancel: boolean;
}

/** Where to look at for an unassigned result: `label` says it as the protocol's people write it (`O-3 (specimenId)`, `OBX-3 or OBX-4`). */
export interface PreviewAt {
  /** The record type (ASTM) or segment name (HL7) and its 1-based index in the message. */
  record: string;
  index: number;
  label: string;
}

export interface PreviewUnassigned {
  message: number;
  record: number;
  reason: string;
  at?: PreviewAt;
  /** The record as text. */
  text: string;
  testCode?: string;
  value?: string;
}

export interface Preview {
  /** Messages read. */
  messages: number;
  results: PreviewResult[];
  qc: PreviewResult[];
  queries: PreviewQuery[];
  unassigned: PreviewUnassigned[];
  /** Messages (or parts) that are none of the above, and why. */
  other: Array<{ message: number; reason: string }>;
  /** What could not be read at all, or was read with a doubt (a time that is no time, a test reported twice). */
  problems: Array<{ message: number; record?: number; field?: number; text: string }>;
}

export function emptyPreview(): Preview {
  return { messages: 0, results: [], qc: [], queries: [], unassigned: [], other: [], problems: [] };
}

/** One message's lab events into the preview; `atOf` names where to look at for an unassigned result. */
export function previewEvents(preview: Preview, message: number, events: readonly LabEvent[], atOf: (u: UnassignedResult) => PreviewAt | undefined): void {
  for (const event of events) {
    if (event.type === 'results' || event.type === 'qc') {
      // One push each, not push(...all): spread arguments overflow the stack past about 100,000 (a big file's QC).
      const into = event.type === 'qc' ? preview.qc : preview.results;
      for (const r of event.results) into.push(resultOf(message, r));
      for (const p of event.problems) preview.problems.push({ message, text: p });
    } else if (event.type === 'query') {
      for (const q of event.samples) preview.queries.push({ message, record: q.record, sampleNumber: q.sampleNumber, tests: q.instrumentTests, cancel: event.cancel });
    } else if (event.type === 'unassigned') {
      for (const u of event.items) {
        const at = atOf(u);
        preview.unassigned.push({ message, record: u.record, reason: u.reason, ...(at === undefined ? {} : { at }), text: u.text, ...(u.instrumentCode === undefined ? {} : { testCode: u.instrumentCode }), ...(u.Result === undefined ? {} : { value: u.Result }) });
      }
    } else preview.other.push({ message, reason: event.reason });
  }
}

function resultOf(message: number, r: InstrumentResult): PreviewResult {
  const out: PreviewResult = { message, record: r.record, sampleNumber: r.SampleNumber, testCode: r.instrumentCode, value: r.Result };
  if (r.instrumentSubCode !== undefined) out.subCode = r.instrumentSubCode;
  if (r.rawResult !== undefined) out.rawValue = r.rawResult;
  for (const key of SHOWN) if (r[key] !== undefined) Object.assign(out, { [key]: r[key] });
  return out;
}

export interface SitePreview<Paste> {
  /** Problems of the edited dialect, each with the path of its setting; no preview while there are any. */
  issues: ProfileIssue[];
  /** The overrides as they would be stored: only what differs from the base. */
  overrides?: ProfileOverrides;
  /** What the paste was taken for, what was repaired, and what could not be read. */
  paste?: Paste;
  preview?: Preview;
  /** The paste drawn for pointing at (./capture.ts), and what may be pointed at. */
  capture?: Capture;
  /** A file's pointing takes flags too (FILE_POINT_ROLES). */
  roles?: readonly (PointRole | FilePointRole)[];
}

/** What a protocol gives the dialect editor's question; `C`, the capture as the dialog sends it (text pasted, or a file's bytes). */
export interface PreviewProtocol<P, Paste, C = string> {
  find(id: string): P | undefined;
  site(site: { base: string; overrides?: unknown }): SiteDialectResult<P>;
  diff(base: P, profile: P): ProfileOverrides;
  /** The paste's messages as bytes, in the charset of the profile given, and what the reader found. */
  read(capture: C, profile: P | undefined): { messages: readonly Buffer[]; paste: Paste };
  preview(profile: P, messages: readonly Buffer[], timeZone: string): Preview;
  /** The paste's messages drawn as clickable places, for pointing (./capture.ts). */
  capture?(messages: readonly Buffer[], profile: P | undefined): Capture;
  /** What may be pointed at in that capture; POINT_ROLES unless the protocol says. */
  roles?: readonly (PointRole | FilePointRole)[];
}

/**
 * The dialect editor's question in one: a base and overrides, and a pasted
 * capture (or none yet; a file loaded is never none, even empty: the reader
 * says what it is). The paste is read even when the dialect has problems, so
 * the integrator sees both at once.
 */
export function previewSiteOf<P, Paste, C = string>(protocol: PreviewProtocol<P, Paste, C>, site: { base: string; overrides?: unknown }, capture: C | undefined, timeZone: string): SitePreview<Paste> {
  const built = protocol.site(site);
  const base = protocol.find(site.base);
  const out: SitePreview<Paste> = { issues: built.issues };
  if (built.profile !== undefined && base !== undefined) out.overrides = protocol.diff(base, built.profile);
  if (capture === undefined || (typeof capture === 'string' && capture.trim() === '')) return out;
  const read = protocol.read(capture, built.profile ?? base);
  out.paste = read.paste;
  if (protocol.capture !== undefined) {
    out.capture = protocol.capture(read.messages, built.profile ?? base);
    out.roles = protocol.roles ?? POINT_ROLES;
  }
  if (built.profile !== undefined) out.preview = protocol.preview(built.profile, read.messages, timeZone);
  return out;
}
