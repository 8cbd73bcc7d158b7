/**
 * A pasted HL7 capture as the dialect editor draws it to be clicked: a line
 * per segment, a token per field, repetition, component and subcomponent,
 * each with the place point.ts reads (lib/dialect/capture.ts). Messages and
 * segments are numbered as the preview numbers them (a message per pasted
 * message, segments from MSH = 1), so a place and a preview row name the same OBX.
 */
import { CAPTURE_LIMITS, type Capture, type CaptureToken } from '../../dialect/capture';
import { parseHl7Bytes, type Hl7Message } from './message';
import { unescapeHl7 } from './escape';
import type { Hl7Charset } from './charset';

/** Where a token sits; repetition, component and subcomponent are present when the field has several. */
export interface Hl7CapturePlace {
  message: number;
  segment: string;
  /** 1-based position of the segment in its message (MSH is 1). */
  index: number;
  field: number;
  repetition?: number;
  component?: number;
  subcomponent?: number;
}

export interface Hl7Piece {
  place: Hl7CapturePlace;
  /** As received (escapes kept). */
  raw: string;
  /** With escapes resolved. */
  text: string;
  repetitions: number;
  components: number;
}

/** Each pasted message parsed as the dialect parses it; undefined for one that is no HL7. */
export function parseAll(messages: readonly Buffer[], charset: Hl7Charset): Array<Hl7Message | undefined> {
  return messages.map((bytes) => {
    try {
      return parseHl7Bytes(bytes, { charset });
    } catch {
      return undefined; // the preview says why
    }
  });
}

/** Every piece of one segment, with the separators between them, in order. */
function segmentTokens(message: Hl7Message, m: number, index: number): Array<{ sep: string } | Hl7Piece> {
  const seg = message.segments[index - 1];
  if (seg === undefined) return [];
  const d = message.delimiters;
  const out: Array<{ sep: string } | Hl7Piece> = [];
  const parts = seg.text.split(d.field);
  const msh = seg.name === 'MSH';
  // MSH-1 is the field separator itself and MSH-2 the encoding characters: no values.
  out.push({ sep: msh ? `${parts[0] ?? ''}${d.field}${parts[1] ?? ''}` : (parts[0] ?? '') });
  const split = (text: string, on: string | undefined) => (on === undefined || on === '' ? [text] : text.split(on));
  for (let i = msh ? 2 : 1; i < parts.length; i++) {
    const field = msh ? i + 1 : i;
    out.push({ sep: d.field });
    const reps = split(parts[i] ?? '', d.repetition);
    reps.forEach((rep, r) => {
      if (r > 0) out.push({ sep: d.repetition ?? '' });
      const comps = split(rep, d.component);
      comps.forEach((comp, c) => {
        if (c > 0) out.push({ sep: d.component });
        const subs = split(comp, d.subcomponent);
        subs.forEach((sub, s) => {
          if (s > 0) out.push({ sep: d.subcomponent ?? '' });
          if (sub === '') return;
          const place: Hl7CapturePlace = { message: m, segment: seg.name, index, field };
          if (reps.length > 1) place.repetition = r + 1;
          if (comps.length > 1) place.component = c + 1;
          if (subs.length > 1) place.subcomponent = s + 1;
          out.push({ place, raw: sub, text: unescapeHl7(sub, d), repetitions: reps.length, components: comps.length });
        });
      });
    });
  }
  return out;
}

/** Every place of the capture with its text, for looking a value up. */
export function hl7Pieces(parsed: ReadonlyArray<Hl7Message | undefined>): Hl7Piece[] {
  const out: Hl7Piece[] = [];
  parsed.forEach((message, i) => {
    if (message === undefined) return;
    for (let s = 1; s <= message.segments.length; s++) for (const t of segmentTokens(message, i + 1, s)) if ('place' in t) out.push(t);
  });
  return out;
}

export function hl7CaptureOf(parsed: ReadonlyArray<Hl7Message | undefined>): Capture {
  const capture: Capture = { messages: [] };
  let budget: number = CAPTURE_LIMITS.tokens;
  parsed.forEach((message, i) => {
    const lines: Capture['messages'][number]['lines'] = [];
    capture.messages.push({ lines });
    if (message === undefined) return;
    message.segments.forEach((seg, s) => {
      if (s >= CAPTURE_LIMITS.linesPerMessage || budget <= 0) {
        capture.truncated = true;
        return;
      }
      const tokens: CaptureToken[] = [];
      for (const t of segmentTokens(message, i + 1, s + 1)) {
        const prev = tokens[tokens.length - 1];
        if ('sep' in t) {
          if (prev !== undefined && prev.place === undefined) prev.text += t.sep;
          else tokens.push({ text: t.sep });
        } else tokens.push({ text: t.raw, place: { ...t.place } });
      }
      // A segment of 20,000 repetitions is drawn up to what is left of the budget.
      if (tokens.length > budget) {
        tokens.length = budget;
        capture.truncated = true;
      }
      budget -= tokens.length;
      lines.push({ label: `${seg.name} ${seg.index}`, tokens });
    });
  });
  return capture;
}
