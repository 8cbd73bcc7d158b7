/**
 * What of a file's own text a reason may quote: the few characters that show
 * which cell or line is meant, never more. Reasons go to warnings, Catch
 * nodes, the journal and `error/`'s reason files, where a file's content does
 * not belong (a file may hold what no operator should read there).
 */

/** At most this many characters of a file's text in one reason. */
export const EXCERPT_CHARS = 80;

/** `text` cut to `max` characters, with an ellipsis when it was longer. */
export function clip(text: string, max = EXCERPT_CHARS / 2): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** `text` clipped and quoted. */
export function excerpt(text: string, max = EXCERPT_CHARS / 2): string {
  return JSON.stringify(clip(text, max));
}

/**
 * Several of a file's texts (a header's column names, a workbook's sheet
 * names) quoted and listed up to `max` characters of them in all, then how
 * many there are; `numbered` puts each one's position (from 1) before it.
 */
export function excerptList(texts: readonly string[], max = EXCERPT_CHARS, numbered = false): string {
  const parts: string[] = [];
  let left = max;
  for (const [i, t] of texts.entries()) {
    if (left <= 0) break;
    parts.push(`${numbered ? `${i + 1} ` : ''}${excerpt(t, left)}`);
    left -= t.length;
  }
  const listed = parts.join(', ');
  return parts.length < texts.length ? `${listed}, … (${texts.length} in all)` : listed;
}
