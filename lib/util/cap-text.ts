/**
 * What an analyzer says about itself (ASTM H-5, HL7 MSH-3) is kept per
 * session for routing, becomes a Prometheus label and a row of the Lab
 * sidebar: one message with a 1 MB MSH-3 made every scrape 8 MB until a
 * restart (issue 23). Its length is capped here, for every place that keeps it.
 */
export const MAX_LABEL_CHARS = 64;
/** The whole sender field, as the sidebar shows it and routing matches it. */
export const MAX_SENDER_CHARS = 256;

/**
 * `text` cut to at most `max` characters, the last one an ellipsis when cut.
 * A cut never splits a surrogate pair, and the result is a copy: a slice of a
 * long string would keep the whole of it in memory.
 */
export function capText(text: string, max = MAX_LABEL_CHARS): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return Buffer.from(`${text.slice(0, end)}…`, 'utf8').toString('utf8');
}
