/**
 * What an HL7 dialect makes of captured messages, laid out for the dialect
 * editor (lib/dialect/preview.ts), in the same shape as ASTM's: it reads
 * exactly as hl7-message does (./lab, the Hl7Host's events), so the preview is
 * what the deployed flow will do. The capture may be in any form ./paste.ts
 * reads (the link's trace, MLLP bytes or tokens, segments one per line).
 */
import { findHl7Profile, hl7OverridesOf, hl7SiteProfile, type Hl7DialectProfile } from './dialects';
import { hl7LabEventsOf, parseForProfile } from './lab';
import { placeName } from './lab/places';
import { Hl7Error } from './errors';
import { readHl7Capture } from './paste';
import { hl7CaptureOf, parseAll } from './capture';
import type { LabEvent, UnassignedResult } from '../../lab/types';
import { emptyPreview, previewEvents, previewSiteOf, type Preview, type PreviewAt, type PreviewProtocol, type SitePreview } from '../../dialect/preview';

/** What the paste was taken for (`framing`: MLLP frames or bare segments), what was repaired, and what could not be read. */
export interface Hl7PasteInfo {
  form: 'trace' | 'mllp' | 'segments';
  framing: 'framed' | 'unframed';
  notes: string[];
  problems: Array<{ message: string }>;
}

export function previewHl7Messages(profile: Hl7DialectProfile, messages: readonly Buffer[], timeZone: string): Preview {
  const preview = emptyPreview();
  for (const bytes of messages) {
    const message = ++preview.messages;
    let parsed;
    try {
      parsed = parseForProfile(bytes, profile);
    } catch (err) {
      const at = err instanceof Hl7Error ? { ...(err.segment === undefined ? {} : { record: err.segment }), ...(err.field === undefined ? {} : { field: err.field }) } : {};
      preview.problems.push({ message, ...at, text: `not readable as HL7: ${(err as Error).message}` });
      continue;
    }
    const events: LabEvent[] = [];
    for (const event of hl7LabEventsOf(parsed, profile, timeZone)) {
      // Encapsulated data (histograms, images) goes aside as hl7-message's fourth output says.
      if (event.type === 'encapsulated') for (const e of event.items) preview.other.push({ message, reason: `OBX ${e.record} (${e.instrumentCode}): ${e.valueType} data of ${e.length} characters, kept aside` });
      else events.push(event);
    }
    previewEvents(preview, message, events, (u) => atOf(profile, u));
  }
  return preview;
}

/** The OBX of an unassigned result and the places the dialect looked in, as its reason names them. */
function atOf(profile: Hl7DialectProfile, u: UnassignedResult): PreviewAt | undefined {
  const segment = /^[A-Z0-9]{3}/.exec(u.text)?.[0];
  if (segment === undefined) return undefined;
  const codes = [profile.results.code, ...(profile.results.codeFallbacks ?? [])];
  const places = /no test code/.test(u.reason) ? codes : /supplemental/.test(u.reason) ? profile.results.supplemental.map((m) => m.place) : profile.sampleId.places;
  return { record: segment, index: u.record, label: places.map(placeName).join(' or ') };
}

const HL7: PreviewProtocol<Hl7DialectProfile, Hl7PasteInfo> = {
  find: findHl7Profile,
  site: hl7SiteProfile,
  diff: hl7OverridesOf,
  read(text) {
    const { messages, form, notes, problems } = readHl7Capture(text);
    return { messages, paste: { form, framing: form === 'segments' ? 'unframed' : 'framed', notes, problems: problems.map((message) => ({ message })) } };
  },
  preview: previewHl7Messages,
  capture: (messages, profile) => hl7CaptureOf(parseAll(messages, profile?.charset ?? 'latin1')),
};

/**
 * The dialect editor's question for hl7-message: a base and overrides, and a
 * pasted capture (or none yet). The paste is read even when the dialect has
 * problems, so the integrator sees both at once.
 */
export function previewHl7Site(site: { base: string; overrides?: unknown }, text: string | undefined, timeZone: string): SitePreview<Hl7PasteInfo> {
  return previewSiteOf(HL7, site, text, timeZone);
}
