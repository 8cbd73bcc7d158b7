/**
 * What a dialect makes of captured messages, laid out for the dialect editor:
 * each result with its sample number, test code, value, units, flags, status
 * and time; the queries; QC apart; and each result left unassigned with the
 * reason and the record and field to look at. It reads exactly as astm-message
 * does (lib/protocols/astm/lab), so the preview is what the deployed flow will do.
 */
import { AstmRecordError, decodeMessage, splitMessages } from './records';
import { findProfile, overridesOf, siteProfile, type DialectProfile, type ProfileIssue, type ProfileOverrides } from './dialects';
import { toLabEvents, type FieldAt, type InstrumentResult } from './lab';
import { readPaste, type PasteRead } from './paste';
import { captureOf, recordTexts } from './capture';
import { POINT_ROLES, type Capture, type PointRole } from '../../lab/capture';

/** What the preview shows of a result as the LIS would get it (the fields mean what they mean on InstrumentResult). */
const SHOWN = ['units', 'referenceRange', 'flags', 'status', 'completedAt', 'completedAtRaw'] as const;

export interface PreviewResult extends Pick<InstrumentResult, (typeof SHOWN)[number]> {
  /** 1-based message of the paste, and R record (or O, for QC values carried in O) in it. */
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

export interface PreviewUnassigned {
  message: number;
  record: number;
  reason: string;
  at?: FieldAt;
  /** The record as text. */
  text: string;
  testCode?: string;
  value?: string;
}

export interface Preview {
  /** Messages read (each H ... L). */
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

export function previewMessages(profile: DialectProfile, messages: readonly Buffer[], timeZone: string): Preview {
  const preview: Preview = { messages: 0, results: [], qc: [], queries: [], unassigned: [], other: [], problems: [] };
  for (const bytes of messages) {
    for (const text of splitMessages(bytes.toString(profile.charset === 'utf8' ? 'utf8' : 'latin1'))) {
      const message = ++preview.messages;
      let decoded;
      try {
        decoded = decodeMessage(text);
      } catch (err) {
        const at = err instanceof AstmRecordError ? { ...(err.record === undefined ? {} : { record: err.record }), ...(err.field === undefined ? {} : { field: err.field }) } : {};
        preview.problems.push({ message, ...at, text: `not readable as ASTM records: ${(err as Error).message}` });
        continue;
      }
      for (const event of toLabEvents(decoded, profile, { timeZone })) {
        if (event.type === 'results' || event.type === 'qc') {
          (event.type === 'qc' ? preview.qc : preview.results).push(...event.results.map((r) => resultOf(message, r)));
          preview.problems.push(...event.problems.map((p) => ({ message, text: p })));
        } else if (event.type === 'query') {
          for (const q of event.samples) preview.queries.push({ message, record: q.record, sampleNumber: q.sampleNumber, tests: q.instrumentTests, cancel: event.cancel });
        } else if (event.type === 'unassigned') {
          for (const u of event.items) {
            preview.unassigned.push({ message, record: u.record, reason: u.reason, ...(u.at === undefined ? {} : { at: u.at }), text: u.text, ...(u.instrumentCode === undefined ? {} : { testCode: u.instrumentCode }), ...(u.Result === undefined ? {} : { value: u.Result }) });
          }
        } else preview.other.push({ message, reason: event.reason });
      }
    }
  }
  return preview;
}

function resultOf(message: number, r: InstrumentResult): PreviewResult {
  const out: PreviewResult = { message, record: r.record, sampleNumber: r.SampleNumber, testCode: r.instrumentCode, value: r.Result };
  if (r.instrumentSubCode !== undefined) out.subCode = r.instrumentSubCode;
  if (r.rawResult !== undefined) out.rawValue = r.rawResult;
  for (const key of SHOWN) if (r[key] !== undefined) Object.assign(out, { [key]: r[key] });
  return out;
}

export interface SitePreview {
  /** Problems of the edited dialect, each with the path of its setting; no preview while there are any. */
  issues: ProfileIssue[];
  /** The overrides as they would be stored: only what differs from the base. */
  overrides?: ProfileOverrides;
  /** What the paste was taken for, what was repaired, and what could not be read. */
  paste?: Omit<PasteRead, 'messages'>;
  preview?: Preview;
  /** The paste drawn for pointing at (lib/lab/capture.ts), and what may be pointed at. */
  capture?: Capture;
  roles?: readonly PointRole[];
}

/**
 * The dialect editor's question in one: a base and overrides, and a pasted
 * capture (or none yet). The paste is read even when the dialect has
 * problems, so the integrator sees both at once.
 */
export function previewSite(site: { base: string; overrides?: unknown }, text: string | undefined, timeZone: string): SitePreview {
  const built = siteProfile(site);
  const base = findProfile(site.base);
  const out: SitePreview = { issues: built.issues };
  if (built.profile !== undefined && base !== undefined) out.overrides = overridesOf(base, built.profile);
  if (text === undefined || text.trim() === '') return out;
  const { messages, ...paste } = readPaste(text, (built.profile ?? base)?.charset ?? 'latin1');
  out.paste = paste;
  const charset = (built.profile ?? base)?.charset ?? 'latin1';
  out.capture = captureOf(
    recordTexts(
      messages.map((m) => m.bytes),
      charset,
    ),
  );
  out.roles = POINT_ROLES;
  if (built.profile !== undefined) out.preview = previewMessages(built.profile, messages.map((m) => m.bytes), timeZone);
  return out;
}
