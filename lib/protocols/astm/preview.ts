/**
 * What an ASTM dialect makes of captured messages, laid out for the dialect
 * editor (lib/dialect/preview.ts): it reads exactly as astm-message does
 * (lib/protocols/astm/lab), so the preview is what the deployed flow will do.
 */
import { AstmRecordError, decodeMessage, splitMessages } from './records';
import { findProfile, overridesOf, siteProfile, type DialectProfile } from './dialects';
import { toLabEvents } from './lab';
import { readPaste, type PasteRead } from './paste';
import { captureOf, recordTexts } from './capture';
import { emptyPreview, previewEvents, previewSiteOf, type Preview, type PreviewProtocol, type SitePreview } from '../../dialect/preview';

export type { Preview, PreviewQuery, PreviewResult, PreviewUnassigned } from '../../dialect/preview';

export function previewMessages(profile: DialectProfile, messages: readonly Buffer[], timeZone: string): Preview {
  const preview = emptyPreview();
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
      previewEvents(preview, message, toLabEvents(decoded, profile, { timeZone }), (u) => u.at);
    }
  }
  return preview;
}

const ASTM: PreviewProtocol<DialectProfile, Omit<PasteRead, 'messages'>> = {
  find: findProfile,
  site: siteProfile,
  diff: overridesOf,
  read(text, profile) {
    const { messages, ...paste } = readPaste(text, profile?.charset ?? 'latin1');
    return { messages: messages.map((m) => m.bytes), paste };
  },
  preview: previewMessages,
  capture: (messages, profile) => captureOf(recordTexts(messages, profile?.charset ?? 'latin1')),
};

/**
 * The dialect editor's question in one: a base and overrides, and a pasted
 * capture (or none yet). The paste is read even when the dialect has
 * problems, so the integrator sees both at once.
 */
export function previewSite(site: { base: string; overrides?: unknown }, text: string | undefined, timeZone: string): SitePreview<Omit<PasteRead, 'messages'>> {
  return previewSiteOf(ASTM, site, text, timeZone);
}
