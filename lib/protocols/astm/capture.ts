/**
 * A pasted ASTM capture as the dialect editor draws it to be clicked: a line
 * per record, a token per field, repetition or component, each with the place
 * point.ts reads (lib/lab/capture.ts). Messages and records are numbered as the
 * preview numbers them, so a place and a preview row name the same record.
 */
import { CAPTURE_LIMITS, type Capture, type CaptureToken } from '../../dialect/capture';
import { DEFAULT_DELIMITERS, isHeaderText, readHeaderDelimiters, splitMessages, type Delimiters } from './records';

/** Where a token sits: field numbered as the standard does (O-3 is 3), repetition and component 1-based, present when the field has several. */
export interface AstmPlace {
  message: number;
  record: number;
  type: string;
  field: number;
  repetition?: number;
  component?: number;
}

/** The record texts of each message, numbered as previewMessages numbers them. */
export function recordTexts(messages: readonly Buffer[], charset: 'latin1' | 'utf8'): string[][] {
  const out: string[][] = [];
  for (const bytes of messages) {
    for (const text of splitMessages(bytes.toString(charset === 'utf8' ? 'utf8' : 'latin1'))) {
      out.push(text.split(/\r\n|\r|\n/).filter((r, i, all) => r !== '' || i < all.length - 1));
    }
  }
  return out;
}

/** The delimiters in force for each record: the last H's before it. */
export function delimitersOf(records: readonly string[]): Delimiters[] {
  let d: Delimiters = DEFAULT_DELIMITERS;
  return records.map((r) => {
    if (isHeaderText(r)) {
      try {
        d = readHeaderDelimiters(r);
      } catch {
        // The preview names an H it cannot read; its records are drawn with the standard delimiters.
      }
    }
    return d;
  });
}

/** A record's fields as pieces: [field number, repetition?, component?, wire text]. */
export function piecesOf(record: string, d: Delimiters): Array<{ field: number; repetition?: number; component?: number; text: string }> {
  const header = isHeaderText(record);
  const fields = record.split(d.field);
  const out: Array<{ field: number; repetition?: number; component?: number; text: string }> = [];
  fields.forEach((text, i) => {
    const field = i + 1;
    // The type letter and the H record's delimiter definition are no values.
    if (field === 1 || (header && field === 2)) return;
    const repeats = d.repeat === '' ? [text] : text.split(d.repeat);
    repeats.forEach((rep, r) => {
      const components = d.component === '' ? [rep] : rep.split(d.component);
      components.forEach((c, k) => {
        out.push({ field, ...(repeats.length > 1 ? { repetition: r + 1 } : {}), ...(components.length > 1 ? { component: k + 1 } : {}), text: c });
      });
    });
  });
  return out;
}

export function captureOf(messages: readonly string[][]): Capture {
  const capture: Capture = { messages: [] };
  let budget: number = CAPTURE_LIMITS.tokens;
  messages.forEach((records, m) => {
    const lines: Capture['messages'][number]['lines'] = [];
    capture.messages.push({ lines });
    const delimiters = delimitersOf(records);
    records.forEach((record, r) => {
      if (r >= CAPTURE_LIMITS.linesPerMessage || budget <= 0) {
        capture.truncated = true;
        return;
      }
      const d = delimiters[r] ?? DEFAULT_DELIMITERS;
      const type = record.charAt(0);
      const tokens: CaptureToken[] = [];
      const header = isHeaderText(record);
      const fields = record.split(d.field);
      // The separators are drawn as sent; each non-empty piece is a place.
      tokens.push({ text: header ? `${type}${d.field}${fields[1] ?? ''}` : type });
      const pieces = piecesOf(record, d);
      let last: { field: number; repetition?: number } = { field: header ? 2 : 1 };
      for (const p of pieces) {
        if (p.field !== last.field) tokens.push({ text: d.field.repeat(p.field - last.field) });
        else if (p.repetition !== last.repetition) tokens.push({ text: d.repeat });
        else tokens.push({ text: d.component });
        last = p;
        if (p.text !== '') tokens.push({ text: p.text, place: { message: m + 1, record: r + 1, type, field: p.field, ...(p.repetition === undefined ? {} : { repetition: p.repetition }), ...(p.component === undefined ? {} : { component: p.component }) } });
      }
      const merged = mergeSeparators(tokens);
      // A record of 20,000 repeats is drawn up to what is left of the budget.
      if (merged.length > budget) {
        merged.length = budget;
        capture.truncated = true;
      }
      budget -= merged.length;
      lines.push({ label: `${type} ${r + 1}`, tokens: merged });
    });
  });
  return capture;
}

/** Neighbouring separators as one token: fewer elements for the editor to draw. */
function mergeSeparators(tokens: CaptureToken[]): CaptureToken[] {
  const out: CaptureToken[] = [];
  for (const t of tokens) {
    const prev = out[out.length - 1];
    if (t.place === undefined && prev !== undefined && prev.place === undefined) prev.text += t.text;
    else out.push(t);
  }
  return out;
}
